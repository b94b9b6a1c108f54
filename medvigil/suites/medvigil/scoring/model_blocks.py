"""The per-model blocks of an audit result: metrics, accuracies, tier SFRs and NaN reasons of one
group of cases (:func:`model_block`), the counts behind them, their bootstrap intervals, and the
strata (Appendix D.3)."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.scoring.bootstrap import one_blas_thread
from medvigil.suites.medvigil.release.release_format import TIERS
from medvigil.suites.medvigil.scoring.axes import METRIC_KEYS
from medvigil.suites.medvigil.scoring.case_features import (
    STRATA_AXES,
    UNKNOWN_LEVEL,
    Features,
    Layout,
)
from medvigil.suites.medvigil.scoring.metric_sums import metrics_from_sums, ratio, reasons

__all__ = ["as_lists", "ci_block", "headline_blocks", "model_block", "model_strata"]


def as_lists(point: Mapping[str, Any]) -> dict[str, Any]:
    """The arrays of ``metrics_from_sums`` that blocks report, as nested lists of plain floats."""
    return {
        "metrics": {k: point["metrics"][k].tolist() for k in METRIC_KEYS},
        "accuracy": {k: v.tolist() for k, v in point["accuracy"].items()},
        "sfr_by_tier": point["sfr_by_tier"].tolist(),
    }


def model_block(
    point: Mapping[str, Any],
    idx: tuple,
    s: Sequence[float],
    lay: Layout,
    normalise: str,
    harness: bool = False,
) -> dict[str, Any]:
    """Metrics, accuracies, tier SFRs and NaN reasons of one group: ``point`` at ``idx``, ``s`` its
    summed features."""

    def at(x):
        for i in idx:
            x = x[i]
        return x

    metrics = {k: at(point["metrics"][k]) for k in METRIC_KEYS}
    return {
        "metrics": metrics,
        "accuracy": {k: at(v) for k, v in point["accuracy"].items()},
        "sfr_by_tier": dict(zip(TIERS, at(point["sfr_by_tier"]))),
        "reasons": reasons(s, lay, metrics, normalise, harness),
    }


def headline_blocks(
    feats: Features, headline: Mapping[str, Any], models: Sequence[int], normalise: str
) -> list[dict[str, Any]]:
    """The block of each model code in ``models`` over all its cases, with its counts."""
    lay = feats.layout
    n_cases = feats.has_case.sum(axis=0)
    point, totals = as_lists(headline), feats.totals.tolist()
    blocks = []
    for m in models:
        block = model_block(point, (m,), totals[m], lay, normalise, feats.harness)
        block.update(counts=_counts_block(totals[m], lay, feats, m), n_cases=int(n_cases[m]))
        blocks.append(block)
    return blocks


def ci_block(
    intervals: Mapping[str, tuple], m: int, level: float, n_resamples: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Model ``m``'s interval of each metric of ``intervals`` (``{metric: (low, high)}`` arrays)."""
    return {
        k: {
            "low": float(lo[m]),
            "high": float(hi[m]),
            "level": float(level),
            "n_resamples": int(n_resamples),
            "seed": int(seed),
        }
        for k, (lo, hi) in intervals.items()
    }


def _counts_block(s: Sequence[float], lay: Layout, feats: Features, j: int) -> dict[str, Any]:
    by_kind = {
        kind: {
            "n_records": int(s[lay.records(i)]),
            "n_scored": int(s[lay.scored(i)]),
            "n_correct": int(s[lay.correct(i)]),
            "n_parse_failure": int(s[lay.parse_failures(i)]),
            "n_error": int(s[lay.errors(i)]),
        }
        for i, kind in enumerate(lay.kinds)
    }
    return {
        **{
            key: sum(v[key] for v in by_kind.values())
            for key in ("n_records", "n_scored", "n_parse_failure", "n_error")
        },
        "by_kind": by_kind,
        "traps_by_tier": {
            t: {"n_scored": int(s[lay.trap_n + i]), "n_silent": int(s[lay.trap_silent + i])}
            for i, t in enumerate(TIERS)
        },
        "traps_without_tier": int(feats.traps_without_tier[j]),
        "pcons_pairs": int(s[lay.pcons_n]),
        "triplets_complete": int(s[lay.tri_n]),
        "triplets_incomplete": int(feats.incomplete_triplets[j]),
    }


def _strata_levels(feats: Features) -> tuple[list[tuple[str, list[str]]], np.ndarray]:
    """Per strata axis its levels (``unknown`` last when a case has none), and the one-hot
    ``(levels, C)`` matrix."""
    c_n = feats.tensor.shape[0]
    axes, rows, start = [], [], 0
    for axis in STRATA_AXES:
        cat = feats.case_attrs[axis]
        levels = list(cat.levels)
        codes = cat.codes.astype(np.int64)
        if (codes < 0).any():
            codes = np.where(codes < 0, len(levels), codes)
            levels.append(UNKNOWN_LEVEL)
        axes.append((axis, levels))
        rows.append(start + codes)
        start += len(levels)
    onehot = np.zeros((start, c_n))
    for codes in rows:
        onehot[codes, np.arange(c_n)] = 1.0
    return axes, onehot


def model_strata(feats: Features, weights: np.ndarray, normalise: str) -> list[dict[str, Any]]:
    """Per model: ``{axis: {level: block}}`` plus the probe-kind stratum."""
    lay = feats.layout
    c_n, m_n, f_n = feats.tensor.shape
    axes, onehot = _strata_levels(feats)
    with (
        one_blas_thread()
    ):  # every axis in one product: the tensor is read once (sums of counts: exact)
        all_sums = (onehot @ feats.tensor.reshape(c_n, m_n * f_n)).reshape(len(onehot), m_n, f_n)
        all_cases = (onehot @ feats.has_case.astype(np.float64)).tolist()  # (levels, M)
    out: list[dict[str, Any]] = [{} for _ in range(m_n)]
    start = 0
    for axis, levels in axes:
        sums = all_sums[start : start + len(levels)]
        n_cases = all_cases[start : start + len(levels)]
        start += len(levels)
        # within one tier SFR_w is that tier's SFR only with "present" (Table 10's per-tier rows)
        norm = "present" if axis == "risk_tier" else normalise
        point = as_lists(
            metrics_from_sums(sums, lay, weights, norm, "aggregate" if feats.harness else None)
        )
        rows = sums.tolist()
        n_scored = sums[:, :, lay.scored(0) : lay.scored(0) + lay.k].sum(-1).tolist()
        for m in range(m_n):
            block = {}
            for li, level in enumerate(levels):
                if n_cases[li][m] == 0:
                    continue
                block[level] = model_block(point, (li, m), rows[li][m], lay, norm, feats.harness)
                block[level].update(n_cases=int(n_cases[li][m]), n_scored=int(n_scored[li][m]))
            out[m][axis] = block
    scored = feats.totals[:, [lay.scored(i) for i in range(lay.k)]]  # (M, k)
    correct = feats.totals[:, [lay.correct(i) for i in range(lay.k)]]
    acc, scored, correct = ratio(correct, scored).tolist(), scored.tolist(), correct.tolist()
    for m in range(m_n):
        out[m]["probe_kind"] = {
            kind: {
                "accuracy": acc[m][i],
                "n_scored": int(scored[m][i]),
                "n_correct": int(correct[m][i]),
            }
            for i, kind in enumerate(lay.kinds)
        }
    return out
