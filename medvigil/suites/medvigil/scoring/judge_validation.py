"""How well an open-ended judge's flags match human labels: precision and recall per axis and
``split``, with percentile bootstrap 95% CIs (:data:`N_RESAMPLES`, :data:`SEED`) that leave out
resamples with an undefined ratio, which ``scipy.stats.bootstrap`` cannot do. ``by_class``: flagged
vs labelled per ``class`` (or ``style``, the blind sets' field, when a row has no class).

>>> summary = validation(
...     [
...         {"label_is_refusal": True, "is_refusal": True, "is_critical": False},
...         {"label_is_refusal": False, "is_refusal": False, "is_critical": False},
...     ],
...     n_resamples=50,
... )
>>> summary["all"]["refusal"]["precision"], summary["all"]["refusal"]["recall"]
(1.0, 1.0)
"""

from collections import defaultdict

import numpy as np

AXES = ("refusal", "critical")
N_RESAMPLES = 2000
SEED = 20260505  # the seed of the paper's bootstrap (Appendix M)
CONFIDENCE = 0.95
BLOCK_CELLS = 1 << 21  # indices drawn at once (16 MiB)


def _ratio(hit: np.ndarray, base: np.ndarray, axis: int = -1) -> np.ndarray:
    denominator = base.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            denominator > 0, (hit & base).sum(axis=axis) / np.maximum(denominator, 1), np.nan
        )


def _interval(
    pred: np.ndarray, gold: np.ndarray, base_is_pred: bool, n_resamples: int
) -> list[float] | None:
    """Percentile bootstrap CI of precision (base = predicted) or recall (base = labelled);
    resamples are drawn in blocks of at most :data:`BLOCK_CELLS` indices, so memory does not grow
    with n x resamples."""
    rng = np.random.default_rng(SEED)
    per_block = max(1, BLOCK_CELLS // max(len(pred), 1))
    parts = []
    for start in range(0, n_resamples, per_block):
        draws = rng.integers(0, len(pred), size=(min(per_block, n_resamples - start), len(pred)))
        p, g = pred[draws], gold[draws]
        parts.append(_ratio(g, p) if base_is_pred else _ratio(p, g))
    values = np.concatenate(parts)
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
    """Flag counts of one class, and per flag the share judged as labelled (recall or specificity)
    with its CI."""
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
        block["false_flags"] = _false_flags(group)
        members: dict[str, list[dict]] = defaultdict(list)
        for row in group:
            members[row.get("class") or row.get("style") or "(no class)"].append(row)
        block["by_class"] = {
            name: _class_block(rows_of, n_resamples) for name, rows_of in sorted(members.items())
        }
        out[split] = block
    return out


def _false_flags(rows: list[dict]) -> dict:
    """False refusals among answers labelled not a refusal, and false criticals among answers
    labelled not critical, overall and among those that name a tier-4 finding (``names_critical``:
    negated, hedged ...)."""
    out = {}
    for axis in AXES:
        negatives = [r for r in rows if r.get(f"label_is_{axis}") is False]
        out[axis] = {
            "labelled_negative": len(negatives),
            "flagged": sum(bool(r[f"is_{axis}"]) for r in negatives),
        }
    naming = [r for r in rows if r.get("label_is_critical") is False and r.get("names_critical")]
    out["critical"].update(
        naming=len(naming), naming_flagged=sum(bool(r["is_critical"]) for r in naming)
    )
    return out
