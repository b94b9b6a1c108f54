"""Validate many records against one JSON Schema a column at a time.

``jsonschema`` validates one record in about 150 µs; a scored run has hundreds of thousands
of records. :func:`invalid_rows` checks them in bulk instead: the distinct key sets of the
records (``required``, ``additionalProperties: false``) and, per property, the distinct
``(type, value)`` pairs of its column (``type``, ``enum``, ``pattern``, ``min/maxLength``,
``minimum``/``maximum``), so a value shared by many rows is judged once. It returns the
positions of the records the schema rejects; :func:`medvigil.schema_validation.problems_for`
then describes only those (file, row, field). A schema using a keyword outside this subset
is not compiled (:func:`compiled` returns ``None``) and every record goes to ``jsonschema``.
``tests/test_schema_columns.py`` checks that both paths reject the same records, on the same field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from operator import methodcaller
from typing import Any

_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
_MISSING = object()


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "integer": _is_integer,
    "number": _is_number,
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema's ``enum`` uses it: booleans never equal numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _value_check(schema: Any) -> Callable[[Any], bool] | None:
    """A predicate for one property's value, or None when ``schema`` uses another keyword."""
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, dict):
        return None
    checks: list[Callable[[Any], bool]] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            names = [value] if isinstance(value, str) else list(value)
            if not all(n in _TYPES for n in names):
                return None
            tests = [_TYPES[n] for n in names]
            checks.append(lambda v, tests=tests: any(t(v) for t in tests))
        elif key == "enum":
            allowed = list(value)
            checks.append(lambda v, allowed=allowed: any(_same(v, a) for a in allowed))
        elif key == "pattern":
            regex = re.compile(value)
            checks.append(lambda v, regex=regex: not isinstance(v, str) or regex.search(v) is not None)
        elif key == "minLength":
            checks.append(lambda v, b=value: not isinstance(v, str) or len(v) >= b)
        elif key == "maxLength":
            checks.append(lambda v, b=value: not isinstance(v, str) or len(v) <= b)
        elif key == "minimum":
            checks.append(lambda v, b=value: not _is_number(v) or v >= b)
        elif key == "maximum":
            checks.append(lambda v, b=value: not _is_number(v) or v <= b)
        else:
            return None
    return lambda v: all(check(v) for check in checks)


class ColumnChecker:
    """The compiled form of an object schema: key-set rules plus one value check per property."""

    def __init__(self, required: Sequence[str], properties: dict[str, Callable[[Any], bool]], closed: bool):
        self.required = frozenset(required)
        self.properties = properties
        self.closed = closed  # additionalProperties: false

    def _keys_ok(self, keys: tuple) -> bool:
        present = set(keys)
        return self.required <= present and (not self.closed or present <= self.properties.keys())

    def invalid_rows(self, records: Sequence[Any]) -> list[int]:
        """Positions (0-based, ascending) of the records the schema rejects."""
        bad = {i for i, r in enumerate(records) if not isinstance(r, dict)}
        rows = [r if isinstance(r, dict) else {} for r in records] if bad else records
        shapes = set(map(tuple, rows))
        wrong_shapes = {s for s in shapes if not self._keys_ok(s)}
        if wrong_shapes:
            bad.update(i for i, r in enumerate(rows) if tuple(r) in wrong_shapes)
        for name, ok in self.properties.items():
            column = list(map(methodcaller("get", name, _MISSING), rows))
            try:
                distinct = set(zip(map(type, column), column))
            except TypeError:  # unhashable values (objects, arrays): judge each
                bad.update(i for i, v in enumerate(column) if v is not _MISSING and not ok(v))
                continue
            wrong = {pair for pair in distinct if pair[1] is not _MISSING and not ok(pair[1])}
            if wrong:
                bad.update(i for i, v in enumerate(column) if v is not _MISSING and (type(v), v) in wrong)
        return sorted(bad)


def compile_schema(schema: Any) -> ColumnChecker | None:
    """A :class:`ColumnChecker` for an object schema within the supported subset, else None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    allowed = _ANNOTATIONS | {"type", "required", "properties", "additionalProperties"}
    if set(schema) - allowed or schema.get("additionalProperties", True) not in (True, False):
        return None
    properties = {}
    for name, sub in (schema.get("properties") or {}).items():
        check = _value_check(sub)
        if check is None:
            return None
        properties[name] = check
    return ColumnChecker(schema.get("required", ()), properties, schema.get("additionalProperties", True) is False)


@cache
def compiled(name: str) -> ColumnChecker | None:
    """The column checker of ``schemas/<name>.schema.json`` (None: validate with jsonschema)."""
    from medvigil.schema_validation import load_schema

    return compile_schema(load_schema(name))
