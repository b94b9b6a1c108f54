"""The check of MediConfusion records' ``extra``: the vote counts and the margin."""

from collections.abc import Mapping
from typing import Any

from medvigil.records.record_checks import extra_check, is_number


@extra_check("mediconfusion")
def check_extra(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` per bad field of a MediConfusion record's ``extra``."""
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
