"""Paired comparison of pressure-suite models: the four rates (``medvigil compare``).

The logs are found and read as ``medvigil score --suite pressure`` reads them. Each case
contributes its ``[hits, answered, unparsed]`` per rate
(:func:`medvigil.suites.pressure.scoring.case_sums`); a rate is a ratio of sums, so a resample
of cases is scored like the whole. Deltas are in the rates' unit (fractions in [0, 1]).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from medvigil.records.suite_logs import find_samples, read_suite_records
from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES, UnitSums
from medvigil.suites.pressure.protocol import RATES, TASKS
from medvigil.suites.pressure.scoring import case_sums, check, rates
from medvigil.suites.stress import check_metrics, compare_records


def compare(
    files: list[str],
    *,
    release: None = None,
    metrics: Sequence[str] = RATES,
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = 0,
    p_value: str = "normal",
) -> dict[str, Any]:
    """Every pair of models' rates (module docstring); ``metrics`` among the four rates."""
    check_metrics("pressure", metrics, RATES)
    paths = find_samples(files, "pressure", TASKS)
    records = check(read_suite_records(paths, "pressure"))
    by_model: dict[str, list] = {}
    for r in records:
        by_model.setdefault(str(r["model"]), []).append(r)
    result = compare_records(
        by_model,
        lambda r: (str(r["case_id"]), r["condition"], r["probe_id"]),
        lambda recs, model, whole: UnitSums(*_flat(case_sums(recs)), _statistic),
        metrics,
        n_resamples=n_resamples,
        seed=seed,
        p_value=p_value,
    )
    result["params"].update(unit="fraction")
    return {
        "suite": "pressure",
        **result,
        "inputs": {
            "files": [str(p) for p in paths],
            "skipped_files": [],
            "n_records": len(records),
        },
    }


def _flat(found: tuple[list[str], np.ndarray]) -> tuple[list[str], np.ndarray]:
    ids, sums = found
    return ids, sums.reshape(len(ids), -1)


def _statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    values = rates(sums.reshape(*sums.shape[:-1], len(RATES), 3))
    return {name: values[..., k] for k, name in enumerate(RATES)}
