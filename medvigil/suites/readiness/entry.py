"""Illusion of Readiness in the suite registry: score lmms-eval logs of the ``readiness_*`` tasks.

The records carry the gold and the arm, so no release is read; scored by
:func:`medvigil.suites.readiness.records.readiness_from_records` (T1-T5 and R(m); T6 measures).
"""

import sys
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
from medvigil.suites.readiness.compare import compare
from medvigil.suites.readiness.gold_letters import gold_letter_warnings
from medvigil.suites.readiness.records import TASKS, readiness_from_records
from medvigil.suites.readiness.tables import readiness_figures as figures
from medvigil.suites.readiness.tables import readiness_tables as tables

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

DEFAULTS = {"allow_partial": False}


def score(files: list[str], *, release: None = None, **options: Any) -> dict[str, Any]:
    """Find, read and score the logs; ``options``: allow_partial (R(m) over the tests present).
    ``warnings`` (also printed on stderr): arms whose gold letters are degenerate
    (:mod:`medvigil.suites.readiness.gold_letters`)."""
    settings = stress.settings("readiness", options, DEFAULTS)
    result = score_logs(
        "readiness",
        find_samples(files, "readiness", TASKS),
        [],
        lambda records: {
            "models": readiness_from_records(records, **settings),
            "warnings": gold_letter_warnings(records),
        },
        options,
    )
    for warning in result["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    return result


format_table = partial(table_text, tables=tables)
n_scored = n_records
models = result_models


def headline(result: dict) -> list[dict]:
    """The report summary's number per model: R(m) (%; robustness over T1-T5), no CI."""
    out = []
    for model, block in sorted((result.get("models") or {}).items()):
        value = None if block.get("R") is None else 100.0 * block["R"]
        out.append({"model": model, "metric": "R(m) (%)", "value": value, "ci": None})
    return out
