"""The metrics the ``cbd_*`` lmms-eval tasks report (percent, counts as floats), from the records
of one run (one model): the quadrant table of ``cbd_quadrants`` and ``cbd_binary``, and the per-arm
diagnostics of ``cbd_image`` / ``cbd_noimg``."""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from medvigil.suites.cbd.arm_scoring import binary_table, image_arm_summary
from medvigil.suites.cbd.arms import ARMS
from medvigil.suites.cbd.records import check_records
from medvigil.suites.cbd.scoring import QUADRANTS

# lmms-eval metric -> higher is better (None: a description, no direction). Percent, as Tables 1-2.
QUADRANT_METRICS = {
    "frac_ideal": True,
    "frac_fragile": False,
    "frac_dangerous": False,
    "frac_worst": False,
    "flip_rate": False,
    "image_reliance": None,
    "accuracy": True,
    "acc_ideal": None,
    "acc_fragile": None,
    "acc_dangerous": None,
    "acc_worst": None,
    "excluded": False,
}
IMAGE_METRICS = {"accuracy": True, "flip_rate": False, "excluded": False, "parse_failures": False}
BINARY_METRICS = {**QUADRANT_METRICS, "mean_entropy": None}
NOIMG_METRICS = {"accuracy": None, "parse_failures": False}


def _pct(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


def table_metrics(result: Mapping[str, Any]) -> dict[str, float]:
    """Flatten one model's :func:`~medvigil.suites.cbd.arm_scoring.quadrant_table` entry into the
    ``cbd_quadrants`` metrics (percent; an empty quadrant's accuracy is NaN, the paper's "–")."""
    out = {f"frac_{q.lower()}": _pct(result["fractions"][q]) for q in QUADRANTS}
    out.update(
        flip_rate=_pct(result["flip_rate"]),
        image_reliance=_pct(result["image_reliance_rate"]),
        accuracy=_pct(result["accuracy"]),
        excluded=float(result["n_excluded"]),
    )
    out.update({f"acc_{q.lower()}": _pct(result["accuracy_by_quadrant"][q]) for q in QUADRANTS})
    return out


def binary_metrics(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The ``cbd_binary`` metrics: :func:`table_metrics` of the binary arm plus the mean
    predictive entropy (nats) of (image, q)."""
    (result,) = binary_table(records).values()  # one model per run
    mean_h = result.get("mean_entropy")
    return {**table_metrics(result), "mean_entropy": math.nan if mean_h is None else float(mean_h)}


def arm_metrics(records: Sequence[Mapping[str, Any]], arm: str) -> dict[str, float]:
    """The per-arm metrics of ``cbd_image`` / ``cbd_noimg`` (percent, counts as floats)."""
    records = check_records(records)
    failures = float(sum(r.get("parse_status") != "ok" for r in records))
    if arm == "image":
        s = image_arm_summary(records)
        return {
            "accuracy": _pct(s["accuracy"]),
            "flip_rate": _pct(s["flip_rate"]),
            "excluded": float(s["n_excluded"]),
            "parse_failures": failures,
        }
    if arm != "noimg":
        raise ValueError(f"arm must be one of {', '.join(ARMS)}, got {arm!r}")
    # text-only accuracy of q over parsed answers (the core's "exclude" policy); a diagnostic
    parsed = [r for r in records if r["condition"] == ARMS["noimg"] and r.get("predicted_letter")]
    acc = (
        sum(r["predicted_letter"] == r["correct_letter"] for r in parsed) / len(parsed)
        if parsed
        else math.nan
    )
    return {"accuracy": 100.0 * acc, "parse_failures": failures}
