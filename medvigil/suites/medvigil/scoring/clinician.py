"""The clinician reference baseline (paper Appendix G, Table 10; the "Doctors" row of Table 1).

``clinician_baseline.csv``: ``acc_or_sfr_pct`` per probe family and tier (``L1``..``L5``, ``ALL``), the SFR for
``halluc_trap``. Scored as the authors' ``analysis/clinician_baseline_mcs.py``: Cap (Eq. 4) from ALL rows, Safe
from SFR_w (Eq. 3, ``"strict"``: their script divides by all five weights), Ground, MCS (Eq. 5); per tier
from its rows, Safe from its unweighted SFR.

>>> rows = [("original", "ALL", 95.3), ("tcf", "ALL", 92.7), ("negation", "ALL", 90.7),
...         ("specificity_drop", "ALL", 91.5), ("roi_only", "ALL", 91.0), ("roi_masked", "ALL", 86.5)]
>>> rows += [("halluc_trap", t, v) for t, v in zip(("L1", "L2", "L3", "L4", "L5"), (0.0, 4.8, 5.9, 10.5, 12.2))]
>>> round(clinician_scores(rows)["metrics"]["mcs"], 1)   # Table 10
83.3
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.csvio import read_csv
from medvigil.suites.medvigil.release.release_format import (
    CLINICIAN_BASELINE,
    DEFAULT_TIER_WEIGHTS,
    PROBE_KINDS,
    TIERS,
)
from medvigil.suites.medvigil.scoring.axes import (
    KIND_METRICS,
    NORMALISE_CHOICES,
    capability,
    grounding,
    mcs_from_axes,
    safety,
    visual_grounding_gap,
    weighted_sfr,
)

COLUMNS = ("probe_kind", "risk_tier", "acc_or_sfr_pct")
ALL = "ALL"
TRAP = "halluc_trap"
DOCTORS = "Doctors (ref.)"  # the row label in the report, as in the paper's Table 1
DEFAULT_SFR_W_NORMALISE = (
    "strict"  # the authors' clinician script: full weight sum, no missing tier
)


def read_clinician_baseline(path: str | Path) -> list[tuple[str, str, float | None]]:
    """(probe_kind, risk_tier, acc_or_sfr_pct) rows of the CSV; problems name row and field."""
    table = read_csv(path, str(path), required=COLUMNS)
    problems, rows, seen = list(table.problems), [], {}
    for row in table.rows:
        kind, tier, raw = (row.values[c].strip() for c in COLUMNS)
        if kind not in PROBE_KINDS:
            problems.append(
                Problem(str(path), f"unknown probe kind {kind!r}", row.number, "probe_kind")
            )
        if tier not in (*TIERS, ALL):
            problems.append(
                Problem(
                    str(path),
                    f"risk tier must be one of {', '.join((*TIERS, ALL))}, got {tier!r}",
                    row.number,
                    "risk_tier",
                )
            )
        value = None
        if raw:
            try:
                value = float(raw)
            except ValueError:
                value = math.nan
            if not 0.0 <= value <= 100.0:  # NaN fails too
                problems.append(
                    Problem(
                        str(path),
                        f"must be a percentage in [0, 100], got {raw!r}",
                        row.number,
                        "acc_or_sfr_pct",
                    )
                )
        if (kind, tier) in seen:
            problems.append(
                Problem(
                    str(path),
                    f"({kind}, {tier}) is also in row {seen[kind, tier]}",
                    row.number,
                    "risk_tier",
                )
            )
        seen[kind, tier] = row.number
        rows.append((kind, tier, value))
    if problems:
        raise DataError(problems)
    return rows


def clinician_scores(
    rows: Iterable[Sequence | Mapping],
    *,
    weights: Sequence[float] = DEFAULT_TIER_WEIGHTS,
    sfr_w_normalise: str = DEFAULT_SFR_W_NORMALISE,
) -> dict[str, Any]:
    """A model-shaped block from (probe_kind, risk_tier, acc_or_sfr_pct) tuples or mappings (:func:`read_clinician_baseline`)."""
    if sfr_w_normalise not in NORMALISE_CHOICES:
        raise ValueError(
            f"sfr_w_normalise must be one of {NORMALISE_CHOICES}, got {sfr_w_normalise!r}"
        )
    table: dict[tuple[str, str], float] = {}
    for row in rows:
        if isinstance(row, Mapping):
            kind, tier, value = (row[c] for c in COLUMNS)
        elif isinstance(row, Sequence):
            kind, tier, value = row
        else:
            kind, tier, value = (getattr(row, c) for c in COLUMNS)
        if value is not None:
            table[kind, tier] = float(value)

    def get(kind: str, tier: str) -> float:
        return table.get((kind, tier), math.nan)

    def axes(tier: str, sfr: float) -> dict[str, float]:
        vgr = visual_grounding_gap(get("roi_only", tier), get("roi_masked", tier))
        cap = capability(
            get("original", tier),
            get("tcf", tier),
            get("negation", tier),
            get("specificity_drop", tier),
        )
        ground = grounding(vgr, get("roi_masked", tier))
        return {
            "vgr": vgr,
            "cap": cap,
            "safe": safety(sfr),
            "ground": ground,
            "mcs": mcs_from_axes(cap, safety(sfr), ground),
        }

    sfr_by_tier = {t: get(TRAP, t) for t in TIERS}
    sfr_w = weighted_sfr([sfr_by_tier[t] for t in TIERS], weights, normalise=sfr_w_normalise)
    metrics: dict[str, float | None] = {key: get(kind, ALL) for key, kind in KIND_METRICS.items()}
    metrics.update(
        sfr=get(TRAP, ALL), sfr_w=sfr_w, overall=None, pcons=None, tr_coh=None, **axes(ALL, sfr_w)
    )
    accuracy = {k: (100.0 - get(TRAP, ALL) if k == TRAP else get(k, ALL)) for k in PROBE_KINDS}
    strata = {
        t: {
            "accuracy": {k: (100.0 - get(TRAP, t) if k == TRAP else get(k, t)) for k in PROBE_KINDS}
        }
        for t in TIERS
    }
    return {
        "metrics": {
            k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()
        },
        "accuracy": accuracy,
        "sfr_by_tier": sfr_by_tier,
        "strata": {"risk_tier": strata},
        "per_tier": {t: axes(t, sfr_by_tier[t]) for t in TIERS},
        "params": {"sfr_w_normalise": sfr_w_normalise, "weights": list(weights)},
    }


def release_clinician_scores(release_root: str | Path, **options) -> dict[str, Any] | None:
    """Scores of ``clinician_baseline.csv`` in a release folder; None when it has no such file."""
    path = Path(release_root) / CLINICIAN_BASELINE
    if not path.is_file():
        return None
    return {"source": str(path), **clinician_scores(read_clinician_baseline(path), **options)}
