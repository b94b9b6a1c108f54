"""Steps of a writer that Ctrl-C or SIGTERM must not cut in half.

:mod:`medvigil.cli` turns SIGINT and SIGTERM into exceptions, raised at whatever line the command is
on, and writers clean up in ``except`` and ``finally`` blocks. Two moments are not covered by those:
a staging folder just made but not yet in the variable its cleanup reads, and outputs half moved
into place (the old one moved aside, the new one not yet renamed onto its name). Such steps run
under :func:`held`: the CLI's signal handlers then leave their exception to :func:`deferred`, and it
is raised as soon as the steps are done (other handlers, a library caller's, are not deferred).

The steps are held at the language level, not with a signal mask: a mask is per thread, and the
kernel hands a signal to any thread not blocking it (numpy's BLAS starts some on import), after
which Python runs the handler in the main thread at once.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0  # held blocks open in the main thread (the only thread where signal handlers run)
_waiting: type[BaseException] | None = None  # the first exception deferred meanwhile


@contextmanager
def held() -> Iterator[None]:
    """Run the block whole: an exception a signal handler deferred meanwhile is raised when it
    ends."""
    global _depth, _waiting
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers never interrupt this thread
        return
    _depth += 1  # (no call before the yield, so no handler runs in between)
    try:
        yield
    finally:
        _depth -= 1
        if not _depth and _waiting is not None:
            kind, _waiting = _waiting, None
            raise kind()


def deferred(kind: type[BaseException]) -> bool:
    """Whether a signal handler's exception ``kind`` waits for the held block in progress (else
    raise it)."""
    global _waiting
    if not _depth:
        return False
    _waiting = _waiting or kind
    return True
