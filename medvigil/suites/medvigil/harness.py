"""Read official-harness outputs (``results/baselines/<model>__mcq.jsonl``) into probe records.

One JSON object per line, as ``scripts/bench_run_baseline.py`` of the authors' harness writes
them (``schemas/harness_result_row.schema.json``). Every row has ``probe_id, case_id,
probe_kind, status``; an answered row (``status == "ok"``) also ``model_letter`` and
``correct_letter``; a call that failed after the runner's retries is written as
``status: "error: <message>"``, ``model_answer: ""`` and *no* letters. Each row becomes a
record of ``schemas/probe_record.schema.json``:

==============================  =========================================================
harness row                     probe record
==============================  =========================================================
file name ``<m>__mcq.jsonl``    ``model = m`` (a ``model``/``model_id`` field is ignored)
``status != "ok"`` (error row)  ``parse_status = "error"``, ``predicted_letter = null``
``status == "ok"``, letter      ``parse_status = "ok"``, ``predicted_letter`` = the letter
``status == "ok"``, empty       ``parse_status = "parse_failure"``, ``predicted_letter = null``
or null ``model_letter``
gold letter                     the release's ``probes_mcq.csv`` when given, else the row's
                                ``correct_letter``, else (error rows) the ``correct_letter``
                                another file gives for the same probe
``raw_response`` / ``response``  ``raw_response`` (first present; an object is JSON-encoded)
/ ``raw`` / ``model_answer``
``retries``                     ``retries``
release manifest                ``risk_tier, modality, text_only_answerable`` and
                                ``source_dataset`` (canonical name, see
                                :func:`medvigil.suites.medvigil.release_format.canonical_source`; the
                                spelling of the release is kept in ``extra``)
==============================  =========================================================

How the scoring core treats error rows is its business (paper: a failure, on a trap a silent
failure; ``harness_compatible``: dropped, as ``bench_aggregate.py`` and ``bootstrap_mcs.py``
keep ``status == "ok"`` rows only). This reader counts them per model and probe kind
(``HarnessRecords.error_rows``).

Speed: :func:`read_harness_table` (what ``medvigil score`` uses) reads a file in one columnar
pass with pyarrow, the schema's fields with declared types and the others unparsed, checks the
columns (:func:`_bulk_columns`) and builds the audit's table without a dict per row. A file the
column checks do not accept in full is read row by row, as :func:`read_harness_files` reads
every file: one ``json.loads`` for all its lines, rows checked with the compiled form of the row
schema (:func:`medvigil.suites.medvigil.release.schema_predicate`), and only rows it does not accept go through
``jsonschema``, to describe what is wrong. Both paths give the same problems and the same
records (tests/test_harness_bulk.py). With a release that gives the MCQ probes (the usual
``medvigil score --release``), a file read in bulk goes straight to integer codes
(:func:`_coded`: each row's position in the release's probe list, its letter and status; no
Python string per row), two files parsed at a time by worker threads; a file with a row to
describe is read as above.

Problems name the file, the 1-based line and the field: bytes that are not UTF-8, lines that
are not JSON objects, schema violations, a letter that is not one capital letter, a case or
probe unknown to the release or disagreeing with it, a probe twice in one file, an error
row whose gold letter nobody gives, a file with no rows. They are raised together as one
:class:`~medvigil.errors.DataError` after every file has been read. With ``strict=False``
bad rows are skipped instead and counted (``invalid_row``); with ``allow_empty=True`` a
file without rows is a warning. Blank lines are skipped and counted (``blank_line``).
Nothing is dropped without being counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes
from medvigil.suites.medvigil.release_format import HARNESS_OK_STATUS, source_label

__all__ = ["HARNESS_SUFFIX", "HarnessColumns", "HarnessRecords", "read_harness_table", "model_from_filename", "read_harness_file", "read_harness_files"]

HARNESS_SUFFIX = "__mcq.jsonl"
_RAW_FIELDS = ("raw_response", "response", "raw", "model_answer")
_SCHEMA = "harness_result_row"


class HarnessRecords(list):
    """Probe records (a ``list`` of dicts) read from harness files, with bookkeeping.

    Attributes:
        files: ``{path: model}`` of the files read.
        skipped: ``{model: {reason: count}}`` of lines not turned into records
            (``blank_line``; ``invalid_row`` with ``strict=False``; ``empty_file`` with
            ``allow_empty=True``). :func:`medvigil.suites.medvigil.scoring.audit` copies it into each model's
            ``skipped``.
        error_rows: ``{model: {probe_kind: count}}`` of failed calls (``status != "ok"``), read
            as records with ``parse_status = "error"``.
        problems: the problems of skipped invalid rows (``strict=False``).
        warnings: e.g. scoring without a release (no tiers, so no SFR_w), an empty file.
    """

    def __init__(self, records: Iterable[dict] = ()):
        super().__init__(records)
        self.files: dict[str, str] = {}
        self.skipped: dict[str, dict[str, int]] = {}
        self.error_rows: dict[str, dict[str, int]] = {}
        self.problems: list[Problem] = []
        self.warnings: list[str] = []


def model_from_filename(path: str | Path) -> str:
    """``results/baselines/gpt-4o__mcq.jsonl`` -> ``"gpt-4o"``."""
    name = Path(path).name
    if not name.endswith(HARNESS_SUFFIX) or len(name) == len(HARNESS_SUFFIX):
        raise ValueError(f"harness output file must be named <model>{HARNESS_SUFFIX}, got {name!r}")
    return name[: -len(HARNESS_SUFFIX)]


def _release_lookup(release: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(cases, probes)`` from a release location, a Release-like object or None."""
    if release is None:
        return None, None
    if isinstance(release, (str, Path)):
        from medvigil.suites.medvigil.release import load_for_scoring  # lazy: reading a release pulls in the validator

        release = load_for_scoring(release)
    cases = getattr(release, "cases", None)
    if not isinstance(cases, Mapping):
        raise TypeError(f"release must be a release folder or have a 'cases' mapping, got {type(release).__name__}")
    probes_list = getattr(release, "probes_mcq", None)
    probes = None if probes_list is None else {p.probe_id: p for p in probes_list}
    return dict(cases), probes


