"""MedQ-Deg in the suite registry: score lmms-eval logs of the ``medqdeg_L0/L1/L2`` tasks.

The records carry the gold, the degradation and the trial answers, so no release is read;
scored by :func:`medvigil.suites.medqdeg.scoring.score_records`.
"""

from collections.abc import Mapping
from typing import Any

from medvigil.records.suite_logs import (
    find_samples,
    n_records,
    result_models,
    score_logs,
    table_text,
)
from medvigil.suites import stress
from medvigil.suites.medqdeg import bench_vlmevalkit
from medvigil.suites.medqdeg.compare import compare
from medvigil.suites.medqdeg.records import TASKS, record_key
from medvigil.suites.medqdeg.scoring import score_records
from medvigil.suites.medqdeg.tables import medqdeg_figures, medqdeg_tables

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

DEFAULTS = {"accuracy_rule": "trial_mean", "invalid_policy": "extra_bin", "all_invalid": "zero"}


def score(
    files: list[str], *, release: None = None, vlmevalkit: bool = False, **options: Any
) -> dict[str, Any]:
    """Find, read and score the logs; ``options``: accuracy_rule, invalid_policy, all_invalid.
    ``vlmevalkit``: the files are VLMEvalKit prediction files of MedQ-DEG-Bench
    (:mod:`medvigil.suites.medqdeg.bench_vlmevalkit`)."""
    settings = stress.settings("medqdeg", options, DEFAULTS)
    if vlmevalkit:
        return bench_vlmevalkit.score(files, **settings)
    return score_logs(
        "medqdeg",
        find_samples(files, "medqdeg", TASKS),
        [],
        lambda records: score_records(records, **settings),
        options,
        key=record_key,
    )


def tables(result: Mapping[str, Any]) -> list:
    """The report's MedQ-Deg tables (VLMEvalKit prediction files: theirs)."""
    if result.get("source") == "vlmevalkit":
        return bench_vlmevalkit.tables(result)
    return medqdeg_tables(result)


def figures(result: Mapping[str, Any]) -> dict:
    """The report's MedQ-Deg figures (VLMEvalKit prediction files: those of the calibrated
    models)."""
    if result.get("source") == "vlmevalkit":
        return medqdeg_figures(bench_vlmevalkit.calibrated(result))
    return medqdeg_figures(result)


def format_table(result: Mapping[str, Any]) -> str:
    """The tables ``medvigil score`` prints (VLMEvalKit prediction files: their own)."""
    if result.get("source") == "vlmevalkit":
        return bench_vlmevalkit.table_text(result)
    return table_text(result, tables=tables)


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
