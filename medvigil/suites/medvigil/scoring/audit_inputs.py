"""What an audit reads: records as a :class:`RecordTable`, its parameters checked, and the rows of
one condition."""

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from medvigil.errors import DataError, Problem
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.scoring.axes import NORMALISE_CHOICES, check_weights

__all__ = ["Records", "as_table", "check_params", "condition_table", "records_table"]

Records = RecordTable | Iterable[Mapping[str, Any]]


def records_table(records: Any) -> RecordTable | None:
    """The ``table`` of a reader's columnar result, or None."""
    table = getattr(records, "table", None)
    return table if isinstance(table, RecordTable) else None


def as_table(records: Records, source: str = "<records>") -> RecordTable:
    """``records`` as a :class:`RecordTable`: itself, a columnar result's ``table``
    (``HarnessColumns``), or built from dicts."""
    if isinstance(records, RecordTable):
        return records
    table = records_table(records)
    return table if table is not None else RecordTable.from_records(records, source=source)


def check_params(
    weights, normalise, harness_compatible, n_resamples, seed, ci_level
) -> tuple[np.ndarray, str, str, str]:
    """The audit's parameters checked: ``(weights, point normalise, bootstrap normalise, CI
    method)``."""
    w = check_weights(weights)
    if normalise is not None and normalise not in NORMALISE_CHOICES:
        raise ValueError(f"normalise must be one of {NORMALISE_CHOICES} or None, got {normalise!r}")
    if not isinstance(harness_compatible, bool):
        raise TypeError(f"harness_compatible must be a bool, got {harness_compatible!r}")
    if (
        not isinstance(n_resamples, (int, np.integer))
        or isinstance(n_resamples, bool)
        or n_resamples < 0
    ):
        raise ValueError(f"n_resamples must be a non-negative integer, got {n_resamples!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    if not 0.0 < float(ci_level) < 1.0:
        raise ValueError(f"ci_level must lie in (0, 1), got {ci_level!r}")
    if normalise is not None:
        point = boot = normalise
    elif harness_compatible:
        point, boot = "strict", "present"  # bench_aggregate.py / bootstrap_mcs.py
    else:
        point = boot = "present"
    return w, point, boot, "harness" if harness_compatible else "percentile"


def condition_table(tab: RecordTable, condition: str) -> RecordTable:
    """The MedVIGIL records of ``condition``; a condition no record has is a DataError."""
    suites = {tab.suite.levels[c] for c in tab.suite.used_codes().tolist()}
    if suites - {"medvigil"}:
        raise ValueError(
            f"MedVIGIL scoring reads suite 'medvigil' records only, got suites {sorted(suites)}"
        )
    mask = tab.condition.codes == tab.condition.code_of(condition)
    # a condition no record has is an error, never an empty table (but ablation-only records, with
    # no "default" ones, are still audited for their ablations)
    if len(tab) and not mask.any() and condition != "default":
        present = sorted(tab.condition.levels[c] for c in tab.condition.used_codes().tolist())
        raise DataError(
            Problem(
                "score",
                f"no record has condition {condition!r}; the records' conditions: "
                f"{', '.join(map(repr, present))}",
                field="--condition",
            )
        )
    return tab if mask.all() else tab.select(mask)  # (every row: the table itself, no copy)