# --------------------------------------------------------------------------- decoding


def _decode_file(data: bytes, file: str) -> tuple[list[tuple[int, Any]], list[Problem], int, list[str]]:
    """``([(line, value), ...], problems, blank lines, warnings)`` of one JSONL file's bytes."""
    warnings = []
    if data.startswith(b"\xef\xbb\xbf"):
        warnings.append(f"{file}: starts with a UTF-8 byte-order mark (ignored)")
        data = data[3:]
    problems: list[Problem] = []
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = []
        for number, raw in enumerate(data.split(b"\n"), start=1):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                problems.append(
                    Problem(file, f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}", row=number)
                )
                lines.append("")  # reported; keeps line numbers aligned, not counted as blank
    bad = {p.row for p in problems}
    numbered = [(n, text) for n, text in enumerate(lines, start=1) if n not in bad]
    blank = sum(1 for _, text in numbered if not text.strip())
    if lines and not lines[-1].strip() and (len(lines) not in bad):
        blank -= 1  # the newline that ends the last line is not a blank line
    numbered = [(n, text) for n, text in numbered if text.strip()]
    values: list[Any] | None = None
    if numbered:
        try:  # one decoder call for the whole file; falls back per line to say where
            values = json.loads("[" + ",".join(text for _, text in numbered) + "]")
        except ValueError:
            values = None
        if values is not None and len(values) != len(numbered):
            values = None  # a line held more than one value: judge line by line
    if values is None:
        out = []
        for n, text in numbered:
            try:
                out.append((n, json.loads(text)))
            except ValueError as exc:
                column = getattr(exc, "colno", None)
                message = f"not valid JSON: {getattr(exc, 'msg', exc)}" + (f" (column {column})" if column else "")
                problems.append(Problem(file, message, row=n))
        return out, problems, blank, warnings
    return [(n, v) for (n, _), v in zip(numbered, values)], problems, blank, warnings


def _schema_problems(rows: list[tuple[int, Any]], file: str) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """Rows that pass the harness-row schema, and the problems of the others."""
    from medvigil.records.schema_validation import problems_for
    from medvigil.suites.medvigil.release import schema_predicate

    accept = schema_predicate(_SCHEMA)
    good, problems = [], []
    for line, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(file, f"must be a JSON object, got {type(row).__name__}", row=line))
        elif accept is not None and accept(row):
            good.append((line, row))
        else:
            found = problems_for(_SCHEMA, row, file, line)
            if found:
                problems.extend(found)
            else:
                good.append((line, row))
    return good, problems


# --------------------------------------------------------------------------- bulk path

_FIELDS = ("probe_id", "case_id", "probe_kind", "status", "model_letter", "correct_letter")
_REQUIRED = ("probe_id", "case_id", "probe_kind", "status")
# the row schema's fields other than raw (string, object or null), read with declared types
_DECLARED = _FIELDS + ("model", "raw_response", "response", "error", "model_answer", "retries")
_BLANK_LINE = re.compile(rb"\n[ \t\r]*\n")  # (starts with a literal: scanned fast)
_ESCAPED_KEY = re.compile(rb'\\u[0-9a-fA-F]{4}(?:[^"\\\n]|\\.)*"\s*:')


def _bulk_columns(data: bytes, pool: dict[str, str] | None = None) -> dict[str, list] | None:
    """The row fields of a file read in one columnar pass (pyarrow), or None to read it row by row.

    The columns of :func:`_bulk_table` as lists; equal strings share one object across files
    through ``pool`` (ids repeat in every model's file).
    """
    table = _bulk_table(data)
    if table is None:
        return None
    import pyarrow.compute as pc

    pool = {} if pool is None else pool
    return {name: _interned(table.column(name), pool, pc) for name in _FIELDS}


