"""The retry protocol of MedVIGIL Appendix L ("Parser and retry"), independent of any harness.

A non-letter response is re-asked "up to three times with the same prompt and settings" and every
attempt is logged. :data:`ATTEMPTS` hands the attempts from the model wrapper (which sees requests)
to the task's ``process_results`` (which sees docs), keyed by :func:`doc_key`.
"""

import hashlib
import json
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Sequence

from medvigil.mcq.prompting import parse_letter

DEFAULT_MAX_RETRIES = 3  # Appendix L


def ask_with_retries(
    ask: Callable[[list[int]], Sequence[str]],
    n: int,
    *,
    max_retries: int = DEFAULT_MAX_RETRIES,
    retryable: Callable[[int], bool] = lambda _i: True,
) -> list[list[str]]:
    """Return every attempt per item; the last attempt of each is the final response.

    ``ask(indices)`` answers the items at ``indices`` (one batch call per round). Items for
    which ``retryable(i)`` is false (not multiple choice) are asked once.
    """
    if max_retries < 0:
        raise ValueError(f"max_retries must be >= 0, got {max_retries}")
    attempts: list[list[str]] = [[] for _ in range(n)]
    pending = list(range(n))
    for round_ in range(max_retries + 1):
        if not pending:
            break
        answers = list(ask(pending))
        if len(answers) != len(pending):
            raise RuntimeError(
                f"retry round {round_}: asked {len(pending)} items, got {len(answers)} answers"
            )
        for i, answer in zip(pending, answers):
            attempts[i].append(answer)
        pending = [i for i in pending if retryable(i) and parse_letter(attempts[i][-1]) is None]
    return attempts


def doc_key(doc: dict) -> str:
    """A stable key for one evaluated doc: its non-null scalar and text fields (lmms-eval hands
    ``process_results`` a doc whose null image column has been removed)."""
    plain = {
        k: v
        for k, v in doc.items()
        if v is not None and isinstance(v, (str, int, float, bool, list, tuple))
    }
    blob = json.dumps(plain, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class AttemptLog:
    """Thread-safe hand-over of attempt histories, first in first out per key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[str, deque[list[str]]] = defaultdict(deque)

    def put(self, key: str, attempts: list[str]) -> None:
        with self._lock:
            self._by_key[key].append(list(attempts))

    def take(self, key: str) -> list[str] | None:
        with self._lock:
            queue = self._by_key.get(key)
            if not queue:
                return None
            attempts = queue.popleft()
            if not queue:
                del self._by_key[key]
            return attempts


ATTEMPTS = AttemptLog()
