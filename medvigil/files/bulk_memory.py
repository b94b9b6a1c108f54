"""Hand back to the system the memory a bulk reader frees.

A bulk reader allocates a few large buffers per file (the file's records cut out, pyarrow's
parse) and frees them before the next file. Two allocators would keep that memory: arrow's own
pool (mimalloc or jemalloc) holds freed pages for reuse, and glibc's ``malloc`` raises its mmap
threshold each time a large block is freed, after which blocks of a file's size come from the
heap, where freed space between live objects stays with the process. Peak memory then grows
with the number of files read rather than with the largest one.

:func:`returned_memory` puts arrow on the system allocator while it is open; a reader calls
:func:`release_freed` after each file (glibc's ``malloc_trim``: free heap pages go back; a
no-op elsewhere). Allocation itself is left as it is: fixing the mmap threshold instead made
every later large numpy temporary (the bootstrap's) a fresh mapping, twice as slow.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


def release_freed() -> None:
    """Return the heap's free pages to the system (glibc; a no-op elsewhere)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def heap_kept() -> None:
    """Keep freed memory in this process's heap for its next allocations (glibc; a no-op elsewhere):
    for a worker process that reads file after file, whose buffers of one file are the size of the
    next one's. Large blocks then come from the heap instead of a fresh mapping each, whose every
    page the kernel zeroes and maps again on first touch (a third of a log reader's page faults).
    The process's peak stays that of its largest file; :func:`release_freed` still trims it."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c")).mallopt
    except (OSError, AttributeError, TypeError):
        return
    mallopt(_M_MMAP_THRESHOLD, _KEPT_BLOCKS)
    mallopt(_M_TRIM_THRESHOLD, _KEPT_BLOCKS)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_KEPT_BLOCKS = 256 << 20  # glibc's largest mmap threshold on 64-bit is 32 MB by default; a file's cut is up to ~25 MB


@contextmanager
def returned_memory() -> Iterator[None]:
    """Arrow on the system allocator while bulk readers run (see the module doc)."""
    import pyarrow as pa

    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)
