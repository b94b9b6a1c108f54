"""Take one object out of a JSON line without parsing the whole line.

An lmms-eval ``--log_samples`` line of a medvigil task is about 11 kB: our per-probe record
(about 400 bytes) repeated under every metric key, and the prompt. Parsing the line costs
about 170 µs; parsing only the first object-valued entry costs a few µs.
:func:`first_object_entry` matches the line's leading top-level entries whose values are
scalars or flat lists of scalars (``doc_id``, ``target``, ``filtered_resps``, ...) with one
regular expression, so the key it stops at is a top-level key, then decodes that entry's
object alone with :meth:`json.JSONDecoder.raw_decode` (the same decoder as ``json.loads``).
When the line does not start that way it returns ``None`` and the caller parses the line whole.
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRING = r'"(?:[^"\\\x00-\x1f]|\\.)*"'
_SCALAR = rf"(?:{_STRING}|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity)"
_FLAT_LIST = rf"\[\s*(?:{_SCALAR}(?:\s*,\s*{_SCALAR})*)?\s*\]"
_ENTRY = rf"{_STRING}\s*:\s*(?:{_SCALAR}|{_FLAT_LIST})\s*,\s*"
_LEAD = re.compile(rf"\s*\{{\s*(?:{_ENTRY})*(?P<key>{_STRING})\s*:\s*(?=\{{)")
_DECODE = json.JSONDecoder().raw_decode


def first_object_entry(line: str) -> tuple[str, dict[str, Any], int] | None:
    """``(key, value, end)`` of the first top-level entry of ``line`` whose value is a JSON
    object (``end``: the index just past the object), or None when the entries before it are
    not all scalars / flat lists (parse the line whole then).

    Raises:
        json.JSONDecodeError: the object itself is not valid JSON.
    """
    match = _LEAD.match(line)
    if match is None:
        return None
    key = match.group("key")
    key = json.loads(key) if "\\" in key else key[1:-1]
    value, end = _DECODE(line, match.end())
    return key, value, end


def ends_object(line: str) -> bool:
    """True when the line, stripped, closes a JSON object (a cheap check against a truncated line)."""
    return line.rstrip().endswith("}")