def _bulk_table(data: bytes):
    """The row fields of a file as a pyarrow table (one columnar pass), or None to read it row by row.

    Returns a table only when every row is one the row schema accepts, so the bulk path never
    accepts what ``jsonschema`` would reject: pyarrow reads the schema's fields with their types
    declared (a value of another type fails the read), the other fields unparsed; lengths, the
    letter enum, ``retries >= 0`` and the ``status == "ok"`` rule are checked on the columns. A
    null is a JSON null or a key not written: with no ``null`` in the bytes it is a key not
    written, else keys are counted in the bytes to tell which. Anything unusual (blank lines, a
    byte-order mark, a ``raw`` field, a null whose meaning the counts do not settle) sends the
    file down the row-by-row path, which describes each bad row. Agreement with the schema is
    tested in tests/test_harness_bulk.py.
    """
    if not data.startswith(b"{") or _BLANK_LINE.search(data):
        return None  # (pyarrow 26 crashes on a file whose first value is not an object, e.g. 'null')
    if b'"raw"' in data:
        return None  # string or object: not one declared type
    n_lines = data.count(b"\n") + (not data.endswith(b"\n"))
    import io

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    declared = pa.schema([(name, pa.int64() if name == "retries" else pa.string()) for name in _DECLARED])
    options = pj.ParseOptions(explicit_schema=declared, unexpected_field_behavior="ignore")
    try:
        # the system allocator: memory arrow frees goes back to the one the Python objects use;
        # one thread per file (files are read two at a time, see _read_coded)
        table = pj.read_json(io.BytesIO(data), read_options=pj.ReadOptions(use_threads=False), parse_options=options,
                             memory_pool=pa.system_memory_pool())
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a type or parse problem: the row path says where
        return None
    n = table.num_rows
    if n != n_lines:
        return None  # a line held several objects (or none)
    for name in _REQUIRED:
        col = table.column(name)
        if col.null_count or pc.min(pc.utf8_length(col)).as_py() < 1:
            return None
    # (Python values are never turned into arrow ones: with pandas installed, pyarrow imports it to do that)
    ok = _is_ok(table.column("status"), pc)
    no_null = data.find(b"null") < 0  # no JSON null anywhere: every arrow null is a key not written
    escaped = not no_null and b"\\u" in data and _ESCAPED_KEY.search(data) is not None  # keys spelt with escapes

    def nulls_are_missing(name: str) -> bool:
        """Whether every null of column ``name`` is a key not written (not a JSON null)."""
        # '"name"' is a key or a string value: counting both can only over-count, so equality
        # means exactly one key per non-null value
        return no_null or (not escaped and data.count(b'"' + name.encode() + b'"') == n - table.column(name).null_count)

    def all_written(name: str) -> bool:
        """Whether every row writes key ``name`` (one object per row, none nested)."""
        return data.count(b"{") == n and not escaped and data.count(b'"' + name.encode() + b'"') == n

    for name in ("model_letter", "correct_letter", "model", "retries"):
        if not table.column(name).null_count:
            continue
        if nulls_are_missing(name):
            if name in _FIELDS and pc.any(pc.and_(ok, pc.is_null(table.column(name)))).as_py():
                return None  # an answered row without the key
        elif not (name == "model_letter" and all_written(name)):
            return None  # JSON nulls: allowed only as model_letter (a parse failure)
    if not set(pc.unique(table.column("correct_letter")).to_pylist()) <= {"A", "B", "C", "D", "E", None}:
        return None
    retries = table.column("retries")
    if retries.null_count < n and pc.min(retries).as_py() < 0:
        return None
    return table.select(list(_FIELDS)).combine_chunks()  # one chunk per column


def _is_ok(status, pc):
    """``status == "ok"`` per row (a pattern, not a Python value: turning one into arrow imports pandas)."""
    return pc.match_substring_regex(status, pattern=f"^{HARNESS_OK_STATUS}$")


def _interned(column, pool: dict[str, str], pc) -> list:
    """A string column as a list whose equal values are one object (``pool`` maps each to it)."""
    encoded = pc.dictionary_encode(column, null_encoding="encode").combine_chunks()
    values = [None if v is None else pool.setdefault(v, v) for v in encoded.dictionary.to_pylist()]
    return [values[i] for i in encoded.indices.to_pylist()]  # (to_numpy would import pandas)


# --------------------------------------------------------------------------- conversion


def _letter_of(value: Any, status: str) -> tuple[str, str | None, bool]:
    """``(parse_status, predicted_letter, bad)`` of one ``model_letter`` value."""
    if status != HARNESS_OK_STATUS:
        return "error", None, False
    letter = value.strip() if isinstance(value, str) else value
    if letter in (None, ""):
        return "parse_failure", None, False
    if isinstance(letter, str) and len(letter) == 1 and "A" <= letter <= "Z":
        return "ok", letter, False
    return "ok", None, True


class _Reference:
    """The release as lookup tables: case and probe id -> position, and their fields."""

    def __init__(self, cases: Mapping[str, Any] | None, probes: Mapping[str, Any] | None):
        self.cases = cases
        self.probes = probes
        self.case_fields = {cid: _case_fields(case) for cid, case in cases.items()} if cases is not None else None
        self.probe_fields = (
            {pid: (p.case_id, p.probe_kind, p.correct_letter) for pid, p in probes.items()} if probes is not None else None
        )


