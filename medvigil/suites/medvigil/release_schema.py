"""Release rows checked against their JSON Schemas in bulk: the schemas compiled to row predicates and
column checks, with ``jsonschema`` run only on the rows they refuse, to name the fields."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from medvigil.errors import Problem
from medvigil.records.schema_columns import JSON_TYPES
from medvigil.records.schema_validation import problems_for
from medvigil.schemas import load_schema

# A release has tens of thousands of rows and jsonschema costs ~0.1 ms per row. The
# schema is still the only definition: _compile turns the small keyword subset our row
# schemas use into a predicate, which only ever *accepts* a row. Any row it does not
# accept, and any schema using another keyword, goes to jsonschema for the verdict and
# the messages (tests/test_schemas.py checks the two agree).
_FAST: dict[str, Callable[[Any], bool] | None] = {}


_COLUMNS: dict[str, Callable[[list[dict]], list[bool]] | None] = {}

_ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "examples", "default"}


_TYPES = JSON_TYPES  # one table of JSON type tests (medvigil.records.schema_columns)


def _compile(schema: Any) -> Callable[[Any], bool] | None:
    """A predicate that is True only for instances valid under ``schema``; None if unsupported."""
    if schema is True:
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
            simple = {"string": str, "boolean": bool, "null": type(None), "array": list, "object": dict}
            if all(n in simple for n in names):
                classes = tuple(simple[n] for n in names)
                checks.append(lambda v, classes=classes: isinstance(v, classes))
            else:
                tests = [_TYPES[n] for n in names]
                checks.append(lambda v, tests=tests: any(t(v) for t in tests))
        elif key == "enum":
            allowed = list(value)
            checks.append(lambda v, allowed=allowed: any(type(v) is type(a) and v == a for a in allowed))
        elif key == "pattern":
            regex = re.compile(value)
            checks.append(lambda v, regex=regex: not isinstance(v, str) or regex.search(v) is not None)
        elif key in ("minLength", "maxLength"):
            bound = value
            if key == "minLength":
                checks.append(lambda v, b=bound: not isinstance(v, str) or len(v) >= b)
            else:
                checks.append(lambda v, b=bound: not isinstance(v, str) or len(v) <= b)
        elif key in ("minimum", "maximum"):
            number = _TYPES["number"]
            if key == "minimum":
                checks.append(lambda v, b=value, n=number: not n(v) or v >= b)
            else:
                checks.append(lambda v, b=value, n=number: not n(v) or v <= b)
        elif key in ("minItems", "maxItems"):
            if key == "minItems":
                checks.append(lambda v, b=value: not isinstance(v, list) or len(v) >= b)
            else:
                checks.append(lambda v, b=value: not isinstance(v, list) or len(v) <= b)
        elif key == "items":
            item = _compile(value)
            if item is None:
                return None
            checks.append(lambda v, item=item: not isinstance(v, list) or all(item(x) for x in v))
        elif key == "oneOf":
            options = [_compile(option) for option in value]
            if any(o is None for o in options):
                return None
            checks.append(lambda v, options=options: sum(1 for o in options if o(v)) == 1)
        elif key == "required":
            names = frozenset(value)
            checks.append(lambda v, names=names: not isinstance(v, dict) or names.issubset(v.keys()))
        elif key == "properties":
            props = tuple((name, _compile(sub)) for name, sub in value.items())
            if any(p is None for _, p in props):
                return None
            checks.append(_properties_check(props))
        elif key == "additionalProperties" and value is True:
            continue
        elif key == "const":
            checks.append(lambda v, c=value: type(v) is type(c) and v == c)
        elif key in ("then", "else"):
            continue  # compiled with "if"
        elif key == "if":
            cond, then, other = _compile(value), _compile(schema.get("then", True)), _compile(schema.get("else", True))
            if cond is None or then is None or other is None:
                return None
            checks.append(lambda v, c=cond, t=then, o=other: t(v) if c(v) else o(v))
        else:
            return None
    return _all_of(checks)


def _all_of(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    """One predicate that holds when every check holds (plain loop: rows are many)."""
    if len(checks) == 1:
        return checks[0]
    checks = tuple(checks)

    def check(v: Any) -> bool:
        for one in checks:
            if not one(v):
                return False
        return True

    return check


def _properties_check(props: tuple[tuple[str, Callable[[Any], bool]], ...]) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for name, one in props:
            if name in v and not one(v[name]):
                return False
        return True

    return check


def schema_predicate(schema: str) -> Callable[[Any], bool] | None:
    """The compiled accept-only check of ``schemas/<schema>.schema.json`` (None if unsupported)."""
    if schema not in _FAST:
        _FAST[schema] = _compile(load_schema(schema))
    return _FAST[schema]


def _row_problems(schema: str, values: dict[str, Any], file: str, row: int) -> list[Problem]:
    fast = schema_predicate(schema)
    if fast is not None and fast(values):
        return []
    return problems_for(schema, values, file, row)


_ABSENT = object()


def rows_accepted(schema: str, rows: list[dict[str, Any]]) -> list[bool]:
    """Which ``rows`` ``schemas/<schema>.schema.json`` accepts, judged column by column.

    For a flat object schema (``required``, ``properties``, ``additionalProperties: true``) each
    property's compiled check runs once per distinct value of its column (columns repeat:
    kinds, letters, tiers, options); otherwise row by row. True means valid; a False row is
    described by ``jsonschema`` (:func:`_row_problems`).
    """
    if schema not in _COLUMNS:
        _COLUMNS[schema] = _compile_columns(load_schema(schema))
    by_column = _COLUMNS[schema]
    if by_column is not None:
        return by_column(rows)
    fast = schema_predicate(schema)
    return [fast is not None and fast(v) for v in rows]


def _compile_columns(schema: Any) -> Callable[[list[dict]], list[bool]] | None:
    if not isinstance(schema, dict) or schema.get("type") != "object" or schema.get("additionalProperties", True) is not True:
        return None
    if set(schema) - _ANNOTATIONS - {"type", "required", "properties", "additionalProperties"}:
        return None
    required = frozenset(schema.get("required", ()))
    props = tuple((name, _compile(sub)) for name, sub in (schema.get("properties") or {}).items())
    if any(check is None for _, check in props):
        return None

    def accept(rows: list[dict]) -> list[bool]:
        ok = [type(v) is dict for v in rows]
        if not all(ok):
            return [False] * len(rows)  # not objects: judged row by row
        for i in [i for i, v in enumerate(rows) if not required <= v.keys()]:
            ok[i] = False
        for name, check in props:
            column = [v.get(name, _ABSENT) for v in rows]
            if set(map(type, column)) <= {str, type(None), type(_ABSENT)}:  # hashable, no 1 == True
                bad = {x for x in set(column) if x is not _ABSENT and not check(x)}
                if bad:
                    for i, x in enumerate(column):
                        if x in bad:
                            ok[i] = False
            else:
                for i, x in enumerate(column):
                    if x is not _ABSENT and not check(x):
                        ok[i] = False
        return ok

    return accept


# --------------------------------------------------------------------------- file specs
