"""Case-clustered bootstrap, vectorised (MedVIGIL Appendix M), shared by every suite.

Each resample is summarised by counts ``W[b, c]`` = times cluster (case) ``c`` was drawn, so any
statistic of per-cluster sums ``X`` (correct counts, scored counts, ... per case) is evaluated for
all resamples at once from ``W @ X``: for MedVIGIL (500 resamples, 3,000 cases, 18 models, ~40 sums
each) one float32 matrix product. Draws come from ``numpy.random.default_rng(seed)``:
``rng.integers(0, C, size=(B, C))``, row ``b`` being the case indices of resample ``b``
(:func:`resample_indices`).

Harness-compatible resampling (:func:`harness_resample_indices`): the official
``analysis/bootstrap_mcs.py`` seeds the global ``random`` once and, per model, draws
``random.choice(case_ids)`` ``len(case_ids)`` times per resample, the stream continuing from one
model to the next. ``random.choice(seq)`` is ``seq[_randbelow(len(seq))]``; for ``n < 2**32``,
``_randbelow(n)`` takes the top ``n.bit_length()`` bits of the next 32-bit Mersenne Twister output,
rejecting values ``>= n``. :class:`CPythonRandomStream` applies that shift and rejection to blocks
of numpy MT19937 outputs started from the state of ``random.Random(seed)``: CPython's draws, one by
one.
"""

import contextlib
import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from medvigil.errors import DataError, Problem
from medvigil.scoring.stats import percentile_interval

__all__ = [
    "DEFAULT_N_RESAMPLES",
    "DEFAULT_SEED",
    "CPythonRandomStream",
    "cluster_bootstrap",
    "cluster_sums",
    "count_rows",
    "harness_resample_counts",
    "harness_resample_indices",
    "harness_resampled_sums",
    "one_blas_thread",
    "percentile_interval",
    "resample_counts",
    "resample_indices",
    "resampled_sums",
]

DEFAULT_N_RESAMPLES = 500  # Appendix M
DEFAULT_SEED = 20260505  # Appendix M
T = TypeVar("T")
# Values handled at a time by the chunked loops (memory stays flat), and 32-bit words drawn at a
# time by CPythonRandomStream: small enough that temporaries are recycled by the allocator instead
# of mapped afresh (the harness resampling ran 2x faster than with 1 << 18 for both).
_BLOCK = 1 << 17
_WORDS = 1 << 16
MAX_DRAWS = 1 << 28  # cluster draws of one resample table (2 GiB of int64 indices)


def _check_positive(value, name: str) -> None:
    if not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check(n_clusters: int, n_resamples: int) -> None:
    _check_positive(n_clusters, "n_clusters")
    _check_positive(n_resamples, "n_resamples")
    if int(n_clusters) * int(n_resamples) > MAX_DRAWS:  # the resample table is held whole
        raise DataError(
            Problem(
                "bootstrap",
                f"{n_resamples:,} resamples of {n_clusters:,} cases are "
                f"{int(n_clusters) * int(n_resamples):,} draws, more than the {MAX_DRAWS:,} "
                "held in memory at once; use fewer resamples",
                field="--n-resamples",
            )
        )


def resample_indices(
    n_clusters: int, n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """``(n_resamples, n_clusters)`` cluster indices drawn with replacement (Appendix M: 300 case
    ids per resample)."""
    _check(n_clusters, n_resamples)
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_clusters, size=(n_resamples, n_clusters), dtype=np.int64)


