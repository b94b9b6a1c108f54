"""Read lmms-eval logs of the MedVIGIL tasks straight into columns, without a Python object per record.

The accelerated twin of :func:`medvigil.records.lmms_eval_logs.read_samples` for the logs
``medvigil score`` reads most: every line of a ``medvigil_*`` task logs our per-probe record
under ``mcs``, usually its first object-valued key (:mod:`medvigil.files.jsonl_bulk` explains why
the first ``{`` after the line's own then opens it; when an object comes first, as the token
counts of API models, the key counts if what precedes it parses as whole members). A file is
memory-mapped and taken a window of lines at a time (:mod:`medvigil.files.mapped_lines`), the
record of each line is cut out with byte searches (:func:`medvigil.files.jsonl_bulk.record_block`:
a wrong cut is not a JSON object, so the parse below fails and the file is declined), the
records are parsed together by pyarrow with the schema's types declared, and every rule of
``schemas/probe_record.schema.json`` is checked on the columns.

Nothing here describes a problem: :func:`file_columns` returns None for any file it cannot
vouch for (a line of another shape, a value the schema refuses, a null whose meaning the key
counts do not settle, a record of another suite, CircularEval rotations, ROI-decay samples,
bytes that are not UTF-8 anywhere in the file), and the caller
(:mod:`medvigil.suites.medvigil.log_table`) reads that file with ``read_samples``, which names
file, line and field. ``tests/test_log_columns.py`` checks that both give the same table and
that every log ``read_samples`` refuses is declined.
"""

from __future__ import annotations

import json
import mmap
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from medvigil.files.jsonl_bulk import KeyCounts
from medvigil.files.jsonl_bulk import record_block as cut_records
from medvigil.files.mapped_lines import mapped
from medvigil.records.arrow_codes import dictionary_codes
from medvigil.schemas import load_schema
from medvigil.scoring.table import PARSE_STATUSES
from medvigil.suites.medvigil.release_format import TIERS

KEY = b"mcs"  # the key the medvigil tasks log their record under
MARKER = b'"' + KEY + b'": '  # (with lmms-eval's separators)
LETTERS = tuple(string.ascii_uppercase)  # the record schema's ^[A-Z]$
CODED = ("condition", "probe_id", "case_id", "probe_kind", "risk_tier", "source_dataset", "modality")
_STRINGS = CODED + ("category", "correct_letter", "predicted_letter", "parse_status", "raw_response")
_NON_EMPTY = ("probe_id", "case_id", "probe_kind")
_SUITE = "medvigil"


@dataclass
class FileColumns:
    """One file's records as codes: ``coded[name] = (levels, int32 codes, -1 = null)``; letters as
    int8 codes (0 = A, -1 = none), ``status`` as int8 codes of :data:`PARSE_STATUSES`, ``text_only`` as
    int32 (-1 null, 0 false, 1 true)."""

    model: str
    n: int
    coded: dict[str, tuple[list, Any]]
    gold: Any
    pred: Any
    status: Any
    text_only: Any


def record_block(data: mmap.mmap | bytes) -> tuple[bytearray, int] | None:
    """Every line's record under ``mcs`` cut out and joined by newlines, with their number, or None
    (read the file line by line): :func:`medvigil.files.jsonl_bulk.record_block`, the record being
    the line's first object value when that is under ``mcs``, or else :func:`_record_after_members`'s."""
    return cut_records(data, KEY, otherwise=_record_after_members)


def _record_after_members(data: mmap.mmap | bytes, pos: int, end: int) -> int:
    """The brace of the record of a line whose first object value is not it (lmms-eval logs an
    API model's token counts as objects before it), or -1: the first ``"mcs": {`` counts when
    everything before it parses as whole members of the line's object, which puts it at the top
    level (a nested or quoted lookalike leaves the members unclosed)."""
    at = data.find(MARKER + b"{", pos, end)
    if at < 0 or data[at - 2 : at] != b", ":
        return -1
    try:
        json.loads(b"{" + data[pos + 1 : at - 2] + b"}")
    except (ValueError, RecursionError):
        return -1
    return at + len(MARKER)


@cache
def _record_properties() -> frozenset[str]:
    return frozenset(load_schema("probe_record")["properties"])


def _declared(pa):
    types = {name: pa.string() for name in _STRINGS}
    types.update(suite=pa.string(), text_only_answerable=pa.bool_(), retries=pa.int64())
    return pa.schema(list(types.items()))


def coded_letters(levels: list, codes, allow_null: bool):
    """int8 letter codes, or None when a value is not one capital letter (or null where not allowed)."""
    import numpy as np

    if not set(levels) <= set(LETTERS) or (not allow_null and (codes < 0).any()):
        return None
    lut = np.array([ord(v) - 65 for v in levels] + [-1], dtype=np.int8)
    return lut[codes]


def _nested_names(type_, pa) -> set[str]:
    """Every field name inside a nested arrow type (struct fields, list items), at any depth."""
    if pa.types.is_struct(type_):
        return {f.name for f in type_} | {n for f in type_ for n in _nested_names(f.type, pa)}
    if pa.types.is_list(type_) or pa.types.is_large_list(type_):
        return _nested_names(type_.value_type, pa)
    return set()


