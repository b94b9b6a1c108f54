"""MedQ-Deg scoring entry points: raw trial answers or probe records to accuracy, perceived
confidence, Calibration Shift and the Dunning-Kruger flags (Liu et al., seed 002, Section 3.4).

Eqs. (2)-(3) and the choices for invalid trials are in
:mod:`~medvigil.suites.medqdeg.sample_scores`, Eqs. (4)-(6) in
:mod:`~medvigil.suites.medqdeg.calibration`, the breakdowns and paired drops from L0 in
:mod:`~medvigil.suites.medqdeg.breakdowns`. Section 3.4 runs ``T = 3`` trials for the accuracy
experiment and ``T = 10`` for the calibration one; records say which (``extra.experiment``) and
:func:`score_records` scores them apart.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.scoring.confidence import confidence_summary
from medvigil.suites.medqdeg.breakdowns import score_groups
from medvigil.suites.medqdeg.calibration import calibration_shift, inter_model_dke_summary
from medvigil.suites.medqdeg.sample_scores import perceived_confidence, sample_accuracy, vote_counts

__all__ = ["accuracy_scores", "score_records", "score_trials"]

CLEAN_NAMES = ("clean", "none", "default", "L0", "")


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
    """Calibration Shift of one model from raw trial answers: ``n``, ``accuracy``,
    ``mean_confidence`` and ``calibration_shift`` (Eq. 4); with ``degradations`` and ``severities``
    also :func:`score_groups`'s breakdowns.

    >>> r = score_trials([list("AAAAAAAABB"), list("AAAAAAAAAA")], ["A", "A"], 4)
    >>> round(r["calibration_shift"], 4), r["accuracy"]
    (-0.0805, 0.9)
    """
    counts, invalid = vote_counts(trials, n_options)
    if (degradations is None) != (severities is None):
        raise ValueError("give both degradations and severities, or neither")
    if degradations is None:
        conf = perceived_confidence(
            counts, n_options, invalid, invalid_policy=invalid_policy, all_invalid=all_invalid
        )
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
        counts,
        invalid,
        n_options,
        references,
        degradations,
        severities,
        items=items,
        accuracy_rule=accuracy_rule,
        invalid_policy=invalid_policy,
        all_invalid=all_invalid,
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
            raise ValueError(
                f"record {record.get('probe_id')!r}: extra.severity {sev} needs extra.degradation"
            )
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


def _score_model(
    recs: Sequence[Mapping[str, Any]], n_options: int | None, **rules: str
) -> dict[str, Any]:
    counts, invalid, ks, gold, degs, sevs, items, mods, caps = record_columns(recs, n_options)
    sources = [(r.get("extra") or {}).get("source") for r in recs]  # MedQ-DEG-Bench rows name one
    labels = {"source": sources} if any(s is not None for s in sources) else None
    scores = score_groups(
        counts,
        invalid,
        ks,
        gold,
        degs,
        sevs,
        items=items,
        modality=mods,
        capability=caps,
        labels=labels,
        **rules,
    )
    scores["confidence_metrics"] = vote_confidence_metrics(counts, invalid, ks, gold, **rules)
    return scores


def vote_confidence_metrics(
    counts: Any, invalid: Any, n_options: Any, gold: Any, **rules: str
) -> dict[str, Any] | None:
    """Calibration (ECE, MCE, Brier) and selective risk (AURC, e-AURC) of the trial votes
    (:func:`medvigil.scoring.confidence.confidence_summary`): the confidence is the perceived
    confidence C(x) (Eq. 3, under ``invalid_policy`` / ``all_invalid``), the answer the plurality of
    the valid votes (ties to the lowest letter; no valid vote is wrong). Samples ``all_invalid``
    leaves out (``"exclude"``) are counted in ``n_excluded``; None without a sample."""
    conf = perceived_confidence(
        counts,
        n_options,
        invalid,
        invalid_policy=rules.get("invalid_policy", "extra_bin"),
        all_invalid=rules.get("all_invalid", "zero"),
    )
    right = sample_accuracy(counts, gold, invalid, accuracy_rule="plurality")
    kept = np.isfinite(conf)
    if not kept.any():
        return None
    summary = confidence_summary(conf[kept].tolist(), right[kept].astype(int).tolist())
    return {
        "confidence": "perceived (Eq. 3)",
        "answer": "plurality",
        "n_excluded": int((~kept).sum()),
        **summary,
    }


def record_columns(recs: Sequence[Mapping[str, Any]], n_options: int | None) -> tuple:
    """One model's records as :func:`score_groups`'s columns (counts, invalid, K, gold, degradation,
    severity, item, modality, capability; fields as :func:`score_records`)."""
    trials, ks, gold, degs, sevs, items, mods, caps = [], [], [], [], [], [], [], []
    for r in recs:
        extra = r.get("extra") or {}
        votes = extra["votes"] if "votes" in extra else [r.get("predicted_letter")]
        if not isinstance(votes, list):
            raise TypeError(f"record {r.get('probe_id')!r}: extra.votes must be a list of letters")
        k = extra.get("n_options", n_options)
        if k is None:
            raise ValueError(
                f"record {r.get('probe_id')!r}: the number of options is unknown (extra.n_options)"
            )
        sev, deg = extra.get("severity"), extra.get("degradation")
        if (
            type(sev) is not int or type(deg) is not str or not deg
        ):  # (our task pack's records: read as they are)
            deg, sev = _degradation_of(r)
        trials.append(votes)
        ks.append(k if type(k) is int else int(k))
        gold.append(r["correct_letter"])
        degs.append(deg)
        sevs.append(sev)
        items.append(extra["item_id"] if "item_id" in extra else r.get("probe_id"))
        mods.append(r.get("modality"))
        caps.append(extra.get("capability"))
    counts, invalid = vote_counts(trials, np.asarray(ks))
    return counts, invalid, np.asarray(ks), gold, degs, sevs, items, mods, caps


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    n_options: int | None = None,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
) -> dict[str, Any]:
    """Score MedQ-Deg probe records, per model, plus the inter-model DKE at each severity.

    Per record: ``extra.votes``, the ``T`` trial answers (letters or null; default
    ``[predicted_letter]``), ``extra.n_options`` = ``K`` (default ``n_options``),
    ``extra.degradation`` + ``extra.severity`` (0-2) or a ``condition`` ``"type:level"``
    (``"default"``/``"clean"`` = L0); optional ``extra.item_id`` (the question a doc degrades,
    default ``probe_id``: drops from L0 pair docs of one item), ``modality`` and
    ``extra.capability`` (breakdowns), and ``extra.experiment``: ``"calibration"`` (default; T = 10)
    or ``"accuracy"`` (T = 3, ``medqdeg_acc_L*``). A model's entry scores its calibration records
    (or, without any, its accuracy records); with both, the accuracy records' scores are under
    ``"accuracy_experiment"``, which the accuracy tables read (:func:`accuracy_scores`).
    """
    rules = {
        "accuracy_rule": accuracy_rule,
        "invalid_policy": invalid_policy,
        "all_invalid": all_invalid,
    }
    by_model: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for record in records:
        if record.get("suite") != "medqdeg":
            raise ValueError(
                f"record {record.get('probe_id')!r} has suite "
                f"{record.get('suite')!r}, not 'medqdeg'"
            )
        experiment = (record.get("extra") or {}).get("experiment", "calibration")
        if experiment not in EXPERIMENTS:
            raise ValueError(
                f"record {record.get('probe_id')!r}: extra.experiment "
                f"must be one of {EXPERIMENTS}, got {experiment!r}"
            )
        by_model.setdefault(str(record["model"]), {}).setdefault(experiment, []).append(record)
    models = {}
    for model, parts in by_model.items():
        main = "calibration" if "calibration" in parts else "accuracy"
        models[model] = {**_score_model(parts[main], n_options, **rules), "experiment": main}
        if main == "calibration" and "accuracy" in parts:
            models[model]["accuracy_experiment"] = {
                **_score_model(parts["accuracy"], n_options, **rules),
                "experiment": "accuracy",
            }
    return {"models": models, "inter_model_dke": _inter_model_dke(models)}


def _inter_model_dke(models: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The inter-model DKE summary at each severity that at least two models were scored at."""
    inter = {}
    for level in ("L0", "L1", "L2"):
        present = {
            m: s["by_severity"][level] for m, s in models.items() if level in s["by_severity"]
        }
        if len(present) >= 2:
            inter[level] = inter_model_dke_summary(
                {m: v["accuracy"] for m, v in present.items()},
                {m: v["calibration_shift"] for m, v in present.items()},
            )
    return inter


def accuracy_scores(model: Mapping[str, Any]) -> Mapping[str, Any]:
    """The scores the accuracy tables read: the T = 3 accuracy experiment if any, else the main
    scores."""
    return model.get("accuracy_experiment") or model
