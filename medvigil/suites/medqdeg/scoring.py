"""MedQ-Deg scoring: accuracy under degradation, perceived confidence, Calibration Shift, DKE.

Definitions of MedQ-Deg (Liu et al., seed 002, Section 3.4), numbered as in the paper:

* Eq. (2) accuracy ``Acc(f, D) = (1/|D|) sum_x 1[y_hat(x) = y*(x)]``.
* Perceived confidence from ``T`` repeated answers (temperature 1.0; the paper uses
  ``T = 10`` for the calibration experiment): the vote distribution
  ``p_i(x) = (1/T) sum_t 1[y^(t) = i]`` over the ``K`` options, its entropy
  ``H(x) = -sum_i p_i log p_i`` (``0 log 0 = 0``) and Eq. (3)
  ``C(x) = 1 - H(x) / log K``, in [0, 1].
* Eq. (4) Calibration Shift ``Delta_calib(f, D) = (1/|D|) sum_x C(x) - Acc(f, D)``;
  positive = overconfident.
* Eq. (5) intra-model Dunning-Kruger effect:
  ``Acc(f, D_L0) > Acc(f, D_L2)  and  Delta_calib(f, D_L0) <= Delta_calib(f, D_L2)``.
* Eq. (6) inter-model Dunning-Kruger effect for models ``f1, f2`` on ``D``:
  ``Acc(f1, D) < Acc(f2, D)  and  Delta_calib(f1, D) > Delta_calib(f2, D)``.

Choices where the paper is silent (project spec ``docs/medqdeg-degradations.md``; each is a
parameter):

* **K** is the number of answer options *of each question* (questions have 2 to 5+
  options), so ``C`` is normalised per sample; ``K >= 2``.
* **T** is the number of trials *of each sample* (valid + invalid); samples may differ.
  With ``T = 1`` every ``C`` is 1.
* **Log base**: natural logarithm; ``H / log K`` is the same in every base
  (``log_b x = ln x / ln b`` and the ``1/ln b`` cancels), so the base does not matter.
* **Invalid trials** (no letter found; the paper counts them as incorrect, App. B):
  ``invalid_policy="extra_bin"`` (default, spec) adds them as one more outcome in ``H``
  and clips ``C`` to [0, 1] (so ``T`` invalid answers give ``C = 1``: consistently
  unanswerable); ``"drop"`` renormalises ``p`` over the valid trials. Without invalid
  trials both equal Eq. (3).
* **A sample whose trials are all invalid** has voted for no option, so it shows no
  confidence in any answer: ``all_invalid="zero"`` (default) sets ``C = 0`` (its
  accuracy is 0 as well, so it adds 0 to Eq. 4; the literal extra-bin reading would give
  ``C = 1`` and an always-refusing model ``Delta_calib = +1``); ``"exclude"`` leaves such
  samples out of every score and counts them (``n_excluded_all_invalid``);
  ``"extra_bin"`` keeps what ``invalid_policy`` gives.
* **T**: Section 3.4 runs ``T = 3`` trials for the accuracy experiment and ``T = 10``
  for the calibration experiment; records say which (``extra.experiment``) and
  :func:`score_records` scores them apart.
* **Drops from L0 are paired on items** (Table 2, Table 3 and Fig. 8 print "drop from L0
  to L1&L2" of a subset of docs): a degraded doc is compared with the L0 doc of the same
  question, so a type that changes nothing has drop 0, whatever the other questions'
  accuracy (:func:`paired_breakdown`). The by-severity drops (Table 6) are differences of
  level accuracies, equal to the paired mean when every L0 question is asked with the
  same number of types at each level.
* **Which answer is y_hat** (Eq. 2 has one prediction, the experiment ``T``):
  ``accuracy_rule="trial_mean"`` (default, spec) averages correctness over the trials,
  ``p_{y*}(x)`` with invalid trials wrong; ``"plurality"`` takes the most voted letter,
  ties to the lowest letter, no valid trial = wrong.
* **Inter-model DKE** is a trend over many models: :func:`inter_model_dke_summary`
  reports every ordered pair satisfying Eq. (6), their share among pairs with
  different accuracy, and Spearman's rho between accuracy and Delta_calib (negative =
  lower-accuracy models are more overconfident).

Everything is vectorised over samples (votes as an (n, K) count matrix; groups by
``np.unique`` + ``np.bincount``).

>>> counts, invalid = vote_counts([["A"] * 7 + ["B"] * 2 + ["C"]], n_options=4)
>>> round(float(perceived_confidence(counts, 4, invalid)[0]), 4)   # spec example 1
0.4216
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.suites.mediconfusion.scoring import encode_letters

__all__ = [
    "ACCURACY_RULES",
    "ALL_INVALID_RULES",
    "accuracy_scores",
    "paired_baseline",
    "paired_breakdown",
    "INVALID_POLICIES",
    "SEVERITIES",
    "calibration_shift",
    "inter_model_dke",
    "inter_model_dke_summary",
    "intra_model_dke",
    "perceived_confidence",
    "sample_accuracy",
    "score_groups",
    "score_records",
    "score_trials",
    "severity_drops",
    "vote_counts",
]

ACCURACY_RULES = ("trial_mean", "plurality")
INVALID_POLICIES = ("extra_bin", "drop")
ALL_INVALID_RULES = ("zero", "exclude", "extra_bin")
SEVERITIES = (0, 1, 2)  # L0 (clean), L1 (mild), L2 (severe)
CLEAN_NAMES = ("clean", "none", "default", "L0", "")
UNLABELLED = "(unlabelled)"  # breakdown key of docs without a modality or capability label
# Table 2 / Section 3.1: the six mid-level tasks under the two high-level capabilities.
CAPABILITY_GROUPS = {
    "clinical understanding": "Medical Perception", "imaging perception": "Medical Perception",
    "anatomical recognition": "Medical Perception", "basic science": "Clinical Reasoning",
    "diagnosis": "Clinical Reasoning", "treatment": "Clinical Reasoning",
}
OTHER_GROUP = "other"


def category_of(degradation: str) -> str:
    """Table 5 parent category of a degradation type (``clean`` and unknown types: ``other``)."""
    from medvigil.suites.medqdeg.degradations import CATEGORY_OF

    return CATEGORY_OF.get(str(degradation), OTHER_GROUP)


def capability_group(capability: str) -> str:
    """High-level capability (Table 2 header) of a mid-level task name, case-insensitive; the
    suffixes "reasoning" / "planning" are ignored ("Diagnostic reasoning" -> diagnosis);
    names outside the six of Section 3.1 are ``other``."""
    name = str(capability).strip().lower().removesuffix(" reasoning").removesuffix(" planning")
    name = {"diagnostic": "diagnosis", "basic science": "basic science", "treatment": "treatment"}.get(name, name)
    return CAPABILITY_GROUPS.get(name, OTHER_GROUP)


def _check_choice(value: str, allowed: Sequence[str], name: str) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _options_vector(n_options: Any, n: int) -> np.ndarray:
    k = np.asarray(n_options)
    if k.ndim == 0:
        k = np.full(n, k)
    if k.shape != (n,):
        raise ValueError(f"n_options must be a scalar or have one entry per sample ({n}), got shape {np.shape(n_options)}")
    if k.dtype.kind not in "iu" and (k.dtype.kind != "f" or not np.all(np.mod(k, 1) == 0)):
        raise TypeError(f"n_options must be integers, got {k.dtype}")
    k = k.astype(np.int64)
    if n and k.min() < 2:
        raise ValueError(f"n_options must be >= 2 for every sample (log K = 0 otherwise), got {int(k.min())}")
    return k


def vote_counts(trials: Iterable[Sequence[Any]], n_options: Any) -> tuple[np.ndarray, np.ndarray]:
    """Count each sample's trial answers.

    Args:
        trials: per sample, the ``T`` answers as letters (``None`` or ``""`` = invalid).
        n_options: ``K``, a scalar or one per sample.

    Returns:
        ``(counts, invalid)``: an (n, max K) integer matrix of votes per option and the
        number of invalid trials per sample.
    """
    rows = [list(t) for t in trials]
    n = len(rows)
    k = _options_vector(n_options, n)
    width = int(k.max()) if n else 0
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=n)
    if n and lengths.min() == 0:
        raise ValueError(f"sample {int(np.argmin(lengths))} has no trials")
    codes = encode_letters([a for r in rows for a in r], name="trials") if n else np.zeros(0, np.int8)
    sample = np.repeat(np.arange(n), lengths)
    bad = codes >= k[sample]
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sample {int(sample[i])} has answer {chr(65 + int(codes[i]))!r} beyond its {int(k[sample[i]])} options")
    valid = codes >= 0
    counts = np.zeros((n, width), dtype=np.int64)
    np.add.at(counts, (sample[valid], codes[valid].astype(np.intp)), 1)
    invalid = np.bincount(sample[~valid], minlength=n).astype(np.int64)
    return counts, invalid


def _xlogx(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def perceived_confidence(
    counts: Any, n_options: Any, invalid: Any = None, *, invalid_policy: str = "extra_bin", all_invalid: str = "zero"
) -> np.ndarray:
    """Eq. (3): ``C(x) = 1 - H(x) / log K`` per sample, from vote counts.

    ``counts`` is (n, K_max) votes per option, ``invalid`` the invalid trials per
    sample (default none). See the module docstring for ``invalid_policy`` and
    ``all_invalid`` (samples without one valid trial: ``"zero"`` gives C = 0,
    ``"exclude"`` NaN, ``"extra_bin"`` what ``invalid_policy`` gives).
    """
    _check_choice(all_invalid, ALL_INVALID_RULES, "all_invalid")
    conf = _confidence(counts, n_options, invalid, invalid_policy)
    if all_invalid == "extra_bin":
        return conf
    none_valid = np.asarray(counts, dtype=np.float64).sum(axis=1) == 0
    return np.where(none_valid, 0.0 if all_invalid == "zero" else np.nan, conf)


def _confidence(counts: Any, n_options: Any, invalid: Any, invalid_policy: str) -> np.ndarray:
    _check_choice(invalid_policy, INVALID_POLICIES, "invalid_policy")
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError(f"counts must be a 2-D (samples x options) array, got shape {c.shape}")
    n = c.shape[0]
    k = _options_vector(n_options, n)
    bad = np.zeros(n, dtype=bool) if c.shape[1] == 0 else (c * (np.arange(c.shape[1])[None, :] >= k[:, None])).sum(1) > 0
    if np.any(bad):
        raise ValueError(f"sample {int(np.flatnonzero(bad)[0])} has votes beyond its n_options")
    if np.any(c < 0):
        raise ValueError("counts must be >= 0")
    inv = np.zeros(n) if invalid is None else np.asarray(invalid, dtype=np.float64).reshape(n)
    if np.any(inv < 0):
        raise ValueError("invalid counts must be >= 0")
    valid_total = c.sum(axis=1)
    if invalid_policy == "extra_bin":
        total = valid_total + inv
        if np.any(total <= 0):
            raise ValueError(f"sample {int(np.flatnonzero(total <= 0)[0])} has no trials")
        p = c / total[:, None]
        q = inv / total
        h = -(_xlogx(p).sum(axis=1) + _xlogx(q))
        return np.clip(1.0 - h / np.log(k), 0.0, 1.0)
    if np.any(valid_total + inv <= 0):
        raise ValueError(f"sample {int(np.flatnonzero(valid_total + inv <= 0)[0])} has no trials")
    has = valid_total > 0
    p = np.divide(c, valid_total[:, None], out=np.zeros_like(c), where=has[:, None])
    h = -_xlogx(p).sum(axis=1)
    return np.where(has, np.clip(1.0 - h / np.log(k), 0.0, 1.0), 0.0)


def sample_accuracy(counts: Any, correct: Any, invalid: Any = None, *, accuracy_rule: str = "trial_mean") -> np.ndarray:
    """Per-sample correctness in [0, 1] (Eq. 2 summand); see ``accuracy_rule``.

    ``correct`` are the gold letters (or integer codes, ``A`` = 0).
    """
    _check_choice(accuracy_rule, ACCURACY_RULES, "accuracy_rule")
    c = np.asarray(counts, dtype=np.float64)
    n = c.shape[0]
    gold = np.asarray(correct) if isinstance(correct, np.ndarray) and correct.dtype.kind in "iu" else encode_letters(correct, name="correct")
    if gold.shape != (n,):
        raise ValueError(f"correct must have one entry per sample ({n}), got {gold.shape[0]}")
    if np.any(gold < 0) or (n and gold.max() >= c.shape[1]):
        raise ValueError("every correct letter must be one of the sample's options")
    inv = np.zeros(n) if invalid is None else np.asarray(invalid, dtype=np.float64).reshape(n)
    valid_total = c.sum(axis=1)
    if accuracy_rule == "trial_mean":
        total = valid_total + inv
        if np.any(total <= 0):
            raise ValueError("every sample needs at least one trial")
        return c[np.arange(n), gold.astype(np.intp)] / total
    winner = np.argmax(c, axis=1) if c.shape[1] else np.zeros(n, np.intp)
    return ((winner == gold) & (valid_total > 0)).astype(np.float64)


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


def inter_model_dke_summary(accuracy: Mapping[str, float], shift: Mapping[str, float]) -> dict[str, Any]:
    """Eq. (6) over every ordered pair of models on one dataset.

    Returns the pairs ``[f1, f2]`` satisfying Eq. (6) (``f1`` the less accurate), their
    share among the pairs whose accuracies differ, and Spearman's rho (and p-value)
    between accuracy and Delta_calib across models (``None`` with fewer than 3 models).
    """
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
        from medvigil.scoring.stats import spearman_test  # scipy's spearmanr without importing scipy

        rho, p_value = spearman_test(acc, dc)
    return {
        "pairs": pairs,
        "n_pairs": len(pairs),
        "n_pairs_compared": compared,
        "fraction": len(pairs) / compared if compared else None,
        "spearman_rho": rho,
        "spearman_p": p_value,
    }


def severity_drops(accuracy_by_severity: Mapping[int, float]) -> dict[str, float]:
    """Accuracy drops relative to L0 (Table 6 ``L1-L0`` and ``L2-L0``; negative = worse)."""
    if 0 not in accuracy_by_severity:
        raise ValueError("accuracy at severity 0 (L0, clean) is needed")
    base = accuracy_by_severity[0]
    return {f"L{s}-L0": float(accuracy_by_severity[s]) - float(base) for s in sorted(accuracy_by_severity) if s != 0}


def _stats(conf: np.ndarray, acc: np.ndarray) -> dict[str, float]:
    n = int(acc.size)
    mc = float(conf.mean()) if n else float("nan")
    ma = float(acc.mean()) if n else float("nan")
    return {"n": n, "accuracy": ma, "mean_confidence": mc, "calibration_shift": mc - ma}


def _group_stats(keys: np.ndarray, conf: np.ndarray, acc: np.ndarray) -> dict[Any, dict[str, float]]:
    uniq, inverse = np.unique(keys, return_inverse=True)
    n = np.bincount(inverse, minlength=len(uniq)).astype(np.float64)
    mc = np.bincount(inverse, weights=conf, minlength=len(uniq)) / n
    ma = np.bincount(inverse, weights=acc, minlength=len(uniq)) / n
    return {
        (k.item() if hasattr(k, "item") else k): {
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
    """Per doc, the L0 accuracy of the same item (NaN when the item has no L0 doc).

    Every drop from L0 is paired on items: a degraded doc is compared with the clean doc
    of its own question, never with the mean over all L0 docs (which would mix in other
    questions and, for modality-specific types, other modalities).
    """
    ids = np.asarray([str(i) for i in items], dtype=object).astype(str)
    uniq, inverse = np.unique(ids, return_inverse=True)
    clean = severity == 0
    n0 = np.bincount(inverse[clean], minlength=len(uniq)).astype(np.float64)
    if np.any(n0 > 1):
        raise ValueError(f"item {uniq[int(np.argmax(n0 > 1))]!r} has more than one L0 doc")
    s0 = np.bincount(inverse[clean], weights=acc[clean], minlength=len(uniq))
    base = np.divide(s0, n0, out=np.full(len(uniq), np.nan), where=n0 > 0)
    return base[inverse]


def paired_breakdown(keys: Sequence[Any], severity: np.ndarray, conf: np.ndarray, acc: np.ndarray,
                     base: np.ndarray) -> dict[str, dict[str, Any]]:
    """Accuracy, confidence and Calibration Shift per key at L0 (docs of the key at L0, if
    any), L1, L2 and L1&L2 pooled, and per degraded set the paired drop from L0.

    ``"Lk-L0"`` (negative = worse, the sign of Table 6) is the mean over the key's docs at
    the level whose item has an L0 doc of ``acc(doc) - acc(L0 doc of the item)``;
    ``"n_paired"`` counts those docs and ``"n_unpaired"`` the docs left out (no L0 doc).
    """
    k = np.asarray([str(x) for x in keys], dtype=object).astype(str)
    out: dict[str, dict[str, Any]] = {}
    for key in np.unique(k):
        mine = k == key
        entry: dict[str, Any] = {}
        if np.any(mine & (severity == 0)):
            entry["L0"] = _stats(conf[mine & (severity == 0)], acc[mine & (severity == 0)])
        for name, levels in DEGRADED_SETS.items():
            sel = mine & np.isin(severity, levels)
            if not np.any(sel):
                continue
            paired = sel & ~np.isnan(base)
            drop = float(np.mean(acc[paired] - base[paired])) if np.any(paired) else None
            entry[name] = {**_stats(conf[sel], acc[sel]), f"{name}-L0": drop, "n_paired": int(paired.sum()),
                           "n_unpaired": int((sel & ~paired).sum())}
        out[str(key)] = entry
    return out


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
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
) -> dict[str, Any]:
    """Accuracy, mean confidence and Calibration Shift overall, by severity, by
    degradation and by (degradation, severity); drops from L0; the intra-model DKE flag.

    With ``items`` (the question id of each doc) also the paired breakdowns of
    :func:`paired_breakdown` by degradation type, by category (Table 3), by ``modality``
    (Fig. 7) and by ``capability`` (Table 2; its high-level group from
    :data:`CAPABILITY_GROUPS`), and ``drops_by_degradation`` (Fig. 8a/b) paired on items.
    ``intra_model_dke`` (Eq. 5) is ``None`` unless both L0 and L2 docs are present.
    Samples whose trials are all invalid follow ``all_invalid`` (module docstring);
    with ``"exclude"`` they are left out and counted in ``n_excluded_all_invalid``.
    """
    conf = perceived_confidence(counts, n_options, invalid, invalid_policy=invalid_policy, all_invalid=all_invalid)
    acc = sample_accuracy(counts, correct, invalid, accuracy_rule=accuracy_rule)
    n = conf.shape[0]
    sev = np.asarray(severity, dtype=np.int64).reshape(-1)
    deg = np.asarray([str(d) for d in degradation], dtype=object)
    if sev.shape != (n,) or deg.shape != (n,):
        raise ValueError("degradation and severity need one entry per sample")
    for name, column in (("items", items), ("modality", modality), ("capability", capability)):
        if column is not None and len(column) != n:
            raise ValueError(f"{name} needs one entry per sample ({n}), got {len(column)}")
    if n and not np.isin(sev, SEVERITIES).all():
        raise ValueError(f"severity must be one of {SEVERITIES}, got {sorted(set(sev.tolist()) - set(SEVERITIES))}")
    keep = ~np.isnan(conf)
    excluded = int((~keep).sum())
    if excluded:
        conf, acc, sev, deg = conf[keep], acc[keep], sev[keep], deg[keep]
        items, modality, capability = ([c[i] for i in np.flatnonzero(keep)] if c is not None else None
                                       for c in (items, modality, capability))
        n = int(keep.sum())
    overall = {
        "n": n,
        "accuracy": float(acc.mean()) if n else float("nan"),
        "mean_confidence": float(conf.mean()) if n else float("nan"),
        "calibration_shift": calibration_shift(conf, acc),
    }
    by_sev = _group_stats(sev, conf, acc)
    by_deg = _group_stats(deg.astype(str), conf, acc)
    joint_keys = np.char.add(np.char.add(deg.astype(str), "\x1f"), sev.astype(str))
    joint = {}
    for key, stats in _group_stats(joint_keys, conf, acc).items():
        d, s = str(key).split("\x1f")
        joint.setdefault(d, {})[int(s)] = stats
    drops = severity_drops({s: v["accuracy"] for s, v in by_sev.items()}) if 0 in by_sev else {}
    dke = None
    if 0 in by_sev and 2 in by_sev:
        dke = intra_model_dke(by_sev[0]["accuracy"], by_sev[2]["accuracy"], by_sev[0]["calibration_shift"], by_sev[2]["calibration_shift"])
    out = {
        "overall": overall,
        "by_severity": {f"L{s}": v for s, v in by_sev.items()},
        "by_degradation": by_deg,
        "by_degradation_severity": {d: {f"L{s}": v for s, v in sorted(levels.items())} for d, levels in joint.items()},
        "drops": drops,
        "intra_model_dke": dke,
        "accuracy_rule": accuracy_rule,
        "invalid_policy": invalid_policy,
        "all_invalid": all_invalid,
        "n_excluded_all_invalid": excluded,
    }
    if items is None:
        return out
    base = paired_baseline(items, sev, acc)
    degraded = sev != 0
    by_type = paired_breakdown(deg[degraded], sev[degraded], conf[degraded], acc[degraded], base[degraded])
    out["drops_by_degradation"] = {
        d: {f"{lv}-L0": e[lv][f"{lv}-L0"] for lv in ("L1", "L2") if lv in e} | {"n_paired": sum(e[lv]["n_paired"] for lv in ("L1", "L2") if lv in e)}
        for d, e in by_type.items()
    }
    cat = np.asarray([category_of(d) for d in deg[degraded]], dtype=object)
    out["by_category"] = paired_breakdown(cat, sev[degraded], conf[degraded], acc[degraded], base[degraded])
    out["paired_drops"] = paired_breakdown(np.full(n, "all"), sev, conf, acc, base).get("all", {})
    if modality is not None:
        out["by_modality"] = paired_breakdown([UNLABELLED if m in (None, "") else m for m in modality], sev, conf, acc, base)
    if capability is not None and any(c not in (None, "") for c in capability):
        caps = [UNLABELLED if c in (None, "") else str(c) for c in capability]
        out["by_capability"] = paired_breakdown(caps, sev, conf, acc, base)
        out["by_capability_group"] = paired_breakdown([capability_group(c) for c in caps], sev, conf, acc, base)
    return out


def score_trials(
    trials: Iterable[Sequence[Any]],
    references: Sequence[Any],
    n_options: Any,
    degradations: Sequence[str] | None = None,
    severities: Sequence[int] | None = None,
    *,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
    items: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Calibration Shift of one model from raw trial answers.

    Returns ``n``, ``accuracy``, ``mean_confidence`` and ``calibration_shift`` (Eq. 4)
    over all samples; with ``degradations`` and ``severities`` also the breakdowns of
    :func:`score_groups` (by severity, by degradation, drops, intra-model DKE).

    >>> r = score_trials([list("AAAAAAAABB"), list("AAAAAAAAAA")], ["A", "A"], 4)
    >>> round(r["calibration_shift"], 4), r["accuracy"]
    (-0.0805, 0.9)
    """
    counts, invalid = vote_counts(trials, n_options)
    if (degradations is None) != (severities is None):
        raise ValueError("give both degradations and severities, or neither")
    if degradations is None:
        conf = perceived_confidence(counts, n_options, invalid, invalid_policy=invalid_policy, all_invalid=all_invalid)
        acc = sample_accuracy(counts, references, invalid, accuracy_rule=accuracy_rule)
        keep = ~np.isnan(conf)
        conf, acc = conf[keep], acc[keep]
        n = int(conf.shape[0])
        return {
            "n": n,
            "accuracy": float(acc.mean()) if n else float("nan"),
            "mean_confidence": float(conf.mean()) if n else float("nan"),
            "calibration_shift": calibration_shift(conf, acc),
            "accuracy_rule": accuracy_rule,
            "invalid_policy": invalid_policy,
            "all_invalid": all_invalid,
            "n_excluded_all_invalid": int((~keep).sum()),
        }
    groups = score_groups(
        counts, invalid, n_options, references, degradations, severities, items=items,
        accuracy_rule=accuracy_rule, invalid_policy=invalid_policy, all_invalid=all_invalid,
    )
    return {**groups.pop("overall"), **groups}


