"""The check of Consistent-but-Dangerous records' ``extra``: the paraphrase index."""

from collections.abc import Mapping
from typing import Any

from medvigil.records.record_checks import extra_check, is_int


@extra_check("cbd")
def check_extra(extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for a bad ``paraphrase_index`` of a CbD record's ``extra``."""
    index = extra.get("paraphrase_index")
    if "paraphrase_index" in extra and not (is_int(index) and index >= 0):
        return [("paraphrase_index", f"must be an integer >= 0, got {index!r:.40}")]
    return []
