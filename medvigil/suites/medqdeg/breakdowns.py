"""MedQ-Deg breakdowns of one model's per-sample scores: by severity, degradation, category,
modality and capability, with drops from L0 (Liu et al., seed 002, Tables 2, 3, 5, 6, Figs. 7, 8).

Drops from L0 are paired on items (Tables 2-3 and Fig. 8 print "drop from L0 to L1&L2" of a subset
of docs): a degraded doc is compared with the L0 doc of the same question, so a type that changes
nothing has drop 0 whatever the other questions' accuracy (:func:`paired_breakdown`). The
by-severity drops (Table 6) are differences of level accuracies, equal to the paired mean when every
L0 question is asked with the same number of types at each level.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.scoring.categorical import Categorical, factorize
from medvigil.suites.medqdeg.calibration import calibration_shift, intra_model_dke
from medvigil.suites.medqdeg.categories import CATEGORY_OF, TABLE3_COLUMNS
from medvigil.suites.medqdeg.sample_scores import perceived_confidence, sample_accuracy

__all__ = [
    "CAPABILITY_GROUPS",
    "OTHER_GROUP",
    "SEVERITIES",
    "capability_group",
    "category_of",
    "cell_mean",
    "paired_baseline",
    "paired_breakdown",
    "score_groups",
    "severity_drops",
]

SEVERITIES = (0, 1, 2)  # L0 (clean), L1 (mild), L2 (severe)
UNLABELLED = "(unlabelled)"  # breakdown key of docs without a modality or capability label
# Table 2 / Section 3.1: the six mid-level tasks under the two high-level capabilities.
CAPABILITY_GROUPS = {
    "clinical understanding": "Medical Perception",
    "imaging perception": "Medical Perception",
    "anatomical recognition": "Medical Perception",
    "basic science": "Clinical Reasoning",
    "diagnosis": "Clinical Reasoning",
    "treatment": "Clinical Reasoning",
}
OTHER_GROUP = "other"


def category_of(degradation: str) -> str:
    """Table 5 parent category of a degradation type (``clean`` and unknown types: ``other``)."""
    return CATEGORY_OF.get(str(degradation), OTHER_GROUP)


def capability_group(capability: str) -> str:
    """High-level capability (Table 2 header) of a mid-level task name, case-insensitive, without
    the suffix "reasoning" / "planning" ("Diagnostic reasoning" -> diagnosis); outside Section 3.1's
    six: ``other``."""
    name = str(capability).strip().lower().removesuffix(" reasoning").removesuffix(" planning")
    name = {
        "diagnostic": "diagnosis",
        "basic science": "basic science",
        "treatment": "treatment",
    }.get(name, name)
    return CAPABILITY_GROUPS.get(name, OTHER_GROUP)


def severity_drops(accuracy_by_severity: Mapping[int, float]) -> dict[str, float]:
    """Accuracy drops relative to L0 (Table 6 ``L1-L0`` and ``L2-L0``; negative = worse)."""
    if 0 not in accuracy_by_severity:
        raise ValueError("accuracy at severity 0 (L0, clean) is needed")
    base = accuracy_by_severity[0]
    return {
        f"L{s}-L0": float(accuracy_by_severity[s]) - float(base)
        for s in sorted(accuracy_by_severity)
        if s != 0
    }


def _stats(conf: np.ndarray, acc: np.ndarray) -> dict[str, float]:
    n = int(acc.size)
    mc = float(conf.mean()) if n else float("nan")
    ma = float(acc.mean()) if n else float("nan")
    return {"n": n, "accuracy": ma, "mean_confidence": mc, "calibration_shift": mc - ma}


def _groups(keys: Sequence[Any] | Categorical) -> Categorical:
    """``keys`` as text codes with sorted levels (given as codes already: no object per row)."""
    return factorize(keys) if isinstance(keys, Categorical) else factorize([str(x) for x in keys])


def _group_stats(
    keys: Sequence[str] | Categorical, conf: np.ndarray, acc: np.ndarray
) -> dict[str, dict[str, float]]:
    groups = factorize(keys)  # levels sorted, as np.unique would
    uniq, inverse = groups.levels, groups.codes
    n = np.bincount(inverse, minlength=len(uniq)).astype(np.float64)
    mc = np.bincount(inverse, weights=conf, minlength=len(uniq)) / n
    ma = np.bincount(inverse, weights=acc, minlength=len(uniq)) / n
    return {
        k: {
            "n": int(n[i]),
            "accuracy": float(ma[i]),
            "mean_confidence": float(mc[i]),
            "calibration_shift": float(mc[i] - ma[i]),
        }
        for i, k in enumerate(uniq)
    }


# Degraded level sets of the breakdowns: L1, L2, and Tables 2-3's pooled "L1&L2".
DEGRADED_SETS = {"L1": (1,), "L2": (2,), "L1&L2": (1, 2)}


def paired_baseline(items: Sequence[Any], severity: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """Per doc, the L0 accuracy of the same item (NaN when it has none), never the mean over all L0
    docs (which would mix in other questions and, for modality-specific types, other modalities)."""
    by_item = factorize([str(i) for i in items])
    uniq, inverse = by_item.levels, by_item.codes
    clean = severity == 0
    n0 = np.bincount(inverse[clean], minlength=len(uniq)).astype(np.float64)
    if np.any(n0 > 1):
        raise ValueError(f"item {uniq[int(np.argmax(n0 > 1))]!r} has more than one L0 doc")
    s0 = np.bincount(inverse[clean], weights=acc[clean], minlength=len(uniq))
    base = np.divide(s0, n0, out=np.full(len(uniq), np.nan), where=n0 > 0)
    return base[inverse]


def paired_breakdown(
    keys: Sequence[Any], severity: np.ndarray, conf: np.ndarray, acc: np.ndarray, base: np.ndarray
) -> dict[str, dict[str, Any]]:
    """Accuracy, confidence and Calibration Shift per key at L0 (if any), L1, L2 and L1&L2 pooled,
    and per degraded set the paired drop ``"Lk-L0"`` (negative = worse, as Table 6): the mean of
    ``acc(doc) - acc(L0 doc of the item)`` over the ``"n_paired"`` docs whose item has an L0 doc
    (``"n_unpaired"``: the others)."""
    groups = _groups(keys)
    out: dict[str, dict[str, Any]] = {}
    for code, key in enumerate(groups.levels):
        mine = groups.codes == code
        entry: dict[str, Any] = {}
        if np.any(mine & (severity == 0)):
            entry["L0"] = _stats(conf[mine & (severity == 0)], acc[mine & (severity == 0)])
        for name, levels in DEGRADED_SETS.items():
            sel = mine & np.isin(severity, levels)
            if not np.any(sel):
                continue
            paired = sel & ~np.isnan(base)
            drop = float(np.mean(acc[paired] - base[paired])) if np.any(paired) else None
            entry[name] = {
                **_stats(conf[sel], acc[sel]),
                f"{name}-L0": drop,
                "n_paired": int(paired.sum()),
                "n_unpaired": int((sel & ~paired).sum()),
            }
        out[str(key)] = entry
    return out


def cell_mean(
    cells: Mapping[str, Mapping[str, Any]], columns: Sequence[str], level: str = "L1&L2"
) -> dict[str, Any] | None:
    """Tables 2-3's "Avg." of one row: the plain mean of the row's cells at ``level``, accuracy and
    paired drop alike, not the pooled accuracy of its docs (seed 002, Table 3: GPT-5 67.5 (↓4.2) =
    mean of its five category cells 72.2, 66.2, 67.5, 63.1, 68.4 (↓4.0, 3.2, 2.5, 6.4, 4.8); Table
    2: 64.5 = mean of its six capability cells). Columns without a doc are left out (``n_cells``
    counts the rest); None when none has one."""
    present = [c for c in columns if (cells.get(c) or {}).get(level)]
    if not present:
        return None
    entries = [cells[c][level] for c in present]
    drops = [e.get(f"{level}-L0") for e in entries]
    return {
        level: {
            "accuracy": float(np.mean([e["accuracy"] for e in entries])),
            f"{level}-L0": float(np.mean(drops)) if None not in drops else None,
            "n_cells": len(present),
            "cells": present,
        }
    }


def _joint_keys(deg: Categorical, sev: np.ndarray) -> Categorical:
    """``"<degradation>\x1f<severity>"`` of every sample, as codes (a level per pair present)."""
    pair = deg.codes.astype(np.int64) * len(SEVERITIES) + sev
    present = np.flatnonzero(np.bincount(pair, minlength=len(deg.levels) * len(SEVERITIES)))
    lut = np.full(len(deg.levels) * len(SEVERITIES), -1, dtype=np.int32)
    lut[present] = np.arange(present.size, dtype=np.int32)
    levels = tuple(
        f"{deg.levels[p // len(SEVERITIES)]}\x1f{p % len(SEVERITIES)}" for p in present.tolist()
    )
    return Categorical(lut[pair], levels)


def _labelled(values: Sequence[Any]) -> Categorical:
    """``values`` as text codes, a missing or empty label as :data:`UNLABELLED`."""
    raw = factorize([None if v is None else str(v) for v in values], sort=False)
    levels = tuple(UNLABELLED if v == "" else str(v) for v in raw.levels) + (UNLABELLED,)
    return Categorical(np.where(raw.codes < 0, len(levels) - 1, raw.codes).astype(np.int32), levels)


def score_groups(
    counts: Any,
    invalid: Any,
    n_options: Any,
    correct: Any,
    degradation: Sequence[str],
    severity: Sequence[int],
    *,
    items: Sequence[Any] | None = None,
    modality: Sequence[Any] | None = None,
    capability: Sequence[Any] | None = None,
    labels: Mapping[str, Sequence[Any]] | None = None,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
) -> dict[str, Any]:
    """Accuracy, mean confidence and Calibration Shift overall, by severity, degradation and
    (degradation, severity); drops from L0; the intra-model DKE flag (Eq. 5; ``None`` without L0 and
    L2 docs). With ``items`` (each doc's question id) also :func:`paired_breakdown` by type,
    category (Table 3), ``modality`` (Fig. 7), ``capability`` (Table 2, and its
    :data:`CAPABILITY_GROUPS` group), and ``drops_by_degradation`` (Fig. 8a/b); ``labels``: further
    per-doc labels by name, each broken down as modality is (``by_<name>``, e.g. ``by_source``).
    Samples whose trials are all invalid follow ``all_invalid`` (``"exclude"``: counted in
    ``n_excluded_all_invalid``).
    """
    conf = perceived_confidence(
        counts, n_options, invalid, invalid_policy=invalid_policy, all_invalid=all_invalid
    )
    acc = sample_accuracy(counts, correct, invalid, accuracy_rule=accuracy_rule)
    sev = np.asarray(severity, dtype=np.int64).reshape(-1)
    deg = factorize([str(d) for d in degradation])
    n = conf.shape[0]
    labels = dict(labels or {})
    columns = [("items", items), ("modality", modality), ("capability", capability)]
    _check_columns(n, sev, deg, [*columns, *labels.items()])
    keep = ~np.isnan(conf)
    excluded = int((~keep).sum())
    if excluded:
        kept = np.flatnonzero(keep)
        conf, acc, sev, deg = conf[keep], acc[keep], sev[keep], deg.take(keep)
        items, modality, capability = (
            [c[i] for i in kept] if c is not None else None for c in (items, modality, capability)
        )
        labels = {k: [c[i] for i in kept] for k, c in labels.items()}
        n = int(keep.sum())
    out = {
        **_level_scores(n, conf, acc, sev, deg),
        "accuracy_rule": accuracy_rule,
        "invalid_policy": invalid_policy,
        "all_invalid": all_invalid,
        "n_excluded_all_invalid": excluded,
    }
    if items is None:
        return out
    base = paired_baseline(items, sev, acc)
    out.update(_type_breakdowns(n, deg, sev, conf, acc, base))
    out.update(_label_breakdowns(sev, conf, acc, base, modality, capability, labels))
    return out


def _check_columns(
    n: int, sev: np.ndarray, deg: Categorical, columns: Sequence[tuple[str, Any]]
) -> None:
    """One degradation, severity and label per sample; severities among :data:`SEVERITIES`."""
    if sev.shape != (n,) or deg.codes.shape != (n,):
        raise ValueError("degradation and severity need one entry per sample")
    for name, column in columns:
        if column is not None and len(column) != n:
            raise ValueError(f"{name} needs one entry per sample ({n}), got {len(column)}")
    if n and not np.isin(sev, SEVERITIES).all():
        raise ValueError(
            f"severity must be one of {SEVERITIES}, got "
            f"{sorted(set(sev.tolist()) - set(SEVERITIES))}"
        )


def _level_scores(
    n: int, conf: np.ndarray, acc: np.ndarray, sev: np.ndarray, deg: Categorical
) -> dict[str, Any]:
    """The unpaired part of :func:`score_groups` over its ``n`` samples: overall, by severity,
    degradation and both, drops from L0 and the intra-model DKE flag."""
    overall = {
        "n": n,
        "accuracy": float(acc.mean()) if n else float("nan"),
        "mean_confidence": float(conf.mean()) if n else float("nan"),
        "calibration_shift": calibration_shift(conf, acc),
    }
    by_sev = {
        int(s): stats
        for s, stats in _group_stats(Categorical(sev, ("0", "1", "2")), conf, acc).items()
    }  # one digit each
    by_deg = _group_stats(deg, conf, acc)
    joint = {}
    for key, stats in _group_stats(_joint_keys(deg, sev), conf, acc).items():
        d, s = key.split("\x1f")
        joint.setdefault(d, {})[int(s)] = stats
    drops = severity_drops({s: v["accuracy"] for s, v in by_sev.items()}) if 0 in by_sev else {}
    dke = None
    if 0 in by_sev and 2 in by_sev:
        dke = intra_model_dke(
            by_sev[0]["accuracy"],
            by_sev[2]["accuracy"],
            by_sev[0]["calibration_shift"],
            by_sev[2]["calibration_shift"],
        )
    return {
        "overall": overall,
        "by_severity": {f"L{s}": v for s, v in by_sev.items()},
        "by_degradation": by_deg,
        "by_degradation_severity": {
            d: {f"L{s}": v for s, v in sorted(levels.items())} for d, levels in joint.items()
        },
        "drops": drops,
        "intra_model_dke": dke,
    }


def _type_breakdowns(
    n: int, deg: Categorical, sev: np.ndarray, conf: np.ndarray, acc: np.ndarray, base: np.ndarray
) -> dict[str, Any]:
    """Paired drops by degradation type (Fig. 8a/b) and category (Table 3), and over all docs."""
    degraded = sev != 0
    by_type = paired_breakdown(
        deg.take(degraded), sev[degraded], conf[degraded], acc[degraded], base[degraded]
    )
    out: dict[str, Any] = {
        "drops_by_degradation": {
            d: {f"{lv}-L0": e[lv][f"{lv}-L0"] for lv in ("L1", "L2") if lv in e}
            | {"n_paired": sum(e[lv]["n_paired"] for lv in ("L1", "L2") if lv in e)}
            for d, e in by_type.items()
        }
    }
    cat = Categorical(deg.codes[degraded], tuple(category_of(d) for d in deg.levels))
    out["by_category"] = paired_breakdown(
        cat, sev[degraded], conf[degraded], acc[degraded], base[degraded]
    )
    out["category_mean"] = cell_mean(out["by_category"], TABLE3_COLUMNS)
    out["paired_drops"] = paired_breakdown(
        Categorical(np.zeros(n, np.int32), ("all",)), sev, conf, acc, base
    ).get("all", {})
    return out


def _label_breakdowns(
    sev: np.ndarray,
    conf: np.ndarray,
    acc: np.ndarray,
    base: np.ndarray,
    modality: Sequence[Any] | None,
    capability: Sequence[Any] | None,
    labels: Mapping[str, Sequence[Any]],
) -> dict[str, Any]:
    """Paired drops by modality (Fig. 7), by each further label and by capability (Table 2)."""
    out: dict[str, Any] = {}
    if modality is not None:
        out["by_modality"] = paired_breakdown(_labelled(modality), sev, conf, acc, base)
    for name, column in labels.items():
        out[f"by_{name}"] = paired_breakdown(_labelled(column), sev, conf, acc, base)
    if capability is not None and any(c not in (None, "") for c in capability):
        out.update(_capability_breakdowns(capability, sev, conf, acc, base))
    return out


def _capability_breakdowns(
    capability: Sequence[Any], sev: np.ndarray, conf: np.ndarray, acc: np.ndarray, base: np.ndarray
) -> dict[str, Any]:
    """Paired drops by mid-level capability and by its group (Table 2), with the row's mean."""
    caps = [UNLABELLED if c in (None, "") else str(c) for c in capability]
    by_capability = paired_breakdown(caps, sev, conf, acc, base)
    return {
        "by_capability": by_capability,
        "by_capability_group": paired_breakdown(
            [capability_group(c) for c in caps], sev, conf, acc, base
        ),
        "capability_mean": cell_mean(by_capability, sorted(set(caps) - {UNLABELLED})),
    }
