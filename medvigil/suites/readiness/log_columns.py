"""Score one model's Illusion-of-Readiness logs from arrow columns, without a Python object per record.

The accelerated twin of reading the logs with :func:`medvigil.records.suite_logs.read_suite_records`
and scoring the records with :func:`medvigil.suites.readiness.protocol.readiness_from_records`: each
file's records are cut out and checked against the record schema as arrow columns
(:func:`medvigil.records.log_columns.suite_files_table`), and the arrays the scoring reads
(:class:`medvigil.suites.readiness.scoring.ModelRows`) are taken from the columns for the same
kernel (:func:`~medvigil.suites.readiness.scoring.model_scores`). Declined, for the dicts to
read: chain-of-thought records (T6 reads their answers' texts), a probe answered twice in one
condition, ``extra.options_shown`` that is not a list, ``extra.laterality_dependent`` that is
not a boolean. ``tests/test_readiness_columns.py`` checks that both give the same scores and
that what the dict reader refuses is declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medvigil.records.arrow_codes import dictionary_codes
from medvigil.records.log_columns import coded_letters, suite_files_table
from medvigil.suites.readiness.scoring import READINESS_CONDITIONS, ModelRows, model_scores

_DEFAULT = "default"  # the condition of a record without one (the dicts' rule)


def model_result(files: Sequence[str | Path], model: str, *, allow_partial: bool) -> tuple[int, dict[str, Any]] | None:
    """The record count and the readiness scores of one model's logs, or None: read the files as dicts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    checked = suite_files_table(files, "readiness")
    if checked is None:
        return None
    table = checked[0]
    n = table.num_rows
    column = table.column
    names = set(table.column_names)

    levels, codes = dictionary_codes(column("condition"), pc) if "condition" in names else ([], np.full(n, -1, dtype=np.int32))
    levels = [*levels, _DEFAULT]  # a missing condition (null: checked_table refuses a written null) is "default"
    if READINESS_CONDITIONS["cot"] in levels:
        return None
    codes = np.where(codes < 0, len(levels) - 1, codes)
    conditions = np.array(levels, dtype=object)[codes]
    _, probe = dictionary_codes(column("probe_id"), pc)
    condition = np.array([levels.index(v) for v in levels], dtype=np.int64)[codes]  # "default" written or not: one
    if np.unique(condition * (int(probe.max()) + 1) + probe).size != n:
        return None  # a probe answered twice under one condition: the dict scoring says which

    shown = np.full(n, 5.0)
    if "extra" in names and pa.types.is_struct(column("extra").type):
        fields = {f.name: f.type for f in column("extra").type}
        flag = fields.get("laterality_dependent")
        if flag is not None and not (pa.types.is_boolean(flag) or pa.types.is_null(flag)):
            return None  # the extra checks refuse it
        kind = fields.get("options_shown")
        if kind is not None and not pa.types.is_null(kind):
            if not pa.types.is_list(kind):
                return None
            lengths = pc.list_value_length(pc.struct_field(column("extra"), "options_shown")).to_pylist()
            shown = np.array([float(k) if k else 5.0 for k in lengths])  # none, or an empty list: five options
    elif "extra" in names and not pa.types.is_null(column("extra").type):
        return None

    _, case = dictionary_codes(column("case_id"), pc)
    source = [str(v) for v in column("source_dataset").to_pylist()] if "source_dataset" in names else ["None"] * n
    gold = coded_letters(*dictionary_codes(column("correct_letter"), pc), allow_null=False)
    pred = coded_letters(*dictionary_codes(column("predicted_letter"), pc), allow_null=True)
    flags = column("text_only_answerable").to_pylist() if "text_only_answerable" in names else [None] * n
    rows = ModelRows(conditions.tolist(), case.astype(np.int64), int(case.max()) + 1, source, pred == gold,
                     np.array([v is False for v in flags], dtype=bool), shown)
    return n, {"models": {model: model_scores(rows, None, allow_partial=allow_partial)}}
