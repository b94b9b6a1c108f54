"""Reading a release's files: each CSV's spec (columns, schema, coercion), CSV text to typed values
(*coercion happens here*, once; rules in :mod:`medvigil.suites.medvigil.release.release`), the rows
with their problems, and ``splits.json``."""

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.csvio import CsvColumns, parse_csv_columns
from medvigil.files.input_files import read_bytes
from medvigil.records.schema_validation import problems_for, refused_rows
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_records import Release


class _Invalid(ValueError):
    """A cell that cannot be coerced; the message is user-facing."""


def _optional_path(text: str) -> str | None:
    return None if text == "" else text


_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def _boolean(*, empty: bool | None | type[_Invalid]) -> Callable[[str], bool | None]:
    def coerce(text: str) -> bool | None:
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        if low == "" and empty is not _Invalid:
            return empty  # type: ignore[return-value]
        raise _Invalid(f"{text!r} is not a boolean; write true or false")

    return coerce


def _string_list(text: str) -> list[str]:
    if text.strip() == "":
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Invalid(f"{_short(text)} is not a JSON list of strings ({exc.msg})") from None
    except RecursionError:
        raise _Invalid(
            f"{_short(text)} is nested too deeply; expected a JSON list of strings"
        ) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid(f"{_short(text)} is not a JSON list of strings")
    return value


def _answers(text: str) -> list[str]:
    if text.strip() == "":
        return []
    if text.lstrip().startswith("["):
        return _string_list(text)
    return [text]


