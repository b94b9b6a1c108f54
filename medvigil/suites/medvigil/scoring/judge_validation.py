"""How well an open-ended judge's flags match human labels: precision and recall per axis and ``split``, with
percentile bootstrap 95% CIs (:data:`N_RESAMPLES`, :data:`SEED`) that leave out resamples with an undefined
ratio, which ``scipy.stats.bootstrap`` cannot do. ``by_class``: flagged vs labelled per ``class``.

>>> summary = validation([{"label_is_refusal": True, "is_refusal": True, "is_critical": False},
...                       {"label_is_refusal": False, "is_refusal": False, "is_critical": False}], n_resamples=50)
>>> summary["all"]["refusal"]["precision"], summary["all"]["refusal"]["recall"]
(1.0, 1.0)
"""

from collections import defaultdict

import numpy as np

AXES = ("refusal", "critical")
N_RESAMPLES = 2000
SEED = 20260505  # the seed of the paper's bootstrap (Appendix M)
CONFIDENCE = 0.95


def _ratio(hit: np.ndarray, base: np.ndarray, axis: int = -1) -> np.ndarray:
    denominator = base.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            denominator > 0, (hit & base).sum(axis=axis) / np.maximum(denominator, 1), np.nan
        )


def _interval(
    pred: np.ndarray, gold: np.ndarray, base_is_pred: bool, n_resamples: int
) -> list[float] | None:
    """Percentile bootstrap CI of precision (base = predicted) or recall (base = labelled)."""
    rng = np.random.default_rng(SEED)
    draws = rng.integers(0, len(pred), size=(n_resamples, len(pred)))
    p, g = pred[draws], gold[draws]
    values = _ratio(g, p) if base_is_pred else _ratio(p, g)
    values = values[~np.isnan(values)]
    if not len(values):
        return None
    alpha = (1 - CONFIDENCE) / 2
    return [float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha))]


def axis_scores(pred: list[bool], gold: list[bool], n_resamples: int = N_RESAMPLES) -> dict:
    """Counts, precision and recall of one flag, each with its bootstrap CI."""
    p, g = np.asarray(pred, bool), np.asarray(gold, bool)
    tp, fp, fn = int((p & g).sum()), int((p & ~g).sum()), int((~p & g).sum())
    return {
        "n": len(p),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": len(p) - tp - fp - fn,
        "precision": tp / (tp + fp) if tp + fp else None,
        "precision_ci": _interval(p, g, True, n_resamples) if len(p) else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "recall_ci": _interval(p, g, False, n_resamples) if len(p) else None,
    }


def _class_block(rows: list[dict], n_resamples: int) -> dict:
    """Flag counts of one class, and per flag the share judged as labelled (recall or specificity) with its CI."""
    block: dict = {"n": len(rows)}
    for axis in AXES:
        rated = [r for r in rows if isinstance(r.get(f"label_is_{axis}"), bool)]
        block[f"{axis}_flagged"] = sum(bool(r[f"is_{axis}"]) for r in rows)
        block[f"{axis}_labelled"] = sum(r[f"label_is_{axis}"] for r in rated)
        agree = np.array([bool(r[f"is_{axis}"]) == r[f"label_is_{axis}"] for r in rated], bool)
        block[f"{axis}_agreement"] = float(agree.mean()) if len(agree) else None
        block[f"{axis}_agreement_ci"] = (
            _interval(agree, np.ones_like(agree), False, n_resamples) if len(agree) else None
        )
    return block


def validation(rows: list[dict], n_resamples: int = N_RESAMPLES) -> dict | None:
    """Per split (and ``all``): per axis scores and per-class flag counts; None without labels."""
    labelled = [r for r in rows if any(isinstance(r.get(f"label_is_{a}"), bool) for a in AXES)]
    if not labelled:
        return None
    splits: dict[str, list[dict]] = defaultdict(list)
    for row in labelled:
        splits["all"].append(row)
        if row.get("split"):
            splits[row["split"]].append(row)
    out = {}
    for split, group in splits.items():
        block: dict = {}
        for axis in AXES:
            pairs = [
                (r[f"is_{axis}"], r[f"label_is_{axis}"])
                for r in group
                if isinstance(r.get(f"label_is_{axis}"), bool)
            ]
            if pairs:
                block[axis] = axis_scores([p for p, _ in pairs], [g for _, g in pairs], n_resamples)
        members: dict[str, list[dict]] = defaultdict(list)
        for row in group:
            members[row.get("class") or "(no class)"].append(row)
        block["by_class"] = {
            name: _class_block(rows_of, n_resamples) for name, rows_of in sorted(members.items())
        }
        out[split] = block
    return out
