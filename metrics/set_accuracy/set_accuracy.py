"""MediConfusion set accuracy, individual accuracy and confusion score (evaluate module).

A thin face over :func:`medvigil.suites.mediconfusion.scoring.score_rows`; no second implementation.
"""

import datasets
import evaluate

from medvigil import citations
from medvigil.suites.mediconfusion.scoring import CONFUSION_DENOMINATORS, score_rows

_DESCRIPTION = """\
MediConfusion asks the same two-option question about two images whose correct answers
differ (a "confusing pair"). Given one answer per image:

- set accuracy = pairs with both images answered correctly / pairs;
- individual accuracy = correctly answered images / images;
- confusion = pairs whose two answers are valid and equal / pairs whose two answers are
  both valid (paper Sec. 3.1; ``confusion_denominator="all_pairs"`` divides by all pairs);
- invalid = images without a valid answer (an empty prediction string).

With the ``categories`` configuration every image also carries its list of categories
and the counts and rates are broken down per category: a pair-level event counts once
per category occurrence on both images, an image-level event once per category of that
image, and a category's accuracies are over its number of image occurrences (as in the
authors' scoring code and Table 3).
Random guessing scores 25 % set and 50 % individual accuracy.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the answer letter for each image; an empty string
        marks an invalid answer (no option chosen).
    references (`list` of `str`): the correct letter for each image.
    pair_ids (`list` of `str`): the pair of each image. Each pair id occurs exactly twice;
        its first row is image 1 and its second row image 2.
    categories (`list` of `list` of `str`, configuration ``"categories"`` only): the
        categories of each image.
    confusion_denominator (`str`, default ``"both_valid"``): ``"both_valid"`` (paper and
        authors' code) or ``"all_pairs"``.
Returns:
    n_pairs (`int`), n_images (`int`),
    set_correct, individual_correct, confused, invalid, both_valid_pairs (`int`): counts,
    set_accuracy (`float`): in [0, 1], higher is better,
    individual_accuracy (`float`): in [0, 1], higher is better,
    confusion (`float`): in [0, 1], lower is better (`None` if no pair has two valid answers),
    invalid_rate (`float`): invalid images / images, lower is better,
    precision (`float`): set_correct / pairs with two valid, different answers,
    confusion_denominator (`str`): the denominator used,
    per_category (`dict`, configuration ``"categories"`` only): per category the counts
        ``images``, ``set_correct``, ``individual_correct``, ``confused``, ``invalid``,
        ``both_valid`` and the rates ``set_accuracy``, ``individual_accuracy``,
        ``confusion``, ``invalid_rate``.
Examples:
    Two pairs: the first answered right on both images, the second with the same
    letter twice (confused).

    >>> set_accuracy = evaluate.load("metrics/set_accuracy")
    >>> r = set_accuracy.compute(predictions=["A", "B", "A", "A"], references=["A", "B", "B", "A"],
    ...                          pair_ids=["10001", "10001", "10002", "10002"])
    >>> r["set_accuracy"], r["individual_accuracy"], r["confusion"], r["invalid"]
    (0.5, 0.75, 0.5, 0)

    An invalid answer (empty string) removes its pair from the confusion denominator.

    >>> r = set_accuracy.compute(predictions=["A", "", "B", "B"], references=["A", "B", "B", "A"],
    ...                          pair_ids=["p1", "p1", "p2", "p2"])
    >>> r["invalid"], r["both_valid_pairs"], r["confusion"]
    (1, 1, 1.0)
    >>> set_accuracy.compute(predictions=["A", "", "B", "B"], references=["A", "B", "B", "A"],
    ...                      pair_ids=["p1", "p1", "p2", "p2"],
    ...                      confusion_denominator="all_pairs")["confusion"]
    0.5

    Per category:

    >>> by_cat = evaluate.load("metrics/set_accuracy", "categories")
    >>> r = by_cat.compute(predictions=["A", "B", "A", "A"], references=["A", "B", "B", "A"],
    ...                    pair_ids=["p1", "p1", "p2", "p2"],
    ...                    categories=[["Cardiac"], ["Cardiac", "Vascular"],
    ...                                ["Spinal"], ["Spinal"]])
    >>> r["per_category"]["Cardiac"]["images"], r["per_category"]["Cardiac"]["set_correct"]
    (2, 2)
    >>> r["per_category"]["Spinal"]["confusion"]
    1.0
"""

_CITATION = citations.MEDICONFUSION + "\n"

_BASE_FEATURES = {
    "predictions": datasets.Value("string"),
    "references": datasets.Value("string"),
    "pair_ids": datasets.Value("string"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SetAccuracy(evaluate.Metric):
    """MediConfusion set accuracy, individual accuracy and confusion."""

    def _info(self):
        if self.config_name not in ("default", "categories"):
            raise ValueError(
                f"unknown configuration {self.config_name!r}; available: default, categories"
            )
        features = dict(_BASE_FEATURES)
        if self.config_name == "categories":
            features["categories"] = datasets.Sequence(datasets.Value("string"))
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(features),
            reference_urls=["https://github.com/MShahabSepehri/MediConfusion"],
        )

    def _compute(
        self, predictions, references, pair_ids, categories=None, confusion_denominator="both_valid"
    ):
        if confusion_denominator not in CONFUSION_DENOMINATORS:
            raise ValueError(
                f"confusion_denominator must be one of {CONFUSION_DENOMINATORS}, "
                f"got {confusion_denominator!r}"
            )
        score = score_rows(
            predictions,
            references,
            pair_ids,
            categories,
            confusion_denominator=confusion_denominator,
        )
        result = score.to_dict()
        if categories is None:
            del result["per_category"]
        return result
