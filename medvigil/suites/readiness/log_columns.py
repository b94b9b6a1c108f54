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

    absent = ([], np.full(n, -1, dtype=np.int32))
    # a missing condition is "default" (a written null is refused by checked_table), a missing source "None" (str(None))
    conditions, condition = _distinct(*(dictionary_codes(column("condition"), pc) if "condition" in names else absent), _DEFAULT)
    if READINESS_CONDITIONS["cot"] in conditions:
        return None
    _, probe = dictionary_codes(column("probe_id"), pc)
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
    sources, source = _distinct(*(dictionary_codes(column("source_dataset"), pc) if "source_dataset" in names else absent), "None")
    gold = coded_letters(*dictionary_codes(column("correct_letter"), pc), allow_null=False)
    pred = coded_letters(*dictionary_codes(column("predicted_letter"), pc), allow_null=True)
    flags, flag_codes = dictionary_codes(column("text_only_answerable"), pc) if "text_only_answerable" in names else absent
    visreq = np.array([v is False for v in flags] + [False])[flag_codes]  # (a null: not flagged)
    rows = ModelRows(conditions, condition, sources, source, case.astype(np.int64), int(case.max()) + 1, pred == gold, visreq, shown)
    return n, {"models": {model: model_scores(rows, None, allow_partial=allow_partial)}}


def _distinct(levels: list, codes, missing: str):
    """``(levels, codes)`` with a null code (-1) read as the value ``missing``, each value once."""
    import numpy as np

    named = [*levels, missing]
    distinct = list(dict.fromkeys(named))
    return distinct, np.array([distinct.index(v) for v in named], dtype=np.int64)[codes]
