"""Validate records against the JSON Schemas in schemas/, the one definition of their shapes.

Errors become :class:`medvigil.errors.Problem` objects naming file, row and field. Records read in
bulk (:func:`problems_for_records`, :func:`refused_rows`, :func:`accepts`) are checked one by one by
``jsonschema_rs`` (a compiled validator of draft 2020-12, built at run time from the same schema
file); the records it refuses are judged and described by ``jsonschema`` (:func:`problems_for`),
whose verdict counts. ``jsonschema`` is imported only then.
"""

from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from medvigil.errors import DataError, Problem
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


@cache
def compiled(name: str) -> Any:
    """``jsonschema_rs``'s validator of ``schemas/<name>.schema.json`` (``is_valid``)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(load_schema(name))


def accepts(name: str, record: Any) -> bool:
    """Whether ``jsonschema_rs`` accepts ``record`` under schema ``name`` (a value it cannot take,
    say a dict with a key that is no string, is not accepted)."""
    try:
        return compiled(name).is_valid(record)
    except ValueError:
        return False


def refused_rows(name: str, records: Iterable[Any]) -> list[int]:
    """Positions (0-based) of the records ``jsonschema_rs`` refuses under schema ``name``: a
    superset of those ``jsonschema`` refuses, to be described by :func:`problems_for`."""
    return [i for i, record in enumerate(records) if not accepts(name, record)]


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
    """Validate many records against schema ``name`` (:func:`refused_rows`, then
    :func:`problems_for` on those). ``rows`` gives each record's row (line) number for
    the messages (default: 1, 2, ...). Same problems as :func:`problems_for` on each record."""
    out: list[Problem] = []
    for i in refused_rows(name, records):
        out.extend(problems_for(name, records[i], file, i + 1 if rows is None else rows[i]))
    return out


def check_records(name: str, records: Iterable[Any], file: str, first_row: int = 1) -> None:
    """Raise :class:`DataError` listing every invalid record (all at once, not just the first)."""
    records = list(records)
    problems = problems_for_records(name, records, file, range(first_row, first_row + len(records)))
    if problems:
        raise DataError(problems)
