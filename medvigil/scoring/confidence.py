"""Selective prediction and calibration of confidence scores: the kernels of the ``selective_risk``
and ``calibration_error`` evaluate modules, usable on any suite's records.

Both take, per answer, a confidence in [0, 1] and whether the answer was correct, in double
precision, and return plain Python floats and lists.

* Risk-coverage (Geifman & El-Yaniv, 2017, "Selective Classification for Deep Neural Networks";
  AURC and e-AURC as in Geifman, Uziel & El-Yaniv, 2019, "Bias-Reduced Uncertainty Estimation for
  Deep Neural Classifiers", ICLR): answers ordered by confidence, highest first (ties keep the
  input order: a stable sort); risk@k = errors among the first k / k, coverage@k = k / N; AURC =
  mean of risk@k over k = 1..N; e-AURC = AURC minus the AURC of the oracle order (every correct
  answer first), computed on the same discrete grid.
* Calibration (ECE: Naeini, Cooper & Hauskrecht, 2015, AAAI; as written by Guo et al., 2017, "On
  Calibration of Modern Neural Networks", Sec. 2; MCE: Naeini et al. 2015; Brier, 1950, Monthly
  Weather Review 78(1)): ``n_bins`` equal-width bins on [0, 1], right-closed, bin b holding
  confidences in (b/n, (b+1)/n] with 0 in the first; ECE = sum_b (n_b / N) |acc_b - conf_b|; MCE =
  max_b |acc_b - conf_b| over non-empty bins; Brier = mean (conf - correct)^2.
"""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def _inputs(confidences: Sequence[Any], correct: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """``confidences`` and ``correct`` as float64 arrays; bad input is a ValueError naming it."""
    conf, hits = list(confidences), list(correct)
    if len(conf) != len(hits):
        raise ValueError(f"confidences and correct differ in length ({len(conf)} vs {len(hits)})")
    if not conf:
        raise ValueError("confidences and correct are empty: nothing to score")
    values = []
    for i, c in enumerate(conf):
        if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)):
            raise ValueError(f"confidences[{i}] must be a number, got {c!r}")
        if math.isnan(c):
            raise ValueError(f"confidences[{i}] is NaN")
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"confidences[{i}] = {c!r} is outside [0, 1]")
        values.append(float(c))
    flags = []
    for i, h in enumerate(hits):
        if h is None or isinstance(h, str) or h not in (0, 1):
            raise ValueError(f"correct[{i}] must be true/false or 1/0, got {h!r}")
        flags.append(float(h))
    return np.asarray(values, dtype=np.float64), np.asarray(flags, dtype=np.float64)


def _risks(errors_in_order: np.ndarray) -> np.ndarray:
    """risk@k for k = 1..N of errors (1.0 = wrong) already in the order answers are kept."""
    return np.cumsum(errors_in_order) / np.arange(1, errors_in_order.size + 1)


def selective_risk(confidences: Sequence[Any], correct: Sequence[Any]) -> dict[str, Any]:
    """Risk-coverage curve, AURC and e-AURC (module docstring).

    >>> r = selective_risk([0.9, 0.8, 0.7], [1, 0, 1])
    >>> r["risk"], round(r["aurc"], 4), round(r["e_aurc"], 4)
    ([0.0, 0.5, 0.3333333333333333], 0.2778, 0.1667)
    """
    conf, hits = _inputs(confidences, correct)
    order = np.argsort(-conf, kind="stable")
    risk = _risks(1.0 - hits[order])
    oracle = _risks(1.0 - np.sort(hits)[::-1])
    aurc = float(risk.mean())
    n = conf.size
    return {
        "aurc": aurc,
        "e_aurc": aurc - float(oracle.mean()),
        "coverage": [k / n for k in range(1, n + 1)],
        "risk": [float(x) for x in risk],
    }


def bin_index(confidences: np.ndarray, n_bins: int) -> np.ndarray:
    """The right-closed bin of each confidence: b with b/n < c <= (b+1)/n, 0 in bin 0 (edges
    b/n)."""
    edges = np.arange(n_bins + 1, dtype=np.float64) / n_bins
    return np.clip(np.searchsorted(edges, confidences, side="left") - 1, 0, n_bins - 1)


def calibration_error(
    confidences: Sequence[Any], correct: Sequence[Any], n_bins: int = 10
) -> dict[str, Any]:
    """ECE, MCE and Brier score (module docstring), with the per-bin table of a reliability diagram.

    >>> r = calibration_error([0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0], n_bins=10)
    >>> round(r["ece"], 4), round(r["mce"], 4), round(r["brier"], 4)
    (0.3, 0.4, 0.225)
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)):
        raise ValueError(f"n_bins must be a whole number >= 1, got {n_bins!r}")
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    conf, hits = _inputs(confidences, correct)
    b = bin_index(conf, int(n_bins))
    count = np.bincount(b, minlength=n_bins).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.bincount(b, weights=hits, minlength=n_bins) / count
        mean_conf = np.bincount(b, weights=conf, minlength=n_bins) / count
    gap = np.abs(acc - mean_conf)
    filled = count > 0
    return {
        "ece": float(np.sum(count[filled] / conf.size * gap[filled])),
        "mce": float(gap[filled].max()),
        "brier": float(np.mean((conf - hits) ** 2)),
        "bins": {
            "count": [int(x) for x in count],
            "accuracy": [float(x) if f else None for x, f in zip(acc, filled)],
            "confidence": [float(x) if f else None for x, f in zip(mean_conf, filled)],
        },
    }


def confidence_summary(
    confidences: Sequence[Any], correct: Sequence[Any], n_bins: int = 10
) -> dict[str, Any]:
    """What a suite's score output carries: N, AURC, e-AURC, ECE, MCE, Brier and the reliability
    bins (``n_bins`` wide) of one model's answers; the risk-coverage curve is left out (N long)."""
    selective = selective_risk(confidences, correct)
    calibration = calibration_error(confidences, correct, n_bins)
    return {
        "n": len(selective["risk"]),
        "n_bins": int(n_bins),
        "aurc": selective["aurc"],
        "e_aurc": selective["e_aurc"],
        **calibration,
    }