def checked_table(block: bytes | bytearray, n: int, suite: str):
    """The records of ``block`` (one per line) parsed by arrow as a table whose every record
    ``schemas/probe_record.schema.json`` accepts, all of ``suite``, none of a CircularEval rotation
    or ROI-decay sample (collapsed and voted on as dicts), with the key counts of the block (null or
    missing, for the caller's own fields); or None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    if n == 0:
        return None  # an empty log: read_samples says so
    options = pj.ParseOptions(explicit_schema=_declared(pa), unexpected_field_behavior="infer")
    try:
        table = pj.read_json(pa.BufferReader(pa.py_buffer(block)), read_options=pj.ReadOptions(use_threads=False, block_size=1 << 24),
                             parse_options=options, memory_pool=pa.system_memory_pool())
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None  # a value of another type, a key twice, a cut that is not an object, ...
    if table.num_rows != n or not set(table.column_names) <= _record_properties():
        return None
    table = table.combine_chunks()
    col = table.column
    suites, _ = dictionary_codes(col("suite"), pc)
    if suites != [suite] or col("suite").null_count:
        return None
    for name in _NON_EMPTY + ("correct_letter", "parse_status"):
        if col(name).null_count:
            return None
    for name in _NON_EMPTY:
        if pc.min(pc.utf8_length(col(name))).as_py() < 1:
            return None
    extra = table.schema.field("extra").type if "extra" in table.column_names else None
    if extra is not None and not (pa.types.is_struct(extra) or pa.types.is_null(extra)):
        return None  # extra must be an object
    # keys may nest only in the open objects (extra, model): the other fields are declared scalars
    keys = KeyCounts(block, n, nested={name for f in table.schema for name in _nested_names(f.type, pa)})

    def nulls(name: str) -> int:
        return table.column(name).null_count if name in table.column_names else n

    if "predicted_letter" not in table.column_names or not keys.all_written("predicted_letter", nulls("predicted_letter")):
        return None  # required, null allowed
    if not all(keys.nulls_are_missing(name, nulls(name)) for name in ("condition", "retries", "extra")):
        return None  # optional, not null
    if "retries" in table.column_names and col("retries").null_count < n and pc.min(col("retries")).as_py() < 0:
        return None
    if "condition" in table.column_names:
        conditions, _ = dictionary_codes(col("condition"), pc)
        if any(c == "circular" or c.startswith("roi_decay:") for c in conditions):
            return None  # rotations are collapsed and ROI-decay samples voted on the records themselves
    if "risk_tier" in table.column_names and not set(dictionary_codes(col("risk_tier"), pc)[0]) <= set(TIERS):
        return None
    for name, allow_null in (("correct_letter", False), ("predicted_letter", True)):
        if coded_letters(*dictionary_codes(col(name), pc), allow_null=allow_null) is None:
            return None
    if not set(dictionary_codes(col("parse_status"), pc)[0]) <= set(PARSE_STATUSES):
        return None
    return table, keys


def columns_of(block: bytes | bytearray, n: int, model: str) -> FileColumns | None:
    """The records of ``block`` (one per line) as :class:`FileColumns`, or None unless the schema
    accepts every one (:func:`checked_table`) and the MedVIGIL scoring path takes them as they are."""
    import numpy as np
    import pyarrow.compute as pc

    checked = checked_table(block, n, _SUITE)
    if checked is None:
        return None
    table, _ = checked
    col = table.column
    coded = {name: dictionary_codes(col(name), pc) if name in table.column_names else ([], np.full(n, -1, dtype=np.int32))
             for name in CODED}
    gold = coded_letters(*dictionary_codes(col("correct_letter"), pc), allow_null=False)
    pred = coded_letters(*dictionary_codes(col("predicted_letter"), pc), allow_null=True)
    statuses, status_codes = dictionary_codes(col("parse_status"), pc)
    status = np.array([PARSE_STATUSES.index(s) for s in statuses] + [0], dtype=np.int8)[status_codes]
    if ((status == 0) != (pred >= 0)).any():
        return None  # a letter exactly when the answer parsed (RecordTable's rule)
    if "text_only_answerable" in table.column_names:
        flags, flag_codes = dictionary_codes(col("text_only_answerable"), pc)
        text_only = np.array([int(v) for v in flags] + [-1], dtype=np.int32)[flag_codes]
    else:
        text_only = np.full(n, -1, dtype=np.int32)
    return FileColumns(model, n, coded, gold, pred, status, text_only)


def file_columns(path: str | Path, model: str) -> FileColumns | None:
    """One log file as :class:`FileColumns`, or None: read it with ``read_samples``."""
    with mapped(path, str(path)) as data:
        cut = None if data is None else record_block(data)
    return None if cut is None else columns_of(*cut, model)


def suite_file_table(path: str | Path, suite: str):
    """One stress-suite log's records cut out as the whole-file dict reader cuts them (any key's
    first object; a log holding ``"mcs"`` declined) and checked by :func:`checked_table`, or None."""
    return suite_files_table([path], suite)


def suite_files_table(paths: Sequence[str | Path], suite: str):
    """:func:`suite_file_table` of several logs as one table: their records cut out, joined in
    file order and checked in one pass (a model's arms, for instance), or None when any is declined."""
    blocks, n = [], 0
    for path in paths:
        with mapped(path, str(path)) as data:
            cut = None if data is None else cut_records(data, None, b"\n", refuse=b'"' + KEY + b'"')
        if cut is None or cut[1] == 0:
            return None  # (an empty log: read_samples says so)
        blocks.append(cut[0])
        n += cut[1]
    if not blocks:
        return None
    return checked_table(blocks[0] if len(blocks) == 1 else b"\n".join(blocks), n, suite)
