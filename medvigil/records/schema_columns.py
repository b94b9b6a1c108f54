"""The one compiler of our JSON Schemas into fast checks that only ever *accept*.

``jsonschema`` takes about 150 µs a record; a release has tens of thousands of rows and a scored run
hundreds of thousands of records. :func:`compile_predicate` / :func:`predicate` give a per-value
predicate for the keyword subset our schemas use; :func:`compile_schema` / :func:`compiled` give,
for a flat object schema, a :class:`ColumnChecker` judging the records' key sets (``required``,
``additionalProperties: false``, an ``if``/``then`` requiring keys when one key holds a constant)
and each property's column, a value shared by many rows once. Whatever they refuse, and every schema
using another keyword (then they are ``None``), goes to ``jsonschema``
(:func:`medvigil.records.schema_validation.problems_for`) for the verdict and to name file, row and
field; ``tests/test_strict_readers.py`` and ``tests/test_schemas.py`` check both paths agree.
"""

import re
from collections.abc import Callable, Collection, Sequence
from functools import cache
from itertools import chain, compress, repeat
from operator import ge, is_, itemgetter, le
from typing import Any

from medvigil.schemas import load_schema

_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
MISSING = object()


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and v.is_integer()
    )


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


_BOUNDS = {  # keyword -> (values it applies to, their measure, comparison with the bound)
    "minLength": (lambda v: isinstance(v, str), len, ge),
    "maxLength": (lambda v: isinstance(v, str), len, le),
    "minItems": (lambda v: isinstance(v, list), len, ge),
    "maxItems": (lambda v: isinstance(v, list), len, le),
    "minimum": (_is_number, lambda v: v, ge),
    "maximum": (_is_number, lambda v: v, le),
}


def compile_predicate(schema: Any) -> Callable[[Any], bool] | None:
    """A predicate that is True only for instances valid under ``schema``; None if the schema uses a
    keyword outside the supported subset (then jsonschema judges). It only ever *accepts*: a value
    it refuses goes to jsonschema for the verdict and the message."""
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
            if not all(n in JSON_TYPES for n in names):
                return None
            simple = {
                "string": str,
                "boolean": bool,
                "null": type(None),
                "array": list,
                "object": dict,
            }
            if all(n in simple for n in names):
                classes = tuple(simple[n] for n in names)
                checks.append(lambda v, classes=classes: isinstance(v, classes))
            else:
                tests = [JSON_TYPES[n] for n in names]
                checks.append(lambda v, tests=tests: any(t(v) for t in tests))
        elif key == "enum":
            allowed = list(value)
            checks.append(lambda v, allowed=allowed: any(_same(v, a) for a in allowed))
        elif key == "pattern":
            regex = re.compile(value)
            checks.append(
                lambda v, regex=regex: not isinstance(v, str) or regex.search(v) is not None
            )
        elif key in _BOUNDS:
            kind, size, compare = _BOUNDS[key]
            checks.append(lambda v, b=value, k=kind, s=size, c=compare: not k(v) or c(s(v), b))
        elif key == "items":
            item = compile_predicate(value)
            if item is None:
                return None
            checks.append(lambda v, item=item: not isinstance(v, list) or all(map(item, v)))
        elif key == "oneOf":
            options = [compile_predicate(option) for option in value]
            if any(o is None for o in options):
                return None
            checks.append(_one_of(options))
        elif key == "required":
            names = frozenset(value)
            checks.append(
                lambda v, names=names: not isinstance(v, dict) or names.issubset(v.keys())
            )
        elif key == "properties":
            props = tuple((name, compile_predicate(sub)) for name, sub in value.items())
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
            cond, then, other = (
                compile_predicate(value),
                compile_predicate(schema.get("then", True)),
                compile_predicate(schema.get("else", True)),
            )
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


