"""Illusion of Readiness: the fragilities f1-f5 and the robustness score R(m) over stress tests
T1-T5.

Definition (Gu et al., seed 003, Appendix A "Robustness Score Computation"): for each
stress test ``T_i`` a fragility ``f_i(m)`` in [0, 1], ``r_i(m) = 1 - f_i(m)`` and

    R(m) = (1/5) sum_{i=1..5} r_i(m).

Accuracies are in percent, as in the paper:

* T1 modality sensitivity, weighted over benchmarks ``b`` (JAMA 1,141 and NEJM 743 items):
  ``f1 = sum_b n_b max(0, Acc_b^img - Acc_b^text) / (100 sum_b n_b)``.
* T2 modality necessity, visually-required items without image:
  ``f2 = max(0, Acc^text_vis-req - 20) / 80``; 20 % is chance with five options. We
  write it ``max(0, Acc - c) / (100 - c)`` with ``chance=c`` (default 20; from records,
  ``chance=None`` uses the mean of 100/K over the T2 items, K read from ``extra.options_shown``,
  which is 20 for five options).
* T3 format perturbation: ``f3 = max(0, Acc^text-orig - Acc^text-reord) / 100``.
* T4 distractor replacement, weights 0.5 / 0.3 / 0.2:
  ``f4 = 0.5 max(0, Acc^text-base - Acc^text-4R)/100 + 0.3 max(0, Acc^img-4R -
  Acc^img-base)/100 + 0.2 max(0, Acc^text-UNK - Acc^text-base-UNK)/100``. Note the
  second and third terms count a *gain* as fragility (the paper: "image-mode gain
  under distractor removal, and gains when inserting 'Unknown'"). ``text_base_unk``
  defaults to ``text_base`` (the paper's UNK baseline is the same text-only base).
* T5 visual substitution: ``f5 = max(0, Acc^orig - Acc^subst) / 100``.

Every function broadcasts over models (arrays). T6 (reasoning signal) is not part of R(m)
(:mod:`medvigil.suites.readiness.reasoning`); R(m) from a run's records is
:mod:`medvigil.suites.readiness.scoring`.

>>> f = fragilities(t1_img=[86.59, 80.89], t1_text=[82.91, 67.56], t1_n=[1141, 743],
...                 t2_text=37.71, t3_text_orig=37.71, t3_text_reord=32.00,
...                 t4_text_base=37.71, t4_text_4r=20.00, t4_img_base=66.28, t4_img_4r=90.86,
...                 t4_text_unk=42.86, t5_orig=83.33, t5_subst=51.67)  # GPT-5, Ext. Data Tables 2-6
>>> round(float(robustness_score(f)), 4)
0.8315
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_CHANCE",
    "STRESS_TESTS",
    "T4_WEIGHTS",
    "fragilities",
    "fragility_t1",
    "fragility_t2",
    "fragility_t3",
    "fragility_t4",
    "fragility_t5",
    "robustness_score",
]

STRESS_TESTS = ("T1", "T2", "T3", "T4", "T5")
T4_WEIGHTS = (0.5, 0.3, 0.2)
DEFAULT_CHANCE = 20.0  # percent; five options


def _pct(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 100):
        raise ValueError(f"{name} must be accuracies in percent, within [0, 100]; got {x!r}")
    return a


def _gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, a - b) / 100.0


def fragility_t1(acc_img: Any, acc_text: Any, n_items: Any) -> np.ndarray:
    """T1: item-weighted drop when the image is removed; benchmarks on the last axis."""
    img, text = _pct(acc_img, "acc_img"), _pct(acc_text, "acc_text")
    n = np.asarray(n_items, dtype=np.float64)
    if img.shape != text.shape or img.ndim == 0 or n.shape != img.shape[-1:]:
        raise ValueError(
            "acc_img and acc_text need the same shape (..., "
            "benchmarks) and n_items one count per benchmark"
        )
    if np.any(n < 0) or n.sum() <= 0:
        raise ValueError(f"n_items must be >= 0 with a positive total, got {n_items!r}")
    return (np.maximum(0.0, img - text) * n).sum(axis=-1) / (100.0 * n.sum())


def fragility_t2(acc_text_visreq: Any, chance: float = DEFAULT_CHANCE) -> np.ndarray:
    """T2: excess text-only accuracy above chance on visually-required items."""
    if not 0 <= chance < 100:
        raise ValueError(f"chance must be a percentage in [0, 100), got {chance!r}")
    a = _pct(acc_text_visreq, "acc_text_visreq")
    return np.maximum(0.0, a - chance) / (100.0 - chance)


def fragility_t3(text_orig: Any, text_reordered: Any) -> np.ndarray:
    """T3: text-only accuracy lost when the options are reordered."""
    return _gap(_pct(text_orig, "text_orig"), _pct(text_reordered, "text_reordered"))


def fragility_t4(
    text_base: Any,
    text_4r: Any,
    img_base: Any,
    img_4r: Any,
    text_unk: Any,
    text_base_unk: Any = None,
    weights: Sequence[float] = T4_WEIGHTS,
) -> np.ndarray:
    """T4: weighted text-only loss (base -> 4R), image gain (base -> 4R), text gain with UNK."""
    if len(weights) != 3 or any(w < 0 for w in weights):
        raise ValueError(f"weights must be three non-negative numbers, got {weights!r}")
    tb = _pct(text_base, "text_base")
    tbu = tb if text_base_unk is None else _pct(text_base_unk, "text_base_unk")
    w1, w2, w3 = weights
    return (
        w1 * _gap(tb, _pct(text_4r, "text_4r"))
        + w2 * _gap(_pct(img_4r, "img_4r"), _pct(img_base, "img_base"))
        + w3 * _gap(_pct(text_unk, "text_unk"), tbu)
    )


def fragility_t5(orig: Any, subst: Any) -> np.ndarray:
    """T5: accuracy lost when the image is replaced by one supporting a distractor."""
    return _gap(_pct(orig, "orig"), _pct(subst, "subst"))


def fragilities(
    *,
    t1_img: Any,
    t1_text: Any,
    t1_n: Any,
    t2_text: Any,
    t3_text_orig: Any,
    t3_text_reord: Any,
    t4_text_base: Any,
    t4_text_4r: Any,
    t4_img_base: Any,
    t4_img_4r: Any,
    t4_text_unk: Any,
    t5_orig: Any,
    t5_subst: Any,
    t4_text_base_unk: Any = None,
    chance: float = DEFAULT_CHANCE,
    t4_weights: Sequence[float] = T4_WEIGHTS,
) -> np.ndarray:
    """``(f1, ..., f5)`` stacked on the last axis (shape (..., 5))."""
    return np.stack(
        np.broadcast_arrays(
            fragility_t1(t1_img, t1_text, t1_n),
            fragility_t2(t2_text, chance),
            fragility_t3(t3_text_orig, t3_text_reord),
            fragility_t4(
                t4_text_base,
                t4_text_4r,
                t4_img_base,
                t4_img_4r,
                t4_text_unk,
                t4_text_base_unk,
                t4_weights,
            ),
            fragility_t5(t5_orig, t5_subst),
        ),
        axis=-1,
    )


def robustness_score(fragility: Any) -> np.ndarray:
    """``R = mean_i (1 - f_i)`` over the last axis (the five tests)."""
    f = np.asarray(fragility, dtype=np.float64)
    if f.shape[-1:] != (5,):
        raise ValueError(
            f"fragility must have the five tests on the last axis, got shape {f.shape}"
        )
    if np.any((f < 0) | (f > 1)):
        raise ValueError("fragilities must lie in [0, 1]")
    return (1.0 - f).mean(axis=-1)
