"""Read a large text file a window of whole lines at a time, from a memory map.

The bulk readers of lmms-eval logs (:mod:`medvigil.records.log_columns`,
:mod:`medvigil.records.lmms_eval_logs`) scan gigabytes of JSON lines with byte searches. A
file is memory-mapped (no copy into Python objects), taken about :data:`WINDOW` bytes of whole
lines at a time, each window checked to be UTF-8 in one call (arrow's validator), and its pages
handed back once scanned (``MADV_DONTNEED``: the page cache keeps them; the process's memory
does not grow with the file).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager

from medvigil.files.input_files import open_regular

WINDOW = 1 << 20  # bytes of a file checked and scanned at a time (the check leaves them in the cache for the scan)


@contextmanager
def mapped(path: str | os.PathLike, label: str) -> Iterator[mmap.mmap | None]:
    """A read-only map of a regular file within the input cap (:func:`open_regular`), or None
    for an empty file (which cannot be mapped)."""
    with open_regular(path, label) as handle:
        if handle.seek(0, 2) == 0:
            yield None
            return
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            yield data


def windows(data: mmap.mmap | bytes) -> Iterator[tuple[int, int, bool]]:
    """``(start, stop, is UTF-8)`` of consecutive windows of whole lines covering ``data``; a
    window's pages are handed back when the next is asked for. Close the generator before the
    map (``contextlib.closing``): it holds an export of the map's buffer while open."""
    import pyarrow as pa

    window = WINDOW  # (read at each call: tests shrink it)
    whole = pa.py_buffer(data)
    try:
        pos, end = 0, len(data)
        while pos < end:
            stop = data.find(b"\n", min(pos + window, end))
            stop = end if stop < 0 else stop + 1
            yield pos, stop, _utf8(whole.slice(pos, stop - pos), pa)
            _release(data, stop)
            pos = stop
    finally:
        del whole


def _utf8(buffer, pa) -> bool:
    """Whether ``buffer`` is UTF-8 (the readers decode every line otherwise; arrow checks in bulk)."""
    offsets = pa.py_buffer((0).to_bytes(8, "little") + len(buffer).to_bytes(8, "little"))  # one value: all of it
    text = pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, buffer])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _release(data: mmap.mmap | bytes, stop: int) -> None:
    """Hand back the pages of ``data`` before ``stop`` (whole pages; a no-op where unsupported)."""
    if isinstance(data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        length = stop - stop % mmap.PAGESIZE
        if length:
            data.madvise(mmap.MADV_DONTNEED, 0, length)
