"""lmms-eval hooks for MedQ-DEG-Bench (the authors' release, built by ``medvigil medqdeg-build``).

A thin face over :mod:`medvigil.suites.medqdeg.bench_docs` (docs, records) and
:mod:`medvigil.suites.medqdeg.docs` (the Appendix B prompt) and
:mod:`medvigil.suites.medqdeg.records` (the scores); nothing is
re-implemented here. Each task loads the bundled ``_pointer.jsonl`` and ``process_docs`` swaps in
its config of the build found through ``MEDQDEG_DATA``.
"""

from medvigil.records.probe_record import metric_values, records_of
from medvigil.records.sent_inputs import with_sent_inputs
from medvigil.suites.medqdeg.bench_docs import docs, record
from medvigil.suites.medqdeg.docs import answer_prompt
from medvigil.suites.medqdeg.records import METRICS, responses_of, task_score


def load_good_test(_pointer):
    return docs("good_test")


def load_simulate_test(_pointer):
    return docs("simulate_test")


def load_good_dev(_pointer):
    return docs("good_dev")


def load_simulate_dev(_pointer):
    return docs("simulate_dev")


def medqdeg_bench_doc_to_visual(doc: dict) -> list:
    """The release's image as it is (degraded rows are degraded already), as RGB."""
    image = doc.get("image")
    return [] if image is None else [image.convert("RGB")]


def medqdeg_bench_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The paper's prompt (Appendix B); ``pre_prompt`` / ``post_prompt`` are empty by default."""
    kwargs = lmms_eval_specific_kwargs or {}
    prompt = answer_prompt(doc["question"], doc["options"])
    return f"{kwargs.get('pre_prompt', '')}{prompt}{kwargs.get('post_prompt', '')}"


def medqdeg_bench_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form: one user turn, the image then the paper's prompt; no system message."""
    content = [{"type": "image", "url": image} for image in medqdeg_bench_doc_to_visual(doc)]
    text = medqdeg_bench_doc_to_text(doc, lmms_eval_specific_kwargs)
    content.append({"type": "text", "text": text})
    return [{"role": "user", "content": content}]


def medqdeg_bench_process_results(doc: dict, results: list) -> dict:
    """All ``T`` repeats arrive together (the ``strip_thinking`` filter keeps the list)."""
    rec = record(doc, responses_of(results))
    with_sent_inputs(rec, medqdeg_bench_doc_to_visual(doc), rec["condition"])
    return metric_values(rec, METRICS)


# one aggregator per metric of medvigil.suites.medqdeg.records.METRICS (the names the YAMLs call)


def medqdeg_bench_aggregate_accuracy(records: list) -> float:
    return task_score(records_of(records), "accuracy")


def medqdeg_bench_aggregate_mean_confidence(records: list) -> float:
    return task_score(records_of(records), "mean_confidence")


def medqdeg_bench_aggregate_calibration_shift(records: list) -> float:
    return task_score(records_of(records), "calibration_shift")
