"""The check of MedQ-Deg records' ``extra``: trial votes, the number of options K, the severity
level and the degradation (the scoring trusts them)."""

from collections.abc import Mapping
from typing import Any

from medvigil.records.record_checks import extra_check, is_int, letters_or_null


@extra_check("medqdeg")
def check_extra(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` per bad field of a MedQ-Deg record's ``extra``."""
    bad = []
    votes = extra.get("votes")
    if "votes" in extra and (
        not isinstance(votes, list) or not votes or not letters_or_null(votes)
    ):
        bad.append(
            ("votes", f"must be a non-empty list of answer letters A-Z or null, got {votes!r:.80}")
        )
    k = extra.get("n_options")
    if "n_options" in extra and not (is_int(k) and 2 <= k <= 26):
        bad.append(("n_options", f"must be an integer number of options 2..26, got {k!r:.40}"))
    if "severity" in extra:
        sev = extra["severity"]
        level = sev[1:] if isinstance(sev, str) and sev[:1] in "lL" else sev
        if not (
            (is_int(level) and 0 <= level <= 2)
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
