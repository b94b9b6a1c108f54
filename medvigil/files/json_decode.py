"""``json.loads`` of large JSON texts, several times faster, with exactly its result.

:func:`loads_exact` parses with orjson where orjson gives the same value as the standard
library and with :func:`json.loads` everywhere else, so callers see one decoder's result:

- orjson refuses what it cannot read the same way (NaN and Infinity literals, numbers that
  overflow a double, lone surrogate escapes, bytes that are not UTF-8, a byte-order mark,
  nesting deeper than 1,024); the standard decoder then decides, and raises what it raises.
  One difference is left: the standard decoder's nesting limit is Python's recursion limit
  less the caller's stack (about 950 levels), so a text nested between that and 1,024 levels
  is read, where ``json.loads`` would raise ``RecursionError``.
- orjson silently reads an integer beyond 64 bits as a float, where the standard decoder keeps
  the integer. A text with a run of 20 digits, or of 19 after a minus sign (every integer
  outside [-2**63, 2**64) has one), goes to the standard decoder; a run inside a string only
  costs the speed.
- Everything else (floats, correctly rounded by both; duplicate keys, the last kept at the
  first one's place; escapes) agrees: ``tests/test_json_decode.py`` checks it on any JSON
  value and on mutated texts.

orjson is a dependency; without it every text goes to the standard decoder.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - installed with medvigil
    orjson = None

# digits to "0", minus to "-", every other byte to " ": integer literals become plain runs
_SHAPE = bytes(ord("0") if 0x30 <= b <= 0x39 else b if b == ord("-") else ord(" ") for b in range(256))
_LONG_POSITIVE = b"0" * 20
_LONG_NEGATIVE = b"-" + b"0" * 19


def may_exceed_64_bits(data: bytes | bytearray) -> bool:
    """Whether ``data`` may hold an integer literal outside [-2**63, 2**64) (never no for one)."""
    shape = data.translate(_SHAPE)
    return _LONG_POSITIVE in shape or _LONG_NEGATIVE in shape


def loads_exact(data: bytes | bytearray) -> Any:
    """``json.loads(data)``: the same value, or the same exception (but see the nesting limit above)."""
    if orjson is not None and not may_exceed_64_bits(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # the standard decoder reads it or says why not
    return json.loads(data)
