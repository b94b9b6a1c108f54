"""MedQ-Deg Calibration Shift and perceived confidence (evaluate module).

A thin face over :func:`medvigil.suites.medqdeg.scoring.score_trials`; no second implementation.
"""

import datasets
import evaluate

from medvigil import citations
from medvigil.suites.medqdeg.sample_scores import (
    ACCURACY_RULES,
    ALL_INVALID_RULES,
    INVALID_POLICIES,
)
from medvigil.suites.medqdeg.scoring import score_trials

_DESCRIPTION = """\
Calibration Shift (MedQ-Deg, Eq. 4) is the gap between a model's perceived confidence and
its accuracy: Delta_calib = mean_x C(x) - Acc. Perceived confidence comes from T repeated
answers to the same question (temperature 1.0): with p_i the share of trials answering
option i of K, H = -sum_i p_i ln p_i and C(x) = 1 - H / ln K (Eq. 3), in [0, 1]; the
logarithm base cancels in H / log K. Positive Delta_calib = overconfident.

With the ``degradation`` configuration every sample also has a degradation type and a
severity (0 = clean L0, 1 = mild L1, 2 = severe L2), and the result adds the breakdown
by severity and degradation, the accuracy drops from L0 (Table 6) and the intra-model
AI Dunning-Kruger flag (Eq. 5: Acc_L0 > Acc_L2 and Delta_L0 <= Delta_L2).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `list` of `str`): per sample, the T trial answers (letters);
        an empty string is a trial without a valid letter (counted as incorrect).
    references (`list` of `str`): the correct letter of each sample.
    n_options (`list` of `int`): K, the number of answer options of each sample (>= 2).
    degradations (`list` of `str`, configuration ``"degradation"`` only): degradation type.
    severities (`list` of `int`, configuration ``"degradation"`` only): 0, 1 or 2.
    accuracy_rule (`str`, default ``"trial_mean"``): ``"trial_mean"`` = share of correct
        trials per sample; ``"plurality"`` = the most voted letter (ties to the lowest).
    invalid_policy (`str`, default ``"extra_bin"``): invalid trials form one extra outcome
        in H (C clipped to [0, 1]); ``"drop"`` renormalises over the valid trials.
    all_invalid (`str`, default ``"zero"``): a sample with no valid trial gets C = 0;
        ``"exclude"`` leaves it out (counted in ``n_excluded_all_invalid``); ``"extra_bin"``
        gives what ``invalid_policy`` gives (C = 1 under ``"extra_bin"``).
Returns:
    n (`int`): samples,
    accuracy (`float`): in [0, 1], higher is better,
    mean_confidence (`float`): mean C(x), in [0, 1],
    calibration_shift (`float`): in [-1, 1]; 0 = calibrated, > 0 overconfident
        (closer to 0 is better),
    accuracy_rule, invalid_policy (`str`): the choices used,
    by_severity, by_degradation, by_degradation_severity, drops,
    intra_model_dke (configuration ``"degradation"`` only; drops per type, paired on
    questions, need the question ids: ``medvigil score --suite medqdeg``).
Examples:
    One model, K = 4, T = 10 (project spec example 2, clean images):

    >>> calibration_shift = evaluate.load("metrics/calibration_shift")
    >>> r = calibration_shift.compute(predictions=[list("AAAAAAAAAA"), list("AAAAAAAABB")],
    ...                               references=["A", "A"], n_options=[4, 4])
    >>> r["accuracy"], round(r["mean_confidence"], 4), round(r["calibration_shift"], 4)
    (0.9, 0.8195, -0.0805)

    The same questions at severity L2, where the model is confidently wrong on one:

    >>> by_level = evaluate.load("metrics/calibration_shift", "degradation")
    >>> r = by_level.compute(
    ...     predictions=[list("AAAAAAAAAA"), list("AAAAAAAABB"),
    ...                  list("BBBBBBBBBB"), list("AAAAAAAAAB")],
    ...     references=["A", "A", "A", "A"], n_options=[4, 4, 4, 4],
    ...     degradations=["clean", "clean", "motion_blur", "motion_blur"], severities=[0, 0, 2, 2])
    >>> round(r["by_severity"]["L2"]["calibration_shift"], 4), r["intra_model_dke"]
    (0.4328, True)
    >>> round(r["drops"]["L2-L0"], 2)
    -0.45
"""

_CITATION = citations.MEDQDEG + "\n"

_BASE_FEATURES = {
    "predictions": datasets.Sequence(datasets.Value("string")),
    "references": datasets.Value("string"),
    "n_options": datasets.Value("int32"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CalibrationShift(evaluate.Metric):
    """MedQ-Deg Calibration Shift (Eq. 4) with perceived confidence from repeated votes (Eq. 3)."""

    def _info(self):
        if self.config_name not in ("default", "degradation"):
            raise ValueError(
                f"unknown configuration {self.config_name!r}; available: default, degradation"
            )
        features = dict(_BASE_FEATURES)
        if self.config_name == "degradation":
            features["degradations"] = datasets.Value("string")
            features["severities"] = datasets.Value("int32")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(features),
            reference_urls=[
                "https://arxiv.org/abs/2603.07769",
                "https://uni-medical.github.io/MedQ-Robust-web",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        n_options,
        degradations=None,
        severities=None,
        accuracy_rule="trial_mean",
        invalid_policy="extra_bin",
        all_invalid="zero",
    ):
        if accuracy_rule not in ACCURACY_RULES:
            raise ValueError(
                f"accuracy_rule must be one of {ACCURACY_RULES}, got {accuracy_rule!r}"
            )
        if invalid_policy not in INVALID_POLICIES:
            raise ValueError(
                f"invalid_policy must be one of {INVALID_POLICIES}, got {invalid_policy!r}"
            )
        if all_invalid not in ALL_INVALID_RULES:
            raise ValueError(f"all_invalid must be one of {ALL_INVALID_RULES}, got {all_invalid!r}")
        return score_trials(
            predictions,
            references,
            list(n_options),
            degradations,
            severities,
            accuracy_rule=accuracy_rule,
            invalid_policy=invalid_policy,
            all_invalid=all_invalid,
        )
