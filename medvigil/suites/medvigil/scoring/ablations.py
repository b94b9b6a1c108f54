"""Blind-input and visual-decay ablations (MedVIGIL Appendices I, J, K), by record ``condition``
(:mod:`.ablation_conditions`): ``noimg`` (Appendix I, :func:`no_image_gap`); ``blur:<sigma>``, sigma
in {0, 2, ..., 64} (Appendix J, :func:`blur_sweep`, L* :func:`takeover_point`); ``roi_decay:<k>``
(Appendix K, :mod:`.roi_decay`). Counting as :mod:`medvigil.scoring.table`.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.scoring.categorical import group_accuracy
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.scoring.ablation_conditions import (
    NOIMG,
    conditions_of,
    present_models,
)
from medvigil.suites.medvigil.scoring.roi_decay import roi_decay, roi_decay_modal

__all__ = [
    "TAKEOVER_THRESHOLD",
    "blur_sweep",
    "no_image_gap",
    "run_ablations",
    "takeover_point",
]

TAKEOVER_THRESHOLD = 0.2  # L*: residual visual contribution <= 20% of the clean one


def no_image_gap(
    tab: RecordTable,
    *,
    harness_compatible: bool = False,
    vision_condition: str = "default",
    noimg_condition: str = NOIMG,
) -> dict[str, dict[str, float]]:
    """Matched no-image ablation, Appendix I: per model, Acc_orig and Overall with and without the
    image, and ``Δorig = Acc_orig(vision) - Acc_orig(noimg)``."""
    scored = tab.scored_mask(harness_compatible)
    vis = tab.condition.codes == tab.condition.code_of(vision_condition)
    blind = tab.condition.codes == tab.condition.code_of(noimg_condition)
    orig = tab.probe_kind.codes == tab.probe_kind.code_of("original")
    m_n = len(tab.model.levels)
    out = {}
    masks = {
        "orig_vision": vis & orig,
        "orig_noimg": blind & orig,
        "overall_vision": vis,
        "overall_noimg": blind,
    }
    accs = {
        name: group_accuracy(tab.correct, scored & mask, tab.model.codes, m_n)
        for name, mask in masks.items()
    }
    for m in present_models(tab, blind):
        row = {key: float(acc[m]) for key, (acc, _, _) in accs.items()}
        row.update({f"n_{key}": int(n[m]) for key, (_, _, n) in accs.items()})
        row["delta_orig"] = row["orig_vision"] - row["orig_noimg"]
        row["delta_overall"] = row["overall_vision"] - row["overall_noimg"]
        out[tab.model.levels[m]] = row
    return out


def takeover_point(
    sigmas: Sequence[float],
    accuracy: Sequence[float],
    accuracy_noimg: float,
    threshold: float = TAKEOVER_THRESHOLD,
) -> tuple[float | None, str | None]:
    """Language-takeover point L*, Section 6.3 / Appendix J: the first ``sigma > 0`` whose visual
    contribution ``acc(sigma) - acc_noimg`` is at most ``threshold`` (20%) of the clean one (Table
    13's wording; the main text's "drops below" differs only at equality), even if accuracy recovers
    later; NaN points skipped. ``(None, reason)`` without a sigma = 0 point or no-image accuracy, a
    clean contribution <= 0, or no hit.

    >>> takeover_point([0, 2, 4, 8, 16, 32, 64], [59.1, 58.8, 50.3, 46.3, 34.5, 18.6, 14.9], 5.1)
    (64.0, None)
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie in (0, 1), got {threshold!r}")
    pairs = sorted(
        (float(s), float(a)) for s, a in zip(sigmas, accuracy) if not math.isnan(float(a))
    )
    clean = [a for s, a in pairs if s == 0.0]
    if not clean:
        return None, "no accuracy at sigma = 0"
    if math.isnan(accuracy_noimg):
        return None, "no no-image accuracy"
    contribution = clean[0] - accuracy_noimg
    if contribution <= 0:
        return None, "no positive visual contribution at sigma = 0 (acc(0) <= acc(noimg))"
    for s, a in pairs:
        if s > 0 and a - accuracy_noimg <= threshold * contribution:
            return s, None
    largest = pairs[-1][0]
    return (
        None,
        f"residual visual contribution stays above {threshold:.0%} "
        f"of the clean one up to sigma = {largest:g}",
    )


