"""The per-probe record every task pack's ``process_results`` returns.

One constructor for ``schemas/probe_record.schema.json``: the task packs (``tasks/*/utils.py``
and the ``medvigil/*_tasks.py`` modules) differ only in what they put in ``extra`` and in
how they read the letter; the record's fields, their order and the parse rule live here.
"""

from collections.abc import Mapping
from typing import Any

RUN_MODEL_NAME = "lmms-eval-run"  # a hook cannot know the model; re-scoring names it from the run

REQUIRED_IDENTITY = ("probe_id", "case_id", "probe_kind")
OPTIONAL_IDENTITY = ("risk_tier", "source_dataset", "modality", "text_only_answerable")


def probe_record(
    suite: str,
    doc: Mapping[str, Any],
    *,
    condition: str,
    predicted_letter: str | None,
    raw_response: str | None,
    extra: dict,
    correct_letter: str | None = None,
    retries: int = 0,
    **identity: Any,
) -> dict[str, Any]:
    """The record of one answered doc, in the schema's field order.

    The probe's identity (probe_id, case_id, probe_kind, risk_tier, source_dataset, modality,
    text_only_answerable) is read from ``doc`` unless given in ``identity``, which may also
    carry ``category``; ``correct_letter`` defaults to the doc's. ``parse_status`` is ``ok``
    when a letter was read, else ``parse_failure``.
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
    record.update(
        correct_letter=doc["correct_letter"] if correct_letter is None else correct_letter,
        predicted_letter=predicted_letter,
        parse_status="ok" if predicted_letter is not None else "parse_failure",
        raw_response=raw_response,
        retries=retries,
        extra=extra,
    )
    return record
