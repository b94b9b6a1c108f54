"""The pressure suite in the suite registry: score lmms-eval logs of the ``pressure_*`` tasks.

The records carry the gold, the pre-filled answer and the suggestion, so no release is read;
scored by :func:`medvigil.suites.pressure.scoring.score_models`.
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
from medvigil.suites import stress
from medvigil.suites.pressure.compare import compare
from medvigil.suites.pressure.protocol import TASKS
from medvigil.suites.pressure.scoring import score_models
from medvigil.suites.pressure.tables import pressure_figures as figures
from medvigil.suites.pressure.tables import pressure_tables as tables

__all__ = ["compare", "figures", "format_table", "models", "n_scored", "score", "tables"]

DEFAULTS = {"n_resamples": 1000, "seed": 0}


def score(files: list[str], *, release: None = None, **options: Any) -> dict[str, Any]:
    """Find, read and score the logs; ``options``: n_resamples, seed (the case-clustered
    bootstrap)."""
    settings = stress.settings("pressure", options, DEFAULTS)
    return score_logs(
        "pressure",
        find_samples(files, "pressure", TASKS),
        [],
        lambda records: {"models": score_models(records, **settings), "params": settings},
        options,
    )


format_table = partial(table_text, tables=tables)
n_scored = n_records
models = result_models
