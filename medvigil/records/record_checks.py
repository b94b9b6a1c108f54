"""Suite-specific checks of a probe record's ``extra`` object (the schema leaves it open).

The scoring cores trust these fields (MedQ-Deg votes, K and severity; MediConfusion votes
and margin; CbD paraphrase index; the retry count of every suite), so a log edited by hand
or written by another tool is checked here, where it is read, and every bad field is a
:class:`~medvigil.errors.Problem` naming file, line and field instead of an exception deep
inside the scoring.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from medvigil.errors import Problem

# the strings the schema's letter pattern ^[A-Z]$ matches (its '$' also matches before a final newline)
_LETTERS = frozenset(chr(c) + end for c in range(ord("A"), ord("Z") + 1) for end in ("", "\n"))
_VOTES = _LETTERS | {None}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
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
        if not isinstance(votes, Mapping) or not all(_is_number(v) and v >= 0 for v in votes.values()):
            bad.append(("votes", f"must map options to vote counts >= 0, got {votes!r:.80}"))
    margin = extra.get("margin")
    if "margin" in extra and not (_is_number(margin) and margin >= 0):
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


# Fast accepts, one per suite: True only where the suite's check finds nothing (JSON's exact
# int, float, str and list types; anything else, or a value that cannot be hashed, goes to the
# check, which has the last word and the messages).
_SEVERITIES = frozenset({"0", "1", "2", "L0", "L1", "L2", "l0", "l1", "l2"})
_INF = math.inf


def _medqdeg_fine(extra: dict) -> bool:
    votes = extra.get("votes", ["A"])
    k = extra.get("n_options", 2)
    sev = extra.get("severity", 0)
    degradation = extra.get("degradation")
    return (type(votes) is list and len(votes) > 0 and _VOTES.issuperset(votes)
            and type(k) is int and 2 <= k <= 26
            and ((type(sev) is int and 0 <= sev <= 2) or (type(sev) is str and sev in _SEVERITIES))
            and (degradation is None or type(degradation) is str))


def _mediconfusion_fine(extra: dict) -> bool:
    votes = extra.get("votes", {})
    margin = extra.get("margin", 0)
    return (type(votes) is dict and all((type(v) is int or type(v) is float) and 0 <= v < _INF for v in votes.values())
            and (type(margin) is int or type(margin) is float) and 0 <= margin < _INF)


def _cbd_fine(extra: dict) -> bool:
    index = extra.get("paraphrase_index", 0)
    return type(index) is int and index >= 0


def _readiness_fine(extra: dict) -> bool:
    flag = extra.get("laterality_dependent")
    return flag is None or type(flag) is bool


_FINE: dict[str, Callable[[dict], bool]] = {
    "medqdeg": _medqdeg_fine, "mediconfusion": _mediconfusion_fine, "cbd": _cbd_fine, "readiness": _readiness_fine,
}


def extras_problems(records: Iterable[Mapping[str, Any]], file: str, rows: Iterable[int | None]) -> list[Problem]:
    """:func:`extra_problems` of every record (``rows`` their line numbers), in order; a record
    whose suite's fast accept passes it is not checked again."""
    bad: list[Problem] = []
    for record, row in zip(records, rows):
        extra = record.get("extra")
        if extra is None:
            continue
        if type(extra) is dict:
            try:
                fine = _FINE.get(record.get("suite"))  # type: ignore[arg-type]
                if fine is not None and fine(extra):
                    continue
            except TypeError:  # a value that cannot be hashed: the check describes it
                pass
        bad += extra_problems(record, file, row)
    return bad


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
