"""Paired comparison of MedQ-Deg models: the accuracy drop from L0 (``medvigil compare``).

The logs are found and read as ``medvigil score --suite medqdeg`` reads them. A model's drop is
the one its accuracy tables print (:func:`medvigil.suites.medqdeg.scoring.accuracy_scores`: the
T = 3 accuracy experiment when the model has one, else its main records): per degraded doc whose
item has an L0 doc, ``acc(doc) - acc(L0 doc of the item)``, averaged over the docs at L1, L2 or
both (:func:`medvigil.suites.medqdeg.breakdowns.paired_breakdown`; negative = worse), in
percentage points; ``accuracy_l0`` is the L0 accuracy. Accuracy follows ``accuracy_rule`` and
samples with no valid trial follow ``all_invalid`` as in ``score``. Each item (the question a doc
degrades) contributes the sums of those differences and their counts, so an item resample is
scored like the whole.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.records.suite_logs import find_samples, read_suite_records
from medvigil.scoring.categorical import factorize
from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES, UnitSums
from medvigil.suites.medqdeg.breakdowns import paired_baseline
from medvigil.suites.medqdeg.records import TASKS, record_key
from medvigil.suites.medqdeg.sample_scores import perceived_confidence, sample_accuracy
from medvigil.suites.medqdeg.scoring import EXPERIMENTS, record_columns
from medvigil.suites.stress import check_metrics, compare_records

METRICS = ("drop_l12", "drop_l1", "drop_l2", "accuracy_l0")
DEFAULT_METRICS = ("drop_l12", "drop_l1", "drop_l2")


def compare(
    files: list[str],
    *,
    release: None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    accuracy_rule: str = "trial_mean",
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = 0,
    p_value: str = "normal",
) -> dict[str, Any]:
    """Every pair of models' accuracy drops (module docstring); ``metrics`` among
    :data:`METRICS`."""
    check_metrics("medqdeg", metrics, METRICS)
    records = read_suite_records(find_samples(files, "medqdeg", TASKS), "medqdeg", key=record_key)
    by_model: dict[str, dict[str, list]] = {}
    for r in records:
        experiment = (r.get("extra") or {}).get("experiment", "calibration")
        if experiment not in EXPERIMENTS:
            raise ValueError(
                f"record {r.get('probe_id')!r}: extra.experiment must "
                f"be one of {EXPERIMENTS}, got {experiment!r}"
            )
        by_model.setdefault(str(r["model"]), {}).setdefault(experiment, []).append(r)
    # the accuracy tables' records: the accuracy experiment when the model has one
    chosen = {m: parts.get("accuracy") or parts["calibration"] for m, parts in by_model.items()}
    rules = {
        "accuracy_rule": accuracy_rule,
        "invalid_policy": invalid_policy,
        "all_invalid": all_invalid,
    }
    result = compare_records(
        chosen,
        lambda r: record_key(r)[1:],
        lambda recs, model, whole: UnitSums(*item_sums(recs, **rules), drops),
        metrics,
        n_resamples=n_resamples,
        seed=seed,
        p_value=p_value,
    )
    result["params"].update(
        rules,
        unit="percentage points",
        experiment={
            m: "accuracy" if "accuracy" in by_model[m] else "calibration" for m in sorted(chosen)
        },
    )
    return {
        "suite": "medqdeg",
        **result,
        "inputs": {"files": [str(f) for f in files], "n_records": len(records)},
    }


def item_sums(
    records: Sequence[Mapping[str, Any]],
    *,
    accuracy_rule: str,
    invalid_policy: str,
    all_invalid: str,
) -> tuple[list[str], np.ndarray]:
    """Item ids and their ``(items, 6)`` sums: per L1 and L2 the summed paired differences
    ``acc - acc(L0 doc)`` and their count, then the L0 accuracy sum and count."""
    counts, invalid, ks, gold, _, sevs, items, _, _ = record_columns(records, None)
    conf = perceived_confidence(
        counts, ks, invalid, invalid_policy=invalid_policy, all_invalid=all_invalid
    )
    acc = sample_accuracy(counts, gold, invalid, accuracy_rule=accuracy_rule)
    keep = np.flatnonzero(
        ~np.isnan(conf)
    )  # all_invalid="exclude" leaves samples out, as score does
    sev, acc = np.asarray(sevs, dtype=np.int64)[keep], acc[keep]
    items = [str(items[i]) for i in keep]
    base = paired_baseline(items, sev, acc)
    item = factorize(items)
    n = len(item.levels)
    columns = []
    for level in (1, 2):
        sel = (sev == level) & ~np.isnan(base)
        columns += [
            np.bincount(item.codes[sel], weights=(acc - base)[sel], minlength=n),
            np.bincount(item.codes[sel], minlength=n),
        ]
    clean = sev == 0
    columns += [
        np.bincount(item.codes[clean], weights=acc[clean], minlength=n),
        np.bincount(item.codes[clean], minlength=n),
    ]
    return list(item.levels), np.column_stack(columns).astype(np.float64)


def drops(sums: np.ndarray) -> dict[str, np.ndarray]:
    """The drops and L0 accuracy in percent from ``(..., 6)`` item sums (NaN when a level has no
    doc)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "drop_l1": 100.0 * sums[..., 0] / sums[..., 1],
            "drop_l2": 100.0 * sums[..., 2] / sums[..., 3],
            "drop_l12": 100.0 * (sums[..., 0] + sums[..., 2]) / (sums[..., 1] + sums[..., 3]),
            "accuracy_l0": 100.0 * sums[..., 4] / sums[..., 5],
        }
