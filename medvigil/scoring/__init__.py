"""Scoring core: per-probe records -> metrics, strata, bootstrap CIs, ablations.

Entry point for the ``medvigil score`` command and the lmms-eval aggregation::

    from medvigil.scoring import audit
    result = audit(records)            # records: probe-record dicts or a RecordTable
    result["models"]["gpt-4o"]["metrics"]["mcs"]

Modules: :mod:`~medvigil.scoring.table` (columnar records), :mod:`~medvigil.scoring.stats`
(Wilson, percentile intervals, Spearman), :mod:`~medvigil.scoring.bootstrap`
(case-clustered bootstrap), :mod:`~medvigil.scoring.medvigil_metrics` (MedVIGIL
Eqs. 2-7, :func:`audit`), :mod:`~medvigil.scoring.sensitivity` (Table 17),
:mod:`~medvigil.scoring.ablations` (Appendices I, J, K), :mod:`~medvigil.scoring.clinician`
(the clinician reference row, Table 10), :mod:`~medvigil.scoring.agreement` (Cohen's kappa).
Importing this package loads numpy only.
"""

from medvigil.scoring.medvigil_metrics import (
    CI_KEYS,
    METRIC_KEYS,
    NORMALISE_CHOICES,
    TRIPLET_KINDS,
    as_table,
    audit,
    audit_to_json,
    capability,
    compare_models,
    grounding,
    mcs_from_axes,
    model_metrics,
    safety,
    score_columns,
    visual_grounding_gap,
    weighted_sfr,
)
from medvigil.scoring.table import RecordTable

__all__ = [
    "CI_KEYS",
    "METRIC_KEYS",
    "NORMALISE_CHOICES",
    "TRIPLET_KINDS",
    "RecordTable",
    "as_table",
    "audit",
    "audit_to_json",
    "capability",
    "compare_models",
    "grounding",
    "mcs_from_axes",
    "model_metrics",
    "safety",
    "score_columns",
    "visual_grounding_gap",
    "weighted_sfr",
]