def _number(text: str) -> float | None:
    if text.strip() == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise _Invalid(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise _Invalid(f"{text!r} is not a finite number")
    return value


def _integer(text: str) -> int | None:
    value = _number(text)
    if value is None:
        return None
    if value != int(value):
        raise _Invalid(f"{text!r} is not a whole number")
    return int(value)


def text_key(text: str) -> str:
    """Comparison form of a question, option or answer: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _roi_box(text: str) -> tuple[list[float] | None, str | None]:
    """(box or None, note) — unparsable boxes are not errors by themselves."""
    if text.strip() == "":
        return None, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{_short(text)} is not valid JSON ({exc.msg}); expected [x0, y0, x1, y1]"
    except RecursionError:
        return None, f"{_short(text)} is nested too deeply; expected [x0, y0, x1, y1]"
    if not isinstance(value, list):
        return None, f"{_short(text)} is not a JSON list; expected [x0, y0, x1, y1]"
    if len(value) != 4:
        return None, f"{_short(text)} has {len(value)} values; expected 4: [x0, y0, x1, y1]"
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None, f"{_short(text)} must hold 4 numbers [x0, y0, x1, y1]"
    return [float(v) for v in value], None


@dataclass(frozen=True)
class _CsvSpec:
    file: str
    schema: str
    columns: tuple[str, ...]  # required in the header
    coercers: dict[str, Callable[[str], Any]]
    optional: tuple[str, ...] = ()  # read as empty, with a warning, when absent


def _spec(file: str, schema: str, coercers: dict[str, Callable[[str], Any]]) -> _CsvSpec:
    return _CsvSpec(
        file, schema, rf.required_columns(file), coercers, rf.OPTIONAL_COLUMNS.get(file, ())
    )


_SPECS = {
    spec.file: spec
    for spec in (
        _spec(rf.MANIFEST, "manifest_row", {"text_only_answerable": _boolean(empty=_Invalid)}),
        _spec(
            rf.GROUNDING,
            "grounding_row",
            {"differential_set": _string_list, "laterality_dependent": _boolean(empty=None)},
        ),
        _spec(rf.PROBES_MCQ, "mcq_probe_row", {"image_file": _optional_path}),
        _spec(
            rf.PROBES_OPEN,
            "open_probe_row",
            {"image_file": _optional_path, "expected_answer_or_set": _answers},
        ),
        _spec(rf.TRIPLETS, "triplet_row", {}),
        _spec(
            rf.CLINICIAN_BASELINE,
            "clinician_baseline_row",
            {"acc_or_sfr_pct": _number, "n_probes": _integer, "n_correct": _integer},
        ),
    )
}
POINTER_COLUMNS = ("case_id", "source_path", "sha256")
POINTER_GLOB = "*pointers*.csv"
_ID_FIELDS = {"case_id", "probe_id"}


@dataclass
class Row:
    """One coerced CSV row: its number, typed values, whether it passed, and notes."""

    number: int
    values: dict[str, Any]
    valid: bool
    notes: dict[str, str] = field(default_factory=dict)  # field -> remark for the validator


@dataclass
class Rows(Sequence[Row]):
    """The coerced rows of one CSV file, kept by column: a :class:`Row` (and its dict) is made when
    asked for, every row once on the first pass over them (checks of a few rows of a large file make
    only those)."""

    numbers: list[int]  # each row's number
    columns: dict[str, Sequence[Any]]  # column -> each row's typed value
    valid: list[bool]  # whether each row passed coercion and its schema
    notes: dict[int, dict[str, str]] = field(
        default_factory=dict
    )  # position -> field -> remark for the validator

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, i: int) -> Row:  # type: ignore[override]  # (no slices)
        return Row(
            self.numbers[i],
            {name: column[i] for name, column in self.columns.items()},
            self.valid[i],
            self.notes.get(i, {}),
        )

    def __iter__(self) -> Iterator[Row]:
        return iter(self._rows)

    @cached_property
    def _rows(self) -> list[Row]:
        values = map(dict, map(zip, repeat(tuple(self.columns)), zip(*self.columns.values())))
        return list(
            map(
                Row,
                self.numbers,
                values,
                self.valid,
                (self.notes.get(i, {}) for i in range(len(self))),
            )
        )


@dataclass
class ReadResult:
    """What :func:`read_release` found: the typed release plus everything needed to judge it."""

    release: Release
    problems: list[Problem]
    rows: dict[str, Rows]  # file (relative posix path) -> coerced rows
    headers: dict[str, tuple[str, ...]]
    split_files: list[str]  # relative posix paths of the split JSON files read

    def column(self, rel: str, name: str) -> Sequence[Any]:
        """``[row.values.get(name) for row in self.rows[rel]]``."""
        rows = self.rows.get(rel) or Rows([], {}, [])
        return rows.columns.get(name) or [None] * len(rows)

    def valid_columns(self, rel: str, names: Sequence[str]) -> list[Sequence[Any]]:
        """The ``names`` columns of the valid rows of ``rel``, in row order."""
        rows = self.rows.get(rel) or Rows([], {name: [] for name in names}, [])
        every = all(rows.valid)
        return [
            rows.columns[name] if every else list(compress(rows.columns[name], rows.valid))
            for name in names
        ]


def _coerce_table(table: CsvColumns, spec: _CsvSpec) -> tuple[Rows, list[Problem]]:
    """The typed rows of ``table`` and their problems (per row: coercion, then schema), worked out
    column by column."""
    # as dict(zip(header, record)) per row: a repeated (empty) column name keeps its last column
    columns: dict[str, Sequence[Any]] = dict(zip(table.header, table.columns))
    failures: dict[int, list[tuple[str, str]]] = {}  # row position -> [(column, message)]
    typed = [column for column in spec.coercers if column in columns]
    for column in typed:
        columns[column], failed = _coerce_column(columns[column], spec.coercers[column])
        for i, message in failed:
            failures.setdefault(i, []).append((column, message))
    notes: dict[int, dict[str, str]] = {}
    if spec.schema == "grounding_row" and "roi_bbox_norm" in columns:
        boxes = list(map(_roi_box, columns["roi_bbox_norm"]))
        columns["roi_bbox_norm"] = [box for box, _ in boxes]
        typed.append("roi_bbox_norm")
        notes = {i: {"roi_bbox_norm": note} for i, (_, note) in enumerate(boxes) if note}
    valid = [True] * len(table.numbers)
    typed_rows = Rows(
        table.numbers, columns, valid, notes
    )  # a view for the schema check (the result gets the final validity)
    refused = set(refused_rows(spec.schema, (row.values for row in typed_rows)))
    problems = []
    for i in sorted(refused.union(failures)):
        number = table.numbers[i]
        row_problems = [
            Problem(table.file, message, row=number, field=column)
            for column, message in failures.get(i, ())
        ]
        if i in refused:
            failed = {column for column, _ in failures.get(i, ())}
            row_problems += _schema_row_problems(
                spec, typed_rows[i].values, failed, table.file, number
            )
        valid[i] = not row_problems
        problems.extend(row_problems)
    return Rows(table.numbers, columns, valid, notes), problems


def _coerce_column(
    texts: Sequence[str], coerce: Callable[[str], Any]
) -> tuple[list[Any], list[tuple[int, str]]]:
    """The typed column, and ``(position, message)`` of each cell that cannot be coerced (kept as
    text)."""
    try:
        return list(map(coerce, texts)), []
    except _Invalid:
        pass
    values, failed = [], []
    for i, text in enumerate(texts):
        try:
            values.append(coerce(text))
        except _Invalid as exc:
            values.append(text)
            failed.append((i, str(exc)))
    return values, failed


def _schema_row_problems(
    spec: _CsvSpec, values: dict, failed: set, file: str, number: int
) -> list[Problem]:
    """The schema's problems of one row, less those of columns that failed to coerce."""
    out = []
    for problem in problems_for(spec.schema, values, file, number):
        if problem.field in failed:
            continue
        if problem.field in _ID_FIELDS and "does not match" in problem.message:
            problem = Problem(
                file,
                f"{values.get(problem.field)!r} is not a valid id: it "
                f"must be non-empty, without whitespace or slashes",
                row=problem.row,
                field=problem.field,
            )
        out.append(problem)
    return out


def _read_table(root: Path, rel: str, spec: _CsvSpec, out: ReadResult) -> None:
    path = root / rel
    try:
        table = parse_csv_columns(read_bytes(path, rel), rel, required=spec.columns)
    except DataError as exc:
        out.problems.extend(exc.problems)
        out.rows[rel] = Rows([], {}, [])
        return
    out.headers[rel] = table.header
    out.problems.extend(table.problems)
    out.problems += [
        Problem(
            rel,
            f"optional column {column!r} is absent; read as empty",
            field=column,
            severity="warning",
        )
        for column in spec.optional
        if column not in table.header
    ]
    out.rows[rel], problems = _coerce_table(table, spec)
    out.problems.extend(problems)


def _read_json(path: Path, rel: str, problems: list[Problem]) -> Any:
    try:
        data = read_bytes(path, rel)  # regular files only, bounded (medvigil.files.input_files)
    except DataError as exc:
        problems.extend(exc.problems)
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        problems.append(
            Problem(
                rel, "file starts with a UTF-8 byte-order mark (BOM); save it as UTF-8 without BOM"
            )
        )
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(
            Problem(
                rel, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"
            )
        )
        return None
    if not text.strip():
        problems.append(
            Problem(rel, "file is empty; expected a JSON object {group: [case_id, ...]}")
        )
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            Problem(rel, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
        )
        return None
    except RecursionError:
        problems.append(Problem(rel, "JSON nested too deeply to read"))
        return None


def _read_splits(root: Path, out: ReadResult) -> dict[str, dict[str, list[str]]]:
    splits: dict[str, dict[str, list[str]]] = {}
    folder = root / rf.SPLITS_DIR
    if not folder.is_dir():
        out.problems.append(
            Problem(
                rf.SPLITS_DIR,
                "no splits/ folder; stratified results need the split files",
                severity="warning",
            )
        )
        return splits
    for name in rf.SPLIT_FILES:
        if not (folder / f"{name}.json").is_file():
            out.problems.append(
                Problem(f"{rf.SPLITS_DIR}/{name}.json", "split file is missing", severity="warning")
            )
    for path in sorted(folder.glob("*.json")):
        rel = f"{rf.SPLITS_DIR}/{path.name}"
        out.split_files.append(rel)
        value = _read_json(path, rel, out.problems)
        if value is None:
            continue
        problems = problems_for("split_file", value, rel)
        if problems:
            out.problems.extend(problems)
            continue
        if isinstance(value, list):
            splits[path.stem] = {path.stem: list(value)}
        else:
            splits[path.stem] = {k: list(v) for k, v in value.items() if not k.startswith("_")}
    return splits
