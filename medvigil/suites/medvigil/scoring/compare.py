"""Every pair of models compared with a paired case-clustered bootstrap: each model scored as the
audit scores it (:mod:`.case_features`, :mod:`.metric_sums`) on the probes both answered."""

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from medvigil.scoring.bootstrap import DEFAULT_SEED
from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES, UnitSums, compare_units
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.release.release_format import DEFAULT_TIER_WEIGHTS
from medvigil.suites.medvigil.scoring.ablation_conditions import present_models
from medvigil.suites.medvigil.scoring.audit_inputs import (
    Records,
    as_table,
    check_params,
    condition_table,
)
from medvigil.suites.medvigil.scoring.axes import METRIC_KEYS
from medvigil.suites.medvigil.scoring.case_features import case_features
from medvigil.suites.medvigil.scoring.metric_sums import metrics_from_sums

__all__ = ["DEFAULT_COMPARE_METRICS", "compare_models"]

DEFAULT_COMPARE_METRICS = ("mcs", "cap", "safe", "ground", "sfr_w", "vgr")


def compare_models(
    records: Records,
    *,
    metrics: Sequence[str] = DEFAULT_COMPARE_METRICS,
    weights: Sequence[float] = DEFAULT_TIER_WEIGHTS,
    normalise: str | None = None,
    harness_compatible: bool = False,
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = DEFAULT_SEED,
    p_value: str = "normal",
    condition: str = "default",
) -> dict[str, Any]:
    """Every pair of models compared with a paired case-clustered bootstrap (:func:`compare_units`).

    Per pair ``(a, b)`` and metric: ``delta = metric(b) - metric(a)``, its 95% interval,
    ``p_value``, ``p_holm`` (Holm over pairs x metrics), and ``n_probes`` / ``n_cases`` both models
    answered (by ``probe_id``, else ``(case_id, probe_kind)``), always resampled jointly.
    """
    w, point_norm, boot_norm, _ = check_params(
        weights, normalise, harness_compatible, n_resamples, seed, 0.95
    )
    if n_resamples < 1:
        raise ValueError("compare_models needs n_resamples >= 1")
    unknown = [k for k in metrics if k not in METRIC_KEYS]
    if unknown or not metrics:
        raise ValueError(
            f"unknown metric(s) {unknown or '(none given)'}; available: {', '.join(METRIC_KEYS)}"
        )
    tab = condition_table(as_table(records), condition)
    probe = _probe_codes(tab)
    names = tab.model.levels
    keys = {
        names[m]: frozenset(np.unique(probe[tab.model.codes == m]).tolist())
        for m in present_models(tab)
    }
    scores_on = partial(_scores_on, tab, probe, w, point_norm, boot_norm, harness_compatible)
    result = compare_units(
        keys, scores_on, metrics, n_resamples=n_resamples, seed=seed, p_value=p_value
    )
    result["params"].update(
        harness_compatible=harness_compatible,
        condition=condition,
        weights=[float(x) for x in w],
        normalise=point_norm,
        normalise_bootstrap=boot_norm,
    )
    return result


def _probe_codes(tab: RecordTable) -> np.ndarray:
    """One code per probe: its probe_id, or (case, probe kind) in records without one."""
    if tab.probe is not None:
        return tab.probe.codes.astype(np.int64)
    return tab.case.codes.astype(np.int64) * len(tab.probe_kind.levels) + tab.probe_kind.codes


def _scores_on(
    tab: RecordTable,
    probe: np.ndarray,
    w: np.ndarray,
    point_norm: str,
    boot_norm: str,
    harness_compatible: bool,
    model: str,
    shared,
) -> UnitSums:
    """The model as the audit scores it: its per-case feature sums on the probes compared."""
    code = tab.model.levels.index(model)
    rows = tab.model.codes == code
    if shared is not None:
        rows &= np.isin(probe, np.fromiter(shared, dtype=np.int64, count=len(shared)))
    feats = case_features(tab.select(rows), harness_compatible)
    lay = feats.layout

    def values(sums, normalise, quirks):
        return metrics_from_sums(sums, lay, w, normalise, quirks if harness_compatible else None)[
            "metrics"
        ]

    return UnitSums(
        feats.cases,
        # a copy: a view would keep the tensor of every model alive, memory growing as models^2
        feats.tensor[:, code, : lay.n_stat].copy(),
        partial(values, normalise=boot_norm, quirks="bootstrap"),
        partial(values, normalise=point_norm, quirks="aggregate"),
    )
