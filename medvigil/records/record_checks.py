"""Suite-specific checks of a probe record's ``extra`` object (the schema leaves it open).

The scoring cores trust these fields (MedQ-Deg votes, K and severity; MediConfusion votes
and margin; CbD paraphrase index; the retry count of every suite), so a log edited by hand
or written by another tool is checked here, where it is read, and every bad field is a
:class:`~medvigil.errors.Problem` naming file, line and field instead of an exception deep
inside the scoring.
"""

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from medvigil.errors import Problem

# the strings the schema's letter pattern ^[A-Z]$ matches (its '$' also matches before a final
# newline)
_LETTERS = frozenset(chr(c) + end for c in range(ord("A"), ord("Z") + 1) for end in ("", "\n"))
_VOTES = _LETTERS | {None}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite JSON number: an int (never a bool) or a finite float."""
    return _is_int(value) or (
        isinstance(value, float) and math.isfinite(value)
    )  # every int is finite


def _letters_or_null(votes: list) -> bool:
    """Every vote is an answer letter or null."""
    try:
        return _VOTES.issuperset(votes)  # one C loop; a vote that cannot be hashed is not a letter
    except TypeError:
        return False


def _medqdeg(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    bad = []
    votes = extra.get("votes")
    if "votes" in extra and (
        not isinstance(votes, list) or not votes or not _letters_or_null(votes)
    ):
        bad.append(
            ("votes", f"must be a non-empty list of answer letters A-Z or null, got {votes!r:.80}")
        )
    k = extra.get("n_options")
    if "n_options" in extra and not (_is_int(k) and 2 <= k <= 26):
        bad.append(("n_options", f"must be an integer number of options 2..26, got {k!r:.40}"))
    if "severity" in extra:
        sev = extra["severity"]
        level = sev[1:] if isinstance(sev, str) and sev[:1] in "lL" else sev
        if not (
            (_is_int(level) and 0 <= level <= 2)
            or (isinstance(level, str) and level in ("0", "1", "2"))
        ):
            bad.append(
                ("severity", f"must be a severity level 0, 1 or 2 (or 'L0'..'L2'), got {sev!r:.40}")
            )
    if "degradation" in extra and not (
        extra["degradation"] is None or isinstance(extra["degradation"], str)
    ):
        bad.append(("degradation", f"must be a degradation name, got {extra['degradation']!r:.40}"))
    return bad


def _mediconfusion(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    bad = []
    votes = extra.get("votes")
    if "votes" in extra:
        if not isinstance(votes, Mapping) or not all(
            is_number(v) and v >= 0 for v in votes.values()
        ):
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
    "medqdeg": _medqdeg,
    "mediconfusion": _mediconfusion,
    "cbd": _cbd,
    "readiness": _readiness,
}


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
    check = CHECKS.get(str(record.get("suite")))
    found = check(extra) if check else []
    return [Problem(file, message, row=row, field=f"extra.{field}") for field, message in found]
