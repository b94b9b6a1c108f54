"""Take one object out of a JSON line without parsing the whole line.

An lmms-eval ``--log_samples`` line of a medvigil task is about 5.5 kB: our per-probe record
(about 400 bytes) under the first metric key, the record's scoring key under the other 25
(about 170 bytes each; logs of the earlier task pack repeat the whole record, about 11 kB a
line), and the prompt. Parsing the line costs
about 170 µs; parsing only the first object-valued entry costs a few µs.

:func:`first_object_entry` finds the first ``{`` after the line's opening one. When the text
just before it is ``"key": `` (unescaped quotes), that brace opens the value of a top-level
key of a valid JSON line: inside a JSON string every quote is escaped, and no other object is
open before it (keys live only in objects, and this is the second ``{`` of the line). That
object alone is decoded with :meth:`json.JSONDecoder.raw_decode` (the same decoder as
``json.loads``). The entries before it and after it are not parsed; the line must start with
``{`` and end with ``}`` (a truncated line fails this). Anything else returns ``None``, and
the caller parses the line whole.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_DECODE = json.JSONDecoder().raw_decode
_ESCAPED_KEY = re.compile(rb'\\u[0-9a-fA-F]{4}(?:[^"\\\n]|\\.)*"\s*:')


def has_escaped_key(data: bytes) -> bool:
    """Whether a key of JSON text ``data`` may be spelt with a ``\\uXXXX`` escape (then counting a
    key's literal spelling can miss it). May say yes for a value; never no for a key."""
    return b"\\u" in data and _ESCAPED_KEY.search(data) is not None


def first_object_entry(line: str) -> tuple[str, dict[str, Any], int] | None:
    """``(key, value, end)`` of the first top-level entry of ``line`` whose value is a JSON
    object (``end``: the index just past the object), or None (parse the line whole then).

    Raises:
        json.JSONDecodeError: the object itself is not valid JSON.
    """
    start = line.find("{")
    if start < 0 or line[:start].strip() or not line[-16:].rstrip().endswith("}"):
        return None
    brace = line.find("{", start + 1)
    if brace < 0:
        return None
    key_end = line.rfind('"', start, brace)
    if key_end < 0 or line[key_end + 1 : brace].strip() != ":":
        return None
    key_start = line.rfind('"', start, key_end)
    if key_start < 0 or line[key_start - 1] == "\\" or "\\" in line[key_start:key_end]:
        return None
    value, end = _DECODE(line, brace)
    return line[key_start + 1 : key_end], value, end


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic objects (decoded JSON records)
    are built: otherwise each full generation re-scans every record built so far (about a
    fifth of the time of reading 150,000 records)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
