"""One model scored from per-probe columns, the ``evaluate`` modules' inputs
(:mod:`.evaluate_support`), through the full audit."""

import math
from collections.abc import Sequence

from medvigil.scoring.bootstrap import DEFAULT_SEED
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.release.release_format import DEFAULT_TIER_WEIGHTS, PROBE_KINDS
from medvigil.suites.medvigil.scoring.scoring import audit

__all__ = ["score_columns"]


def score_columns(
    predictions: Sequence[str | None],
    references: Sequence[str],
    probe_kind: Sequence[str],
    case_id: Sequence[str],
    risk_tier: Sequence[str | None],
    *,
    weights: Sequence[float] = DEFAULT_TIER_WEIGHTS,
    normalise: str | None = None,
    harness_compatible: bool = False,
    n_resamples: int = 0,
    seed: int = DEFAULT_SEED,
    ci_level: float = 0.95,
) -> dict[str, float]:
    """Score one model from per-probe columns (the evaluate modules' output) via :func:`audit`.

    ``predictions``: letters, ``""`` / ``None`` a parse failure; ``risk_tier`` ``""`` / ``None``
    unknown. Returns the :data:`METRIC_KEYS` metrics, ``accuracy_<kind>``, ``sfr_L1`` .. ``sfr_L5``
    and, with ``n_resamples > 0``, ``<metric>_ci_low`` / ``_ci_high``.
    """
    _check_columns(predictions, references, probe_kind, case_id, risk_tier)
    table = RecordTable.from_columns(
        model="model",
        case_id=list(case_id),
        probe_kind=list(probe_kind),
        correct_letter=list(references),
        predicted_letter=[p or None for p in predictions],
        risk_tier=[None if t in (None, "") else t for t in risk_tier],
        suite="medvigil",
        source="<evaluate inputs>",
    )
    result = audit(
        table,
        weights=weights,
        normalise=normalise,
        harness_compatible=harness_compatible,
        n_resamples=n_resamples,
        seed=seed,
        ci_level=ci_level,
        strata=False,
        sensitivity=False,
        ablations=False,
    )
    if "model" not in result["models"]:
        raise ValueError("no probes to score")
    return _flat_scores(result["models"]["model"])


def _check_columns(predictions, references, probe_kind, case_id, risk_tier) -> None:
    """ValueError unless every column has one entry per reference and each prediction is a
    capital letter or empty."""
    n = len(references)
    for name, col in (
        ("predictions", predictions),
        ("probe_kind", probe_kind),
        ("case_id", case_id),
        ("risk_tier", risk_tier),
    ):
        if len(col) != n:
            raise ValueError(f"{name} has {len(col)} entries but references has {n}")
    for i, p in enumerate(predictions):
        if p not in (None, "") and not (isinstance(p, str) and len(p) == 1 and "A" <= p <= "Z"):
            raise ValueError(
                f"predictions[{i}] = {p!r}: expected one capital letter A-Z, or '' for a "
                f"response with no letter (parse model output with the MedVIGIL letter parser "
                f"first)"
            )


def _flat_scores(block: dict) -> dict[str, float]:
    """A model block's metrics, accuracies, tier SFRs and intervals under flat keys."""
    out: dict[str, float] = dict(block["metrics"])
    out.update((f"accuracy_{kind}", block["accuracy"].get(kind, math.nan)) for kind in PROBE_KINDS)
    out.update((f"sfr_{tier}", value) for tier, value in block["sfr_by_tier"].items())
    for key, interval in block.get("ci", {}).items():
        out.update({f"{key}_ci_low": interval["low"], f"{key}_ci_high": interval["high"]})
    return {k: float(v) for k, v in out.items()}
