"""Case-clustered bootstrap, vectorised (MedVIGIL Appendix M).

A resample draws ``n_clusters`` cluster ids with replacement. Instead of re-scoring the
records of every resample, each resample is summarised by a count vector
``w[c] = #times cluster c was drawn`` (a multinomial draw): stacking ``B`` of them gives a
``(B, n_clusters)`` matrix ``W``. Any statistic built from per-cluster sums ``X`` (shape
``(n_clusters, ...)``: correct counts, scored counts, ... per case) is then evaluated for
all resamples at once from ``W @ X``. For MedVIGIL (500 resamples, 3,000 cases, 18
models, ~40 sums each) that is one float32 matrix product.

Draws come from ``numpy.random.default_rng(seed)``: ``rng.integers(0, C, size=(B, C))``,
row ``b`` being the case indices of resample ``b`` (:func:`resample_indices`), so a naive
loop over the same indices reproduces every resample exactly (tested).

The API is generic so every suite shares it: :func:`resample_counts` and
:func:`cluster_bootstrap` know nothing about MedVIGIL.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from medvigil.scoring.stats import percentile_interval

__all__ = [
    "DEFAULT_N_RESAMPLES",
    "DEFAULT_SEED",
    "cluster_bootstrap",
    "cluster_sums",
    "one_blas_thread",
    "percentile_interval",
    "resample_counts",
    "resample_indices",
    "resampled_sums",
]

DEFAULT_N_RESAMPLES = 500  # Appendix M
DEFAULT_SEED = 20260505  # Appendix M
T = TypeVar("T")


def _check(n_clusters: int, n_resamples: int) -> None:
    if not isinstance(n_clusters, (int, np.integer)) or n_clusters < 1:
        raise ValueError(f"n_clusters must be a positive integer, got {n_clusters!r}")
    if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")


def resample_indices(n_clusters: int, n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """``(n_resamples, n_clusters)`` cluster indices drawn with replacement (Appendix M: 300 case ids per resample)."""
    _check(n_clusters, n_resamples)
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_clusters, size=(n_resamples, n_clusters), dtype=np.int64)


def resample_counts(
    n_clusters: int, n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = DEFAULT_SEED, dtype=np.float32
) -> np.ndarray:
    """``(n_resamples, n_clusters)`` multiplicities: ``W[b, c]`` = times cluster ``c`` is in resample ``b``.

    The case-clustered resamples of Appendix M as one count matrix.

    Each row sums to ``n_clusters``; the rows are the :func:`resample_indices` draws
    counted with one ``np.bincount``.
    """
    idx = resample_indices(n_clusters, n_resamples, seed)
    flat = (idx + (np.arange(n_resamples, dtype=np.int64) * n_clusters)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_resamples * n_clusters).reshape(n_resamples, n_clusters)
    return counts.astype(dtype, copy=False)


def cluster_sums(values: np.ndarray, cluster: np.ndarray, n_clusters: int) -> np.ndarray:
    """Sum the rows of ``values`` (shape ``(n, ...)``) per cluster id -> ``(n_clusters, ...)``.

    Per-case sums are what the clustered bootstrap of Appendix M resamples.

    Rows with cluster ``-1`` are ignored.
    """
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

    The products here are small (about 1 GFLOP for 500 resamples x 3,000 cases x 18
    models; ~20 ms on one core). A multi-threaded OpenBLAS spins waiting for cores that
    other processes hold, and was measured 3-8x slower on a loaded 2-CPU machine, so
    the scoring core runs its products single-threaded. Previous limits are restored.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only speed depends on it
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def resampled_sums(per_cluster: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``counts @ per_cluster`` for ``per_cluster`` of shape ``(C, ...)`` -> ``(B, ...)``.

    Computed in float32 (exact while every sum stays below 2**24, i.e. always for
    counts of probes) and returned as float64.
    """
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
    """Evaluate ``statistic`` on every case-clustered resample at once.

    Args:
        statistic: maps resampled sums of shape ``(B, ...)`` to the statistic (array
            with leading axis ``B``, or a dict of such arrays). It must be a function of
            sums over clusters only, which covers accuracies, rates and any composite
            of them (ratios of sums are recomputed per resample, not averaged).
        per_cluster: ``(n_clusters, ...)`` per-cluster sums (see :func:`cluster_sums`).
        n_resamples, seed: as in Appendix M (500, 20260505).
        counts: a precomputed :func:`resample_counts` matrix, to reuse the same
            resamples for several statistics (paired comparisons).

    Returns:
        ``statistic(counts @ per_cluster)``.
    """
    if counts is None:
        counts = resample_counts(per_cluster.shape[0], n_resamples, seed)
    return statistic(resampled_sums(per_cluster, counts))
