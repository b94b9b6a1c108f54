"""The check of Readiness records' ``extra``: the laterality flag."""

from collections.abc import Mapping
from typing import Any

from medvigil.records.record_checks import extra_check


@extra_check("readiness")
def check_extra(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for a bad ``laterality_dependent`` of a Readiness record's ``extra``."""
    flag = extra.get("laterality_dependent")
    if flag is not None and not isinstance(flag, bool):
        return [("laterality_dependent", f"must be true, false or null, got {flag!r:.40}")]
    return []
