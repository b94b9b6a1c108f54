"""MediConfusion results over evaluation modes: mode labels and the best over modes (Table 1 "Best",
Table 3)."""

import math
from collections.abc import Mapping
from typing import Any

from medvigil.suites.mediconfusion.scoring import MediConfusionScore

__all__ = ["MODE_LABELS", "best_over_modes"]

#: The authors' mode names (result-file suffixes) and the paper's abbreviations; the
#: ``*_medvigil`` modes are medvigil 0.1's prompts (tasks ``mediconfusion_<mode>_medvigil``).
MODE_LABELS = {"mc": "MC", "greedy": "GD", "prefix": "PS", "gpt4": "FF"}
MODE_LABELS |= {f"{mode}_medvigil": f"{label} (medvigil)" for mode, label in MODE_LABELS.items()}


def _metrics_of(value: Any) -> Mapping[str, Any]:
    if isinstance(value, MediConfusionScore):
        return value.to_dict()
    if isinstance(value, Mapping):
        return value
    raise TypeError(
        f"expected a MediConfusionScore or a mapping of metrics, got {type(value).__name__}"
    )


def best_over_modes(results: Mapping[str, Any]) -> dict[str, Any]:
    """Each mode's accuracies and the best over modes (Table 1 "Best", Table 3).

    Best set and best individual accuracy are maximised separately, as in Table 1 (InstructBLIP:
    best set from MC, best individual from GD), per category likewise (Table 3). Ties go to the
    first mode; None/NaN are skipped.
    """
    if not results:
        raise ValueError("results must name at least one mode")
    metrics = {mode: _metrics_of(v) for mode, v in results.items()}

    def best(get) -> tuple[float | None, str | None]:
        found = [
            (float(v), mode)
            for mode, m in metrics.items()
            if (v := get(m)) is not None and not math.isnan(v)
        ]
        return (
            max(found, key=lambda item: item[0]) if found else (None, None)
        )  # max keeps the first of equals

    keys = ("set_accuracy", "individual_accuracy", "confusion")
    out: dict[str, Any] = {
        "modes": {mode: {k: m.get(k) for k in keys if k in m} for mode, m in metrics.items()}
    }
    out["best_set_accuracy"], out["best_set_mode"] = best(lambda m: m.get("set_accuracy"))
    out["best_individual_accuracy"], out["best_individual_mode"] = best(
        lambda m: m.get("individual_accuracy")
    )
    cats = [c for m in metrics.values() for c in (m.get("per_category") or {})]
    if cats:
        per = {}
        for cat in dict.fromkeys(cats):
            s, s_mode = best(
                lambda m, cat=cat: ((m.get("per_category") or {}).get(cat) or {}).get(
                    "set_accuracy"
                )
            )
            i, i_mode = best(
                lambda m, cat=cat: ((m.get("per_category") or {}).get(cat) or {}).get(
                    "individual_accuracy"
                )
            )
            per[cat] = {
                "best_set_accuracy": s,
                "best_set_mode": s_mode,
                "best_individual_accuracy": i,
                "best_individual_mode": i_mode,
            }
        out["per_category"] = per
    return out
