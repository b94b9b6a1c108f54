"""Consistent but Dangerous in the suite registry: score lmms-eval logs of the ``cbd_*`` tasks.

Tasks ``cbd_image`` + ``cbd_noimg``, or ``cbd_quadrants`` (both arms in one task), and
``cbd_binary``. One lmms-eval run of ``--tasks cbd,cbd_quadrants`` logs every probe twice (once
in the arm task, once in ``cbd_quadrants``): from such a run only ``cbd_quadrants`` is read and
the arm files are listed as skipped. The records carry the gold, so no release is read; scored
by :func:`medvigil.suites.cbd.protocol.suite_result`.
"""

from functools import partial
from pathlib import Path
from typing import Any

from medvigil.records.suite_logs import (
    find_samples,
    n_records,
    result_models,
    run_of,
    score_logs,
    table_text,
)
from medvigil.runs.lmms_run import run_limit, task_of
from medvigil.suites import stress
from medvigil.suites.cbd.compare import compare
from medvigil.suites.cbd.protocol import suite_result
from medvigil.suites.cbd.tables import cbd_figures as figures
from medvigil.suites.cbd.tables import cbd_tables as tables
from medvigil.task_pack import reasoning_base, reasoning_name

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

# _reasoning: the 4096-token variants (tasks/task_yaml.py)
TASKS = r"cbd_(image|noimg|quadrants|binary|binary_proposed)(_reasoning)?"
BOTH_ARMS = "cbd_quadrants"
ARM_TASKS = ("cbd_image", "cbd_noimg")  # what cbd_quadrants repeats (cbd_binary is another arm)
DEFAULTS = {"invalid": "exclude", "n_resamples": 1000, "seed": 0}


def without_repeated_arms(files: list[Path]) -> tuple[list[Path], list[dict[str, str]]]:
    """Drop the arm files of runs that also logged ``cbd_quadrants``; the skipped files with the
    reason."""

    # a reasoning variant's arms are repeated by the same run's cbd_quadrants_reasoning
    def base(p: Path) -> tuple[str | None, bool]:
        task = task_of(p)
        return (reasoning_base(task) or task), reasoning_base(task) is not None

    runs_with_both = {(run_of(p), base(p)[1]) for p in files if base(p)[0] == BOTH_ARMS}
    kept, skipped = [], []
    for p in files:
        task, reasoning = base(p)
        if task in ARM_TASKS and (run_of(p), reasoning) in runs_with_both:
            both = reasoning_name(BOTH_ARMS) if reasoning else BOTH_ARMS
            skipped.append({"file": str(p), "reason": f"same run's {both} log holds these probes"})
        else:
            kept.append(p)
    return kept, skipped


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
