"""Load the JSON Schemas in schemas/ and validate records where data enters.

Errors become :class:`medvigil.errors.Problem` objects naming file, row and field.
Many records at once: :func:`problems_for_records` checks them in bulk
(:mod:`medvigil.records.schema_columns`) and runs ``jsonschema`` only on the rows that fail, to
describe them. ``jsonschema`` is imported only when a record is validated one by one.
"""

from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from medvigil.errors import DataError, Problem
from medvigil.records.schema_columns import compiled
from medvigil.schemas import load_schema

if TYPE_CHECKING:
    import jsonschema


@cache
def validator(name: str) -> "jsonschema.protocols.Validator":
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _field_of(error: "jsonschema.ValidationError") -> str | None:
    if error.validator == "required":
        # message looks like "'x' is a required property"
        return str(error.message).split("'")[1] if "'" in error.message else None
    if error.validator == "additionalProperties":
        return None
    path = [str(p) for p in error.absolute_path]
    return ".".join(path) if path else None


def problems_for(name: str, record: Any, file: str, row: int | None = None) -> list[Problem]:
    """Validate one record against schema ``name``; return the problems (maybe empty)."""
    errors = sorted(validator(name).iter_errors(record), key=lambda e: list(e.absolute_path))
    return [
        Problem(file=file, row=row, field=_field_of(error), message=error.message)
        for error in errors
    ]


def problems_for_records(
    name: str, records: Sequence[Any], file: str, rows: Sequence[int] | None = None
) -> list[Problem]:
    """Validate many records against schema ``name``: in bulk, then one by one only the
    records that failed, to name their fields. ``rows`` gives each record's row (line)
    number for the messages (default: 1, 2, ...). Same problems as :func:`problems_for`
    on each record."""
    checker = compiled(name)
    failing = range(len(records)) if checker is None else checker.invalid_rows(records)
    out: list[Problem] = []
    for i in failing:
        out.extend(problems_for(name, records[i], file, i + 1 if rows is None else rows[i]))
    return out


def check_records(name: str, records: Iterable[Any], file: str, first_row: int = 1) -> None:
    """Raise :class:`DataError` listing every invalid record (all at once, not just the first)."""
    records = list(records)
    problems = problems_for_records(name, records, file, range(first_row, first_row + len(records)))
    if problems:
        raise DataError(problems)
