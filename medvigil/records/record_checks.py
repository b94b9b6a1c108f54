"""Suite-specific checks of a probe record's ``extra`` object (the schema leaves it open).

The scoring cores trust these fields (MedQ-Deg votes, K and severity; MediConfusion votes
and margin; CbD paraphrase index; the retry count of every suite), so a log edited by hand
or written by another tool is checked where it is read, and every bad field is a
:class:`~medvigil.errors.Problem` naming file, line and field instead of an exception deep
inside the scoring. Each suite declares its check in its own room (:func:`extra_check`); the
field tests they share are here.
"""

import importlib
import importlib.util
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from medvigil.errors import Problem

# the strings the schema's letter pattern ^[A-Z]$ matches (its '$' also matches before a final
# newline)
_LETTERS = frozenset(chr(c) + end for c in range(ord("A"), ord("Z") + 1) for end in ("", "\n"))
_VOTES = _LETTERS | {None}


def is_int(value: Any) -> bool:
    """An int, never a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite JSON number: an int (never a bool) or a finite float."""
    return is_int(value) or (
        isinstance(value, float) and math.isfinite(value)
    )  # every int is finite


def letters_or_null(votes: list) -> bool:
    """Every vote is an answer letter or null."""
    try:
        return _VOTES.issuperset(votes)  # one C loop; a vote that cannot be hashed is not a letter
    except TypeError:
        return False


ExtraCheck = Callable[[Mapping[str, Any]], list[tuple[str, str]]]
# a suite's check of its records' ``extra``, by suite name: each suite registers its own
# (``medvigil/suites/<suite>/record_check.py``, imported the first time a record of the suite is
# checked: :func:`check_of`), so this room names no suite
CHECKS: dict[str, ExtraCheck] = {}
_LOOKED_UP: set[str] = set()  # suites whose record_check module was looked for


def extra_check(suite: str) -> Callable[[ExtraCheck], ExtraCheck]:
    """Register the decorated function as the ``extra`` check of ``suite``'s records: it returns
    ``(field, message)`` per bad field."""

    def register(check: ExtraCheck) -> ExtraCheck:
        if CHECKS.setdefault(suite, check) is not check:
            raise ValueError(f"a second extra check for suite {suite!r}")
        return check

    return register


def check_of(suite: str) -> ExtraCheck | None:
    """The ``extra`` check of ``suite``: the first time, its room's ``record_check`` module is
    imported (it registers itself), so no reader depends on which suite packages happen to be
    loaded; None for a suite without one."""
    if suite not in CHECKS and suite not in _LOOKED_UP and suite.isidentifier():
        _LOOKED_UP.add(suite)
        package, module = f"medvigil.suites.{suite}", f"medvigil.suites.{suite}.record_check"
        # the package first: find_spec of a module whose package is missing raises
        if importlib.util.find_spec(package) and importlib.util.find_spec(module):
            importlib.import_module(module)
    return CHECKS.get(suite)


def extras_problems(
    records: Iterable[Mapping[str, Any]], file: str, rows: Iterable[int | None]
) -> list[Problem]:
    """:func:`extra_problems` of every record (``rows`` their line numbers), in order."""
    return [
        problem
        for record, row in zip(records, rows)
        for problem in extra_problems(record, file, row)
    ]


def extra_problems(record: Mapping[str, Any], file: str, row: int | None = None) -> list[Problem]:
    """Problems with ``record["extra"]`` for the record's suite (empty when it is fine)."""
    extra = record.get("extra")
    if extra is None:
        return []
    if not isinstance(extra, Mapping):
        return [
            Problem(file, f"must be an object, got {type(extra).__name__}", row=row, field="extra")
        ]
    check = check_of(str(record.get("suite")))
    found = check(extra) if check else []
    return [Problem(file, message, row=row, field=f"extra.{field}") for field, message in found]
