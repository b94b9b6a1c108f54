"""The row path of the official-harness reader: decoding and checking a result file's rows, the bulk
column checks, one row to one record, and the per-file bookkeeping (blank lines, invalid rows,
duplicates, error rows) shared by both read paths (see
:mod:`medvigil.suites.medvigil.harness.harness`)."""

import json
import json.scanner
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress
from operator import itemgetter, ne
from pathlib import Path
from typing import Any

from medvigil.errors import Problem
from medvigil.files.input_files import RepeatedKey, keys_once, no_repeated_keys, non_finite_field
from medvigil.records.schema_columns import MISSING, compiled
from medvigil.suites.medvigil.release.release_format import HARNESS_OK_STATUS, source_label

HARNESS_SUFFIX = "__mcq.jsonl"
_RAW_FIELDS = ("raw_response", "response", "raw", "model_answer")
_SCHEMA = "harness_result_row"
_CHECKER = compiled(_SCHEMA)  # the row schema as column checks


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


# Text decoded at a time: whole lines, about this many characters (a few hundred rows), so that
# their dicts are freed before the collector's youngest generation fills (700 allocations) and it
# never walks them.
_CHUNK_CHARS = 100_000
_SCAN = json.scanner.c_make_scanner(
    json.JSONDecoder()
)  # the C decoder: one value that starts at a position


def _pieces(
    data: bytes, file: str, warnings: list[str], problems: list[Problem]
) -> Iterator[tuple[Sequence[int], list, int]]:
    """``(line numbers, values, blank lines)`` of one JSONL file's bytes, a few hundred lines at a
    time: the lines that hold one JSON value with no key twice in an object; the others' problems go
    to ``problems``."""
    if data.startswith(b"\xef\xbb\xbf"):
        warnings.append(f"{file}: starts with a UTF-8 byte-order mark (ignored)")
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        yield _line_by_line(1, _utf8_lines(data, file, problems), file, problems)
        return
    after_last = text.rfind("\n") + 1
    end = (
        len(text) if text[after_last:].strip() else after_last - 1
    )  # a last line of only whitespace is no line
    start, first = 0, 1
    while start <= end:
        stop = text.find("\n", start + _CHUNK_CHARS, end)
        stop = end if stop < 0 else stop
        values = _scan_lines(text, start, stop)
        chunk = text[start:stop]
        if values is not None and keys_once(values, chunk) and not _maybe_non_finite(chunk):
            yield range(first, first + len(values)), values, 0
            first += len(values)
        else:  # line by line, to say where the problem is
            lines = text[start:stop].split("\n")
            yield _line_by_line(first, lines, file, problems)
            first += len(lines)
        start = stop + 1


def _scan_lines(text: str, start: int, stop: int) -> list | None:
    """The values of ``text[start:stop]`` when each of its lines is one JSON value and nothing else,
    else None."""
    values, pos = [], start
    try:
        while True:
            value, pos = _SCAN(text, pos)
            values.append(value)
            if pos == stop:
                return values
            if text[pos] != "\n":
                return None
            pos += 1
    except (
        StopIteration,
        ValueError,
        RecursionError,
    ):  # no value (blank), not JSON, nested too deeply
        return None


def _utf8_lines(data: bytes, file: str, problems: list[Problem]) -> list[str | None]:
    """The lines of bytes that are not all UTF-8: each undecodable one a problem and ``None``."""
    lines: list[str | None] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    file,
                    f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}",
                    row=number,
                )
            )
            lines.append(None)  # reported; keeps line numbers aligned, not counted as blank
    if lines and lines[-1] is not None and not lines[-1].strip():
        lines.pop()  # the newline that ends the last line is not a blank line
    return lines


def _line_by_line(
    first: int, lines: list[str | None], file: str, problems: list[Problem]
) -> tuple[list[int], list, int]:
    """``(line numbers, values, blank lines)`` of ``lines`` (the first is line ``first``), each
    decoded on its own."""
    numbers, values, blank = [], [], 0
    for n, text in enumerate(lines, start=first):
        if text is None:
            continue
        if not text.strip():
            blank += 1
            continue
        try:
            value = json.loads(text, object_pairs_hook=no_repeated_keys)
        except RepeatedKey as exc:
            problems.append(exc.problem(file, n))
        except ValueError as exc:
            column = getattr(exc, "colno", None)
            message = f"not valid JSON: {getattr(exc, 'msg', exc)}" + (
                f" (column {column})" if column else ""
            )
            problems.append(Problem(file, message, row=n))
        except RecursionError:
            problems.append(Problem(file, "JSON nested too deeply to read", row=n))
        else:
            field = non_finite_field(value)
            if field is None:
                values.append(value)
                numbers.append(n)
            else:
                problems.append(Problem(file, NON_FINITE, row=n, field=field))
    return numbers, values, blank


NON_FINITE = "NaN or Infinity is not a JSON number; a result row holds finite numbers only"


def _maybe_non_finite(chunk: str) -> bool:
    """Whether ``chunk`` may hold a ``NaN`` or ``Infinity`` (then it is read line by line, to name
    them)."""
    return "NaN" in chunk or "Infinity" in chunk


