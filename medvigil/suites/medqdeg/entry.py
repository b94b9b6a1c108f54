"""MedQ-Deg in the suite registry: score lmms-eval logs of the ``medqdeg_L0/L1/L2`` tasks.

The records carry the gold, the degradation and the trial answers, so no release is read;
scored by :func:`medvigil.suites.medqdeg.scoring.score_records`.
"""

from collections.abc import Mapping
from functools import partial
from typing import Any

from medvigil.records.suite_logs import (
    find_samples,
    n_records,
    result_models,
    score_logs,
    table_text,
)
from medvigil.suites import stress
from medvigil.suites.medqdeg.compare import compare
from medvigil.suites.medqdeg.scoring import score_records
from medvigil.suites.medqdeg.tables import medqdeg_figures as figures
from medvigil.suites.medqdeg.tables import medqdeg_tables as tables

__all__ = [
    "headline",
    "compare",
    "figures",
    "format_table",
    "models",
    "n_scored",
    "score",
    "tables",
]

TASKS = r"medqdeg_(acc_)?L[0-2](_reasoning)?"  # _reasoning: the 4096-token variants (tasks/task_yaml.py)
DEFAULTS = {"accuracy_rule": "trial_mean", "invalid_policy": "extra_bin", "all_invalid": "zero"}


def record_key(record: Mapping[str, Any]) -> tuple:
    """L1/L2 ask one probe once per degradation type (and experiment)."""
    extra = record.get("extra") or {}
    return (
        record["model"],
        record.get("condition"),
        record["probe_id"],
        extra.get("degradation"),
        extra.get("experiment"),
    )


def score(files: list[str], *, release: None = None, **options: Any) -> dict[str, Any]:
    """Find, read and score the logs; ``options``: accuracy_rule, invalid_policy, all_invalid."""
    settings = stress.settings("medqdeg", options, DEFAULTS)
    return score_logs(
        "medqdeg",
        find_samples(files, "medqdeg", TASKS),
        [],
        lambda records: score_records(records, **settings),
        options,
        key=record_key,
    )


format_table = partial(table_text, tables=tables)
n_scored = n_records
models = result_models


def headline(result: dict) -> list[dict]:
    """The report summary's number per model: the Calibration Shift over every level (pp; mean
    confidence minus accuracy), no CI."""
    out = []
    for model, block in sorted((result.get("models") or {}).items()):
        shift = (block.get("overall") or {}).get("calibration_shift")
        value = None if shift is None else 100.0 * shift
        out.append({"model": model, "metric": "Calibration Shift (pp)", "value": value, "ci": None})
    return out
