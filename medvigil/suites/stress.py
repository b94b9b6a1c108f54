"""What the three stress suites (medqdeg, readiness, cbd) share: their options, and every pair of
models compared on the records both have (``medvigil compare``)."""

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from medvigil.scoring.paired import PairedScores, compare_units


def settings(suite: str, options: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` over ``defaults``; a name ``defaults`` lacks is an error."""
    unknown = set(options) - set(defaults)
    if unknown:
        raise ValueError(f"unknown {suite} option(s): {', '.join(sorted(unknown))}")
    return {**defaults, **options}


def check_metrics(suite: str, metrics: Sequence[str], available: Sequence[str]) -> None:
    unknown = [m for m in metrics if m not in available]
    if unknown or not metrics:
        raise ValueError(
            f"unknown {suite} metric(s) {unknown or '(none given)'}; "
            f"available: {', '.join(available)}"
        )


def compare_records(
    by_model: Mapping[str, list],
    key: Callable[[Any], Hashable],
    scores: Callable[[list, str, bool], PairedScores],
    metrics: Sequence[str],
    **options: Any,
) -> dict[str, Any]:
    """Every pair of models compared on the records both have (same ``key``), their cases resampled
    jointly (:func:`medvigil.scoring.paired.compare_units`); ``scores(records, model, whole)``
    scores a model's records, all of them (``whole``) or those it shares with another model."""
    keys = {m: {key(r) for r in recs} for m, recs in by_model.items()}

    def scores_on(model: str, shared) -> PairedScores:
        recs = (
            by_model[model] if shared is None else [r for r in by_model[model] if key(r) in shared]
        )
        return scores(recs, model, shared is None)

    return compare_units(keys, scores_on, metrics, **options)
