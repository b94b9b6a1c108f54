"""Run one task per input (a file, one model's files, a report figure) in forked worker processes,
so every core of the machine reads (or draws).

The bulk readers spend most of a file's time in Python byte scans that hold the GIL, so threads
do not add a core; processes do. :func:`in_workers` forks the workers when its ``with`` block
opens, so the task and what it closes over are inherited, never pickled; the caller can do its
own work in the block (load a release) while they run. A worker hands each result over in a file
of a private temporary folder and sends only its name: the parent's pool threads, which need the
GIL that the parent's own work holds, then never keep a worker waiting.

A task's result is advisory: when it raises (a file that is not regular, too large, ...) the
item's result is None and the caller reads that file itself, in-process, where the problem is
described exactly as without workers. Where ``fork`` is not available, with one usable CPU or one
item, or with ``MEDVIGIL_WORKERS=1``, the tasks run in-process, in order, with the same rule.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from medvigil.errors import DataError, Problem
from medvigil.files.bulk_memory import heap_kept

T = TypeVar("T")
ENV = "MEDVIGIL_WORKERS"  # worker processes for the bulk readers (default: the usable CPUs)

_NICENESS = 10  # workers' priority below the parent's, by default
_task: Callable[[Any], Any] | None = None  # set before the fork; the workers inherit both
_folder: str | None = None


def worker_count(items: int) -> int:
    """How many workers to fork for ``items`` tasks: ``MEDVIGIL_WORKERS``, else the usable CPUs
    on Linux (one elsewhere), never more than the items; 1 means in-process."""
    value = os.environ.get(ENV, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise DataError(Problem(ENV, f"must be a whole number of worker processes >= 1, got {value!r}"))
        wanted = int(value)
    elif sys.platform != "linux":
        wanted = 1  # forking a process with system frameworks loaded is not safe everywhere (macOS)
    else:
        wanted = len(os.sched_getaffinity(0))
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(wanted, items))


def _advisory(task: Callable[[Any], Any], item: Any) -> Any:
    try:
        return task(item)
    except Exception:  # the caller reads this item itself and says what is wrong with it
        return None


def _handed_over(job: tuple[int, Any]) -> str | None:
    """In a worker: the task's result written to a file of the folder; its name (None: no result)."""
    number, item = job
    result = _advisory(_task, item)
    if result is None:
        return None
    path = os.path.join(_folder, f"{number}.pickle")
    try:
        with open(path, "wb") as handle:
            pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # (e.g. the folder's disk is full) the caller does this item itself
        return None
    return path


def _taken(path: str | None) -> Any:
    """In the parent: a result handed over (the file is removed once read)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except Exception:  # the caller does this item itself
        return None
    finally:
        Path(path).unlink(missing_ok=True)


def _quiet_worker(niceness: int = _NICENESS) -> None:
    """A worker is stopped by its parent: SIGTERM ends it (not the CLI's handler, inherited with
    the fork), and Ctrl-C is the parent's to handle. By default it yields the CPU to the parent,
    whose work meanwhile (loading a release) is on the command's serial path. SIGTERM comes
    blocked from the fork (:func:`_sigterm_held`): one sent before this ran is delivered now, and
    ends the worker."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    try:
        os.nice(niceness)
    except OSError:  # not allowed here: run at the parent's priority
        pass
    heap_kept()  # one task's buffers reused by the next


@contextmanager
def _sigterm_held() -> Iterator[None]:
    """SIGTERM blocked in this thread while it forks the workers (the pool's threads, which fork
    replacements, are started meanwhile and keep it blocked), so that a worker inherits it blocked.
    Otherwise a SIGTERM that reaches a worker before the worker first runs (the pool left at once,
    a busy machine) is caught by the inherited handler and then dropped with the signals pending
    at the fork (CPython clears them in the child): the worker never ends and the pool waits for it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def in_workers(task: Callable[[T], Any], items: Iterable[T], *, progress: str | None = None,
               unit: str = "file", niceness: int = _NICENESS, imports: Iterable[str] = ()) -> Iterator[Iterator[Any]]:
    """``task(item)`` for every item, in order (None where it raised), computed by
    :func:`worker_count` forked processes that start at once: the caller may do other work in
    the ``with`` block before it takes the results. Leaving the block stops the workers. With
    ``progress`` (a label), the results taken are counted on stderr when it is a terminal.
    ``niceness``: the workers' priority below this process's (0 for a caller that only waits).
    ``imports``: modules the task imports, imported here before the fork, so that the workers
    inherit them instead of each importing them on its first item (pyarrow's parser or
    matplotlib: 0.07-0.3 s of CPU per worker)."""
    global _task, _folder
    items = list(items)
    workers = worker_count(len(items))
    with ExitStack() as stack:
        pool = None
        if workers > 1:
            for name in imports:
                importlib.import_module(name)
            try:
                # private (mode 0700): only this command's workers write the pickles read back
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="medvigil-workers-"))
                _task, _folder = task, folder
                with _sigterm_held():
                    pool = stack.enter_context(multiprocessing.get_context("fork").Pool(
                        workers, initializer=_quiet_worker, initargs=(niceness,)))
            except OSError:  # no temporary folder or no fork here: read in-process
                pool = None
            finally:
                _task = _folder = None
        if pool is None:
            results = (_advisory(task, item) for item in items)
        else:
            results = map(_taken, pool.imap(_handed_over, enumerate(items)))
        if progress is not None and len(items) > 1 and _on_terminal():
            results = stack.enter_context(closing(_counted(results, len(items), progress, unit)))
        yield results


def _on_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _counted(results: Iterator[Any], total: int, label: str, unit: str) -> Iterator[Any]:
    """``results``, with a progress bar on stderr that is cleared when they end or are dropped."""
    from tqdm.std import tqdm  # imported only for a terminal

    with tqdm(total=total, desc=label, unit=f" {unit}", leave=False, file=sys.stderr, dynamic_ncols=True) as bar:
        for result in results:
            yield result
            bar.update()
