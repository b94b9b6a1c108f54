"""lmms-eval logs of the MedVIGIL tasks as one :class:`~medvigil.scoring.table.RecordTable`.

Every file the columnar reader (:mod:`medvigil.records.log_columns`) takes becomes codes without
a Python object per record; a file it declines (ROI-decay samples, another line shape, a
problem to describe) is read record by record by
:func:`medvigil.records.lmms_eval_logs.read_samples`, and its records join the table in their
place. The table, and every problem raised, are those of ``RecordTable.from_records`` over
``read_samples`` of all the files (``tests/test_log_columns.py``); the records read one by one
stay available to the audit (``LogColumns.records``: the ROI-decay vote reads their samples).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from medvigil.errors import DataError
from medvigil.mcq.circular import CIRCULAR
from medvigil.scoring.table import Categorical, RecordTable, factorize
from medvigil.suites.medvigil.release_format import source_label, with_canonical_source


class LogColumns:
    """lmms-eval logs read as a table (``table``), with the records of the files read one by one
    (``records``); nothing was skipped."""

    def __init__(self, table: RecordTable, records: list[dict]):
        self.table = table
        self.records = records
        self.warnings: list[str] = []
        self.skipped: dict = {}
        self.error_rows: dict = {}
        self.problems: list = []

    def __len__(self) -> int:
        return len(self.table)


_STRING_COLUMNS = ("suite", "condition", "probe_id", "case_id", "probe_kind", "risk_tier", "source_dataset", "modality",
                   "correct_letter", "predicted_letter", "parse_status")


def _dict_part(records: list[dict]) -> dict[str, Any]:
    """Records read one by one in the shape of a columnar part: ``(levels, codes)`` per column."""
    part: dict[str, Any] = {}
    for name in _STRING_COLUMNS:
        cat = factorize([r.get(name) for r in records], sort=False)
        part[name] = (list(cat.levels), cat.codes)
    flags = {True: 1, False: 0, None: -1}
    part["text_only"] = np.array([flags.get(r.get("text_only_answerable"), -1) for r in records], dtype=np.int32)
    part["n"] = len(records)
    return part


def _columns_part(columns) -> dict[str, Any]:
    """A :class:`~medvigil.records.log_columns.FileColumns` as a part."""
    from medvigil.records.log_columns import LETTERS, PARSE_STATUSES

    part: dict[str, Any] = dict(columns.coded)
    part["suite"] = (["medvigil"], np.zeros(columns.n, dtype=np.int32))
    part["correct_letter"] = (list(LETTERS), columns.gold.astype(np.int32))
    part["predicted_letter"] = (list(LETTERS), columns.pred.astype(np.int32))
    part["parse_status"] = (list(PARSE_STATUSES), columns.status.astype(np.int32))
    part["text_only"], part["n"] = columns.text_only, columns.n
    return part


def _joined(levels_codes: list[tuple[list, np.ndarray]]) -> Categorical:
    """One column of every file: each file's levels merged into one list (in order of first
    appearance), its codes mapped onto it (files of one release share their lists)."""
    position: dict = {}
    codes, last, lut = [], None, None
    for levels, c in levels_codes:
        if levels != last:
            lut = np.array([position.setdefault(v, len(position)) for v in levels] + [-1], dtype=np.int32)
            last = levels
        codes.append(lut[c])
    return Categorical(np.concatenate(codes) if codes else np.zeros(0, dtype=np.int32), tuple(position))


def read_log_columns(paths: list[Path], *, meanwhile: Callable[[], Any] | None = None) -> LogColumns | None:
    """The records of lmms-eval logs of the MedVIGIL tasks as :class:`LogColumns` (files read by
    worker processes, :mod:`medvigil.files.worker_pool`; ``meanwhile()`` runs here while they
    read), or None when CircularEval rotations are logged (they are collapsed across files: read
    every file with ``read_samples``)."""
    from medvigil.files.bulk_memory import release_freed, returned_memory
    from medvigil.files.worker_pool import in_workers
    from medvigil.records.arrow_codes import PARSER_MODULES
    from medvigil.records.lmms_eval_logs import model_name, read_samples
    from medvigil.records.log_columns import file_columns

    names = [model_name(p) for p in paths]
    parts: list[dict[str, Any]] = []
    one_by_one: list[dict] = []
    problems = []
    with returned_memory(), in_workers(lambda job: file_columns(*job), zip(paths, names), progress="reading lmms-eval logs",
                                             imports=PARSER_MODULES) as read:
        if meanwhile is not None:
            meanwhile()
        for path, name, columns in zip(paths, names, read):
            if columns is not None:
                parts.append(_columns_part(columns))
                release_freed()  # this file's buffers, before the next one's
                continue
            try:
                records = [with_canonical_source(r) for r in read_samples([path], model=name)]
            except DataError as exc:
                problems += exc.problems
                continue
            if any(r.get("condition") == CIRCULAR for r in records):
                return None
            parts.append(_dict_part(records))
            one_by_one += records
    if problems:
        raise DataError(problems)
    coded = {name: _joined([part[name] for part in parts]) for name in _STRING_COLUMNS}
    sources = coded["source_dataset"]
    coded["source_dataset"] = Categorical(sources.codes, tuple(source_label(v) for v in sources.levels))
    model = Categorical(np.concatenate([np.full(part["n"], i, dtype=np.int32) for i, part in enumerate(parts)])
                        if parts else np.zeros(0, dtype=np.int32), tuple(names))
    table = RecordTable.from_columns(
        suite=coded["suite"], model=model, condition=coded["condition"], probe_id=coded["probe_id"],
        case_id=coded["case_id"], probe_kind=coded["probe_kind"], risk_tier=coded["risk_tier"],
        source_dataset=coded["source_dataset"], modality=coded["modality"],
        text_only_answerable=Categorical(np.concatenate([p["text_only"] for p in parts]) if parts
                                         else np.zeros(0, dtype=np.int32), ("false", "true")),
        correct_letter=coded["correct_letter"], predicted_letter=coded["predicted_letter"],
        parse_status=coded["parse_status"],
        source="<records>",  # as the audit names the records it builds a table from
    )
    del parts, coded
    release_freed()  # the merge's temporaries
    return LogColumns(table, one_by_one)
