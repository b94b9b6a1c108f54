"""Suite-specific checks of a probe record's ``extra`` object (the schema leaves it open).

The scoring cores trust these fields (MedQ-Deg votes, K and severity; MediConfusion votes
and margin; CbD paraphrase index; the retry count of every suite), so a log edited by hand
or written by another tool is checked here, where it is read, and every bad field is a
:class:`~medvigil.errors.Problem` naming file, line and field instead of an exception deep
inside the scoring.
"""

import math
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from typing import Any

from medvigil.errors import Problem

# the strings the schema's letter pattern ^[A-Z]$ matches (its '$' also matches before a final newline)
_LETTERS = frozenset(chr(c) + end for c in range(ord("A"), ord("Z") + 1) for end in ("", "\n"))
_VOTES = _LETTERS | {None}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite JSON number: an int (never a bool) or a finite float."""
    return _is_int(value) or (isinstance(value, float) and math.isfinite(value))  # every int is finite


def _letters_or_null(votes: list) -> bool:
    """Every vote is an answer letter or null."""
    try:
        return _VOTES.issuperset(votes)  # one C loop; a vote that cannot be hashed is not a letter
    except TypeError:
        return False


def _medqdeg(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    bad = []
    votes = extra.get("votes")
    if "votes" in extra and (not isinstance(votes, list) or not votes or not _letters_or_null(votes)):
        bad.append(("votes", f"must be a non-empty list of answer letters A-Z or null, got {votes!r:.80}"))
    k = extra.get("n_options")
    if "n_options" in extra and not (_is_int(k) and 2 <= k <= 26):
        bad.append(("n_options", f"must be an integer number of options 2..26, got {k!r:.40}"))
    if "severity" in extra:
        sev = extra["severity"]
        level = sev[1:] if isinstance(sev, str) and sev[:1] in "lL" else sev
        if not ((_is_int(level) and 0 <= level <= 2) or (isinstance(level, str) and level in ("0", "1", "2"))):
            bad.append(("severity", f"must be a severity level 0, 1 or 2 (or 'L0'..'L2'), got {sev!r:.40}"))
    if "degradation" in extra and not (extra["degradation"] is None or isinstance(extra["degradation"], str)):
        bad.append(("degradation", f"must be a degradation name, got {extra['degradation']!r:.40}"))
    return bad


def _mediconfusion(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    bad = []
    votes = extra.get("votes")
    if "votes" in extra:
        if not isinstance(votes, Mapping) or not all(is_number(v) and v >= 0 for v in votes.values()):
            bad.append(("votes", f"must map options to vote counts >= 0, got {votes!r:.80}"))
    margin = extra.get("margin")
    if "margin" in extra and not (is_number(margin) and margin >= 0):
        bad.append(("margin", f"must be a finite number >= 0, got {margin!r:.40}"))
    return bad


def _cbd(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    index = extra.get("paraphrase_index")
    if "paraphrase_index" in extra and not (_is_int(index) and index >= 0):
        return [("paraphrase_index", f"must be an integer >= 0, got {index!r:.40}")]
    return []


def _readiness(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    flag = extra.get("laterality_dependent")
    if flag is not None and not isinstance(flag, bool):
        return [("laterality_dependent", f"must be true, false or null, got {flag!r:.40}")]
    return []


CHECKS: dict[str, Callable[[Mapping[str, Any]], list[tuple[str, str]]]] = {
    "medqdeg": _medqdeg, "mediconfusion": _mediconfusion, "cbd": _cbd, "readiness": _readiness,
}


# Fast accepts, one per suite, of a whole file's ``extra`` objects (all dicts) at once: True only
# where the suite's check finds nothing in any of them (JSON's exact int, float, str and list
# types, compared column by column; anything else, or a value that cannot be hashed, goes to the
# check, which has the last word and the messages). Types are taken over whole columns, never
# over sets of values, where 2 == 2.0 == True would hide one of them.
_SEVERITY_LEVELS = (0, 2)
_INF = math.inf


def _types(values: list) -> set[type]:
    return set(map(type, values))


def _medqdeg_fine(extras: list[dict]) -> bool:
    votes = [e.get("votes", _ONE_VOTE) for e in extras]
    ks = [e.get("n_options", 2) for e in extras]
    sevs = [e.get("severity", 0) for e in extras]
    return (_types(votes) == {list} and all(votes) and _VOTES.issuperset(chain.from_iterable(votes))
            and _types(ks) == {int} and min(ks) >= 2 and max(ks) <= 26
            and _types(sevs) == {int} and min(sevs) >= _SEVERITY_LEVELS[0] and max(sevs) <= _SEVERITY_LEVELS[1]
            and _types([e.get("degradation") for e in extras]) <= {str, type(None)})


def _counts_fine(values: list) -> bool:
    """Every value a finite number >= 0 (ints at C speed; floats one by one)."""
    kinds = _types(values)
    if kinds <= {int}:
        return not values or min(values) >= 0
    return kinds <= {int, float} and all(0 <= v < _INF for v in values)


def _mediconfusion_fine(extras: list[dict]) -> bool:
    votes = [e.get("votes", _NO_VOTES) for e in extras]
    return (_types(votes) == {dict} and _counts_fine(list(chain.from_iterable(map(dict.values, votes))))
            and _counts_fine([e.get("margin", 0) for e in extras]))


def _cbd_fine(extras: list[dict]) -> bool:
    index = [e.get("paraphrase_index", 0) for e in extras]
    return _types(index) == {int} and min(index) >= 0


def _readiness_fine(extras: list[dict]) -> bool:
    return _types([e.get("laterality_dependent") for e in extras]) <= {bool, type(None)}


_ONE_VOTE, _NO_VOTES = ["A"], {}  # (the defaults the accepts read for an absent field: fine values)
_FINE: dict[str, Callable[[list[dict]], bool]] = {
    "medqdeg": _medqdeg_fine, "mediconfusion": _mediconfusion_fine, "cbd": _cbd_fine, "readiness": _readiness_fine,
}


def _all_fine(records: list[Mapping[str, Any]]) -> bool:
    """Whether every record is of one suite whose fast accept passes all their ``extra`` objects
    (records without one have nothing to check)."""
    try:
        suites = {record.get("suite") for record in records}
        fine = _FINE.get(suites.pop()) if len(suites) == 1 else None
        if fine is None:
            return False
        extras = [e for e in (record.get("extra") for record in records) if e is not None]
        return not extras or (_types(extras) == {dict} and fine(extras))
    except TypeError:  # a suite or value that cannot be hashed: the check describes it
        return False


def extras_problems(records: Iterable[Mapping[str, Any]], file: str, rows: Iterable[int | None]) -> list[Problem]:
    """:func:`extra_problems` of every record (``rows`` their line numbers), in order; none to
    look for when the suite's fast accept passes the whole file."""
    records = list(records)
    if _all_fine(records):
        return []
    return [problem for record, row in zip(records, rows) for problem in extra_problems(record, file, row)]


def extra_problems(record: Mapping[str, Any], file: str, row: int | None = None) -> list[Problem]:
    """Problems with ``record["extra"]`` for the record's suite (empty when it is fine)."""
    extra = record.get("extra")
    if extra is None:
        return []
    if not isinstance(extra, Mapping):
        return [Problem(file, f"must be an object, got {type(extra).__name__}", row=row, field="extra")]
    check = CHECKS.get(str(record.get("suite")))
    found = check(extra) if check else []
    return [Problem(file, message, row=row, field=f"extra.{field}") for field, message in found]