def _degradation_of(record: Mapping[str, Any]) -> tuple[str, int]:
    extra = record.get("extra") or {}
    if "severity" in extra:
        sev = extra["severity"]
        if isinstance(sev, str) and sev.upper().startswith("L"):
            sev = sev[1:]
        sev = int(sev)
        deg = extra.get("degradation") or ("clean" if sev == 0 else None)
        if deg is None:
            raise ValueError(f"record {record.get('probe_id')!r}: extra.severity {sev} needs extra.degradation")
        return str(deg), sev
    condition = str(record.get("condition", "default"))
    if condition in CLEAN_NAMES:
        return "clean", 0
    if ":" in condition:
        deg, level = condition.rsplit(":", 1)
        level = level[1:] if level.upper().startswith("L") else level
        if level.isdigit():
            return deg, int(level)
    raise ValueError(
        f"record {record.get('probe_id')!r}: cannot read degradation and severity "
        f"(need extra.degradation + extra.severity, or condition 'type:level'; got {condition!r})"
    )


EXPERIMENTS = ("calibration", "accuracy")  # Section 3.4: T = 10 and T = 3 trials


def _score_model(recs: Sequence[Mapping[str, Any]], n_options: int | None, **rules: str) -> dict[str, Any]:
    trials, ks, gold, degs, sevs, items, mods, caps = [], [], [], [], [], [], [], []
    for r in recs:
        extra = r.get("extra") or {}
        votes = extra.get("votes", [r.get("predicted_letter")])
        if not isinstance(votes, list):
            raise TypeError(f"record {r.get('probe_id')!r}: extra.votes must be a list of letters")
        k = extra.get("n_options", n_options)
        if k is None:
            raise ValueError(f"record {r.get('probe_id')!r}: the number of options is unknown (extra.n_options)")
        d, s = _degradation_of(r)
        trials.append(votes)
        ks.append(int(k))
        gold.append(r["correct_letter"])
        degs.append(d)
        sevs.append(s)
        items.append(extra.get("item_id", r.get("probe_id")))
        mods.append(r.get("modality"))
        caps.append(extra.get("capability"))
    counts, invalid = vote_counts(trials, np.asarray(ks))
    return score_groups(counts, invalid, np.asarray(ks), gold, degs, sevs, items=items, modality=mods, capability=caps, **rules)


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    n_options: int | None = None,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
) -> dict[str, Any]:
    """Score MedQ-Deg probe records, per model, plus the inter-model DKE at each severity.

    Per record: ``extra.votes`` = the ``T`` trial answers (letters or null; default
    ``[predicted_letter]``), ``extra.n_options`` = ``K`` (default the ``n_options``
    argument), ``extra.degradation`` + ``extra.severity`` (0-2) or a ``condition`` of
    the form ``"type:level"`` (``"default"``/``"clean"`` = L0); optional
    ``extra.item_id`` (the question a doc degrades; default ``probe_id``: drops from L0
    pair docs of one item), ``modality`` and ``extra.capability`` (breakdowns), and
    ``extra.experiment``: ``"calibration"`` (default; the T = 10 tasks) or
    ``"accuracy"`` (the T = 3 tasks ``medqdeg_acc_L*``).

    Per model, the scores of its calibration records (or, without any, of its accuracy
    records) are the model's entry; when it has both, the accuracy records' scores are
    under ``"accuracy_experiment"``, and the accuracy tables read them
    (:func:`accuracy_scores`).
    """
    rules = {"accuracy_rule": accuracy_rule, "invalid_policy": invalid_policy, "all_invalid": all_invalid}
    by_model: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for record in records:
        if record.get("suite") != "medqdeg":
            raise ValueError(f"record {record.get('probe_id')!r} has suite {record.get('suite')!r}, not 'medqdeg'")
        experiment = (record.get("extra") or {}).get("experiment", "calibration")
        if experiment not in EXPERIMENTS:
            raise ValueError(f"record {record.get('probe_id')!r}: extra.experiment must be one of {EXPERIMENTS}, got {experiment!r}")
        by_model.setdefault(str(record["model"]), {}).setdefault(experiment, []).append(record)
    models = {}
    for model, parts in by_model.items():
        main = "calibration" if "calibration" in parts else "accuracy"
        models[model] = {**_score_model(parts[main], n_options, **rules), "experiment": main}
        if main == "calibration" and "accuracy" in parts:
            models[model]["accuracy_experiment"] = {**_score_model(parts["accuracy"], n_options, **rules), "experiment": "accuracy"}
    inter = {}
    for level in ("L0", "L1", "L2"):
        present = {m: s["by_severity"][level] for m, s in models.items() if level in s["by_severity"]}
        if len(present) >= 2:
            inter[level] = inter_model_dke_summary(
                {m: v["accuracy"] for m, v in present.items()}, {m: v["calibration_shift"] for m, v in present.items()}
            )
    return {"models": models, "inter_model_dke": inter}


def accuracy_scores(model: Mapping[str, Any]) -> Mapping[str, Any]:
    """The scores the accuracy tables read: the T = 3 accuracy experiment when the model
    has one, else its main scores."""
    return model.get("accuracy_experiment") or model