def _case_fields(case: Any) -> tuple:
    """``(tier, canonical source, modality, text-only flag, source as written if it differs)``."""
    source = getattr(case, "source_dataset", None)
    label = source_label(source)
    return (
        getattr(case, "risk_tier", None),
        label,
        getattr(case, "modality", None),
        getattr(case, "text_only_answerable", None),
        source if label != source else None,
    )


_NO_CASE = (None, None, None, None, None)


def _convert_columns(
    cols: dict[str, list], lines: list[int], file: str, ref: _Reference, golds: dict[str, str]
) -> tuple[dict[str, list], list[tuple[int, Problem]]]:
    """Columns of the records of one file's rows (``cols`` as :data:`_FIELDS`), and the rows' problems.

    Output columns: ``predicted_letter, parse_status, correct_letter, case`` (the
    :func:`_case_fields` tuple), ``ok`` (False for a row with a problem). A gold letter no one
    gives yet is ``None`` (the caller resolves it after every file is read).
    """
    pid, cid, kind, status, model_letter, correct = (cols[name] for name in _FIELDS)
    n = len(pid)
    found: list[tuple[int, int, Problem]] = []  # (row index, order within the row, problem)
    letters = {}
    for value, st in set(zip(model_letter, status)) if n else ():
        letters[(value, st)] = _letter_of(value, st)
    parsed = [letters[key] for key in zip(model_letter, status)]
    parse_status = [p[0] for p in parsed]
    predicted = [p[1] for p in parsed]
    bad_letter = [i for i, p in enumerate(parsed) if p[2]] if any(v[2] for v in letters.values()) else []
    for i in bad_letter:
        message = f"must be one capital letter or empty, got {model_letter[i]!r}"
        found.append((i, 0, Problem(file, message, row=lines[i], field="model_letter")))
    if ref.case_fields is not None:
        fields = ref.case_fields
        case = [fields.get(c) for c in cid]
        unknown = [i for i, c in enumerate(case) if c is None] if None in case else []
        for i in unknown:
            message = f"case {cid[i]!r} is not in the release manifest"
            found.append((i, 1, Problem(file, message, row=lines[i], field="case_id")))
    else:
        case = [_NO_CASE] * n
    del status, model_letter, cols["status"], cols["model_letter"]  # not needed after this
    gold = list(correct)
    if ref.probe_fields is not None:
        pf = ref.probe_fields
        probe = [pf.get(p) for p in pid]
        suspect = [i for i, (known, c, k, g) in enumerate(zip(probe, cid, kind, correct))
                   if known is None or known[0] != c or known[1] != k or (g is not None and g != known[2])]
        for i in suspect:  # described field by field
            known = probe[i]
            if known is None:
                message = f"probe {pid[i]!r} is not in the release probes_mcq.csv"
                found.append((i, 2, Problem(file, message, row=lines[i], field="probe_id")))
                continue
            for order, (name, have, expected) in enumerate(
                (("case_id", cid[i], known[0]), ("probe_kind", kind[i], known[1]), ("correct_letter", correct[i], known[2])),
                start=3,
            ):
                if have != expected and not (name == "correct_letter" and have is None):
                    message = f"is {have!r} but the release has {expected!r} for probe {pid[i]!r}"
                    found.append((i, order, Problem(file, message, row=lines[i], field=name)))
        gold = [g if known is None else known[2] for known, g in zip(probe, gold)]
    else:
        for i, g in enumerate(gold):
            if g is None:
                gold[i] = golds.get(pid[i])
    found.sort(key=lambda item: (item[0], item[1]))
    good = [True] * n
    for i, _, _ in found:
        good[i] = False
    out = {"predicted_letter": predicted, "parse_status": parse_status, "correct_letter": gold, "case": case, "ok": good}
    return out, [(i, p) for i, _, p in found]


def _missing_gold(file: str, line: int, probe_id: str) -> Problem:
    message = (
        "error row without correct_letter, and neither the release (no probes_mcq.csv) nor another "
        f"result file gives the gold letter of probe {probe_id!r}"
    )
    return Problem(file, message, row=line, field="correct_letter")


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.glob(f"*{HARNESS_SUFFIX}"))
            if not found:
                raise FileNotFoundError(f"no *{HARNESS_SUFFIX} files in folder {str(p)!r}")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        elif p.exists():
            raise ValueError(f"harness output {str(p)!r} is not a regular file")
        else:
            raise FileNotFoundError(f"harness output {str(p)!r} does not exist")
    return out


def _bump(table: dict[str, dict[str, int]], model: str, key: str, n: int = 1) -> None:
    inner = table.setdefault(model, {})
    inner[key] = inner.get(key, 0) + n


