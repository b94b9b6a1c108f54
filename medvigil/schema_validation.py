"""Load the JSON Schemas in schemas/ and validate records where data enters.

Errors become :class:`medvigil.errors.Problem` objects naming file, row and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any

import jsonschema

from medvigil.errors import DataError, Problem
from medvigil.schemas import SCHEMA_DIR


@cache
def load_schema(name: str) -> dict:
    """Return the schema ``schemas/<name>.schema.json``."""
    path = SCHEMA_DIR / f"{name}.schema.json"
    if not path.is_file():
        known = sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))
        raise ValueError(f"unknown schema {name!r}; available: {', '.join(known)}")
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _field_of(error: jsonschema.ValidationError) -> str | None:
    if error.validator == "required":
        # message looks like "'x' is a required property"
        return str(error.message).split("'")[1] if "'" in error.message else None
    if error.validator == "additionalProperties":
        return None
    path = [str(p) for p in error.absolute_path]
    return ".".join(path) if path else None


def problems_for(name: str, record: Any, file: str, row: int | None = None) -> list[Problem]:
    """Validate one record against schema ``name``; return the problems (maybe empty)."""
    out = []
    for error in sorted(validator(name).iter_errors(record), key=lambda e: list(e.absolute_path)):
        out.append(Problem(file=file, row=row, field=_field_of(error), message=error.message))
    return out


def check_records(name: str, records: Iterable[Any], file: str, first_row: int = 1) -> None:
    """Raise :class:`DataError` listing every invalid record (all at once, not just the first)."""
    problems: list[Problem] = []
    for i, record in enumerate(records, start=first_row):
        problems.extend(problems_for(name, record, file, i))
    if problems:
        raise DataError(problems)