def _one_of(options: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    return lambda v: sum(option(v) for option in options) == 1


def _properties_check(
    props: tuple[tuple[str, Callable[[Any], bool]], ...],
) -> Callable[[Any], bool]:
    return lambda v: (
        not isinstance(v, dict) or all(one(v[name]) for name, one in props if name in v)
    )


@cache
def predicate(name: str) -> Callable[[Any], bool] | None:
    """The compiled accept-only check of ``schemas/<name>.schema.json`` (None if unsupported)."""
    return compile_predicate(load_schema(name))


_PY_TYPES = {
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
    "integer": (int,),
    "number": (int, float),
}  # a float 'integer' (1.0) is judged value by value
_VALUE_KEYWORDS = {"enum", "pattern", "minLength", "maxLength", "minimum", "maximum"}
_NUMERIC_TYPES = {bool, int, float}
_DISTINCT_TYPES = {
    str,
    type(None),
    object,
    *_NUMERIC_TYPES,
}  # hashable; object: the type of MISSING


_BOUND_ATTRIBUTES = {
    "minLength": "min_len",
    "maxLength": "max_len",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "min_items",
    "maxItems": "max_items",
}


class _Property:
    """One property's rules: a value predicate, and the same rules as whole-column checks."""

    def __init__(self, schema: dict):
        self.ok: Callable[[Any], bool] = compile_predicate(schema)  # the full rules, value by value
        self.types: frozenset[type] | None = (
            None  # Python types the `type` keyword accepts outright
        )
        self.enum = self.pattern = self.min_len = self.max_len = self.minimum = self.maximum = None
        self.items: _Property | None = None
        self.min_items = self.max_items = None
        self.branches: list[_Property] | None = None  # oneOf of simple schemas of disjoint types
        known = _ANNOTATIONS | _VALUE_KEYWORDS | {"type", "minItems", "maxItems"}
        for key, value in schema.items():
            if key in _ANNOTATIONS:
                continue
            if key == "type":
                names = [value] if isinstance(value, str) else list(value)
                self.types = frozenset(t for n in names for t in _PY_TYPES[n])
            elif key == "enum":
                self.enum = list(value)
            elif key == "pattern":
                self.pattern = re.compile(value)
            elif key in _BOUND_ATTRIBUTES:
                setattr(self, _BOUND_ATTRIBUTES[key], value)
            elif key == "items" and isinstance(value, dict):
                items = _Property(value)
                if not items.nested:
                    self.items = items
                    known.add(key)
            elif key == "oneOf" and set(schema) - _ANNOTATIONS == {"oneOf"}:
                branches = [_Property(b) if isinstance(b, dict) else None for b in value]
                types = [
                    b.types
                    for b in branches
                    if b is not None and not b.nested and b.types is not None
                ]
                if len(types) == len(branches) and sum(map(len, types)) == len(
                    frozenset().union(*types)
                ):
                    self.branches = branches  # a value can only pass the branch of its type
                    known.add(key)
        self.has_values = any(key in _VALUE_KEYWORDS for key in schema)
        self.arrays = any(key in ("items", "minItems", "maxItems") for key in schema)
        # keywords the column fast path does not know (if/then, const, ...): value by value
        self.nested = bool(set(schema) - known)

    @staticmethod
    def supports(schema: Any) -> bool:
        return schema is True or (
            isinstance(schema, dict) and compile_predicate(schema) is not None
        )

    def column_ok(self, column: Sequence[Any], types: set[type] | None = None) -> bool:
        """True when every present value passes; False means: look value by value. ``types``: the
        types of the values when the caller knows them."""
        types = set(map(type, column)) if types is None else set(types)
        missing = object in types  # the type of MISSING
        types.discard(object)
        if self.nested or (self.types is not None and not types <= self.types):
            return False
        if self.branches is not None:
            return self._branches_ok(column, types, missing)
        if self.arrays and list in types:  # items and their number, for a column of arrays only
            arrays = [v for v in column if v is not MISSING] if missing else column
            return types == {list} and self.enum is None and self._arrays_ok(arrays)
        if not self.has_values:
            return True
        if (bool in types and len(types & {int, float}) > 0) or not types <= {
            str,
            bool,
            int,
            float,
            type(None),
        }:
            return False  # 1 == True in a set; unhashable values: judge each
        if (
            missing
            or not types <= {str}
            or (self.enum, self.pattern, self.minimum, self.maximum) != (None,) * 4
        ):
            distinct = set(column)
            distinct.discard(MISSING)
        else:
            distinct = column  # only string lengths to check: no need to drop repeats
        if self.enum is not None and not all(any(_same(v, a) for a in self.enum) for v in distinct):
            return False
        strings = distinct if types <= {str} else [v for v in distinct if type(v) is str]
        if strings and self.pattern is not None and not all(map(self.pattern.search, strings)):
            return False
        if strings and self.min_len is not None and min(map(len, strings)) < self.min_len:
            return False
        if strings and self.max_len is not None and max(map(len, strings)) > self.max_len:
            return False
        numbers = (
            [v for v in distinct if _is_number(v)]
            if (self.minimum, self.maximum) != (None, None)
            else []
        )
        if numbers and self.minimum is not None and min(numbers) < self.minimum:
            return False
        return not (numbers and self.maximum is not None and max(numbers) > self.maximum)

    def _arrays_ok(self, arrays: Sequence[list]) -> bool:
        lengths = list(map(len, arrays))
        if lengths and self.min_items is not None and min(lengths) < self.min_items:
            return False
        if lengths and self.max_items is not None and max(lengths) > self.max_items:
            return False
        return self.items is None or self.items.column_ok(list(chain.from_iterable(arrays)))

    def _branches_ok(self, column: Sequence[Any], types: set[type], missing: bool) -> bool:
        if not types <= frozenset().union(*(b.types for b in self.branches)):
            return False
        for branch in self.branches:
            mine = types & branch.types
            if not mine or not (branch.has_values or branch.arrays):
                continue  # its values pass on their type
            part = (
                column
                if mine == types and not missing
                else list(compress(column, map(mine.__contains__, map(type, column))))
            )
            if not branch.column_ok(part, mine):
                return False
        return True

    def refused(self, column: Sequence[Any], types: set[type] | None = None) -> list[int]:
        """Positions of the present values of ``column`` these rules refuse (:meth:`column_ok`, else
        value by value; each distinct value once when equal values are sure to share a verdict)."""
        types = set(map(type, column)) if types is None else types
        if self.column_ok(column, types):
            return []
        if (
            types <= _DISTINCT_TYPES and len(types & _NUMERIC_TYPES) <= 1
        ):  # 1 == 1.0 == True in a set
            refused = {v for v in set(column) if v is not MISSING and not self.ok(v)}
            return [i for i, v in enumerate(column) if v in refused] if refused else []
        return [i for i, v in enumerate(column) if v is not MISSING and not self.ok(v)]


class ColumnChecker:
    """The compiled form of an object schema: key-set rules plus the rules of each property."""

    def __init__(
        self,
        required: Sequence[str],
        properties: dict[str, _Property],
        closed: bool,
        required_when: tuple[str, Any, frozenset[str]] | None = None,
    ):
        self.required = frozenset(required)
        self.properties = properties
        self.closed = closed  # additionalProperties: false
        # if/then of one constant: (key, value, keys required when the record's key holds that
        # value)
        self.required_when = required_when

    def _conditions_refused(self, rows: Sequence[dict]) -> list[int]:
        if self.required_when is None:
            return []
        key, value, needed = self.required_when
        return [
            i
            for i, r in enumerate(rows)
            if _same(r.get(key, MISSING), value) and not needed <= r.keys()
        ]

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
        if not self.closed:  # other keys allowed: each property's column, absent values marked
            return sorted(bad.union(self.invalid_in_open_columns(self.columns_of(rows), len(rows))))
        keys = list(map(tuple, rows))
        shapes = set(keys)
        if len(shapes) > _FEW_SHAPES:  # records of many shapes: the rules property by property
            bad.update(i for i, k in enumerate(keys) if not self._keys_ok(k))
            bad.update(self._conditions_refused(rows))
            bad.update(
                i
                for name, prop in self.properties.items()
                for i in prop.refused([r.get(name, MISSING) for r in rows])
            )
            return sorted(bad)
        for shape in (
            shapes
        ):  # a few writers' key sets (say, answered and failed calls): each judged as columns
            where = (
                range(len(rows))
                if len(shapes) == 1
                else [i for i, k in enumerate(keys) if k == shape]
            )
            part = rows if len(shapes) == 1 else [rows[i] for i in where]
            columns = {
                name: list(map(itemgetter(name), part)) for name in self.properties if name in shape
            }
            bad.update(where[j] for j in self.invalid_in_columns(columns, len(part), keys=shape))
        return sorted(bad)

    def columns_of(self, rows: Sequence[dict]) -> dict[str, list]:
        """Per property and key the rules name that some row holds, its values in ``rows``
        (:data:`MISSING` where a row lacks the key); a key no row holds has no column."""
        names = self.properties.keys() | self.required
        if self.required_when is not None:
            names |= {self.required_when[0], *self.required_when[2]}
        return {
            name: list(map(dict.get, rows, repeat(name), repeat(MISSING)))
            for name in names
            if any(map(dict.__contains__, rows, repeat(name)))
        }

    def invalid_in_open_columns(self, columns: dict[str, list], n: int) -> list[int]:
        """:meth:`invalid_rows` of ``n`` dicts for a schema open to other keys, given as
        :meth:`columns_of` them: the required keys, the if/then rule on them and each property's
        column."""
        types = {name: set(map(type, column)) for name, column in columns.items()}
        bad: set[int] = set(range(n)) if self.required - columns.keys() else set()
        for name in self.required & columns.keys():
            if object in types[name]:  # the type of MISSING
                bad.update(compress(range(n), map(is_, columns[name], repeat(MISSING))))
        if self.required_when is not None and self.required_when[0] in columns:
            key, value, needed = self.required_when
            without = (
                set(range(n))
                if needed - columns.keys()
                else set().union(
                    *(
                        compress(range(n), map(is_, columns[k], repeat(MISSING)))
                        for k in needed
                        if object in types[k]
                    )
                )
            )
            bad.update(i for i in without if _same(columns[key][i], value))
        for name, prop in self.properties.items():
            if name in columns:
                bad.update(prop.refused(columns[name], types[name]))
        return sorted(bad)

    def invalid_in_columns(
        self,
        columns: dict[str, Sequence[Any]],
        n: int,
        text: Collection[str] = (),
        keys: Collection[str] | None = None,
    ) -> list[int]:
        """:meth:`invalid_rows` of ``n`` records given as columns: every record has exactly the keys
        ``keys`` (default: those of ``columns``), and ``columns[key][i]`` is record i's value (every
        property among ``keys`` has its column); the columns named in ``text`` hold strings only."""
        keys = tuple(columns) if keys is None else tuple(keys)
        if not self._keys_ok(keys):
            return list(range(n))
        bad: set[int] = set()
        if self.required_when is not None and not self.required_when[2] <= set(keys):
            key, value, _ = self.required_when
            bad.update(i for i, v in enumerate(columns.get(key, ())) if _same(v, value))
        for name, prop in self.properties.items():
            if name in columns:
                bad.update(prop.refused(columns[name], {str} if name in text and n else None))
        return sorted(bad)


_FEW_SHAPES = 8


def compile_schema(schema: Any) -> ColumnChecker | None:
    """A :class:`ColumnChecker` for an object schema within the supported subset, else None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    allowed = _ANNOTATIONS | {
        "type",
        "required",
        "properties",
        "additionalProperties",
        "if",
        "then",
    }
    if set(schema) - allowed or schema.get("additionalProperties", True) not in (True, False):
        return None
    subs = schema.get("properties") or {}
    if not all(_Property.supports(sub) for sub in subs.values()):
        return None
    required_when = None
    if "if" in schema or "then" in schema:
        required_when = _required_when(schema.get("if"), schema.get("then"))
        if required_when is None:
            return None
    properties = {
        name: _Property(sub if isinstance(sub, dict) else {}) for name, sub in subs.items()
    }
    return ColumnChecker(
        schema.get("required", ()),
        properties,
        schema.get("additionalProperties", True) is False,
        required_when,
    )


def _required_when(condition: Any, then: Any) -> tuple[str, Any, frozenset[str]] | None:
    """``(key, value, required keys)`` of ``if: {properties: {key: {const: value}}, required:
    [key]}`` ``then: {required: [...]}`` (the harness row's rule for answered rows); None for any
    other if/then."""
    if not (isinstance(condition, dict) and isinstance(then, dict) and set(then) == {"required"}):
        return None
    props = condition.get("properties")
    if (
        set(condition) != {"properties", "required"}
        or not isinstance(props, dict)
        or len(props) != 1
    ):
        return None
    ((key, rule),) = props.items()
    if condition["required"] != [key] or not isinstance(rule, dict) or set(rule) != {"const"}:
        return None
    return key, rule["const"], frozenset(then["required"])


@cache
def compiled(name: str) -> ColumnChecker | None:
    """The column checker of ``schemas/<name>.schema.json`` (None: validate with jsonschema)."""
    return compile_schema(load_schema(name))
