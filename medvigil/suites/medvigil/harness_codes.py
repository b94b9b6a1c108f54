"""The coded path of the official-harness reader: with a release that gives the MCQ probes, a file
read in bulk goes straight from pyarrow's columns to integer codes (each row's position in the
release's probe list, its letter and status; no Python string per row). Files are parsed by
worker processes (:mod:`medvigil.files.worker_pool`), while the release loads when the caller
has it load then (see :mod:`medvigil.suites.medvigil.harness`)."""


from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.bulk_memory import release_freed, returned_memory
from medvigil.files.input_files import read_bytes
from medvigil.records.arrow_codes import dictionary_codes, numbers
from medvigil.suites.medvigil.harness_rows import (
    FIELDS,
    HarnessColumns,
    HarnessRecords,
    Reference,
    bulk_table,
    bump,
    convert_columns,
    drop_duplicates,
    file_rows,
    interned,
    is_ok,
    letter_of,
    model_from_filename,
)
from medvigil.suites.medvigil.release_format import HARNESS_OK_STATUS

_STATUS_CODES = {"ok": 0, "parse_failure": 1, "error": 2}  # medvigil.scoring.table.PARSE_STATUSES




class ReleaseIndex:
    """The release's cases and MCQ probes as arrow value sets and per-probe numpy columns."""

    def __init__(self, ref: Reference):
        import numpy as np

        from medvigil.suites.medvigil.release_format import TIERS

        self.case_ids = list(ref.case_fields)
        position = {c: i for i, c in enumerate(self.case_ids)}
        fields = [ref.case_fields[c] for c in self.case_ids]
        self.tier, self.source, self.modality = ([f[i] for f in fields] for i in range(3))
        self.text_only = np.array([{True: 1, False: 0, None: -1}.get(f[3], -2) for f in fields] + [-1], dtype=np.int32)
        self.probe_ids = list(ref.probe_fields)
        known = ref.probe_fields.values()
        self.kinds = list(dict.fromkeys(k for _, k, _ in known))
        kind_code = {k: i for i, k in enumerate(self.kinds)}
        self.kind_code = kind_code
        self.probe_case = np.array([position.get(c, -1) for c, _, _ in known], dtype=np.int64)
        self.probe_kind = np.array([kind_code[k] for _, k, _ in known], dtype=np.int64)
        self.probe_gold = np.array([_letter_code(g) for _, _, g in known], dtype=np.int8)
        text = (self.case_ids, self.probe_ids, self.kinds, self.source, self.modality)
        self.usable = (
            all(isinstance(v, str) for v in self.case_ids + self.probe_ids + self.kinds)
            and all(v is None or isinstance(v, str) for values in text[3:] for v in values)
            and all(t is None or t in TIERS for t in self.tier)
            and bool((self.text_only >= -1).all() and (self.probe_gold >= 0).all())
        )
        self._position: dict[str, int] | None = None
        if self.usable:  # (ids are unique: dict keys)
            self.case_set, self.probe_set = _string_array(self.case_ids), _string_array(self.probe_ids)

    def position(self, probe_id: str) -> int:
        if self._position is None:
            self._position = {p: i for i, p in enumerate(self.probe_ids)}
        return self._position[probe_id]


def _letter_code(letter: Any) -> int:
    """0 for ``"A"`` ... 25 for ``"Z"``; -1 for anything else."""
    return ord(letter) - 65 if isinstance(letter, str) and len(letter) == 1 and "A" <= letter <= "Z" else -1


def _string_array(values: list[str]):
    """An arrow string array of ``values``, built from buffers (``pa.array`` would import pandas)."""
    import numpy as np
    import pyarrow as pa

    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), len(encoded), [None, pa.py_buffer(offsets),
                                                                   pa.py_buffer(b"".join(encoded))]).cast(pa.string())


