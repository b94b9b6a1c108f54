"""The per-probe record every task pack's ``process_results`` returns, and what it hands lmms-eval.

One constructor for ``schemas/probe_record.schema.json``: the task packs (``tasks/*/utils.py``
and the ``medvigil/*_tasks.py`` modules) differ only in what they put in ``extra`` and in
how they read the letter; the record's fields, their order and the parse rule live here.

:func:`metric_values` is what every task's ``process_results`` returns for its metrics: the record
once, and under each other metric a :class:`MetricValue` (the doc's ``score`` and ``case_id``, which
lmms-eval's clustered standard error reads; the record rides along in memory for the aggregator,
unlogged), so a log line holds the record once however many metrics the task has.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

RUN_MODEL_NAME = "lmms-eval-run"  # a hook cannot know the model; re-scoring names it from the run

REQUIRED_IDENTITY = ("probe_id", "case_id", "probe_kind")
OPTIONAL_IDENTITY = ("risk_tier", "source_dataset", "modality", "text_only_answerable")
SCORE_METRIC = "score"  # the per-doc score as a metric of its own: lmms-eval's --baseline reads it


def correctness(predicted_letter: str | None, correct_letter: str) -> float:
    """The doc's correctness: 1.0 when the letter read is the gold letter, else 0.0 (a parse
    failure is wrong)."""
    return 1.0 if predicted_letter is not None and predicted_letter == correct_letter else 0.0


def probe_record(
    suite: str,
    doc: Mapping[str, Any],
    *,
    condition: str,
    predicted_letter: str | None,
    raw_response: str | None,
    extra: dict,
    correct_letter: str | None = None,
    attempts: Sequence[str] | None = None,
    score: float | None = None,
    **identity: Any,
) -> dict[str, Any]:
    """The record of one answered doc, in the schema's field order.

    The probe's identity (probe_id, case_id, probe_kind, risk_tier, source_dataset, modality,
    text_only_answerable) is read from ``doc`` unless given in ``identity``, which may also
    carry ``category``; ``correct_letter`` defaults to the doc's. ``parse_status`` is ``ok``
    when a letter was read, else ``parse_failure``. ``score`` is the doc's per-doc score in
    [0, 1] (lmms-eval's ``score``), by default its :func:`correctness`. ``attempts``: every response
    of the Appendix L retry wrapper (``--model retry``), if any: ``retries`` is their number less
    one, and more than one are kept in ``extra["attempts"]``.
    """
    unknown = set(identity) - {*REQUIRED_IDENTITY, *OPTIONAL_IDENTITY, "category"}
    if unknown:
        raise TypeError(f"probe_record: unknown field(s) {', '.join(sorted(unknown))}")
    record: dict[str, Any] = {"suite": suite, "model": RUN_MODEL_NAME, "condition": condition}
    for name in REQUIRED_IDENTITY:
        record[name] = identity[name] if name in identity else doc[name]
    for name in OPTIONAL_IDENTITY:
        record[name] = identity[name] if name in identity else doc.get(name)
    if "category" in identity:
        record["category"] = identity["category"]
    correct = doc["correct_letter"] if correct_letter is None else correct_letter
    record.update(
        correct_letter=correct,
        predicted_letter=predicted_letter,
        parse_status="ok" if predicted_letter is not None else "parse_failure",
        score=correctness(predicted_letter, correct) if score is None else float(score),
        raw_response=raw_response,
        retries=len(attempts) - 1 if attempts else 0,
        extra={**extra, "attempts": list(attempts)} if attempts and len(attempts) > 1 else extra,
    )
    return record


class MetricValue(dict):
    """A record's value under a metric other than the task's first: ``{score, case_id}`` as JSON
    (what lmms-eval logs and clusters its standard error by), the whole record as ``.record``
    for the metric's aggregator (kept in memory and pickled between ranks, never logged)."""

    __slots__ = ("record",)

    def __init__(self, record: Mapping[str, Any]):
        super().__init__(score=record["score"], case_id=record["case_id"])
        self.record = record


def metric_values(record: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """What ``process_results`` returns for a task whose metrics are ``names``: the record under the
    first (the one the log readers read, :mod:`medvigil.records.lmms_eval_logs`), a
    :class:`MetricValue` under each other, and the plain per-doc score under :data:`SCORE_METRIC`
    (lmms-eval's paired ``--baseline`` test reads a number there)."""
    first, *others = names
    values: dict[str, Any] = {first: record}
    for name in others:
        values[name] = MetricValue(record)
    values[SCORE_METRIC] = record["score"]
    return values


def records_of(items: Iterable[Any]) -> list:
    """The records behind a metric's per-doc values (a record, or a :class:`MetricValue`'s)."""
    return [item.record if isinstance(item, MetricValue) else item for item in items]
