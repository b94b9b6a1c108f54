"""Paired model comparisons on the same cases: bootstrap deltas, intervals, p-values, Holm.

Every pair of models is compared on the *same* case-clustered resamples (Appendix M), so each
resampled delta ``metric*(b) - metric*(a)`` keeps the correlation between the two models' answers:
the paired bootstrap of Efron & Tibshirani (1993, *An Introduction to the Bootstrap*, ch. 6 and 16).
For every pair ``(a, b)`` and metric:

* ``delta``: ``metric(b) - metric(a)`` on the probes both models answered;
* ``ci95``: the 2.5 and 97.5 percentiles (numpy's linear interpolation) of the resampled deltas,
  resamples where either value is undefined left out;
* ``p``: two-sided p-value of "delta = 0", by one of :data:`P_VALUE_METHODS`:

  - ``"normal"`` (default): ``p = erfc(|delta| / (se* sqrt 2))`` = ``2 Phi(-|delta / se*|)``,
    ``se*`` the standard deviation (``ddof=1``) of the finite resampled deltas (Efron & Tibshirani
    ch. 6, a two-sided Wald test, ch. 16). It resolves the small p-values Holm's adjustment over
    hundreds of comparisons needs. ``se* = 0`` gives ``p = 1`` when ``delta = 0`` (identical
    models), else 0;
  - ``"percentile"``: ``p = min(1, 2 (min(#{d* <= 0}, #{d* >= 0}) + 1) / (B' + 1))`` over the ``B'``
    finite deltas (Davison & Hinkley 1997, §4.4): no normal approximation, but never below
    ``2 / (B' + 1)``, so with ``m`` comparisons no Holm-adjusted p falls below 0.05 unless
    ``B' + 1 > 40 m`` (:func:`percentile_floor_note`);
* ``p_holm``: Holm's (1979) step-down adjustment over all pairs x metrics of one comparison
  (:func:`holm`).
"""

import math
from collections.abc import Callable, Hashable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from medvigil.errors import DataError, Problem
from medvigil.scoring.bootstrap import count_rows, resample_indices, resampled_sums
from medvigil.scoring.stats import bootstrap_p_value, percentile_interval

__all__ = [
    "DEFAULT_COMPARE_RESAMPLES",
    "MAX_COMPARED_MODELS",
    "MAX_RESAMPLED_VALUES",
    "P_VALUE_METHODS",
    "PairedScores",
    "UnitSums",
    "compare_units",
    "holm",
    "pair_rows",
    "paired_p_value",
    "percentile_floor_note",
    "with_holm",
]

DEFAULT_COMPARE_RESAMPLES = 1000  # percentile tails of a 95% interval rest on 25 resamples each
P_VALUE_METHODS = ("normal", "percentile")
# models one comparison takes (4,950 pairs; the report draws at most 100 models): 1,000 models grew
# to 5.6 GB before a MemoryError
MAX_COMPARED_MODELS = 100
# resampled values held at once (resamples x models x metrics, float64: 2 GiB), as
# bootstrap.MAX_DRAWS
MAX_RESAMPLED_VALUES = 1 << 28