def read_harness_files(
    paths: Iterable[str | Path] | str | Path,
    release: Any = None,
    *,
    strict: bool = True,
    allow_empty: bool = False,
    condition: str = "default",
) -> HarnessRecords:
    """Read harness outputs into probe records (scoring conventions: paper Appendix L).

    Args:
        paths: ``<model>__mcq.jsonl`` files and/or folders holding them
            (e.g. ``results/baselines``).
        release: a release location (folder, built dataset folder or Hub id, read with
            :func:`medvigil.suites.medvigil.release.load_for_scoring`), an already loaded release (anything with
            a ``cases`` mapping of objects with ``risk_tier, source_dataset, modality,
            text_only_answerable``, and optionally ``probes_mcq``), or ``None`` (records then
            lack tiers etc.; a warning says so).
        strict: raise one :class:`~medvigil.errors.DataError` listing every bad row
            (default); with ``False`` skip bad rows and count them.
        allow_empty: a file without any row is a warning (counted as ``empty_file``)
            instead of an error.
        condition: the records' ``condition`` (``"default"`` for the headline audit).

    Returns:
        :class:`HarnessRecords`, a list of probe-record dicts.

    Raises:
        FileNotFoundError: a path does not exist.
        ValueError: a file is not named ``<model>__mcq.jsonl``, or two files share a model.
        DataError: (``strict``) bad rows, each named by file, line and field; an empty
            file unless ``allow_empty``.
    """
    return _read(paths, release, strict=strict, allow_empty=allow_empty, condition=condition, as_dicts=True)


class HarnessColumns:
    """Harness files read as a :class:`~medvigil.scoring.table.RecordTable` (``table``), with the
    bookkeeping of :class:`HarnessRecords` (``files, skipped, error_rows, problems, warnings``)."""

    def __init__(self, table, bookkeeping: HarnessRecords):
        self.table = table
        self.files, self.skipped, self.error_rows = bookkeeping.files, bookkeeping.skipped, bookkeeping.error_rows
        self.problems, self.warnings = bookkeeping.problems, bookkeeping.warnings

    def __len__(self) -> int:
        return len(self.table)


def read_harness_table(
    paths: Iterable[str | Path] | str | Path,
    release: Any = None,
    *,
    strict: bool = True,
    allow_empty: bool = False,
    condition: str = "default",
) -> HarnessColumns:
    """As :func:`read_harness_files`, straight into columns (no dict per row): the scoring path.

    A file whose rows the columnar checks accept is read in bulk (:func:`_bulk_columns`); any
    other file row by row, exactly as :func:`read_harness_files` reads it (same problems). With a
    release that gives the MCQ probes, files are read two at a time and turned into codes
    (:func:`_read_coded`).
    """
    return _read(paths, release, strict=strict, allow_empty=allow_empty, condition=condition, as_dicts=False)


def _rows_to_columns(good: list[tuple[int, dict]]) -> tuple[dict[str, list], list[int]]:
    return {name: [row.get(name) for _, row in good] for name in _FIELDS}, [line for line, _ in good]


def _file_rows(data: bytes, bulk: dict[str, list] | None, model: str, file: str, out: HarnessRecords,
               fatal: list[Problem], *, as_dicts: bool, allow_empty: bool):
    """``(columns, lines, rows or None, problems)`` of one file: ``bulk`` columns, or its rows read
    one by one (decoded, checked against the row schema); blank lines, an empty file and invalid
    rows are counted in ``out``."""
    if bulk is not None:  # (at least one row, every one accepted)
        return bulk, list(range(1, len(bulk["probe_id"]) + 1)), None, []
    decoded, file_problems, blank, warnings = _decode_file(data, file)
    out.warnings += warnings
    if blank:
        _bump(out.skipped, model, "blank_line", blank)
    good, schema_problems = _schema_problems(decoded, file)
    del decoded  # one file's raw rows in memory at a time
    file_problems += schema_problems
    cols, lines = _rows_to_columns(good)
    rows = [row for _, row in good] if as_dicts else None
    del good
    if not lines and not file_problems:
        empty = Problem(file, "has no result rows: nothing to score for model " + repr(model))
        if allow_empty:
            out.warnings.append(str(empty))
            _bump(out.skipped, model, "empty_file")
        else:
            fatal.append(empty)
    if file_problems:
        _bump(out.skipped, model, "invalid_row", len({p.row for p in file_problems if p.row is not None}) or 1)
    return cols, lines, rows, file_problems


def _drop_duplicates(cols: dict[str, list], lines: list[int], rows: list[dict] | None, model: str, file: str,
                     out: HarnessRecords):
    """The rows without the repeats of a probe (each a problem, counted as an invalid row)."""
    pids = cols["probe_id"]
    row_problems: list[Problem] = []
    if len(set(pids)) == len(pids):
        return cols, lines, rows, row_problems
    seen: dict[str, int] = {}
    keep = []
    for i, pid in enumerate(pids):
        if pid in seen:
            message = f"duplicate probe {pid!r} (first at line {seen[pid]})"
            row_problems.append(Problem(file, message, row=lines[i], field="probe_id"))
            _bump(out.skipped, model, "invalid_row")
        else:
            seen[pid] = lines[i]
            keep.append(i)
    cols = {name: [col[i] for i in keep] for name, col in cols.items()}
    lines = [lines[i] for i in keep]
    rows = None if rows is None else [rows[i] for i in keep]
    return cols, lines, rows, row_problems


