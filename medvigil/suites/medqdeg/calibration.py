"""MedQ-Deg Calibration Shift and the Dunning-Kruger effect flags (Liu et al., seed 002, Section
3.4).

* Eq. (4) Calibration Shift ``Delta_calib(f, D) = (1/|D|) sum_x C(x) - Acc(f, D)``;
  positive = overconfident.
* Eq. (5) intra-model Dunning-Kruger effect:
  ``Acc(f, D_L0) > Acc(f, D_L2)  and  Delta_calib(f, D_L0) <= Delta_calib(f, D_L2)``.
* Eq. (6) inter-model Dunning-Kruger effect for models ``f1, f2`` on ``D``:
  ``Acc(f1, D) < Acc(f2, D)  and  Delta_calib(f1, D) > Delta_calib(f2, D)``.
* **Inter-model DKE** is a trend over many models (the paper is silent on how to summarise it):
  :func:`inter_model_dke_summary` reports every ordered pair satisfying Eq. (6), their share
  among pairs with different accuracy, and Spearman's rho between accuracy and Delta_calib
  (negative = lower-accuracy models are more overconfident).
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["calibration_shift", "inter_model_dke", "inter_model_dke_summary", "intra_model_dke"]


def calibration_shift(confidence: Any, accuracy: Any) -> float:
    """Eq. (4): mean confidence minus accuracy (both per sample, averaged over D)."""
    conf = np.asarray(confidence, dtype=np.float64)
    acc = np.asarray(accuracy, dtype=np.float64)
    if conf.shape != acc.shape or conf.ndim != 1:
        raise ValueError("confidence and accuracy must be 1-D arrays of the same length")
    if conf.size == 0:
        return float("nan")
    return float(conf.mean() - acc.mean())


def intra_model_dke(acc_l0: Any, acc_l2: Any, shift_l0: Any, shift_l2: Any) -> Any:
    """Eq. (5): ``Acc_L0 > Acc_L2 and Delta_L0 <= Delta_L2`` (elementwise for arrays)."""
    out = (np.asarray(acc_l0) > np.asarray(acc_l2)) & (np.asarray(shift_l0) <= np.asarray(shift_l2))
    return bool(out) if np.ndim(out) == 0 else out


def inter_model_dke(acc1: Any, shift1: Any, acc2: Any, shift2: Any) -> Any:
    """Eq. (6): ``Acc(f1) < Acc(f2) and Delta(f1) > Delta(f2)`` (elementwise for arrays)."""
    out = (np.asarray(acc1) < np.asarray(acc2)) & (np.asarray(shift1) > np.asarray(shift2))
    return bool(out) if np.ndim(out) == 0 else out


def inter_model_dke_summary(
    accuracy: Mapping[str, float], shift: Mapping[str, float]
) -> dict[str, Any]:
    """Eq. (6) over every ordered pair of models on one dataset: the pairs ``[f1, f2]`` satisfying
    it (``f1`` the less accurate), their share among pairs whose accuracies differ, and Spearman's
    rho (and p-value) between accuracy and Delta_calib across models (``None`` with fewer than 3
    models)."""
    if set(accuracy) != set(shift):
        raise ValueError("accuracy and shift must name the same models")
    names = list(accuracy)
    acc = np.array([accuracy[m] for m in names], dtype=np.float64)
    dc = np.array([shift[m] for m in names], dtype=np.float64)
    flags = inter_model_dke(acc[:, None], dc[:, None], acc[None, :], dc[None, :])
    compared = int(np.sum(acc[:, None] < acc[None, :]))
    pairs = [[names[i], names[j]] for i, j in zip(*np.nonzero(flags))]
    rho = p_value = None
    if len(names) >= 3 and np.ptp(acc) > 0 and np.ptp(dc) > 0:
        from medvigil.scoring.stats import (
            spearman_test,
        )  # scipy's spearmanr without importing scipy

        rho, p_value = spearman_test(acc, dc)
    return {
        "pairs": pairs,
        "n_pairs": len(pairs),
        "n_pairs_compared": compared,
        "fraction": len(pairs) / compared if compared else None,
        "spearman_rho": rho,
        "spearman_p": p_value,
    }
