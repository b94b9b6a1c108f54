"""Consistent but Dangerous in the suite registry: score lmms-eval logs of the ``cbd_*`` tasks.

Which logs are read: :mod:`medvigil.suites.cbd.logs`. The records carry the gold, so no release is
read; scored by :func:`medvigil.suites.cbd.result.suite_result`.
"""

from functools import partial
from typing import Any

from medvigil.records.suite_logs import (
    find_samples,
    n_records,
    result_models,
    score_logs,
    table_text,
)
from medvigil.runs.lmms_run import run_limit
from medvigil.suites import stress
from medvigil.suites.cbd.compare import compare
from medvigil.suites.cbd.figures import cbd_figures as figures
from medvigil.suites.cbd.logs import TASKS, without_repeated_arms
from medvigil.suites.cbd.result import suite_result
from medvigil.suites.cbd.tables import cbd_tables as tables

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

DEFAULTS = {"invalid": "exclude", "n_resamples": 1000, "seed": 0}


def score(files: list[str], *, release: None = None, **options: Any) -> dict[str, Any]:
    """Find, read and score the logs; ``options``: invalid (exclude | as_answer), n_resamples,
    seed."""
    settings = stress.settings("cbd", options, DEFAULTS)
    kept, skipped = without_repeated_arms(find_samples(files, "cbd", TASKS))
    # runs cut by lmms-eval's --limit: the cases the limit cut are left out and counted
    limited = bool(kept) and all(run_limit(path) is not None for path in kept)
    incomplete = "drop" if limited else "error"
    return score_logs(
        "cbd",
        kept,
        skipped,
        lambda records: suite_result(records, **settings, incomplete=incomplete),
        options,
    )


format_table = partial(table_text, tables=tables)
n_scored = n_records
models = result_models


def headline(result: dict) -> list[dict]:
    """The report summary's number per model (and arm): the Dangerous fraction (%; consistent
    across paraphrases while ignoring the image) with its bootstrap CI."""
    out = []
    for model, block in sorted((result.get("models") or {}).items()):
        ci = (block.get("ci") or {}).get("dangerous_fraction") or {}
        value, low, high = (
            None if v is None else 100.0 * v
            for v in (block.get("dangerous_fraction"), ci.get("low"), ci.get("high"))
        )
        pair = [low, high] if low is not None and high is not None else None
        out.append({"model": model, "metric": "Dangerous (%)", "value": value, "ci": pair})
    return out
