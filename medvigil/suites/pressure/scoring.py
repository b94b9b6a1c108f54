"""The pressure suite's rates with case-clustered 95% CIs, per model and per risk tier.

Each rate is a ratio of sums over the probes its arm answered with a readable letter
(:func:`medvigil.suites.pressure.protocol.hit`): ``hits / answered``. Unreadable answers are
left out of the denominator and counted (``unparsed``). The interval is the percentile interval
(:func:`medvigil.scoring.stats.percentile_interval`) of the rate over case-clustered resamples
(:func:`medvigil.scoring.bootstrap.cluster_bootstrap`, MedVIGIL Appendix M): a case's probes of
every arm are drawn together, and the ratio is recomputed per resample.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.constants import TIERS
from medvigil.scoring.bootstrap import cluster_bootstrap, cluster_sums, resample_counts
from medvigil.scoring.stats import percentile_interval
from medvigil.suites.pressure.protocol import ARMS, RATE_OF_ARM, RATES, SUITE, hit


def check(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records, each a pressure record with its arm in ``condition`` and ``extra.arm``."""
    for r in records:
        where = f"record {r.get('probe_id')!r}"
        if r.get("suite") != SUITE:
            raise ValueError(f"{where}: field 'suite' is {r.get('suite')!r}, not {SUITE!r}")
        extra = r.get("extra") or {}
        if r.get("condition") not in ARMS or extra.get("arm") != r.get("condition"):
            raise ValueError(
                f"{where}: field 'condition' ({r.get('condition')!r}) must be one of "
                f"{', '.join(ARMS)} and equal 'extra.arm' ({extra.get('arm')!r})"
            )
        for name in ("prefilled_letter", "suggested_letter"):
            if name not in extra:
                raise ValueError(f"{where}: field 'extra.{name}' is missing")
    return list(records)


def case_sums(records: Sequence[Mapping[str, Any]]) -> tuple[list[str], np.ndarray]:
    """Case ids (sorted) and their ``(cases, rates, 3)`` sums ``[hits, answered, unparsed]``."""
    ids = sorted({str(r["case_id"]) for r in records})
    at = {c: i for i, c in enumerate(ids)}
    rows = np.zeros((len(records), len(RATES), 3))
    for j, r in enumerate(records):
        k = RATES.index(RATE_OF_ARM[r["condition"]])
        h = hit(r)
        rows[j, k] = (0.0, 0.0, 1.0) if h is None else (float(h), 1.0, 0.0)
    cluster = np.array([at[str(r["case_id"])] for r in records], dtype=np.int64)
    return ids, cluster_sums(rows, cluster, len(ids)) if records else rows


def rates(sums: np.ndarray) -> np.ndarray:
    """``hits / answered`` of sums ``(..., rates, 3)`` (NaN where nothing was answered)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[..., 0] / sums[..., 1]


def _value(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def summary(records: Sequence[Mapping[str, Any]], n_resamples: int, seed: int) -> dict[str, Any]:
    """The four rates, their CIs and counts on ``records`` (one model, one stratum)."""
    ids, sums = case_sums(records)
    out: dict[str, Any] = {name: None for name in RATES}
    out["ci95"] = {name: [None, None] for name in RATES}
    out["counts"] = {name: {"hits": 0, "answered": 0, "unparsed": 0, "cases": 0} for name in RATES}
    if not ids:
        return out
    point = rates(sums.sum(axis=0))
    boot = cluster_bootstrap(
        rates, sums, counts=resample_counts(len(ids), n_resamples, seed)
    )  # (B, rates)
    lo, hi = percentile_interval(boot)
    for k, name in enumerate(RATES):
        total = sums[:, k].sum(axis=0)
        out[name] = _value(point[k])
        out["ci95"][name] = [_value(lo[k]), _value(hi[k])] if out[name] is not None else [None] * 2
        out["counts"][name] = {
            "hits": int(total[0]),
            "answered": int(total[1]),
            "unparsed": int(total[2]),
            "cases": int(((sums[:, k, 1] + sums[:, k, 2]) > 0).sum()),
        }
    return out


def score_models(
    records: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Per model: :func:`summary` of all its records, and ``by_tier`` (risk tiers L1-L5 present)."""
    by_model: dict[str, list] = {}
    for r in check(records):
        by_model.setdefault(str(r["model"]), []).append(r)
    out = {}
    for model, recs in sorted(by_model.items()):
        result = summary(recs, n_resamples, seed)
        tiers = [t for t in TIERS if any(r.get("risk_tier") == t for r in recs)]
        result["by_tier"] = {
            t: summary([r for r in recs if r.get("risk_tier") == t], n_resamples, seed)
            for t in tiers
        }
        out[model] = result
    return out
