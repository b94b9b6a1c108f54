"""lmms-eval hooks for the MedQ-Deg task pack (seed 002) on MedVIGIL data.

A thin face over :mod:`medvigil.suites.medqdeg.docs` (docs, degraded images),
:mod:`medvigil.suites.medqdeg.records` (records, scores) and
:mod:`medvigil.suites.medqdeg.degradations`; nothing is re-implemented here. Like the medvigil
tasks, each task loads the bundled ``_pointer.jsonl`` and ``process_docs`` swaps in the built
``mcq`` config found through ``MEDVIGIL_DATA``.
"""

from medvigil.mcq.adapter import load_mcq
from medvigil.records.probe_record import metric_values, records_of
from medvigil.records.sent_inputs import with_sent_inputs
from medvigil.suites.medqdeg.docs import answer_prompt, plan_docs, render, types_per_probe
from medvigil.suites.medqdeg.records import METRICS, record, responses_of, task_score

_PLAN_COLUMNS = ("probe_kind", "image_status", "image_file", "modality")


def _load(level: int, experiment: str = "calibration"):
    data = load_mcq()  # MedVIGIL mcq, or any dataset through MEDVIGIL_MCQ_ADAPTER
    rows = [dict(zip(_PLAN_COLUMNS, values)) for values in zip(*(data[c] for c in _PLAN_COLUMNS))]
    plan = plan_docs(rows, level, types_per_probe())
    docs = data.select([p["row"] for p in plan])
    return docs.map(
        lambda _, i: {
            "degradation": plan[i]["degradation"],
            "severity": level,
            "experiment": experiment,
        },
        with_indices=True,
        input_columns=["probe_id"],
        desc=f"medqdeg L{level} docs ({experiment})",
    )


def load_L0(_pointer):
    return _load(0)


def load_L1(_pointer):
    return _load(1)


def load_L2(_pointer):
    return _load(2)


def load_acc_L0(_pointer):
    return _load(0, "accuracy")


def load_acc_L1(_pointer):
    return _load(1, "accuracy")


def load_acc_L2(_pointer):
    return _load(2, "accuracy")


def medqdeg_doc_to_visual(doc: dict) -> list:
    image = render(doc)
    return [] if image is None else [image]


def medqdeg_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The paper's prompt (Appendix B); ``pre_prompt`` / ``post_prompt`` are empty by default."""
    kwargs = lmms_eval_specific_kwargs or {}
    prompt = answer_prompt(doc["question"], doc["options"])
    return f"{kwargs.get('pre_prompt', '')}{prompt}{kwargs.get('post_prompt', '')}"


def medqdeg_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form: one user turn, the degraded image then the paper's prompt; no system message."""
    content = [{"type": "image", "url": image} for image in medqdeg_doc_to_visual(doc)]
    content.append({"type": "text", "text": medqdeg_doc_to_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


def medqdeg_process_results(doc: dict, results: list) -> dict:
    """All ``T`` repeats arrive together (the ``strip_thinking`` filter keeps the list)."""
    rec = record(doc, responses_of(results))
    with_sent_inputs(rec, medqdeg_doc_to_visual(doc), rec["condition"])
    return metric_values(rec, METRICS)


# one aggregator per metric of medvigil.suites.medqdeg.records.METRICS (the names the YAMLs call)


def medqdeg_aggregate_accuracy(records: list) -> float:
    return task_score(records_of(records), "accuracy")


def medqdeg_aggregate_mean_confidence(records: list) -> float:
    return task_score(records_of(records), "mean_confidence")


def medqdeg_aggregate_calibration_shift(records: list) -> float:
    return task_score(records_of(records), "calibration_shift")
