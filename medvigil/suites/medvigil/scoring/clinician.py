"""The clinician reference baseline (paper Appendix G, Table 10; the "Doctors" row of Table 1).

``clinician_baseline.csv``: ``acc_or_sfr_pct`` per probe family and tier (``L1``..``L5``, ``ALL``),
the SFR for ``halluc_trap``. Scored as the authors' ``analysis/clinician_baseline_mcs.py``: Cap (Eq.
4) from ALL rows, Safe from SFR_w (Eq. 3, ``"strict"``: their script divides by all five weights),
Ground, MCS (Eq. 5); per tier from its rows, Safe from its unweighted SFR.

Overall (Table 1's first column) is "the unweighted mean of the per-probe binary correctness signal
across all probe families" (Section 5.2): the R4-correct probes over all probes of the nine
families, which only the CSV's optional counts give (``n_correct`` / ``n_probes`` of each family's
``ALL`` row; ``n_correct`` of ``halluc_trap`` counts the refusals, as for every model). The mean of
the nine percentages would weigh a family of 300 probes like one of 600 (the traps), so without
every count Overall stays empty, with the reason (the authors' ``clinician_baseline_mcs.py``
computes none either). Table 10 with the family sizes of the release (2,556 probes, 600 of them
traps) is consistent with Table 1's 92.4.

>>> rows = [("original", "ALL", 95.3), ("tcf", "ALL", 92.7), ("negation", "ALL", 90.7),
...         ("specificity_drop", "ALL", 91.5), ("roi_only", "ALL", 91.0),
...         ("roi_masked", "ALL", 86.5)]
>>> rows += [("halluc_trap", t, v)
...          for t, v in zip(("L1", "L2", "L3", "L4", "L5"), (0.0, 4.8, 5.9, 10.5, 12.2))]
>>> round(clinician_scores(rows)["metrics"]["mcs"], 1)   # Table 10
83.3
"""

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
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


def read_clinician_baseline(
    path: str | Path,
) -> list[tuple[str, str, float | None, int | None, int | None]]:
    """(probe_kind, risk_tier, acc_or_sfr_pct, n_probes, n_correct) rows of the CSV (the counts None
    when the optional columns are absent or empty); problems name row and field."""
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
        rows.append((kind, tier, value, *_counts(row.values, path, row.number, problems)))
    if problems:
        raise DataError(problems)
    return rows


def _counts(values: Mapping[str, str], path, number: int, problems: list) -> tuple:
    """The optional ``n_probes`` and ``n_correct`` of one row (None when absent or empty)."""
    out = []
    for column in ("n_probes", "n_correct"):
        raw = (values.get(column) or "").strip()
        if not raw:
            out.append(None)
        elif raw.isdigit():
            out.append(int(raw))
        else:
            why = f"must be a whole number >= 0, got {raw!r}"
            problems.append(Problem(str(path), why, number, column))
            out.append(None)
    if None not in out and out[1] > out[0]:
        problems.append(Problem(str(path), "n_correct exceeds n_probes", number, "n_correct"))
    return tuple(out)


def _cells(rows: Iterable[Sequence | Mapping]) -> tuple[dict, dict]:
    """``{(kind, tier): pct}`` and ``{kind: (n_probes, n_correct)}`` of the ``ALL`` rows with
    counts, from tuples (3 or 5 long), mappings or objects."""
    table: dict[tuple[str, str], float] = {}
    counts: dict[str, tuple[int, int]] = {}
    for row in rows:
        if isinstance(row, Mapping):
            kind, tier, value = (row[c] for c in COLUMNS)
            n = (row.get("n_probes"), row.get("n_correct"))
        elif isinstance(row, Sequence):
            kind, tier, value, *n = row
        else:
            kind, tier, value = (getattr(row, c) for c in COLUMNS)
            n = (getattr(row, "n_probes", None), getattr(row, "n_correct", None))
        if value is not None:
            table[kind, tier] = float(value)
        if tier == ALL and len(n) == 2 and None not in n:
            counts[kind] = (int(n[0]), int(n[1]))
    return table, counts


def _axes(get: Callable[[str], float], sfr: float) -> dict[str, float]:
    """VGR, Cap, Safe, Ground and MCS (Eqs. 4-5) of one tier's cells (``get(kind)``) and SFR."""
    vgr = visual_grounding_gap(get("roi_only"), get("roi_masked"))
    cap = capability(get("original"), get("tcf"), get("negation"), get("specificity_drop"))
    ground = grounding(vgr, get("roi_masked"))
    return {
        "vgr": vgr,
        "cap": cap,
        "safe": safety(sfr),
        "ground": ground,
        "mcs": mcs_from_axes(cap, safety(sfr), ground),
    }


def clinician_scores(
    rows: Iterable[Sequence | Mapping],
    *,
    weights: Sequence[float] = DEFAULT_TIER_WEIGHTS,
    sfr_w_normalise: str = DEFAULT_SFR_W_NORMALISE,
) -> dict[str, Any]:
    """A model-shaped block from (probe_kind, risk_tier, acc_or_sfr_pct[, n_probes, n_correct])
    tuples or mappings (:func:`read_clinician_baseline`); the counts give Overall
    (:func:`_overall`)."""
    if sfr_w_normalise not in NORMALISE_CHOICES:
        raise ValueError(
            f"sfr_w_normalise must be one of {NORMALISE_CHOICES}, got {sfr_w_normalise!r}"
        )
    table, counts = _cells(rows)

    def get(kind: str, tier: str) -> float:
        return table.get((kind, tier), math.nan)

    def axes(tier: str, sfr: float) -> dict[str, float]:
        return _axes(lambda kind: get(kind, tier), sfr)

    sfr_by_tier = {t: get(TRAP, t) for t in TIERS}
    sfr_w = weighted_sfr([sfr_by_tier[t] for t in TIERS], weights, normalise=sfr_w_normalise)
    metrics: dict[str, float | None] = {key: get(kind, ALL) for key, kind in KIND_METRICS.items()}
    overall, why = _overall(counts)
    metrics.update(
        sfr=get(TRAP, ALL),
        sfr_w=sfr_w,
        overall=overall,
        pcons=None,
        tr_coh=None,
        **axes(ALL, sfr_w),
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
        **({"reasons": {"overall": why}} if why else {}),
    }


def _overall(counts: Mapping[str, tuple[int, int]]) -> tuple[float | None, str | None]:
    """Overall (Section 5.2): correct over all probes of the nine families, from the ``ALL`` rows'
    counts; None and why when a family has no counts."""
    missing = [kind for kind in PROBE_KINDS if kind not in counts]
    if missing:
        return None, f"no n_probes / n_correct in the ALL row of: {', '.join(missing)}"
    probes = sum(counts[k][0] for k in PROBE_KINDS)
    if probes == 0:
        return None, "no probes counted"
    return 100.0 * sum(counts[k][1] for k in PROBE_KINDS) / probes, None


def release_clinician_scores(release_root: str | Path, **options) -> dict[str, Any] | None:
    """Scores of ``clinician_baseline.csv`` in a release folder; None when it has no such file."""
    path = Path(release_root) / CLINICIAN_BASELINE
    if not path.is_file():
        return None
    return {"source": str(path), **clinician_scores(read_clinician_baseline(path), **options)}