def _coded(table, index: ReleaseIndex):
    """``(probe position, letter code, status code)`` per row of a file read in bulk, or None
    when a row must be described (read it as :func:`_read` does)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(table.column("probe_id").chunk(0), value_set=index.probe_set)
    if found.null_count:
        return None  # a probe the release does not have
    probe = numbers(found, np.int32)
    case = pc.index_in(table.column("case_id").chunk(0), value_set=index.case_set)
    if case.null_count or not np.array_equal(index.probe_case[probe], numbers(case, np.int32)):
        return None
    kinds, kind = dictionary_codes(table.column("probe_kind").chunk(0), pc, null_is_value=True)
    if not np.array_equal(np.array([index.kind_code.get(k, -1) for k in kinds])[kind], index.probe_kind[probe]):
        return None
    golds, gold = dictionary_codes(table.column("correct_letter").chunk(0), pc, null_is_value=True)
    given = np.array([-2 if g is None else _letter_code(g) for g in golds], dtype=np.int8)[gold]
    if ((given != -2) & (given != index.probe_gold[probe])).any():
        return None
    if np.bincount(probe, minlength=len(index.probe_ids)).max() > 1:
        return None  # a probe twice
    ok = numbers(is_ok(table.column("status").chunk(0), pc).cast(pa.int8()), np.int8) == 1
    letters, letter = dictionary_codes(table.column("model_letter").chunk(0), pc, null_is_value=True)
    parsed = [letter_of(v, HARNESS_OK_STATUS) for v in letters]
    if any(bad for _, _, bad in parsed) and (np.array([bad for _, _, bad in parsed])[letter] & ok).any():
        return None  # an answered row whose letter is not one capital letter
    status = np.array([_STATUS_CODES[st] for st, _, _ in parsed], dtype=np.int8)[letter]
    pred = np.array([_letter_code(p) for _, p, _ in parsed], dtype=np.int8)[letter]
    return probe.copy(), np.where(ok, pred, -1).astype(np.int8), np.where(ok, status, _STATUS_CODES["error"]).astype(np.int8)


def parsed_table(path: Path):
    """One file read in bulk (:func:`bulk_table`; run in a worker process), or None."""
    return bulk_table(read_bytes(path, str(path)))


def unique_paths(files: list[Path]) -> list[Path]:
    """Each file once, in order, spelt as it first appears."""
    unique = {f.resolve(): f for f in reversed(files)}
    return [unique[r] for r in dict.fromkeys(f.resolve() for f in files)]


def read_coded(paths: list[Path], tables: Iterator[Any], ref: Reference, index: ReleaseIndex, *, strict: bool,
               allow_empty: bool, condition: str) -> HarnessColumns:
    """:func:`_read` for a release with MCQ probes: ``paths`` (:func:`unique_paths`) and their
    :func:`parsed_table` (None: not read in bulk); files read in bulk become codes (:func:`_coded`),
    the others go through the row path; the same records, bookkeeping and problems."""
    out = HarnessRecords()
    problems: list[Problem] = []
    fatal: list[Problem] = []
    parts: list[tuple[str, Any, Any, Any]] = []  # per file: (model, probe positions, letter codes, status codes)
    with returned_memory():  # freed buffers go back to the system between files
        _read_files(paths, tables, ref, index, out, problems, fatal, parts, allow_empty)
    if fatal or (problems and strict):
        raise DataError(fatal + (problems if strict else []))
    out.problems = problems
    return HarnessColumns(_coded_table(parts, index, condition), out)


def _read_files(paths, tables, ref, index, out, problems, fatal, parts, allow_empty) -> None:
    """Each file's codes into ``parts``; bookkeeping into ``out``."""
    import numpy as np
    import pyarrow.compute as pc

    for path, table in zip(paths, tables):
        model, file = model_from_filename(path), str(path)
        out.files[file] = model
        codes = None if table is None else _coded(table, index)
        if codes is None:  # read here, as _read reads it: problems are described in this process
            data = read_bytes(path, file)  # a regular file, bounded in size
            bulk = None if table is None else {name: interned(table.column(name), {}, pc) for name in FIELDS}
            codes = _coded_rows(data, bulk, model, file, ref, index, out, problems, fatal, allow_empty)
            del data, bulk
        table = None
        probe, pred, status = codes
        errors = np.flatnonzero(status == _STATUS_CODES["error"])
        if errors.size:
            kinds = index.probe_kind[probe[errors]]
            first = np.unique(kinds, return_index=True)[1]
            for kind in kinds[np.sort(first)].tolist():  # kinds in order of their first error row
                bump(out.error_rows, model, index.kinds[kind], int((kinds == kind).sum()))
        parts.append((model, probe, pred, status))
        release_freed()  # this file's buffers, before the next one's