def _read(paths, release, *, strict: bool, allow_empty: bool, condition: str, as_dicts: bool):
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files = _expand(paths)
    models: dict[str, Path] = {}
    for f in files:
        m = model_from_filename(f)
        if m in models and models[m].resolve() != f.resolve():
            raise ValueError(f"two harness files for model {m!r}: {str(models[m])!r} and {str(f)!r}")
        models[m] = f
    cases, probes = _release_lookup(release)
    ref = _Reference(cases, probes)
    if not as_dicts and cases is not None and probes is not None and isinstance(condition, str):
        index = _ReleaseIndex(ref)
        if index.usable:
            return _read_coded(files, ref, index, strict=strict, allow_empty=allow_empty, condition=condition)
    out = HarnessRecords()
    problems: list[Problem] = []
    fatal: list[Problem] = []
    unique = {f.resolve(): f for f in reversed(files)}  # first spelling of each file wins
    golds: dict[str, str] = {}  # probe_id -> correct_letter of an answered row in any file
    gold_from: dict[str, int] = {}  # probe_id -> the file (index into parts) that gave it
    pool: dict[str, str] = {}  # one object per distinct string read in bulk
    parts: list[tuple] = []  # per file: (model, file, columns, lines, converted, rows or None)
    for resolved in dict.fromkeys(f.resolve() for f in files):
        path = unique[resolved]
        model, file = model_from_filename(path), str(path)
        out.files[file] = model
        data = read_bytes(path, file)  # a regular file, bounded in size
        bulk = None if as_dicts else _bulk_columns(data, pool)
        cols, lines, rows, file_problems = _file_rows(data, bulk, model, file, out, fatal, as_dicts=as_dicts,
                                                      allow_empty=allow_empty)
        del data
        for pid, st, gold in zip(cols["probe_id"], cols["status"], cols["correct_letter"]):
            if gold is not None and st == HARNESS_OK_STATUS and pid not in golds:
                golds[pid], gold_from[pid] = gold, len(parts)
        cols, lines, rows, row_problems = _drop_duplicates(cols, lines, rows, model, file, out)
        parts.append((model, file, cols, lines, rows, file_problems, row_problems))
    # convert after every file is read: an error row's gold letter may come from a later file
    order: list[tuple[int, list[int]]] = []  # (part, row indices) in record order
    pending: list[tuple[int, list[int]]] = []  # error rows whose gold only a later file gives: read last
    converted = []
    for k, (model, file, cols, lines, _rows, file_problems, row_problems) in enumerate(parts):
        conv, found = _convert_columns(cols, lines, file, ref, golds)
        converted.append(conv)
        late: list[int] = []
        if ref.probe_fields is None:
            late = [i for i, (g, pid) in enumerate(zip(cols["correct_letter"], cols["probe_id"]))
                    if g is None and gold_from.get(pid, k + 1) > k]
        late_set = set(late)
        order.append((k, [i for i in range(len(lines)) if i not in late_set]))
        pending.append((k, late))
        # problems in the order the rows are read: the file's own, then row by row
        problems.extend(file_problems)
        problems.extend(sorted(row_problems + [p for i, p in found if i not in late_set], key=lambda p: p.row))
        bad = sum(1 for i, ok in enumerate(conv["ok"]) if not ok and i not in late_set)
        if bad:
            _bump(out.skipped, model, "invalid_row", bad)
        conv["late_problems"] = [(i, p) for i, p in found if i in late_set]
    for k, late in pending:
        model, file, cols, lines = parts[k][:4]
        conv = converted[k]
        by_row: dict[int, list[Problem]] = {}
        for i, p in conv.pop("late_problems"):
            by_row.setdefault(i, []).append(p)
        for i in late:
            problems.extend(by_row.get(i, ()))
            if conv["correct_letter"][i] is None:
                problems.append(_missing_gold(file, lines[i], cols["probe_id"][i]))
                conv["ok"][i] = False
            if not conv["ok"][i]:
                _bump(out.skipped, model, "invalid_row")
        order.append((k, late))
    if fatal or (problems and strict):
        raise DataError(fatal + (problems if strict else []))
    out.problems = problems
    if cases is None:
        out.warnings.append("no release given: records have no risk tier, source, modality or text-only flag")
    columns: dict[str, list] = {name: [] for name in ("model", "probe_id", "case_id", "probe_kind", "correct_letter",
                                                        "predicted_letter", "parse_status", "case")}
    for k, idx in order:
        model, file, cols, lines, rows = parts[k][:5]
        conv = converted[k]
        ok = conv["ok"]
        whole = len(idx) == len(ok) and all(ok)  # every row, in file order
        if not whole:
            idx = [i for i in idx if ok[i]]
        status = conv["parse_status"]
        for i in (i for i, st in enumerate(status) if st == "error") if whole else (i for i in idx if status[i] == "error"):
            _bump(out.error_rows, model, cols["probe_kind"][i])
        if as_dicts:
            out.extend(_record(model, file, lines[i], rows[i], cols, conv, i, condition) for i in idx)
            continue
        columns["model"] += [model] * len(idx)
        for name in ("probe_id", "case_id", "probe_kind"):
            columns[name] += cols[name] if whole else [cols[name][i] for i in idx]
        for name in ("correct_letter", "predicted_letter", "parse_status", "case"):
            columns[name] += conv[name] if whole else [conv[name][i] for i in idx]
    if as_dicts:
        return out
    del parts, converted, order, pending  # the per-file columns: only the joined ones from here on
    from medvigil.scoring.table import RecordTable

    case = columns.pop("case")
    table = RecordTable.from_columns(
        **columns,
        risk_tier=[c[0] for c in case],
        source_dataset=[c[1] for c in case],
        modality=[c[2] for c in case],
        text_only_answerable=[c[3] for c in case],
        condition=condition,
        suite="medvigil",
        source="harness result files",
    )
    return HarnessColumns(table, out)


