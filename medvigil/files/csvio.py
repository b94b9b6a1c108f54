"""Strict CSV reading for release files: UTF-8 without a byte-order mark, one header row, comma
separated, RFC 4180 quoting. Anything else is a :class:`~medvigil.errors.Problem` that says where:
bytes that are not UTF-8 (byte offset and data row); a byte-order mark (UTF-8: reported and
skipped; UTF-16: reading stops); an empty file, a missing required column, a column named twice; a
row with more or fewer fields than the header (left out); a NUL character (row and column).

Row numbers are 1-based data rows, the header excluded, blank lines not counted (as in a
spreadsheet with the header frozen). Values stay strings; the reader types them
(:mod:`medvigil.suites.medvigil.release.release`).

>>> table = parse_csv_bytes(b"a,b\\n1,2\\n3\\n", "x.csv", required=("a",))
>>> [row.values for row in table.rows]
[{'a': '1', 'b': '2'}]
>>> print(table.problems[0])
x.csv, row 2: has 1 field but the header has 2 (line 3)
"""

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class CsvRow:
    """One data record: its 1-based row number and values by column."""

    number: int
    values: dict[str, str]


@dataclass
class CsvTable:
    """A parsed CSV file: header, the well-formed rows, and non-fatal problems."""

    file: str
    header: tuple[str, ...]
    rows: list[CsvRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def read_csv(
    path: Path | str, name: str | None = None, *, required: Iterable[str] = ()
) -> CsvTable:
    """Read ``path`` strictly; ``name`` (default: the file name) labels every problem. A missing
    file raises FileNotFoundError; a file that cannot be read as a table at all (encoding, empty
    file, header problems, broken quoting) a DataError. Row-level problems do not raise: they are in
    ``CsvTable.problems``.
    """
    path = Path(path)
    name = name or path.name
    return parse_csv_bytes(read_bytes(path, name), name, required=required)


def parse_csv_bytes(data: bytes, name: str, *, required: Iterable[str] = ()) -> CsvTable:
    """Parse CSV ``data`` (see :func:`read_csv`)."""
    table = parse_csv_columns(data, name, required=required)
    rows = [
        CsvRow(number, dict(zip(table.header, record)))
        for number, record in zip(table.numbers, zip(*table.columns))
    ]
    return CsvTable(name, table.header, rows, table.problems)


@dataclass
class CsvColumns:
    """A parsed CSV file by column (what :func:`parse_csv_bytes` finds, without a dict per row)."""

    file: str
    header: tuple[str, ...]
    columns: list[list[str]]  # one per header position: its values in the well-formed records
    numbers: list[int]  # the row numbers of those records
    problems: list[Problem] = field(default_factory=list)


def parse_csv_columns(data: bytes, name: str, *, required: Iterable[str] = ()) -> CsvColumns:
    """Parse CSV ``data`` into :class:`CsvColumns`: split at line breaks and commas when it holds no
    quote (the usual file), else in one pass of ``csv.reader``, else (a record of the wrong length,
    broken quoting) record by record, which locates each problem (row and line)."""
    required = tuple(required)
    problems: list[Problem] = []
    text = _text(data, name, problems)
    plain = _plain_columns(text)
    if plain is None:
        try:
            records = [
                record
                for record in csv.reader(io.StringIO(text, newline=""), strict=True)
                if record
            ]  # no blank lines
        except csv.Error:
            records = []  # the record-by-record pass says where
        if records and set(map(len, records)) == {len(records[0])}:
            plain = (
                records[0],
                [list(column) for column in zip(*records[1:])] or [[] for _ in records[0]],
            )
    if plain is not None:
        header, columns = plain
        fatal, minor = _header_problems(header, name, required)
        if fatal:
            raise DataError(problems + minor + fatal)
        return CsvColumns(
            name, tuple(header), columns, list(range(1, len(columns[0]) + 1)), problems + minor
        )
    header, rows, problems = _parse(text, name, required, problems)
    columns = [list(column) for column in zip(*(record for _, record in rows))] or [
        [] for _ in header
    ]
    return CsvColumns(name, header, columns, [number for number, _ in rows], problems)


def _plain_columns(text: str) -> tuple[list[str], list[list[str]]] | None:
    """What ``csv.reader`` reads from ``text``, as ``(header, columns)``, when it holds no quote,
    its lines all end in LF or all in CRLF and every non-empty one has the header's number of commas
    (an empty line is a blank record: none); None otherwise. The records' cells come from one split
    of their joined lines."""
    if '"' in text:
        return None
    if "\r" in text:
        lines = text.split("\r\n")
        if not len(lines) - 1 == text.count("\r") == text.count("\n"):
            return None  # a lone CR or LF
    else:
        lines = text.split("\n")
    lines = list(
        filter(None, lines)
    )  # blank lines are no records (nor is what follows the last line break)
    if max(map(len, lines)) >= csv.field_size_limit():
        return None  # csv.reader refuses a field this long
    header, body = lines[0].split(","), lines[1:]
    commas = len(header) - 1
    if any(map(commas.__ne__, map(str.count, body, repeat(",")))):
        return None  # a record of another length: the record-by-record pass reports it
    cells = ",".join(body).split(",") if body else []
    return header, [cells[i :: len(header)] for i in range(len(header))]


def _text(data: bytes, name: str, problems: list[Problem]) -> str:
    """The decoded text of ``data``; a UTF-8 BOM is reported in ``problems`` and skipped. A UTF-16
    BOM, bytes that are not UTF-8 and an empty file raise a DataError."""
    if data.startswith(UTF16_BOMS):
        raise DataError(
            Problem(
                name,
                "file starts with a UTF-16 byte-order mark; release CSVs must be UTF-8 without BOM",
            )
        )
    if data.startswith(UTF8_BOM):
        problems.append(
            Problem(
                name, "file starts with a UTF-8 byte-order mark (BOM); save it as UTF-8 without BOM"
            )
        )
        data = data[len(UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(_decode_problem(data, exc, name)) from None
    if not text or text.isspace():  # (text.strip() would copy the text)
        raise DataError(Problem(name, "file is empty; expected a header row naming the columns"))
    if "\0" in text:  # never text: refused whether or not a digest would catch it
        raise DataError(_nul_problem(text, name))
    return text


def _nul_problem(text: str, name: str) -> Problem:
    """Where the first NUL character of ``text`` is: its data row and column."""
    message = "holds a NUL byte (character 0x00); release CSVs are plain text"
    header: list[str] | None = None
    number = 0
    try:
        for record in csv.reader(io.StringIO(text, newline="")):
            if not record:
                continue
            at = next((i for i, value in enumerate(record) if "\0" in value), None)
            if header is None:
                if at is not None:
                    return Problem(name, f"header {message}")
                header = record
                continue
            number += 1
            if at is not None:
                return Problem(
                    name, message, row=number, field=header[at] if at < len(header) else None
                )
    except csv.Error:
        pass
    return Problem(name, message)


def _parse(
    text: str, name: str, required: tuple[str, ...], problems: list[Problem]
) -> tuple[tuple[str, ...], list[tuple[int, list[str]]], list[Problem]]:
    """``(header, [(row number, record)], problems)``, record by record."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    number = 0
    line = 1
    try:
        for record in reader:
            first_line, line = line, reader.line_num + 1
            if not record:  # blank line
                continue
            if header is None:
                header = record
                fatal, minor = _header_problems(header, name, required)
                problems.extend(minor)
                if fatal:
                    raise DataError(problems + fatal)
                continue
            number += 1
            if len(record) != len(header):
                noun = "field" if len(record) == 1 else "fields"
                message = (
                    f"has {len(record)} {noun} but the header has {len(header)} (line {first_line})"
                )
                problems.append(Problem(name, message, row=number))
                continue
            rows.append((number, record))
    except csv.Error as exc:
        problems.append(
            Problem(
                name,
                f"malformed CSV near line {line}: {exc}",
                row=(number + 1) if header is not None else None,
            )
        )
        raise DataError(problems) from None
    assert header is not None  # the text is not all whitespace, so there was a record
    return tuple(header), rows, problems


def _header_problems(
    header: list[str], name: str, required: tuple[str, ...]
) -> tuple[list[Problem], list[Problem]]:
    """(fatal, non-fatal) header problems: duplicates and missing columns stop reading."""
    fatal, minor = [], []
    seen: set[str] = set()
    for position, column in enumerate(header, start=1):
        if column == "":
            minor.append(
                Problem(
                    name,
                    f"header has an empty column name at position "
                    f"{position}; its values are ignored",
                )
            )
        elif column in seen:
            fatal.append(
                Problem(name, f"header names column {column!r} more than once", field=column)
            )
        seen.add(column)
    for column in required:
        if column not in seen:
            near = [h for h in header if h.strip() == column]
            hint = f" (found {near[0]!r} with surrounding spaces)" if near else ""
            fatal.append(Problem(name, f"missing required column {column!r}{hint}", field=column))
    return fatal, minor


def _decode_problem(data: bytes, exc: UnicodeDecodeError, name: str) -> Problem:
    offset = exc.start
    line = data.count(b"\n", 0, offset) + 1
    row = _row_of_line(data.decode("utf-8", errors="replace"), line)
    where = "in the header" if row is None else f"in data row {row}"
    return Problem(
        name,
        f"not valid UTF-8: byte 0x{data[offset]:02x} at byte offset {offset} "
        f"(line {line}, {where}); release CSVs must be UTF-8",
        row=row,
    )


def _row_of_line(text: str, line: int) -> int | None:
    """Data row number of the record that spans physical ``line`` (None for the header)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    number = -1  # the header becomes row 0
    try:
        for record in reader:
            if record:
                number += 1
            if reader.line_num >= line:
                return number if number > 0 else None
    except csv.Error:
        pass
    return max(number, 0) or None
