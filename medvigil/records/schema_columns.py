"""Validate many records against one JSON Schema a column at a time.

``jsonschema`` validates one record in about 150 µs; a scored run has hundreds of thousands
of records. :func:`invalid_rows` checks them in bulk instead: the distinct key sets of the
records (``required``, ``additionalProperties: false``) and, per property, the distinct
``(type, value)`` pairs of its column (``type``, ``enum``, ``pattern``, ``min/maxLength``,
``minimum``/``maximum``), so a value shared by many rows is judged once. It returns the
positions of the records the schema rejects; :func:`medvigil.records.schema_validation.problems_for`
then describes only those (file, row, field). A schema using a keyword outside this subset
is not compiled (:func:`compiled` returns ``None``) and every record goes to ``jsonschema``.
``tests/test_schema_columns.py`` checks that both paths reject the same records, on the same field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from operator import itemgetter
from typing import Any

from medvigil.schemas import load_schema

_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
_MISSING = object()


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


JSON_TYPES: dict[str, Callable[[Any], bool]] = {  # JSON Schema `type` names -> test
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


_PY_TYPES = {"string": (str,), "boolean": (bool,), "null": (type(None),), "object": (dict,), "array": (list,),
             "integer": (int,), "number": (int, float)}  # a float 'integer' (1.0) is judged value by value
_VALUE_KEYWORDS = {"enum", "pattern", "minLength", "maxLength", "minimum", "maximum"}


class _Property:
    """One property's rules: a value predicate, and the same rules as whole-column checks."""

    def __init__(self, schema: dict):
        self.checks: list[Callable[[Any], bool]] = []
        self.types: frozenset[type] | None = None  # Python types the `type` keyword accepts outright
        self.enum = self.pattern = self.min_len = self.max_len = self.minimum = self.maximum = None
        for key, value in schema.items():
            if key in _ANNOTATIONS:
                continue
            if key == "type":
                names = [value] if isinstance(value, str) else list(value)
                tests = [JSON_TYPES[n] for n in names]
                self.types = frozenset(t for n in names for t in _PY_TYPES[n])
                self.checks.append(lambda v, tests=tests: any(t(v) for t in tests))
            elif key == "enum":
                self.enum = list(value)
                self.checks.append(lambda v, allowed=self.enum: any(_same(v, a) for a in allowed))
            elif key == "pattern":
                self.pattern = re.compile(value)
                self.checks.append(lambda v, regex=self.pattern: not isinstance(v, str) or regex.search(v) is not None)
            elif key == "minLength":
                self.min_len = value
                self.checks.append(lambda v, b=value: not isinstance(v, str) or len(v) >= b)
            elif key == "maxLength":
                self.max_len = value
                self.checks.append(lambda v, b=value: not isinstance(v, str) or len(v) <= b)
            elif key == "minimum":
                self.minimum = value
                self.checks.append(lambda v, b=value: not _is_number(v) or v >= b)
            elif key == "maximum":
                self.maximum = value
                self.checks.append(lambda v, b=value: not _is_number(v) or v <= b)
        self.has_values = any(key in _VALUE_KEYWORDS for key in schema)

    @staticmethod
    def supports(schema: Any) -> bool:
        if not isinstance(schema, dict):
            return schema is True
        names = schema.get("type", [])
        names = [names] if isinstance(names, str) else names
        return set(schema) <= _ANNOTATIONS | _VALUE_KEYWORDS | {"type"} and all(n in JSON_TYPES for n in names)

    def ok(self, v: Any) -> bool:
        return all(check(v) for check in self.checks)

    def column_ok(self, column: list) -> bool:
        """True when every present value passes; False means: look value by value."""
        types = set(map(type, column))
        types.discard(object)  # the type of _MISSING
        if self.types is not None and not types <= self.types:
            return False
        if not self.has_values:
            return True
        if (bool in types and len(types & {int, float}) > 0) or not types <= {str, bool, int, float, type(None)}:
            return False  # 1 == True in a set; unhashable values: judge each
        distinct = set(column)
        distinct.discard(_MISSING)
        if self.enum is not None and not all(any(_same(v, a) for a in self.enum) for v in distinct):
            return False
        strings = distinct if types <= {str} else [v for v in distinct if type(v) is str]
        if strings and self.pattern is not None and not all(self.pattern.search(v) for v in strings):
            return False
        if strings and self.min_len is not None and min(map(len, strings)) < self.min_len:
            return False
        if strings and self.max_len is not None and max(map(len, strings)) > self.max_len:
            return False
        numbers = [v for v in distinct if _is_number(v)] if (self.minimum, self.maximum) != (None, None) else []
        if numbers and self.minimum is not None and min(numbers) < self.minimum:
            return False
        return not (numbers and self.maximum is not None and max(numbers) > self.maximum)


class ColumnChecker:
    """The compiled form of an object schema: key-set rules plus the rules of each property."""

    def __init__(self, required: Sequence[str], properties: dict[str, _Property], closed: bool):
        self.required = frozenset(required)
        self.properties = properties
        self.closed = closed  # additionalProperties: false

    def _keys_ok(self, keys: tuple) -> bool:
        present = set(keys)
        return self.required <= present and (not self.closed or present <= self.properties.keys())

    def invalid_rows(self, records: Sequence[Any]) -> list[int]:
        """Positions (0-based, ascending) of the records the schema rejects."""
        bad: set[int] = set()
        rows = records
        if set(map(type, records)) - {dict}:
            bad = {i for i, r in enumerate(records) if not isinstance(r, dict)}
            rows = [r if isinstance(r, dict) else {} for r in records]
        columns = _same_keys_columns(rows)
        if columns is not None:  # one writer, one key set: judge it once
            if not self._keys_ok(tuple(columns)):
                return list(range(len(rows)))
        else:
            shapes = set(map(tuple, rows))
            wrong_shapes = {s for s in shapes if not self._keys_ok(s)}
            if wrong_shapes:
                bad.update(i for i, r in enumerate(rows) if tuple(r) in wrong_shapes)
        for name, prop in self.properties.items():
            if columns is None:
                column = [r.get(name, _MISSING) for r in rows]
            elif name in columns:
                column = columns[name]
            else:
                continue
            if not prop.column_ok(column):
                bad.update(i for i, v in enumerate(column) if v is not _MISSING and not prop.ok(v))
        return sorted(bad)


def _same_keys_columns(rows: Sequence[dict]) -> dict[str, tuple] | None:
    """``{key: column}`` when every row has the first row's keys and no others, else None."""
    if not rows or len(rows[0]) < 2:
        return None
    keys = tuple(rows[0])
    if set(map(len, rows)) != {len(keys)}:
        return None
    try:
        return dict(zip(keys, zip(*map(itemgetter(*keys), rows))))
    except KeyError:
        return None


def compile_schema(schema: Any) -> ColumnChecker | None:
    """A :class:`ColumnChecker` for an object schema within the supported subset, else None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    allowed = _ANNOTATIONS | {"type", "required", "properties", "additionalProperties"}
    if set(schema) - allowed or schema.get("additionalProperties", True) not in (True, False):
        return None
    subs = schema.get("properties") or {}
    if not all(_Property.supports(sub) for sub in subs.values()):
        return None
    properties = {name: _Property(sub if isinstance(sub, dict) else {}) for name, sub in subs.items()}
    return ColumnChecker(schema.get("required", ()), properties, schema.get("additionalProperties", True) is False)


@cache
def compiled(name: str) -> ColumnChecker | None:
    """The column checker of ``schemas/<name>.schema.json`` (None: validate with jsonschema)."""
    return compile_schema(load_schema(name))
