"""The report's pairwise significance matrices, from ``medvigil compare --json`` results.

Cell (row R, column C) is ``metric(R) - metric(C)`` on the probes both answered (the compare
result's ``delta = b - a``, signed for the row), marked ``*`` when the Holm-adjusted p
(all pairs x metrics of that comparison) is below 0.05; the diagonal is empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from medvigil.report.render import Table, fmt

SIGNIFICANT = 0.05
# the metric drawn as a matrix for each suite's comparison (the suite's headline)
MATRIX_METRIC = {"medvigil": "mcs"}


def significance_matrix(comparison: Mapping[str, Any], metric: str, title: str) -> Table | None:
    """The ``metric`` matrix of one comparison; None when it compared no pair on ``metric``."""
    rows = [r for r in comparison["pairs"] if r["metric"] == metric]
    if not rows:
        return None
    names = list(comparison["models"])
    cells: dict[tuple[str, str], str] = {}
    for r in rows:
        star = "*" if r["p_holm"] is not None and r["p_holm"] < SIGNIFICANT else ""
        delta = r["delta"]
        cells[r["b"], r["a"]] = fmt(delta, signed=True) + star
        cells[r["a"], r["b"]] = fmt(None if delta is None else -delta, signed=True) + star
    body = [[name] + ["" if name == other else cells.get((name, other), "—") for other in names] for name in names]
    params = comparison.get("params") or {}
    shared = sorted({r["n_probes"] for r in rows})
    note = (f"Row minus column, {metric.upper()} on the probes both models answered "
            f"({', '.join(map(str, shared))} probe(s)); * Holm-adjusted p < {SIGNIFICANT:g} over all "
            f"{len(comparison['pairs'])} comparisons (paired case-clustered bootstrap, "
            f"{params.get('n_resamples', '?')} resamples, seed {params.get('seed', '?')}, "
            f"{params.get('p_value', '?')} p-values).")
    return Table(title, ["Model"] + names, body, note)


def comparison_tables(comparisons: Mapping[str, Mapping[str, Any]]) -> list[Table]:
    """One matrix per suite compared, of that suite's headline metric."""
    out = []
    for suite, comparison in sorted(comparisons.items()):
        compared = [r["metric"] for r in comparison["pairs"]]
        if not compared:
            continue
        metric = MATRIX_METRIC.get(suite) if MATRIX_METRIC.get(suite) in compared else compared[0]
        table = significance_matrix(comparison, metric, f"{suite}: pairwise {metric.upper()} differences")
        if table is not None:
            out.append(table)
    return out