# --------------------------------------------------------------------------- coded path
# With a release that gives the MCQ probes, a file read in bulk becomes integer codes straight
# from its arrow columns: each row's position in the release's probe list (case, kind and gold
# follow from it), its letter and its status. A file with any row to describe (unknown or
# disagreeing ids, a bad letter, a repeated probe) or not read in bulk is read as
# :func:`_read` reads it, so the problems are the same.

_STATUS_CODES = {"ok": 0, "parse_failure": 1, "error": 2}  # medvigil.scoring.table.PARSE_STATUSES
_LOOKAHEAD = 2  # files read ahead by the worker threads (pyarrow parses without the GIL)


class _ReleaseIndex:
    """The release's cases and MCQ probes as arrow value sets and per-probe numpy columns."""

    def __init__(self, ref: _Reference):
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


def _numbers(array, dtype) -> Any:
    """A null-free arrow array of fixed-width values as numpy (no copy; ``to_numpy`` would import pandas)."""
    import numpy as np

    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array) + array.offset)[array.offset:]


def _encoded(column, pc) -> tuple[list, Any]:
    """``(distinct values, int32 code per row)`` of a one-chunk column (null is a value)."""
    import numpy as np

    encoded = pc.dictionary_encode(column.chunk(0), null_encoding="encode")
    return encoded.dictionary.to_pylist(), _numbers(encoded.indices, np.int32)


def _coded(table, index: _ReleaseIndex):
    """``(probe position, letter code, status code)`` per row of a file read in bulk, or None
    when a row must be described (read it as :func:`_read` does)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(table.column("probe_id").chunk(0), value_set=index.probe_set)
    if found.null_count:
        return None  # a probe the release does not have
    probe = _numbers(found, np.int32)
    case = pc.index_in(table.column("case_id").chunk(0), value_set=index.case_set)
    if case.null_count or not np.array_equal(index.probe_case[probe], _numbers(case, np.int32)):
        return None
    kinds, kind = _encoded(table.column("probe_kind"), pc)
    if not np.array_equal(np.array([index.kind_code.get(k, -1) for k in kinds])[kind], index.probe_kind[probe]):
        return None
    golds, gold = _encoded(table.column("correct_letter"), pc)
    given = np.array([-2 if g is None else _letter_code(g) for g in golds], dtype=np.int8)[gold]
    if ((given != -2) & (given != index.probe_gold[probe])).any():
        return None
    if np.bincount(probe, minlength=len(index.probe_ids)).max() > 1:
        return None  # a probe twice
    ok = _numbers(_is_ok(table.column("status").chunk(0), pc).cast(pa.int8()), np.int8) == 1
    letters, letter = _encoded(table.column("model_letter"), pc)
    parsed = [_letter_of(v, HARNESS_OK_STATUS) for v in letters]
    if any(bad for _, _, bad in parsed) and (np.array([bad for _, _, bad in parsed])[letter] & ok).any():
        return None  # an answered row whose letter is not one capital letter
    status = np.array([_STATUS_CODES[st] for st, _, _ in parsed], dtype=np.int8)[letter]
    pred = np.array([_letter_code(p) for _, p, _ in parsed], dtype=np.int8)[letter]
    return probe.copy(), np.where(ok, pred, -1).astype(np.int8), np.where(ok, status, _STATUS_CODES["error"]).astype(np.int8)


def _load_coded(path: Path, file: str, index: _ReleaseIndex):
    """``(data or None, table or None, codes or None)`` of one file (run in a worker thread)."""
    data = read_bytes(path, file)  # a regular file, bounded in size
    table = _bulk_table(data)
    codes = None if table is None else _coded(table, index)
    return (None, None, codes) if codes is not None else (data, table, None)


def _read_coded(files: list[Path], ref: _Reference, index: _ReleaseIndex, *, strict: bool, allow_empty: bool,
                condition: str) -> HarnessColumns:
    """:func:`_read` for a release with MCQ probes: files read in bulk become codes (:func:`_coded`),
    the others go through the row path; the same records, bookkeeping and problems."""
    import pyarrow as pa

    out = HarnessRecords()
    problems: list[Problem] = []
    fatal: list[Problem] = []
    unique = {f.resolve(): f for f in reversed(files)}  # first spelling of each file wins
    paths = [unique[r] for r in dict.fromkeys(f.resolve() for f in files)]
    parts: list[tuple[str, Any, Any, Any]] = []  # per file: (model, probe positions, letter codes, status codes)
    arrow_pool = pa.default_memory_pool()
    # the system allocator while reading: memory arrow frees goes back to the one numpy and Python use
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        _read_files(paths, ref, index, out, problems, fatal, parts, allow_empty)
    finally:
        pa.set_memory_pool(arrow_pool)
    if fatal or (problems and strict):
        raise DataError(fatal + (problems if strict else []))
    out.problems = problems
    return HarnessColumns(_coded_table(parts, index, condition), out)


def _read_files(paths, ref, index, out, problems, fatal, parts, allow_empty) -> None:
    """Each file's codes into ``parts`` (files read ahead by worker threads); bookkeeping into ``out``."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import pyarrow.compute as pc

    with ThreadPoolExecutor(max_workers=_LOOKAHEAD) as pool:
        pending: deque = deque()
        for k, path in enumerate(paths):
            while len(pending) < _LOOKAHEAD and k + len(pending) < len(paths):
                ahead = paths[k + len(pending)]
                pending.append(pool.submit(_load_coded, ahead, str(ahead), index))
            data, table, codes = pending.popleft().result()
            model, file = model_from_filename(path), str(path)
            out.files[file] = model
            if codes is None:
                bulk = None if table is None else {name: _interned(table.column(name), {}, pc) for name in _FIELDS}
                del table
                codes = _coded_rows(data, bulk, model, file, ref, index, out, problems, fatal, allow_empty)
                del data, bulk
            probe, pred, status = codes
            errors = np.flatnonzero(status == _STATUS_CODES["error"])
            if errors.size:
                kinds = index.probe_kind[probe[errors]]
                first = np.unique(kinds, return_index=True)[1]
                for kind in kinds[np.sort(first)].tolist():  # kinds in order of their first error row
                    _bump(out.error_rows, model, index.kinds[kind], int((kinds == kind).sum()))
            parts.append((model, probe, pred, status))


