"""lmms-eval hooks for the Consistent-but-Dangerous task pack (seed 004) on MedVIGIL data.

Docs, records and scores are the suite's (:mod:`medvigil.suites.cbd.docs`,
:mod:`~medvigil.suites.cbd.binary_docs`, :mod:`~medvigil.suites.cbd.records`,
:mod:`~medvigil.suites.cbd.task_metrics`; quadrant table via :mod:`medvigil.suites.cbd.scoring`);
the prompt is MedVIGIL's Appendix L prompt (:func:`medvigil.mcq.prompting.build_k_option_prompt`,
the same layout for K options). Nothing is re-implemented here.

Each task loads the one-row ``_pointer.jsonl``; ``process_docs`` swaps in the docs of its arm(s).
A doc's ``condition`` says the arm: ``default`` shows the image, ``noimg`` withholds it.
"""

from PIL import Image

from medvigil.mcq.prompting import build_k_option_prompt
from medvigil.mcq.retry import ATTEMPTS, doc_key
from medvigil.records.probe_record import metric_values, records_of
from medvigil.records.sent_inputs import with_sent_inputs
from medvigil.suites.cbd.arm_scoring import quadrant_table
from medvigil.suites.cbd.arms import ARMS, BINARY_ARMS, BINARY_CHOICES, PROPOSED_ARMS
from medvigil.suites.cbd.binary_docs import NULL_IMAGE_SIZE, load_binary_docs
from medvigil.suites.cbd.docs import load_docs
from medvigil.suites.cbd.records import make_binary_record, make_record
from medvigil.suites.cbd.task_metrics import (
    BINARY_METRICS,
    IMAGE_METRICS,
    NOIMG_METRICS,
    QUADRANT_METRICS,
    arm_metrics,
    binary_metrics,
    table_metrics,
)
from medvigil.suites.medvigil.release.release_format import SYSTEM_PROMPT

# ---------------------------------------------------------------- data (process_docs)


def load_image_arm(_pointer):
    return load_docs(["image"])


def load_noimg_arm(_pointer):
    return load_docs(["noimg"])


def load_both_arms(_pointer):
    return load_docs(["image", "noimg"])


def load_binary_arms(_pointer):
    return load_binary_docs()


def load_binary_proposed_arms(_pointer):
    return load_binary_docs(form="proposed")


# ---------------------------------------------------------------- prompt and image


def cbd_doc_to_visual(doc: dict) -> list:
    image = doc.get("image")
    if image is None or doc.get("condition") in (
        ARMS["noimg"],
        BINARY_ARMS["noimg"],
        PROPOSED_ARMS["noimg"],
    ):
        return []  # Sec. 3.2: the image is omitted entirely, not replaced
    if doc.get("condition") in (
        BINARY_ARMS["null"],
        PROPOSED_ARMS["null"],
    ):
        return [Image.new("RGB", NULL_IMAGE_SIZE, 0)]  # Sec. 5: black 224 x 224
    return [image.convert("RGB")]  # the swap doc's row is the donor case's: its image


def cbd_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    prompt = build_k_option_prompt(doc["question"], doc["options"])
    return f"{kwargs.get('pre_prompt', '')}{prompt}{kwargs.get('post_prompt', '')}"


def cbd_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form: the Appendix L system turn, then the image (image arm only) and the prompt."""
    kwargs = dict(lmms_eval_specific_kwargs or {}, pre_prompt="")
    content = [{"type": "image", "url": image} for image in cbd_doc_to_visual(doc)]
    content.append({"type": "text", "text": cbd_doc_to_text(doc, kwargs)})
    return [
        {"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]},
        {"role": "user", "content": content},
    ]


def cbd_binary_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The yes/no question (no options block: the continuations are " yes" and " no"): "Is there
    [finding]?" and its paraphrases (``cbd_binary``), or the proposed-answer form
    (``cbd_binary_proposed``)."""
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['question']}{kwargs.get('post_prompt', '')}"


def cbd_binary_doc_to_choice(doc: dict) -> list:
    return list(doc["choices"])


def cbd_binary_doc_to_target(doc: dict) -> int:
    """The answer as asked (a negated paraphrase's is the opposite of ``correct_letter``, which is
    in the polarity of q: :mod:`medvigil.suites.cbd.presence`)."""
    return BINARY_CHOICES.index(doc["binary_label"])


def cbd_binary_process_results(doc: dict, results: list) -> dict:
    """``results``: one ``(loglikelihood, is_greedy)`` per continuation (yes, no)."""
    record = with_sent_inputs(
        make_binary_record(doc, results), cbd_doc_to_visual(doc), doc["condition"]
    )
    return metric_values(record, BINARY_METRICS)