def paired_p_value(deltas: np.ndarray, delta: np.ndarray, method: str = "normal") -> np.ndarray:
    """Two-sided p-values of "delta = 0" for ``(B, P)`` resampled ``deltas`` and ``(P,)`` point
    ``delta`` (module docstring: ``"normal"`` or ``"percentile"``). NaN when fewer than two
    resampled deltas (``"normal"``) or none (``"percentile"``) are finite, or the point delta is
    undefined."""
    if method not in P_VALUE_METHODS:
        raise ValueError(f"p-value method must be one of {P_VALUE_METHODS}, got {method!r}")
    deltas = np.asarray(deltas, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    if method == "percentile":
        return np.where(np.isfinite(delta), bootstrap_p_value(deltas), np.nan)
    finite = np.isfinite(deltas)
    n = finite.sum(axis=0)
    mean = np.where(finite, deltas, 0.0).sum(axis=0) / np.maximum(n, 1)
    var = np.where(finite, (deltas - mean) ** 2, 0.0).sum(axis=0) / np.maximum(n - 1, 1)
    se = np.sqrt(var)
    p = np.full(delta.shape, np.nan)
    for i in np.flatnonzero((n >= 2) & np.isfinite(delta)).tolist():
        if se[i] > 0:
            p[i] = math.erfc(abs(delta[i]) / (se[i] * math.sqrt(2.0)))
        else:
            p[i] = 1.0 if delta[i] == 0 else 0.0
    return p


def percentile_floor_note(n_resamples: int, n_comparisons: int, alpha: float = 0.05) -> str | None:
    """A note when percentile p-values (never below ``2 / (B + 1)``) cannot reach Holm-adjusted
    ``alpha``."""
    floor = 2.0 / (n_resamples + 1)
    if n_comparisons * floor < alpha:
        return None
    need = math.ceil(2 * n_comparisons / alpha)
    return (
        f"percentile p-values are at least 2/(B+1) = {floor:.2g} with B = {n_resamples} "
        f"resamples, so none of the {n_comparisons} comparisons can reach a Holm-adjusted "
        f"p below {alpha:g}; use at least {need} resamples or the normal p-values"
    )


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm (1979) adjusted p-values, in the input order.

    With the ``m`` finite p-values sorted ``p_(1) <= ... <= p_(m)``,
    ``p_holm_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``. A NaN p-value (a comparison with no
    finite resample) is not one of the ``m`` hypotheses and stays NaN.

    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be 1-d, got shape {p.shape}")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.size
    order = finite[np.argsort(p[finite], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled) if m else scaled
    return out


def pair_rows(
    names: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    metric: str,
    point: np.ndarray,
    boot: np.ndarray,
    *,
    p_value: str = "normal",
) -> list[dict[str, Any]]:
    """One row per pair ``(a, b)`` of model indices: ``{"a", "b", "metric", "delta", "ci95", "p"}``
    (undefined: None).

    ``point`` is ``(M,)`` (each model's value), ``boot`` ``(B, M)`` (the models' values on the same
    ``B`` resamples); ``ci95`` and ``p`` come from the paired deltas ``boot[:, b] - boot[:, a]``.
    """
    point = np.asarray(point, dtype=np.float64)
    boot = np.asarray(boot, dtype=np.float64)
    if boot.ndim != 2 or point.shape != boot.shape[1:]:
        raise ValueError(f"boot must be (B, M) and point (M,), got {boot.shape} and {point.shape}")
    if not pairs:
        return []
    ia = np.array([a for a, _ in pairs], dtype=np.int64)
    ib = np.array([b for _, b in pairs], dtype=np.int64)
    deltas = boot[:, ib] - boot[:, ia]  # (B, pairs)
    lo, hi = percentile_interval(deltas)
    delta = point[ib] - point[ia]
    p = paired_p_value(deltas, delta, p_value)
    return [
        {
            "a": names[a],
            "b": names[b],
            "metric": metric,
            "delta": _value(delta[i]),
            "ci95": [_value(lo[i]), _value(hi[i])],
            "p": _value(p[i]),
        }
        for i, (a, b) in enumerate(pairs)
    ]


def with_holm(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``p_holm`` set: :func:`holm` over every row's ``p`` (all pairs x metrics)."""
    adjusted = holm([np.nan if r["p"] is None else r["p"] for r in rows])
    for row, value in zip(rows, adjusted.tolist()):
        row["p_holm"] = _value(value)
    return rows


def _value(x: float) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


class PairedScores(Protocol):
    """One model's metrics on the records it is compared on, for :func:`compare_units`."""

    units: Sequence[str]  # the units (cases, items) its records belong to

    def point(self) -> Mapping[str, float]:
        """Each metric on all its records."""

    def resampled(
        self, at: np.ndarray, draws: np.ndarray, counts: np.ndarray
    ) -> Mapping[str, np.ndarray]:
        """Each metric on ``B`` resamples of the group's units: ``draws`` ``(B, U)`` unit indices,
        ``counts`` their ``(B, U)`` multiplicities, ``at[u]`` this model's position of unit ``u``
        in :attr:`units` (-1: it has none). Returns ``{metric: (B,)}``."""


@dataclass(frozen=True)
class UnitSums:
    """:class:`PairedScores` from per-unit sums: ``statistic`` maps sums ``(..., F)`` to ``{metric:
    (...)}`` (ratios of sums, so a resample is scored like the whole), evaluated on ``counts @
    sums``; ``point_statistic`` (default ``statistic``) on the total, where the point rules
    differ."""

    units: Sequence[str]
    sums: np.ndarray  # (units, F)
    statistic: Callable[[np.ndarray], Mapping[str, np.ndarray]]
    point_statistic: Callable[[np.ndarray], Mapping[str, np.ndarray]] | None = None

    def point(self) -> Mapping[str, float]:
        values = (self.point_statistic or self.statistic)(self.sums.sum(axis=0))
        return {k: float(v) for k, v in values.items()}

    def resampled(
        self, at: np.ndarray, draws: np.ndarray, counts: np.ndarray
    ) -> Mapping[str, np.ndarray]:
        aligned = np.zeros((at.size, self.sums.shape[1]))
        aligned[at >= 0] = self.sums[at[at >= 0]]
        return self.statistic(resampled_sums(aligned, counts))


def _check_size(n_models: int, n_resamples: int, n_metrics: int) -> None:
    """A comparison within :data:`MAX_COMPARED_MODELS` and :data:`MAX_RESAMPLED_VALUES`, else a
    DataError."""
    if n_models > MAX_COMPARED_MODELS:
        raise DataError(
            Problem(
                "models",
                f"{n_models:,} models to compare; one comparison takes at most "
                f"{MAX_COMPARED_MODELS} ({MAX_COMPARED_MODELS * (MAX_COMPARED_MODELS - 1) // 2:,} "
                "pairs): compare fewer files at once",
                field="model",
            )
        )
    values = n_resamples * n_models * n_metrics
    if values > MAX_RESAMPLED_VALUES:
        raise DataError(
            Problem(
                "bootstrap",
                f"{n_resamples:,} resamples x {n_models} models x {n_metrics} metrics are "
                f"{values:,} resampled values, more than the {MAX_RESAMPLED_VALUES:,} held in "
                "memory at once; use fewer resamples, models or metrics",
                field="--resamples",
            )
        )


def _pairs_by_shared_keys(
    names: Sequence[str], keys: Mapping[str, Set[Hashable]]
) -> tuple[list[tuple[str, str]], dict[frozenset, list[tuple[str, str]]]]:
    """Every pair of ``names`` in order, and the pairs grouped by the keys both models have; a pair
    sharing no key is a DataError (nothing to compare them on), not a row of blanks."""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    groups: dict[frozenset, list] = {}
    for a, b in pairs:
        groups.setdefault(frozenset(keys[a] & keys[b]), []).append((a, b))
    disjoint = groups.get(frozenset(), [])
    if disjoint:
        raise DataError(
            [
                Problem(
                    "models",
                    f"{a!r} and {b!r} share no probe, so there is nothing to compare them on; "
                    "compare runs of the same cases (or leave one of them out)",
                    field="model",
                )
                for a, b in disjoint
            ]
        )
    return pairs, groups


def _group_rows(
    shared: frozenset,
    group: list[tuple[str, str]],
    keys: Mapping[str, Set[Hashable]],
    scores_on: Callable[[str, Set[Hashable] | None], PairedScores],
    metrics: Sequence[str],
    n_resamples: int,
    seed: int,
    p_value: str,
) -> dict[tuple, dict]:
    """The rows of the pairs in ``group`` (they share the keys ``shared``), keyed by
    ``(metric, pair)``: one resample of their units serves every pair, so each delta is paired."""
    members = sorted({m for pair in group for m in pair})
    local = {m: i for i, m in enumerate(members)}
    scores = [scores_on(m, None if keys[m] == shared else shared) for m in members]
    units = sorted({u for s in scores for u in s.units})
    draws = resample_indices(len(units), n_resamples, seed)
    multiplicities = count_rows(draws, len(units))
    at_unit = {u: i for i, u in enumerate(units)}
    point: dict[str, np.ndarray] = {}
    boot: dict[str, np.ndarray] = {}
    for j, s in enumerate(scores):
        at = np.full(len(units), -1, dtype=np.int64)
        at[[at_unit[u] for u in s.units]] = np.arange(len(s.units))
        values, resampled = s.point(), s.resampled(at, draws, multiplicities)
        for metric in metrics:
            point.setdefault(metric, np.full(len(members), np.nan))[j] = values[metric]
            boot.setdefault(metric, np.full((n_resamples, len(members)), np.nan))[:, j] = resampled[
                metric
            ]
    counts = {"n_probes": len(shared), "n_cases": len(units)}
    local_pairs = [(local[a], local[b]) for a, b in group]
    found = {}
    for metric in metrics:
        rows = pair_rows(members, local_pairs, metric, point[metric], boot[metric], p_value=p_value)
        for pair, row in zip(group, rows):
            found[metric, pair] = {**row, **counts}
    return found


def compare_units(
    keys: Mapping[str, Set[Hashable]],
    scores_on: Callable[[str, Set[Hashable] | None], PairedScores],
    metrics: Sequence[str],
    *,
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = 0,
    p_value: str = "normal",
) -> dict[str, Any]:
    """Every pair of models compared on the records both have, resampling their units (cases)
    jointly.

    ``keys[model]``: the keys of the model's records (what two models must share to be compared
    on it). ``scores_on(model, shared)``: the model's :class:`PairedScores` on its records whose key
    is in ``shared`` (None: all of them). Pairs with the same shared keys share one resample of
    their units (:func:`resample_indices` of ``seed``; with equal record sets every pair shares
    one), so each resampled delta is paired. Models are taken in name order; the rows are
    :func:`pair_rows`' plus ``n_probes`` (shared records) and ``n_cases`` (their units),
    Holm-adjusted over all of them (:func:`with_holm`).
    """
    if p_value not in P_VALUE_METHODS:
        raise ValueError(f"p_value must be one of {P_VALUE_METHODS}, got {p_value!r}")
    names = sorted(keys)
    if len(names) < 2:
        raise ValueError(f"comparing needs at least two models, got {len(names)}")
    _check_size(len(names), n_resamples, len(metrics))
    pairs, groups = _pairs_by_shared_keys(names, keys)
    found: dict[tuple, dict] = {}
    for shared, group in groups.items():
        found.update(
            _group_rows(shared, group, keys, scores_on, metrics, n_resamples, seed, p_value)
        )
    rows = with_holm([found[metric, pair] for metric in metrics for pair in pairs])
    note = percentile_floor_note(n_resamples, len(rows)) if p_value == "percentile" else None
    return {
        "params": {
            "metrics": list(metrics),
            "n_resamples": int(n_resamples),
            "seed": int(seed),
            "p_value": p_value,
            "ci_level": 0.95,
            "ci_method": "percentile",
        },
        "models": {m: {"n_probes": len(keys[m])} for m in names},
        "pairs": rows,
        "warnings": [note] if note else [],
    }