def _coded_rows(data, bulk, model, file, ref, index, out, problems, fatal, allow_empty):
    """Codes of the rows of one file read as :func:`_read` reads it; its problems to ``problems``."""
    import numpy as np

    cols, lines, _, file_problems = _file_rows(data, bulk, model, file, out, fatal, as_dicts=False, allow_empty=allow_empty)
    cols, lines, _, row_problems = _drop_duplicates(cols, lines, None, model, file, out)
    conv, found = _convert_columns(cols, lines, file, ref, {})
    problems.extend(file_problems)
    problems.extend(sorted(row_problems + [p for _, p in found], key=lambda p: p.row))
    keep = [i for i, ok in enumerate(conv["ok"]) if ok]
    if len(keep) < len(lines):
        _bump(out.skipped, model, "invalid_row", len(lines) - len(keep))
    probe = np.array([index.position(cols["probe_id"][i]) for i in keep], dtype=np.int32)
    pred = np.array([_letter_code(conv["predicted_letter"][i]) for i in keep], dtype=np.int8)
    status = np.array([_STATUS_CODES[conv["parse_status"][i]] for i in keep], dtype=np.int8)
    return probe, pred, status


def _coded_table(parts: list[tuple[str, Any, Any, Any]], index: _ReleaseIndex, condition: str):
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


def _record(model: str, file: str, line: int, row: dict, cols: dict, conv: dict, i: int, condition: str) -> dict:
    """The probe record of one converted row (the dict path)."""
    tier, source, modality, text_only, as_written = conv["case"][i]
    extra: dict[str, Any] = {"harness_status": row["status"], "file": file, "line": line}
    if as_written is not None:
        extra["source_dataset"] = as_written  # the spelling of the release
    record: dict[str, Any] = {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": row["probe_id"],
        "case_id": row["case_id"],
        "probe_kind": row["probe_kind"],
        "risk_tier": tier,
        "source_dataset": source,
        "modality": modality,
        "text_only_answerable": text_only,
        "correct_letter": conv["correct_letter"][i],
        "predicted_letter": conv["predicted_letter"][i],
        "parse_status": conv["parse_status"][i],
        "extra": extra,
    }
    for name in _RAW_FIELDS:
        if name in row and row[name] is not None:
            raw = row[name]
            record["raw_response"] = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, sort_keys=True)
            break
    if isinstance(row.get("retries"), int) and not isinstance(row["retries"], bool) and row["retries"] >= 0:
        record["retries"] = row["retries"]
    return record


def read_harness_file(
    path: str | Path, release: Any = None, *, strict: bool = True, allow_empty: bool = False, condition: str = "default"
) -> HarnessRecords:
    """One ``<model>__mcq.jsonl`` file; see :func:`read_harness_files`."""
    return read_harness_files([path], release, strict=strict, allow_empty=allow_empty, condition=condition)