def _binary_metric(records: list, name: str) -> float:
    return binary_metrics(records_of(records))[name]


def cbd_binary_frac_ideal(records: list) -> float:
    return _binary_metric(records, "frac_ideal")


def cbd_binary_frac_fragile(records: list) -> float:
    return _binary_metric(records, "frac_fragile")


def cbd_binary_frac_dangerous(records: list) -> float:
    return _binary_metric(records, "frac_dangerous")


def cbd_binary_frac_worst(records: list) -> float:
    return _binary_metric(records, "frac_worst")


def cbd_binary_flip_rate(records: list) -> float:
    return _binary_metric(records, "flip_rate")


def cbd_binary_image_reliance(records: list) -> float:
    return _binary_metric(records, "image_reliance")


def cbd_binary_accuracy(records: list) -> float:
    return _binary_metric(records, "accuracy")


def cbd_binary_acc_ideal(records: list) -> float:
    return _binary_metric(records, "acc_ideal")


def cbd_binary_acc_fragile(records: list) -> float:
    return _binary_metric(records, "acc_fragile")


def cbd_binary_acc_dangerous(records: list) -> float:
    return _binary_metric(records, "acc_dangerous")


def cbd_binary_acc_worst(records: list) -> float:
    return _binary_metric(records, "acc_worst")


def cbd_binary_excluded(records: list) -> float:
    return _binary_metric(records, "excluded")


def cbd_binary_mean_entropy(records: list) -> float:
    return _binary_metric(records, "mean_entropy")


# ---------------------------------------------------------------- results and aggregation

KINDS = {
    "quadrants": QUADRANT_METRICS,
    "image": IMAGE_METRICS,
    "noimg": NOIMG_METRICS,
}


def _process(doc: dict, results: list, kind: str) -> dict:
    record = make_record(doc, results[0] if results else "", ATTEMPTS.take(doc_key(doc)))
    with_sent_inputs(record, cbd_doc_to_visual(doc), doc["condition"])
    return metric_values(record, KINDS[kind])


def _metric(records: list, kind: str, name: str) -> float:
    records = records_of(records)
    if kind == "quadrants":
        (result,) = quadrant_table(records).values()  # one model per run
        return table_metrics(result)[name]
    return arm_metrics(records, kind)[name]


def cbd_quadrants_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results, "quadrants")


def cbd_image_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results, "image")


def cbd_noimg_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results, "noimg")


def cbd_quadrants_frac_ideal(records: list) -> float:
    return _metric(records, "quadrants", "frac_ideal")


def cbd_quadrants_frac_fragile(records: list) -> float:
    return _metric(records, "quadrants", "frac_fragile")


def cbd_quadrants_frac_dangerous(records: list) -> float:
    return _metric(records, "quadrants", "frac_dangerous")


def cbd_quadrants_frac_worst(records: list) -> float:
    return _metric(records, "quadrants", "frac_worst")


def cbd_quadrants_flip_rate(records: list) -> float:
    return _metric(records, "quadrants", "flip_rate")


def cbd_quadrants_image_reliance(records: list) -> float:
    return _metric(records, "quadrants", "image_reliance")


def cbd_quadrants_accuracy(records: list) -> float:
    return _metric(records, "quadrants", "accuracy")


def cbd_quadrants_acc_ideal(records: list) -> float:
    return _metric(records, "quadrants", "acc_ideal")


def cbd_quadrants_acc_fragile(records: list) -> float:
    return _metric(records, "quadrants", "acc_fragile")


def cbd_quadrants_acc_dangerous(records: list) -> float:
    return _metric(records, "quadrants", "acc_dangerous")


def cbd_quadrants_acc_worst(records: list) -> float:
    return _metric(records, "quadrants", "acc_worst")


def cbd_quadrants_excluded(records: list) -> float:
    return _metric(records, "quadrants", "excluded")


def cbd_image_accuracy(records: list) -> float:
    return _metric(records, "image", "accuracy")


def cbd_image_flip_rate(records: list) -> float:
    return _metric(records, "image", "flip_rate")


def cbd_image_excluded(records: list) -> float:
    return _metric(records, "image", "excluded")


def cbd_image_parse_failures(records: list) -> float:
    return _metric(records, "image", "parse_failures")


def cbd_noimg_accuracy(records: list) -> float:
    return _metric(records, "noimg", "accuracy")


def cbd_noimg_parse_failures(records: list) -> float:
    return _metric(records, "noimg", "parse_failures")