def blur_sweep(
    tab: RecordTable,
    *,
    probe_kinds: Sequence[str] = ("original",),
    harness_compatible: bool = False,
    threshold: float = TAKEOVER_THRESHOLD,
    clean_condition: str = "default",
    noimg_condition: str = NOIMG,
) -> dict[str, dict[str, Any]]:
    """Blur sweep, Appendix J (Table 13): per model, accuracy on ``probe_kinds`` per sigma for all,
    image-required and text-answerable (control) cases, no-image accuracy, ``drop`` and L*
    (image-required curve if flagged, else all). sigma = 0 is ``blur:0``, else ``clean_condition``
    on the sweep's cases."""
    conds = conditions_of(tab, "blur")
    if not conds:
        return {}
    scored = tab.scored_mask(harness_compatible)
    kind_codes = [tab.probe_kind.code_of(k) for k in probe_kinds]
    kinds = np.isin(tab.probe_kind.codes, [c for c in kind_codes if c >= 0])
    m_n = len(tab.model.levels)
    sweep_mask = np.isin(tab.condition.codes, list(conds.values())) & kinds
    masks = _sigma_masks(tab, conds, sweep_mask, clean_condition)
    blind = tab.condition.codes == tab.condition.code_of(noimg_condition)
    subsets = {
        "all": np.ones(len(tab), dtype=bool),
        "image_required": tab.text_only.codes == 0,
        "text_answerable": tab.text_only.codes == 1,
    }

    def accuracies(mask):  # (accuracy, _, n) per model at each sigma, and without the image
        rows = [
            group_accuracy(tab.correct, scored & kinds & mask & cmask, tab.model.codes, m_n)
            for cmask in masks.values()
        ]
        return rows, group_accuracy(
            tab.correct, scored & kinds & mask & blind, tab.model.codes, m_n
        )

    curves = {sub: accuracies(sub_mask) for sub, sub_mask in subsets.items()}
    # Figure 6: per-tier curves of the image-required subset (all when none is flagged)
    tier_curves = {}
    for tier_code, tier in enumerate(tab.risk_tier.levels):
        in_tier = tab.risk_tier.codes == tier_code
        for sub in ("image_required", "all"):
            tier_curves[(sub, tier)] = accuracies(subsets[sub] & in_tier)
    out = {}
    for m in present_models(tab, sweep_mask):
        entry = _blur_entry(list(masks), curves, m, threshold)
        entry["by_tier"] = _tier_curves(tier_curves, entry["takeover_subset"], m)
        out[tab.model.levels[m]] = entry
    return out


def _sigma_masks(
    tab: RecordTable, conds: Mapping[float, int], sweep_mask: np.ndarray, clean_condition: str
) -> dict[float, np.ndarray]:
    """The rows of each sigma, in order; without ``blur:0``, sigma = 0 is ``clean_condition`` on
    the (model, case) pairs of the sweep (``sweep_mask``)."""
    masks = {s: tab.condition.codes == code for s, code in conds.items()}
    if 0.0 not in masks:
        in_sweep = np.zeros((len(tab.model.levels), len(tab.case.levels)), dtype=bool)
        in_sweep[tab.model.codes[sweep_mask], tab.case.codes[sweep_mask]] = True
        clean = tab.condition.codes == tab.condition.code_of(clean_condition)
        masks[0.0] = clean & in_sweep[tab.model.codes, tab.case.codes]
    return dict(sorted(masks.items()))


def _blur_entry(
    sigmas: list[float], curves: Mapping[str, tuple], m: int, threshold: float
) -> dict[str, Any]:
    """Model ``m``'s curves per subset, the subset L* reads, ``drop`` and L*."""
    entry: dict[str, Any] = {"sigmas": [float(s) for s in sigmas]}
    for sub, (rows, (acc_blind, _, _)) in curves.items():
        entry[f"accuracy_{sub}"] = [float(acc[m]) for acc, _, _ in rows]
        entry[f"n_{sub}"] = [int(n[m]) for _, _, n in rows]
        entry[f"noimg_{sub}"] = float(acc_blind[m])
    use = "image_required" if any(entry["n_image_required"]) else "all"
    curve = entry[f"accuracy_{use}"]
    blind_acc = entry[f"noimg_{use}"]
    entry["takeover_subset"] = use
    entry["drop"] = (curve[0] - blind_acc) if sigmas and sigmas[0] == 0.0 else float("nan")
    entry["takeover_sigma"], entry["takeover_reason"] = takeover_point(
        sigmas, curve, blind_acc, threshold
    )
    return entry


def _tier_curves(tier_curves: Mapping[tuple, tuple], use: str, m: int) -> dict[str, Any]:
    """Model ``m``'s curve of subset ``use`` per risk tier it has records of (Figure 6)."""
    by_tier = {}
    for (sub, tier), (rows, (acc_b, _, n_b)) in tier_curves.items():
        if sub == use and (any(int(n[m]) for _, _, n in rows) or int(n_b[m])):
            by_tier[tier] = {
                "accuracy": [float(acc[m]) for acc, _, _ in rows],
                "n": [int(n[m]) for _, _, n in rows],
                "noimg": float(acc_b[m]),
                "n_noimg": int(n_b[m]),
            }
    return by_tier


def run_ablations(
    tab: RecordTable,
    *,
    harness_compatible: bool = False,
    reference_condition: str = "default",
    records: Iterable[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Every ablation whose condition occurs in ``tab``, plus :func:`roi_decay_modal` over
    ``records`` with samples."""
    out: dict[str, Any] = {}
    if (
        tab.condition.code_of(NOIMG) >= 0
        and (tab.condition.codes == tab.condition.code_of(NOIMG)).any()
    ):
        out["no_image"] = no_image_gap(
            tab, harness_compatible=harness_compatible, vision_condition=reference_condition
        )
    blur = blur_sweep(
        tab, harness_compatible=harness_compatible, clean_condition=reference_condition
    )
    if blur:
        out["blur"] = blur
    decay = roi_decay(tab, harness_compatible=harness_compatible)
    if decay:
        out["roi_decay"] = decay
    if records is not None:
        sampled = [
            r
            for r in records
            if str(r.get("condition", "")).startswith("roi_decay:")
            and {"modal_share", "samples"} & set(r.get("extra") or {})
        ]
        modal = roi_decay_modal(sampled, harness_compatible=harness_compatible)
        if modal:
            out["roi_decay_modal"] = modal
    return out
