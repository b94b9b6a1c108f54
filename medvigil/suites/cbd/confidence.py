"""Calibration and selective risk of the binary arm's p(yes) (metrics/calibration_error,
selective_risk).

Each binary record answers yes when p(yes) >= 0.5
(:func:`medvigil.suites.cbd.records.make_binary_record`); its confidence is the probability of the
answer it gave, max(p(yes), 1 - p(yes)) (top-label calibration, Guo et al. 2017), and it is correct
when the answer is the label. Scored per arm (image, text only, null image, image swap) by
:func:`medvigil.scoring.confidence.confidence_summary`.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from medvigil.scoring.confidence import confidence_summary


def binary_confidence_metrics(
    records: Sequence[Mapping[str, Any]], arms: Mapping[str, str]
) -> dict[str, dict[str, Any]]:
    """Per binary arm with records (``arms``: arm -> condition): N, AURC, e-AURC, ECE, MCE, Brier,
    bins."""
    out = {}
    for arm, condition in arms.items():
        mine = [r for r in records if r.get("condition") == condition]
        if not mine:
            continue
        p = [float(r["extra"]["p_yes"]) for r in mine]
        out[arm] = confidence_summary(
            [max(x, 1.0 - x) for x in p],
            [int(r["predicted_letter"] == r["correct_letter"]) for r in mine],
        )
    return out
