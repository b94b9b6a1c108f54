"""The report's first screen: per model, each suite's headline number with its CI and the
protocol deviations of the runs it rests on, before the tables in the papers' layouts.

Each suite's registry entry says what its headline is (``headline(result)``: a list of
``{"model", "metric", "value", "ci": [low, high] | None}``); the deviations come from the score's
``protocol`` list (:mod:`medvigil.runs.protocol`). This module is handed both; it names no suite.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from medvigil.report.render import Table, fmt

Headline = Callable[[Mapping[str, Any]], list[dict]]


def deviations_by_model(protocol: Iterable[Mapping[str, Any]] | None) -> dict[str, str]:
    """Model -> its runs' deviations in one line ("none" when there is none; what the result
    files do not say is given as unknown).

    >>> deviations_by_model(
    ...     [{"model": "m", "task": "t", "deviations": ["temperature 0.5 (protocol 0)"]}])
    {'m': 't: temperature 0.5 (protocol 0)'}
    """
    said: dict[str, list[str]] = {}
    for entry in protocol or ():
        model = str(entry.get("model"))
        lines = said.setdefault(model, [])
        task = entry.get("task")
        for deviation in entry.get("deviations") or ():
            line = f"{task}: {deviation}" if task else str(deviation)
            if line not in lines:
                lines.append(line)
        unknown = entry.get("unknown") or ()
        if unknown:
            line = f"{task}: unknown {', '.join(unknown)}"
            if line not in lines:
                lines.append(line)
    return {model: "; ".join(lines) or "none" for model, lines in said.items()}


def _ci(ci: Sequence | None) -> str:
    if not ci or len(ci) != 2 or ci[0] is None or ci[1] is None:
        return "—"
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def summary_table(parts: Sequence[tuple[str, Headline | None, Mapping[str, Any]]]) -> Table | None:
    """One row per model and suite: the headline, its CI and the deviations. ``parts``: each
    suite's title, its ``headline`` function (None: it declares none) and its result."""
    rows = []
    for title, headline, data in parts:
        if headline is None:
            continue
        deviations = deviations_by_model(data.get("protocol"))
        for item in headline(data):
            model = str(item["model"])
            said = deviations.get(
                model, "not recorded"
            )  # (a score written before the protocol list)
            rows.append(
                [model, title, str(item["metric"]), fmt(item["value"]), _ci(item.get("ci")), said]
            )
    if not rows:
        return None
    rows.sort(key=lambda row: row[0])
    return Table(
        "Each suite's headline per model, and the protocol it ran",
        ["Model", "Suite", "Headline", "Value", "95% CI", "Protocol deviations"],
        rows,
        "Each suite's headline per model (— where no CI was computed), and each run's departures "
        "from the paper's protocol (the score's protocol list: generation settings, adapter prompt "
        "handling, reasoning budgets; 'unknown' where the result files do not say).",
    )