def _coded_rows(data, bulk, model, file, ref, index, out, problems, fatal, allow_empty):
    """Codes of the rows of one file read as :func:`_read` reads it; its problems to ``problems``."""
    import numpy as np

    cols, lines, _, file_problems = file_rows(data, bulk, model, file, out, fatal, as_dicts=False, allow_empty=allow_empty)
    cols, lines, _, row_problems = drop_duplicates(cols, lines, None, model, file, out)
    conv, found = convert_columns(cols, lines, file, ref, {})
    problems.extend(file_problems)
    problems.extend(sorted(row_problems + [p for _, p in found], key=lambda p: p.row))
    keep = [i for i, ok in enumerate(conv["ok"]) if ok]
    if len(keep) < len(lines):
        bump(out.skipped, model, "invalid_row", len(lines) - len(keep))
    probe = np.array([index.position(cols["probe_id"][i]) for i in keep], dtype=np.int32)
    pred = np.array([_letter_code(conv["predicted_letter"][i]) for i in keep], dtype=np.int8)
    status = np.array([_STATUS_CODES[conv["parse_status"][i]] for i in keep], dtype=np.int8)
    return probe, pred, status


def _coded_table(parts: list[tuple[str, Any, Any, Any]], index: ReleaseIndex, condition: str):
    """The :class:`~medvigil.scoring.table.RecordTable` that ``RecordTable.from_columns`` builds from
    the same rows, made from the codes (levels: the values present, as ``factorize`` orders them)."""
    import numpy as np

    from medvigil.scoring.table import Categorical, RecordTable
    from medvigil.suites.medvigil.release_format import TIERS

    probe = np.concatenate([p for _, p, _, _ in parts]) if parts else np.zeros(0, dtype=np.int32)
    n = len(probe)
    if n == 0:
        empty: list = []
        return RecordTable.from_columns(model=empty, probe_id=empty, case_id=empty, probe_kind=empty, correct_letter=empty,
                                        predicted_letter=empty, parse_status=empty, risk_tier=empty, source_dataset=empty,
                                        modality=empty, text_only_answerable=empty, condition=condition, suite="medvigil",
                                        source="harness result files")
    names = sorted({m for m, p, _, _ in parts if len(p)})
    model = np.concatenate([np.full(len(p), names.index(m) if len(p) else 0, dtype=np.int32) for m, p, _, _ in parts])
    case = index.probe_case[probe]
    # probes: in order of first appearance (factorize without sorting)
    seen, first = np.unique(probe, return_index=True)
    order = seen[np.argsort(first, kind="stable")]
    lut = np.zeros(len(index.probe_ids), dtype=np.int32)
    lut[order] = np.arange(len(order), dtype=np.int32)
    table = RecordTable(
        suite=Categorical(np.zeros(n, dtype=np.int32), ("medvigil",)),
        model=Categorical(model, tuple(names)),
        condition=Categorical(np.zeros(n, dtype=np.int32), (condition,)),
        probe_kind=_present_levels(index.probe_kind[probe], index.kinds),
        risk_tier=_present_levels(case, index.tier, TIERS),
        source_dataset=_present_levels(case, index.source),
        modality=_present_levels(case, index.modality),
        text_only=Categorical(index.text_only[case], ("false", "true")),
        case=_present_levels(case, index.case_ids),
        gold=index.probe_gold[probe],
        pred=np.concatenate([p for _, _, p, _ in parts]),
        status=np.concatenate([s for _, _, _, s in parts]),
        probe=Categorical(lut[probe], tuple(index.probe_ids[i] for i in order.tolist())),
    )
    table.check_unique_probes("harness result files")
    return table


def _present_levels(index, values: list, order: tuple[str, ...] = ()):
    """What ``factorize([values[i] for i in index], order)`` gives (None -> -1), from the few ``values``."""
    import numpy as np

    from medvigil.scoring.table import Categorical

    used = np.flatnonzero(np.bincount(index, minlength=len(values))).tolist()
    present = {values[i] for i in used} - {None}
    levels = tuple(order) + tuple(sorted(present - set(order)))
    position = {v: i for i, v in enumerate(levels)}
    lut = np.array([position.get(v, -1) for v in values], dtype=np.int32)
    return Categorical(lut[index], levels)
