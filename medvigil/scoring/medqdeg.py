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

Choices where the paper is silent (project spec ``medqdeg-degradations.md``; each is a
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
  unanswerable); ``"drop"`` renormalises ``p`` over the valid trials (no valid trial:
  ``C = 0``). Without invalid trials both equal Eq. (3).
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

from medvigil.scoring.mediconfusion import encode_letters

__all__ = [
    "ACCURACY_RULES",
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
SEVERITIES = (0, 1, 2)  # L0 (clean), L1 (mild), L2 (severe)
CLEAN_NAMES = ("clean", "none", "default", "L0", "")


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
    counts: Any, n_options: Any, invalid: Any = None, *, invalid_policy: str = "extra_bin"
) -> np.ndarray:
    """Eq. (3): ``C(x) = 1 - H(x) / log K`` per sample, from vote counts.

    ``counts`` is (n, K_max) votes per option, ``invalid`` the invalid trials per
    sample (default none). See the module docstring for ``invalid_policy``.
    """
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


def score_groups(
    counts: Any,
    invalid: Any,
    n_options: Any,
    correct: Any,
    degradation: Sequence[str],
    severity: Sequence[int],
    *,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
) -> dict[str, Any]:
    """Accuracy, mean confidence and Calibration Shift overall, by severity, by
    degradation and by (degradation, severity); drops from L0; the intra-model DKE flag.

    Per-degradation drops compare with that degradation's own L0 samples when there are
    any, else with all L0 samples. ``intra_model_dke`` (Eq. 5) is ``None`` unless both
    L0 and L2 samples are present.
    """
    conf = perceived_confidence(counts, n_options, invalid, invalid_policy=invalid_policy)
    acc = sample_accuracy(counts, correct, invalid, accuracy_rule=accuracy_rule)
    n = conf.shape[0]
    sev = np.asarray(severity, dtype=np.int64).reshape(-1)
    deg = np.asarray([str(d) for d in degradation], dtype=object)
    if sev.shape != (n,) or deg.shape != (n,):
        raise ValueError("degradation and severity need one entry per sample")
    if n and not np.isin(sev, SEVERITIES).all():
        raise ValueError(f"severity must be one of {SEVERITIES}, got {sorted(set(sev.tolist()) - set(SEVERITIES))}")
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
    deg_drops = {}
    for d, levels in joint.items():
        base = levels.get(0, by_sev.get(0))
        if base is not None and any(s != 0 for s in levels):
            deg_drops[d] = severity_drops({0: base["accuracy"], **{s: v["accuracy"] for s, v in levels.items() if s != 0}})
    dke = None
    if 0 in by_sev and 2 in by_sev:
        dke = intra_model_dke(by_sev[0]["accuracy"], by_sev[2]["accuracy"], by_sev[0]["calibration_shift"], by_sev[2]["calibration_shift"])
    return {
        "overall": overall,
        "by_severity": {f"L{s}": v for s, v in by_sev.items()},
        "by_degradation": by_deg,
        "by_degradation_severity": {d: {f"L{s}": v for s, v in sorted(levels.items())} for d, levels in joint.items()},
        "drops": drops,
        "drops_by_degradation": deg_drops,
        "intra_model_dke": dke,
        "accuracy_rule": accuracy_rule,
        "invalid_policy": invalid_policy,
    }


def score_trials(
    trials: Iterable[Sequence[Any]],
    references: Sequence[Any],
    n_options: Any,
    degradations: Sequence[str] | None = None,
    severities: Sequence[int] | None = None,
    *,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
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
        conf = perceived_confidence(counts, n_options, invalid, invalid_policy=invalid_policy)
        acc = sample_accuracy(counts, references, invalid, accuracy_rule=accuracy_rule)
        n = int(conf.shape[0])
        return {
            "n": n,
            "accuracy": float(acc.mean()) if n else float("nan"),
            "mean_confidence": float(conf.mean()) if n else float("nan"),
            "calibration_shift": calibration_shift(conf, acc),
            "accuracy_rule": accuracy_rule,
            "invalid_policy": invalid_policy,
        }
    groups = score_groups(
        counts, invalid, n_options, references, degradations, severities,
        accuracy_rule=accuracy_rule, invalid_policy=invalid_policy,
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


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    n_options: int | None = None,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
) -> dict[str, Any]:
    """Score MedQ-Deg probe records, per model, plus the inter-model DKE at each severity.

    Per record: ``extra.votes`` = the ``T`` trial answers (letters or null; default
    ``[predicted_letter]``), ``extra.n_options`` = ``K`` (default the ``n_options``
    argument), ``extra.degradation`` + ``extra.severity`` (0-2) or a ``condition`` of
    the form ``"type:level"`` (``"default"``/``"clean"`` = L0).
    """
    by_model: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        if record.get("suite") != "medqdeg":
            raise ValueError(f"record {record.get('probe_id')!r} has suite {record.get('suite')!r}, not 'medqdeg'")
        by_model.setdefault(str(record["model"]), []).append(record)
    models = {}
    for model, recs in by_model.items():
        trials, ks, gold, degs, sevs = [], [], [], [], []
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
        counts, invalid = vote_counts(trials, np.asarray(ks))
        models[model] = score_groups(
            counts, invalid, np.asarray(ks), gold, degs, sevs, accuracy_rule=accuracy_rule, invalid_policy=invalid_policy
        )
    inter = {}
    for level in ("L0", "L1", "L2"):
        present = {m: s["by_severity"][level] for m, s in models.items() if level in s["by_severity"]}
        if len(present) >= 2:
            inter[level] = inter_model_dke_summary(
                {m: v["accuracy"] for m, v in present.items()}, {m: v["calibration_shift"] for m, v in present.items()}
            )
    return {"models": models, "inter_model_dke": inter}
