"""The row path of the official-harness reader: decoding and checking a result file's rows, the bulk
column checks, one row to one record, and the per-file bookkeeping (blank lines, invalid rows,
duplicates, error rows) shared by both read paths (see
:mod:`medvigil.suites.medvigil.harness.harness`)."""

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, compress
from operator import itemgetter, ne
from pathlib import Path
from typing import Any

from medvigil.errors import Problem
from medvigil.files.input_files import RepeatedKey, no_repeated_keys, non_finite_field
from medvigil.records.schema_validation import accepts, problems_for
from medvigil.suites.medvigil.release.release_format import HARNESS_OK_STATUS, source_label

HARNESS_SUFFIX = "__mcq.jsonl"
_RAW_FIELDS = ("raw_response", "response", "raw", "model_answer")
SCHEMA = "harness_result_row"


class HarnessRecords(list):
    """Probe records read from harness files, with ``files`` (``{path: model}``), ``skipped``
    (``{model: {reason: count}}``: ``blank_line``, ``invalid_row``, ``empty_file``), ``error_rows``
    (``{model: {probe_kind: count}}`` of failed calls), ``problems`` (of skipped invalid rows) and
    ``warnings`` (e.g. no release: no SFR_w)."""

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


def release_lookup(release: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(cases, probes)`` from a release location, a Release-like object or None."""
    if release is None:
        return None, None
    if isinstance(release, (str, Path)):
        from medvigil.suites.medvigil.release.release_loading import (
            load_for_scoring,
        )  # lazy: reading a release pulls in the validator

        release = load_for_scoring(release)
    cases = getattr(release, "cases", None)
    if not isinstance(cases, Mapping):
        raise TypeError(
            f"release must be a release folder or have a 'cases' "
            f"mapping, got {type(release).__name__}"
        )
    probes_list = getattr(release, "probes_mcq", None)
    probes = None if probes_list is None else {p.probe_id: p for p in probes_list}
    return dict(cases), probes


class _NonFinite(ValueError):
    """A ``NaN`` or ``Infinity`` in a line (``parse_constant`` of :data:`_DECODER`)."""


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


# each line on its own, a key twice in one object refused (json's documented hooks)
_DECODER = json.JSONDecoder(object_pairs_hook=no_repeated_keys, parse_constant=_refuse_constant)
BLANK = object()  # what :func:`line_values` gives for a blank line
NON_FINITE = "NaN or Infinity is not a JSON number; a result row holds finite numbers only"


def line_values(
    data: bytes, file: str, warnings: list[str], problems: list[Problem]
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each line of a JSONL file's bytes that is UTF-8 and one JSON
    value (no key twice in an object, finite numbers only); :data:`BLANK` for a blank line (a last
    line of only whitespace is no line). The other lines' problems go to ``problems``."""
    if data.startswith(b"\xef\xbb\xbf"):
        warnings.append(f"{file}: starts with a UTF-8 byte-order mark (ignored)")
        data = data[3:]
    raw_lines = data.split(b"\n")
    decode, last = _DECODER.decode, len(raw_lines)
    for number, raw in enumerate(raw_lines, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
            problems.append(Problem(file, message, row=number))
            continue
        if not line or line.isspace():
            if number < last:
                yield number, BLANK
            continue
        try:
            value = decode(line)
        except (ValueError, RepeatedKey, RecursionError) as exc:
            problems.append(_line_problem(exc, line, file, number))
            continue
        yield number, value


def _line_problem(exc: Exception, line: str, file: str, number: int) -> Problem:
    """The problem of a line :data:`_DECODER` refused with ``exc``."""
    if isinstance(exc, _NonFinite):  # a key twice is named first, as the object ends before
        try:
            value = json.loads(line, object_pairs_hook=no_repeated_keys)
        except RepeatedKey as repeated:
            return repeated.problem(file, number)
        return Problem(file, NON_FINITE, row=number, field=non_finite_field(value))
    if isinstance(exc, RepeatedKey):
        return exc.problem(file, number)
    if isinstance(exc, RecursionError):
        return Problem(file, "JSON nested too deeply to read", row=number)
    column = getattr(exc, "colno", None)
    message = f"not valid JSON: {getattr(exc, 'msg', exc)}" + (
        f" (column {column})" if column else ""
    )
    return Problem(file, message, row=number)


def row_problems(value: Any, file: str, number: int) -> list[Problem]:
    """The problems of a decoded line as a result row: none when the row schema accepts it
    (``jsonschema_rs``; what that refuses, ``jsonschema`` judges and names)."""
    if accepts(SCHEMA, value):
        return []
    if not isinstance(value, dict):
        return [Problem(file, f"must be a JSON object, got {type(value).__name__}", row=number)]
    return problems_for(SCHEMA, value, file, number)


COLUMNS = (
    "probe_id",
    "case_id",
    "probe_kind",
    "answered",
    "model_letter",
    "correct_letter",
)  # a file's, as read
ID_COLUMNS = ("probe_id", "case_id", "probe_kind")


def letter_of(value: Any, answered: bool) -> tuple[str, str | None, bool]:
    """``(parse_status, predicted_letter, bad)`` of one ``model_letter`` value (``answered``: status
    ``ok``)."""
    if not answered:
        return "error", None, False
    letter = value.strip() if isinstance(value, str) else value
    if letter in (None, ""):
        return "parse_failure", None, False
    if isinstance(letter, str) and len(letter) == 1 and "A" <= letter <= "Z":
        return "ok", letter, False
    return "ok", None, True


class Reference:
    """The release as lookup tables: case and probe id -> position, and their fields."""

    def __init__(self, cases: Mapping[str, Any] | None, probes: Mapping[str, Any] | None):
        self.cases = cases
        self.probes = probes
        self.case_fields = (
            {cid: _case_fields(case) for cid, case in cases.items()} if cases is not None else None
        )
        self.probe_fields = (
            {pid: (p.case_id, p.probe_kind, p.correct_letter) for pid, p in probes.items()}
            if probes is not None
            else None
        )
        self.probe_gold = (
            {pid: p.correct_letter for pid, p in probes.items()} if probes is not None else None
        )

    def ids(self) -> list[str]:
        """The release's probe, case and probe-kind ids (none without one)."""
        probes = self.probes.values() if self.probes is not None else ()
        return [
            *(self.cases or ()),
            *chain.from_iterable((p.probe_id, p.case_id, p.probe_kind) for p in probes),
        ]

    def case_of(self, case_id: str | None) -> tuple:
        """:func:`_case_fields` of a case (all None without a release)."""
        return _NO_CASE if self.case_fields is None else self.case_fields.get(case_id, _NO_CASE)


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


def convert_columns(
    cols: dict[str, list], lines: list[int], file: str, ref: Reference, golds: dict[str, str]
) -> tuple[dict[str, list], list[tuple[int, Problem]]]:
    """Columns of the records of one file's rows (``cols`` as :data:`COLUMNS`), and the rows'
    problems.

    Output columns: ``predicted_letter, parse_status, correct_letter``, ``ok`` (False for a row with
    a problem). A gold letter no one gives yet is ``None`` (the caller resolves it after every file
    is read).
    """
    pid, cid = cols["probe_id"], cols["case_id"]
    found: list[tuple[int, int, tuple[str, str]]] = []  # (row, order in it, (field, message))
    predicted, parse_status = _parsed_letters(cols["model_letter"], cols["answered"], found)
    if ref.case_fields is not None:
        unknown = set(cid).difference(ref.case_fields)
        for i in compress(range(len(pid)), map(unknown.__contains__, cid)) if unknown else ():
            message = f"case {cid[i]!r} is not in the release manifest"
            found.append((i, 1, ("case_id", message)))
    del cols["answered"], cols["model_letter"]  # not needed after this
    if ref.probe_fields is not None:
        _against_release(cols, ref, found)
        gold = list(map(ref.probe_gold.get, pid, cols["correct_letter"]))  # the release's, else
    else:  # the row's, else another file's
        gold = [g if g is not None else golds.get(p) for p, g in zip(pid, cols["correct_letter"])]
    found.sort(key=lambda item: (item[0], item[1]))
    good = [True] * len(pid)
    for i, _, _ in found:
        good[i] = False
    problems = [
        (i, Problem(file, message, row=lines[i], field=name)) for i, _, (name, message) in found
    ]
    out = {
        "predicted_letter": predicted,
        "parse_status": parse_status,
        "correct_letter": gold,
        "ok": good,
    }
    return out, problems


def _parsed_letters(
    model_letter: list, answered: list[bool], found: list[tuple[int, int, tuple[str, str]]]
) -> tuple[list, list[str]]:
    """``(predicted letters, parse statuses)`` of a file's rows (:func:`letter_of`, once per
    distinct value); a letter that is not one capital letter goes to ``found``."""
    letters = {pair: letter_of(*pair) for pair in set(zip(model_letter, answered))}
    parsed = list(map(letters.__getitem__, zip(model_letter, answered)))
    if any(v[2] for v in letters.values()):
        for i in (i for i, p in enumerate(parsed) if p[2]):
            message = f"must be one capital letter or empty, got {model_letter[i]!r}"
            found.append((i, 0, ("model_letter", message)))
    return list(map(itemgetter(1), parsed)), list(map(itemgetter(0), parsed))


def _against_release(
    cols: dict[str, list], ref: Reference, found: list[tuple[int, int, tuple[str, str]]]
) -> None:
    """The rows whose probe the release does not have, or has with another case, kind or gold
    letter, to ``found`` field by field."""
    pid, cid, kind, correct = (
        cols[n] for n in ("probe_id", "case_id", "probe_kind", "correct_letter")
    )
    probe = list(map(ref.probe_fields.get, pid))
    for i in compress(range(len(pid)), map(ne, probe, zip(cid, kind, correct))):
        known = probe[i]
        if known is None:
            message = f"probe {pid[i]!r} is not in the release probes_mcq.csv"
            found.append((i, 2, ("probe_id", message)))
            continue
        checks = (
            ("case_id", cid[i], known[0]),
            ("probe_kind", kind[i], known[1]),
            ("correct_letter", correct[i], known[2]),
        )
        for order, (name, have, expected) in enumerate(checks, start=3):
            if have != expected and not (name == "correct_letter" and have is None):
                message = f"is {have!r} but the release has {expected!r} for probe {pid[i]!r}"
                found.append((i, order, (name, message)))


def expand(paths: Iterable[str | Path]) -> list[Path]:
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


def bump(table: dict[str, dict[str, int]], model: str, key: str, n: int = 1) -> None:
    inner = table.setdefault(model, {})
    inner[key] = inner.get(key, 0) + n


class HarnessColumns:
    """Harness files read as a :class:`~medvigil.scoring.table.RecordTable` (``table``), with the
    bookkeeping of :class:`HarnessRecords` (``files, skipped, error_rows, problems, warnings``)."""

    def __init__(self, table, bookkeeping: HarnessRecords):
        self.table = table
        self.files, self.skipped, self.error_rows = (
            bookkeeping.files,
            bookkeeping.skipped,
            bookkeeping.error_rows,
        )
        self.problems, self.warnings = bookkeeping.problems, bookkeeping.warnings

    def __len__(self) -> int:
        return len(self.table)


def _columns(
    data: bytes, file: str, out: HarnessRecords, model: str, as_dicts: bool
) -> tuple[dict[str, list], list[int], list[dict] | None, list[Problem]]:
    """``(columns, lines, rows or None, problems)`` of one file's rows: each line decoded
    (:func:`line_values`) and checked against the row schema (:func:`row_problems`), the good
    rows' fields kept by column (:data:`COLUMNS`); blank lines are counted in ``out``. The
    problems: the lines' that are no JSON value, then the rows' the schema refuses."""
    cols: dict[str, list] = {name: [] for name in COLUMNS}
    pid, cid, kind, answered, letter, gold = (cols[name].append for name in COLUMNS)
    lines: list[int] = []
    rows: list[dict] | None = [] if as_dicts else None
    line_problems: list[Problem] = []
    schema_problems: list[Problem] = []
    blank = 0
    for number, value in line_values(data, file, out.warnings, line_problems):
        if value is BLANK:
            blank += 1
            continue
        found = row_problems(value, file, number)
        if found:
            schema_problems += found
            continue
        lines.append(number)
        pid(value["probe_id"])
        cid(value["case_id"])
        kind(value["probe_kind"])
        answered(value["status"] == HARNESS_OK_STATUS)
        letter(value.get("model_letter"))  # one-letter strings are shared by Python itself
        gold(value.get("correct_letter"))
        if as_dicts:
            rows.append(value)
    if blank:
        bump(out.skipped, model, "blank_line", blank)
    return cols, lines, rows, line_problems + schema_problems


def file_rows(
    data: bytes,
    model: str,
    file: str,
    out: HarnessRecords,
    fatal: list[Problem],
    *,
    as_dicts: bool,
    allow_empty: bool,
    pool: dict[str, str],
    last: dict[str, list],
):
    """``(columns, lines, rows or None, problems)`` of one file (:func:`_columns`); an empty file
    and invalid rows are counted in ``out``. Equal ids share one string object through ``pool``
    (they repeat in every model's file); an id column equal to the last file's (``last``, updated
    here: the harness writes every model's probes in one order) is that file's list."""
    cols, lines, rows, file_problems = _columns(data, file, out, model, as_dicts)
    for name in ID_COLUMNS:
        same = cols[name] == last.get(name)
        cols[name] = last[name] if same else list(map(pool.setdefault, cols[name], cols[name]))
        last[name] = cols[name]
    if not lines and not file_problems:
        empty = Problem(file, "has no result rows: nothing to score for model " + repr(model))
        if allow_empty:
            out.warnings.append(str(empty))
            bump(out.skipped, model, "empty_file")
        else:
            fatal.append(empty)
    if file_problems:
        bump(
            out.skipped,
            model,
            "invalid_row",
            len({p.row for p in file_problems if p.row is not None}) or 1,
        )
    return cols, lines, rows, file_problems


def drop_duplicates(
    cols: dict[str, list],
    lines: list[int],
    rows: list[dict] | None,
    model: str,
    file: str,
    out: HarnessRecords,
):
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
            bump(out.skipped, model, "invalid_row")
        else:
            seen[pid] = lines[i]
            keep.append(i)
    cols = {name: [col[i] for i in keep] for name, col in cols.items()}
    lines = [lines[i] for i in keep]
    rows = None if rows is None else [rows[i] for i in keep]
    return cols, lines, rows, row_problems


def record(
    model: str, file: str, line: int, row: dict, case: tuple, conv: dict, i: int, condition: str
) -> dict:
    """The probe record of one converted row (the dict path); ``case``: :meth:`Reference.case_of`
    its case."""
    tier, source, modality, text_only, as_written = case
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
            record["raw_response"] = (
                raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, sort_keys=True)
            )
            break
    if (
        isinstance(row.get("retries"), int)
        and not isinstance(row["retries"], bool)
        and row["retries"] >= 0
    ):
        record["retries"] = row["retries"]
    return record
