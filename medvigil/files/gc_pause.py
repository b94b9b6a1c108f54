"""Pausing the cyclic garbage collector while a bulk reader builds many acyclic objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic objects (decoded JSON records)
    are built: otherwise each full generation re-scans every record built so far (about a
    fifth of the time of reading 150,000 records). Objects still alive when the block ends are
    scanned by the next collection: callers that only need a summary of them free them inside
    the block (:func:`medvigil.records.suite_logs.score_logs`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