def resample_counts(
    n_clusters: int, n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """``(n_resamples, n_clusters)`` float32 multiplicities of the :func:`resample_indices` draws:
    ``W[b, c]`` = times cluster ``c`` is in resample ``b``. The last matrix of at most
    :data:`_KEPT_BYTES` is kept and handed out again, read-only, for the same arguments (a stress
    suite scores every model on the same cases and seed).
    """
    key = (int(n_clusters), int(n_resamples), seed)
    if _kept.get("key") == key:
        return _kept["counts"]
    counts = count_rows(resample_indices(n_clusters, n_resamples, seed), n_clusters)
    if counts.nbytes <= _KEPT_BYTES and isinstance(seed, (int, np.integer)):
        counts.flags.writeable = False
        _kept.update(key=key, counts=counts)
    return counts


_KEPT_BYTES = 64 << 20
_kept: dict = {}  # resample_counts' last matrix and its arguments


def count_rows(indices: np.ndarray, n_clusters: int) -> np.ndarray:
    """``(B, n)`` cluster indices -> ``(B, n_clusters)`` float32 multiplicities, one ``np.bincount``
    per block of rows."""
    b = indices.shape[0]
    counts = np.empty((b, n_clusters), dtype=np.float32)
    rows = max(1, _BLOCK // max(indices.shape[1], n_clusters, 1))  # bounded temporaries
    for r0 in range(0, b, rows):
        counts[r0 : r0 + rows] = _bincount_rows(indices[r0 : r0 + rows], n_clusters)
    return counts


def _bincount_rows(indices: np.ndarray, n_clusters: int) -> np.ndarray:
    """:func:`count_rows` of one block (int64 counts): row ``r`` is shifted to the bins
    ``[r * n_clusters, (r + 1) * n_clusters)`` so that one ``np.bincount`` counts every row."""
    b = indices.shape[0]
    flat = indices.astype(np.int64)  # a copy, shifted in place
    flat += (np.arange(b, dtype=np.int64) * n_clusters)[:, None]
    return np.bincount(flat.ravel(), minlength=b * n_clusters).reshape(b, n_clusters)


class CPythonRandomStream:
    """The stream of ``random.Random(seed)`` (CPython's Mersenne Twister), drawn in blocks; both
    draws leave the stream where CPython's would be (words read ahead but not consumed are kept for
    the next call)."""

    _WORD_BITS = 32

    def __init__(self, seed: int):
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"seed must be an integer, got {seed!r}")
        _, internal, _ = random.Random(int(seed)).getstate()  # 624 state words + position
        self._bitgen = np.random.MT19937()
        self._bitgen.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.array(internal[:-1], dtype=np.uint32), "pos": int(internal[-1])},
        }
        self._raw = np.random.Generator(self._bitgen)
        # the last block of 32-bit words generated and how many of them are consumed: a read
        # ahead is a view of it, so leftovers are never copied in front of a new block
        self._block = np.empty(0, dtype=np.uint32)
        self._used = 0

    def _words(self, n: int) -> np.ndarray:
        """The next ``n`` or fewer unconsumed words (the rest of the last block first), not
        consumed."""
        if self._used == self._block.size:
            # the full 32-bit range takes one MT19937 output per value, as uint32
            self._block, self._used = self._raw.integers(0, 2**32, size=n, dtype=np.uint32), 0
        return self._block[self._used : self._used + n]

    def getrandbits32(self, size: int) -> np.ndarray:
        """``size`` values of ``getrandbits(32)``, consumed."""
        out = np.empty(int(size), dtype=np.uint32)
        done = 0
        while done < size:
            words = self._words(min(int(size) - done, _WORDS))
            out[done : done + words.size] = words
            done += words.size
            self._used += words.size
        return out

    def _checked(self, n: int, size: int) -> tuple[int, int]:
        if not isinstance(n, (int, np.integer)) or not 1 <= n < 2**self._WORD_BITS:
            raise ValueError(f"n must be an integer in [1, 2**32), got {n!r}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size!r}")
        return int(n), int(size)

    def choice_indices(self, n: int, size: int, dtype=np.int64) -> np.ndarray:
        """``size`` successive ``_randbelow(n)`` values: the indices ``size`` calls of
        ``random.choice`` over ``n`` items pick."""
        n, size = self._checked(n, size)
        out = np.empty(size, dtype=np.uint32)
        shift = np.uint32(self._WORD_BITS - n.bit_length())
        accept_rate = n / 2 ** n.bit_length()  # > 1/2
        done = 0
        while done < size:
            need = size - done
            words = self._words(
                min(int(need / accept_rate * 1.02) + 64, _WORDS)
            )  # bounded: memory stays flat
            values = words >> shift
            picked = np.flatnonzero(values < n)[:need]
            np.take(
                values, picked, out=out[done : done + picked.size], mode="wrap"
            )  # (in range: no checks)
            done += picked.size
            # consumed: the whole block, or up to the word that completes the request
            self._used += int(picked[-1]) + 1 if done == size else words.size
        return out.astype(dtype, copy=False)

    def choice_counts(self, n: int, rows: int) -> np.ndarray:
        """``(rows, n)`` float32 multiplicities: row ``r`` counts the ``n`` values of resample
        ``r``, the resamples drawn one after the other (:func:`count_rows` of ``choice_indices(n,
        rows * n)``)."""
        n, rows = self._checked(n, rows)
        return count_rows(self.choice_indices(n, rows * n, np.uint32).reshape(rows, n), n)


