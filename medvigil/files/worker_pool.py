"""Run one task per input file in forked worker processes, so every core of the machine reads.

The bulk readers spend most of a file's time in Python byte scans that hold the GIL, so threads
do not add a core; processes do. :func:`in_workers` forks the workers after the caller has set
up what the task needs (a release index, say), so the task and what it closes over are inherited,
never pickled; only the items and the results cross (paths in, numpy columns out).

A task's result is advisory: when it raises (a file that is not regular, too large, ...) the
item's result is None and the caller reads that file itself, in-process, where the problem is
described exactly as without workers. Where ``fork`` is not available, with one usable CPU or one
item, or with ``MEDVIGIL_WORKERS=1``, the tasks run in-process, in order, with the same rule.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from medvigil.errors import DataError, Problem

T = TypeVar("T")
ENV = "MEDVIGIL_WORKERS"  # worker processes for the bulk readers (default: the usable CPUs)

_task: Callable[[Any], Any] | None = None  # set before the fork; the workers inherit it


def worker_count(items: int) -> int:
    """How many workers to fork for ``items`` tasks: ``MEDVIGIL_WORKERS`` or the usable CPUs,
    never more than the items; 1 means in-process."""
    value = os.environ.get(ENV, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise DataError(Problem(ENV, f"must be a whole number of worker processes >= 1, got {value!r}"))
        wanted = int(value)
    else:
        wanted = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(wanted, items))


def _advisory(task: Callable[[Any], Any], item: Any) -> Any:
    try:
        return task(item)
    except Exception:  # the caller reads this item itself and says what is wrong with it
        return None


def _inherited(item: Any) -> Any:
    return _advisory(_task, item)


def _quiet_worker() -> None:
    """A worker is stopped by its parent: SIGTERM ends it (not the CLI's handler, inherited with
    the fork), and Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def in_workers(task: Callable[[T], Any], items: Iterable[T]) -> Iterator[Iterator[Any]]:
    """``task(item)`` for every item, in order (None where it raised), computed by
    :func:`worker_count` forked processes that start at once: the caller may do other work in
    the ``with`` block before it takes the results. Leaving the block stops the workers."""
    global _task
    items = list(items)
    workers = worker_count(len(items))
    if workers == 1:
        yield (_advisory(task, item) for item in items)
        return
    _task = task
    try:
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_quiet_worker)  # they inherit _task
    finally:
        _task = None
    with pool:
        yield pool.imap(_inherited, items)
