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

:func:`record_block` does the same for every line of a file at once, with byte searches: it cuts
each line's record out (where :func:`object_after_key` says it opens, or a caller's further
rule) and joins the cuts into one buffer for a single parse. A record ends at the first ``}, "``
after its brace where the braces between balance; a wrong cut (a brace inside a string) is never
a JSON object there, so the single parse fails, or gives more values than lines, and the caller
reads the file line by line. The loop over lines is compiled when the install could build
``medvigil/files/_record_cut.c`` (several times faster than the loop here, which gives
the same bytes and is the reference: ``tests/test_record_cut.py``).
"""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Callable, Iterable
from contextlib import closing
from functools import cached_property
from typing import Any

from medvigil.files.mapped_lines import windows

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


class KeyCounts:
    """Whether a column's nulls (after a bulk parse of JSON text ``data`` into ``rows`` rows) are
    keys not written or JSON nulls, settled by counting ``"name":`` in the bytes: in valid JSON only
    a key is followed by a colon. A key of a nested object counts too, which can only make
    :meth:`nulls_are_missing` say no; :meth:`all_written` needs ``name`` not to be a possible nested
    key (``nested``; ``None``: any name may be). A key spelt with escapes is not counted: that can
    only make :meth:`all_written` say no, and makes :meth:`nulls_are_missing` say no whenever the
    text may hold one. Without any ``null`` in the bytes, every null is a key not written. (The
    parser refuses a key written twice in one object.)"""

    def __init__(self, data: bytes | bytearray, rows: int, nested: Iterable[str] | None = ()):
        self.data, self.rows = data, rows
        self.nested = None if nested is None else frozenset(nested)

    @cached_property
    def _no_null(self) -> bool:
        return self.data.find(b"null") < 0

    @cached_property
    def _escaped(self) -> bool:
        return has_escaped_key(self.data)

    def _count(self, name: str) -> int:
        return self.data.count(b'"' + name.encode() + b'":')

    def nulls_are_missing(self, name: str, nulls: int) -> bool:
        """Every one of the column's ``nulls`` is a key not written (none is a JSON null)."""
        return nulls == 0 or self._no_null or (not self._escaped and self._count(name) == self.rows - nulls)

    def all_written(self, name: str, nulls: int) -> bool:
        """Every row writes the key (its ``nulls`` are JSON nulls)."""
        if nulls == 0:
            return True
        return self.nested is not None and name not in self.nested and self._count(name) == self.rows


StartOf = Callable[[Any, int, int], int]  # (data, line start, line end) -> the record's brace, or -1

try:  # the line loop of record_block and a byte search, compiled (medvigil/files/_record_cut.c)
    from medvigil.files._record_cut import cut as _compiled_cut
    from medvigil.files._record_cut import find as _compiled_find
except ImportError:  # built without a C compiler: the loop below and the buffer's own search
    _compiled_cut = _compiled_find = None


def holds(data: mmap.mmap | bytes, needle: bytes, pos: int, stop: int) -> bool:
    """Whether ``data[pos:stop]`` holds ``needle`` (the compiled search when built: CPython's
    crawls over JSON text, where the needle's last byte, a quote, is the most frequent one)."""
    if _compiled_find is not None:
        return _compiled_find(data, pos, stop, needle) >= 0
    return data.find(needle, pos, stop) >= 0


def record_block(data: mmap.mmap | bytes, key: bytes | None = None, separator: bytes = b"\n",
                 refuse: bytes | None = None, otherwise: StartOf | None = None) -> tuple[bytearray, int] | None:
    """Every line's record cut out and joined by ``separator``, with their number, or None when a
    line is not the shape read here (no record found, the line is not exactly ``{...}``, no
    balanced end), the file is not UTF-8 or holds ``refuse``: read it line by line then. A line's
    record opens where :func:`object_after_key` finds it under ``key`` (None: any key), or else
    where ``otherwise`` does. Empty lines are skipped. The file is taken a window of whole lines
    at a time (:func:`medvigil.files.mapped_lines.windows`); the compiled loop cuts a window when
    it can, and a file it declines is cut here from the start (the same bytes either way)."""
    if _compiled_cut is not None:
        block, n = bytearray(), 0
        with closing(windows(data)) as parts:
            for pos, stop, utf8 in parts:
                if not utf8 or (refuse and holds(data, refuse, pos, stop)):
                    return None
                added = _compiled_cut(data, pos, stop, key, separator, block)
                if added < 0:
                    break
                n += added
            else:
                return block, n
    return _cut_lines(data, key, separator, refuse, otherwise)


def _cut_lines(data: mmap.mmap | bytes, key: bytes | None, separator: bytes, refuse: bytes | None,
               otherwise: StartOf | None) -> tuple[bytearray, int] | None:
    """:func:`record_block`, a line at a time in Python."""
    view = memoryview(data)
    block = bytearray()
    find, n = data.find, 0
    try:
        with closing(windows(data)) as parts:
            for pos, stop, utf8 in parts:
                if not utf8 or (refuse and holds(data, refuse, pos, stop)):
                    return None
                while pos < stop:
                    end = find(b"\n", pos, stop)
                    if end < 0:
                        end = stop
                    if end == pos:  # an empty line
                        pos += 1
                        continue
                    if data[pos] != 0x7B or data[end - 1] != 0x7D:  # '{' ... '}' exactly (no '\r', spaces or a cut line)
                        return None
                    brace = object_after_key(data, pos, end, key)
                    if brace < 0 and otherwise is not None:
                        brace = otherwise(data, pos, end)
                    if brace < 0:
                        return None
                    if n:
                        block += separator
                    mark = len(block)
                    close = find(b'}, "', brace, end)
                    while True:
                        if close < 0:
                            return None
                        block += view[brace : close + 1]
                        if block.count(b"{", mark) == block.count(b"}", mark):
                            break
                        del block[mark:]
                        close = find(b'}, "', close + 1, end)
                    n += 1
                    pos = end + 1
    finally:
        view.release()
    return block, n


def object_after_key(data: mmap.mmap | bytes, pos: int, end: int, key: bytes | None = None) -> int:
    """The rule of :func:`first_object_entry` on the line ``data[pos:end]``: the first ``{`` after
    the line's own, after ``"key": `` (quotes unescaped, no escape in the key; ``key`` None: any
    key), or -1."""
    brace = data.find(b"{", pos + 1, end)
    if brace < 0 or data[brace - 3 : brace] != b'": ':
        return -1
    quote = data.rfind(b'"', pos, brace - 3)
    if quote <= pos or data[quote - 1] == 0x5C or data.find(b"\\", quote, brace - 3) >= 0:
        return -1
    if key is not None and data[quote + 1 : brace - 3] != key:
        return -1
    return brace