def harness_resample_indices(
    frame_sizes: Sequence[int], n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[np.ndarray]:
    """Resamples of ``bootstrap_mcs.py``: one shared ``random`` stream over several frames.

    For each frame size ``n`` in order (one model's case list), a ``(n_resamples, n)`` array whose
    row ``b`` holds the positions ``random.choice`` picks for resample ``b``; the stream continues
    from frame to frame. An empty frame (the script skips a model without cases) draws nothing.
    """
    _check_positive(n_resamples, "n_resamples")
    stream = CPythonRandomStream(seed)
    out = []
    for n in frame_sizes:
        if n == 0:
            out.append(np.zeros((n_resamples, 0), dtype=np.int64))
        else:
            out.append(stream.choice_indices(n, n_resamples * n).reshape(n_resamples, n))
    return out


def harness_resample_counts(
    frame_sizes: Sequence[int], n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED
) -> Iterator[tuple[int, int, np.ndarray]]:
    """The resamples of :func:`harness_resample_indices` as multiplicities, a block of resamples at
    a time.

    Yields ``(frame, first resample, counts)`` with float32 ``counts`` of shape ``(b, frame size)``
    (:func:`count_rows` of those resamples' draws); empty frames yield nothing. The draws are the
    same (one stream, frame after frame), never all held at once.
    """
    _check_positive(n_resamples, "n_resamples")
    stream = CPythonRandomStream(seed)
    for f, n in enumerate(frame_sizes):
        rows = max(1, _BLOCK // max(n, 1))
        for b0 in range(0, n_resamples if n else 0, rows):
            yield f, b0, stream.choice_counts(n, min(rows, n_resamples - b0))


def harness_resampled_sums(
    per_cluster: Sequence[np.ndarray],
    n_resamples: int = DEFAULT_N_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[np.ndarray]:
    """:func:`resampled_sums` of each frame's per-cluster sums (``(n_f, ...)``, frames in stream
    order) over that frame's :func:`harness_resample_counts` resamples: ``(n_resamples, ...)``
    float64 each (zeros for an empty frame).

    The stream is drawn and counted here while a helper thread multiplies the counts (numpy and
    BLAS release the GIL), at most :data:`_IN_FLIGHT` blocks behind; each block writes its own rows.
    """
    sizes = [int(p.shape[0]) for p in per_cluster]
    out = [np.zeros((n_resamples,) + p.shape[1:]) for p in per_cluster]

    def add(f: int, b0: int, counts: np.ndarray) -> None:
        out[f][b0 : b0 + counts.shape[0]] = resampled_sums(per_cluster[f], counts)

    with one_blas_thread(), ThreadPoolExecutor(1) as helper:
        pending: deque = deque()
        for block in harness_resample_counts(sizes, n_resamples, seed):
            pending.append(helper.submit(add, *block))
            if len(pending) > _IN_FLIGHT:
                pending.popleft().result()
        for done in pending:
            done.result()
    return out


_IN_FLIGHT = 4  # blocks of draws waiting for the helper thread (2**17 indices each)


def cluster_sums(values: np.ndarray, cluster: np.ndarray, n_clusters: int) -> np.ndarray:
    """Sum the rows of ``values`` (shape ``(n, ...)``) per cluster id -> ``(n_clusters, ...)``: the
    per-case sums the clustered bootstrap of Appendix M resamples. Rows with cluster ``-1`` are
    ignored."""
    values = np.asarray(values, dtype=np.float64)
    keep = cluster >= 0
    tail = values.shape[1:]
    flat = values[keep].reshape(int(keep.sum()), -1)
    m = flat.shape[1]
    idx = (cluster[keep].astype(np.int64)[:, None] * m + np.arange(m)).ravel()
    out = np.bincount(idx, weights=flat.ravel(), minlength=n_clusters * m)
    return out.reshape((n_clusters,) + tail)


def one_blas_thread() -> contextlib.AbstractContextManager:
    """Context limiting BLAS to one thread while it is open (no-op without threadpoolctl).

    The products here are small (about 1 GFLOP for 500 resamples x 3,000 cases x 18 models). A
    multi-threaded OpenBLAS spins waiting for cores other processes hold: 3-8x slower on a loaded
    2-CPU machine.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # optional: only speed depends on it
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()  # finding the libraries costs ms: once per process
    if _CONTROLLER is False:
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")


_CONTROLLER = None  # threadpoolctl's view of the loaded BLAS libraries (False: not installed)


def resampled_sums(per_cluster: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``counts @ per_cluster`` for ``per_cluster`` of shape ``(C, ...)`` -> ``(B, ...)`` float64,
    computed in float32 (exact while every sum stays below 2**24, i.e. always for counts of
    probes)."""
    c = per_cluster.shape[0]
    if counts.shape[1] != c:
        raise ValueError(f"counts has {counts.shape[1]} clusters, per_cluster has {c}")
    flat = np.ascontiguousarray(per_cluster.reshape(c, -1), dtype=np.float32)
    with one_blas_thread():
        out = counts.astype(np.float32, copy=False) @ flat
    return out.astype(np.float64).reshape((counts.shape[0],) + per_cluster.shape[1:])


def cluster_bootstrap(
    statistic: Callable[[np.ndarray], T],
    per_cluster: np.ndarray,
    *,
    n_resamples: int = DEFAULT_N_RESAMPLES,
    seed: int = DEFAULT_SEED,
    counts: np.ndarray | None = None,
) -> T:
    """``statistic(counts @ per_cluster)``: a statistic of per-cluster sums (:func:`cluster_sums`)
    on every case-clustered resample at once.

    ``statistic`` maps resampled sums ``(B, ...)`` to arrays with leading axis ``B`` (or a dict of
    them); ratios of sums are recomputed per resample, not averaged. ``counts`` (a
    :func:`resample_counts` matrix) reuses the same resamples for several statistics.
    """
    if counts is None:
        counts = resample_counts(per_cluster.shape[0], n_resamples, seed)
    return statistic(resampled_sums(per_cluster, counts))
