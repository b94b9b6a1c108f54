"""What ``medvigil score --suite cbd`` reports: every model configuration's quadrant table with its
:mod:`~medvigil.suites.cbd.sample_details`, and the flip-rate vs Dangerous-fraction correlation
across configurations (seed 004, Sec. 4.2, Fig. 3)."""

import math
from collections.abc import Iterable, Mapping
from typing import Any

from medvigil.suites.cbd.arm_scoring import arm_table
from medvigil.suites.cbd.arms import ARMS, BINARY_ARMS, PROPOSED_ARMS
from medvigil.suites.cbd.confidence import binary_confidence_metrics
from medvigil.suites.cbd.records import check_records
from medvigil.suites.cbd.sample_details import sample_details
from medvigil.suites.cbd.scoring import rate_correlation

#: arm -> its record conditions and how a model's configuration of it is named
CONFIGURATIONS = (
    ("generative", ARMS, "{}"),
    ("binary", BINARY_ARMS, "{} [binary]"),
    ("binary_proposed", PROPOSED_ARMS, "{} [binary, proposed answer]"),
)


def suite_result(
    records: Iterable[Mapping[str, Any]],
    *,
    invalid: str = "exclude",
    n_resamples: int = 1000,
    seed: int = 0,
    incomplete: str = "error",
) -> dict[str, Any]:
    """What ``medvigil score --suite cbd`` reports: per model configuration (generative arm as the
    model's name, then binary arm as ``"<model> [binary]"``, models in order of first record) the
    quadrant table plus :func:`~medvigil.suites.cbd.sample_details.sample_details`, and the
    flip-rate vs Dangerous-fraction correlation (Fig. 3). ``incomplete="drop"`` (runs cut by
    ``--limit``) leaves out cases lacking a part, counted in ``n_incomplete_cases``; else an
    error."""
    records = check_records(records)
    first: dict[str, int] = {}
    for r in records:
        first.setdefault(str(r["model"]), len(first))
    models: dict[str, dict[str, Any]] = {}
    for arm, arms, name in CONFIGURATIONS:
        wanted = frozenset(arms.values())
        mine = [r for r in records if r["condition"] in wanted]
        if not mine:
            continue
        by_model: dict[str, list[Mapping[str, Any]]] = {}
        for r in mine:
            by_model.setdefault(str(r["model"]), []).append(r)
        table = arm_table(mine, arms, invalid, incomplete)
        for model in sorted(table, key=first.__getitem__):
            models[name.format(model)] = {
                **table[model],
                "arm": arm,
                **sample_details(
                    by_model.get(model, []),
                    arms["image"],
                    arms["noimg"],
                    invalid=invalid,
                    n_resamples=n_resamples,
                    seed=seed,
                ),
            }
            if arm != "generative":  # p(yes): calibration and selective risk per binary arm
                models[name.format(model)]["confidence_metrics"] = binary_confidence_metrics(
                    by_model.get(model, []), arms
                )
    return configurations(models)


def configurations(models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The suite result of the model configurations ``models`` (name -> quadrant table, ``arm`` and
    :func:`~medvigil.suites.cbd.sample_details.sample_details`), in that order, with their flip-rate
    vs Dangerous-fraction correlation (by name)."""
    rates = [
        [math.nan if models[m][k] is None else models[m][k] for m in sorted(models)]
        for k in ("flip_rate", "dangerous_fraction")
    ]
    return {"models": models, "correlation": rate_correlation(*rates)}