def _schema_problems(
    numbers: list[int], values: list[Any], file: str
) -> tuple[list[int], dict[str, list], list[dict], list[Problem]]:
    """The line numbers, :data:`FIELDS` columns (``MISSING`` where absent) and rows that pass the
    harness-row schema, and the problems of the others (the schema's compiled checks, then
    ``jsonschema`` on the rows they refuse, to describe them)."""
    from medvigil.records.schema_validation import problems_for

    problems: list[Problem] = []
    if set(map(type, values)) - {dict}:
        for n, row in zip(numbers, values):
            if not isinstance(row, dict):
                problems.append(
                    Problem(file, f"must be a JSON object, got {type(row).__name__}", row=n)
                )
        keep = [i for i, row in enumerate(values) if isinstance(row, dict)]
        numbers, values = [numbers[i] for i in keep], [values[i] for i in keep]
    columns = _CHECKER.columns_of(values)
    refused = set()
    for i in _CHECKER.invalid_in_open_columns(columns, len(values)):
        found = problems_for(_SCHEMA, values[i], file, numbers[i])
        if found:
            problems.extend(found)
            refused.add(i)
    columns = {
        name: columns[name] if name in columns else [MISSING] * len(values) for name in FIELDS
    }
    if refused:
        keep = [i for i in range(len(values)) if i not in refused]
        numbers, values = [numbers[i] for i in keep], [values[i] for i in keep]
        columns = {name: [col[i] for i in keep] for name, col in columns.items()}
    return numbers, columns, values, sorted(problems, key=lambda p: p.row)


FIELDS = ("probe_id", "case_id", "probe_kind", "status", "model_letter", "correct_letter")
COLUMNS = (
    "probe_id",
    "case_id",
    "probe_kind",
    "answered",
    "model_letter",
    "correct_letter",
)  # a file's, as read
_AS_NONE = {MISSING: None}
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
    pid, cid, kind, status, model_letter, correct = (cols[name] for name in COLUMNS)
    n = len(pid)
    found: list[tuple[int, int, Problem]] = []  # (row index, order within the row, problem)
    letters = {}
    for value, st in set(zip(model_letter, status)) if n else ():
        letters[(value, st)] = letter_of(value, st)
    parsed = list(map(letters.__getitem__, zip(model_letter, status)))
    parse_status = list(map(itemgetter(0), parsed))
    predicted = list(map(itemgetter(1), parsed))
    bad_letter = (
        [i for i, p in enumerate(parsed) if p[2]] if any(v[2] for v in letters.values()) else []
    )
    for i in bad_letter:
        message = f"must be one capital letter or empty, got {model_letter[i]!r}"
        found.append((i, 0, Problem(file, message, row=lines[i], field="model_letter")))
    if ref.case_fields is not None:
        unknown = set(cid).difference(ref.case_fields)
        for i in compress(range(n), map(unknown.__contains__, cid)) if unknown else ():
            message = f"case {cid[i]!r} is not in the release manifest"
            found.append((i, 1, Problem(file, message, row=lines[i], field="case_id")))
    del status, model_letter, cols["answered"], cols["model_letter"]  # not needed after this
    gold = list(correct)
    if ref.probe_fields is not None:
        pf = ref.probe_fields
        probe = list(map(pf.get, pid))
        for i in compress(
            range(n), map(ne, probe, zip(cid, kind, correct))
        ):  # described field by field
            known = probe[i]
            if known is None:
                message = f"probe {pid[i]!r} is not in the release probes_mcq.csv"
                found.append((i, 2, Problem(file, message, row=lines[i], field="probe_id")))
                continue
            checks = (
                ("case_id", cid[i], known[0]),
                ("probe_kind", kind[i], known[1]),
                ("correct_letter", correct[i], known[2]),
            )
            for order, (name, have, expected) in enumerate(checks, start=3):
                if have != expected and not (name == "correct_letter" and have is None):
                    message = f"is {have!r} but the release has {expected!r} for probe {pid[i]!r}"
                    found.append((i, order, Problem(file, message, row=lines[i], field=name)))
        gold = list(map(ref.probe_gold.get, pid, gold))  # the release's, else the row's
    else:
        for i, g in enumerate(gold):
            if g is None:
                gold[i] = golds.get(pid[i])
    found.sort(key=lambda item: (item[0], item[1]))
    good = [True] * n
    for i, _, _ in found:
        good[i] = False
    out = {
        "predicted_letter": predicted,
        "parse_status": parse_status,
        "correct_letter": gold,
        "ok": good,
    }
    return out, [(i, p) for i, _, p in found]


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
    """``(columns, lines, rows or None, problems)`` of one file, its rows read one by one (decoded,
    checked against the row schema); blank lines, an empty file and invalid rows are counted in
    ``out``. Equal ids share one string object through ``pool`` (they repeat in every model's file);
    an id column equal to the last file's (``last``, updated here: the harness writes every model's
    probes in one order) is that file's list."""
    file_problems: list[Problem] = []
    cols: dict[str, list] = {name: [] for name in COLUMNS}
    lines: list[int] = []
    rows: list[dict] | None = [] if as_dicts else None
    schema_problems: list[Problem] = []
    for numbers, values, blank in _pieces(data, file, out.warnings, file_problems):
        if blank:
            bump(out.skipped, model, "blank_line", blank)
        good_lines, columns, good, found = _schema_problems(numbers, values, file)
        del values
        schema_problems += found
        lines += good_lines
        for name in ID_COLUMNS:
            cols[name] += columns[name]
        cols["answered"] += map(HARNESS_OK_STATUS.__eq__, columns["status"])
        cols["model_letter"] += columns[
            "model_letter"
        ]  # one-letter strings are shared by Python itself
        cols["correct_letter"] += map(
            _AS_NONE.get, columns["correct_letter"], columns["correct_letter"]
        )
        if as_dicts:
            rows += good
    file_problems += schema_problems
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
