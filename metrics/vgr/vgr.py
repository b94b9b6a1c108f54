"""MedVIGIL visual grounding gap VGR and the Grounding axis (evaluate module).

A thin face over :func:`medvigil.scoring.score_columns` (which runs
:func:`medvigil.suites.medvigil.scoring.scoring.audit`); no second implementation.
"""

import evaluate

from medvigil.scoring.bootstrap import DEFAULT_SEED
from medvigil.suites.medvigil.scoring import (
    # the module, not the class: evaluate.load takes the first Metric class it sees
    evaluate_support,
)
from medvigil.suites.medvigil.scoring.probe_columns import score_columns

_DESCRIPTION = """\
MedVIGIL renders two image variants per case from a doctor-drawn region of interest:
`roi_only` keeps only the answer-relevant region (the original question and gold),
`roi_masked` greys it out (the correct answer becomes the safe option E). The visual
grounding gap (Section 5.2) is

    VGR = Acc(roi_only) - Acc(roi_masked)                 (percentage points)

positive when the model answers better with the evidence present. Because a negative
VGR can hide prior-driven answering, the Grounding axis of the MedVIGIL Composite Score
pairs the shifted contrast with the masked accuracy (Eq. 4):

    Ground = (clip(VGR + 50, 0, 100) + Acc(roi_masked)) / 2

Only `roi_only` and `roi_masked` rows are used; other probe kinds may be passed and are
ignored. A parse failure (empty prediction) is wrong.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): the letter chosen for each probe; "" marks a response
        with no letter (parse failure).
    references (`list` of `str`): the correct letter of each probe.
    probe_kind (`list` of `str`): `roi_only` or `roi_masked` (others are ignored).
    case_id (`list` of `str`): the case of each probe (bootstrap cluster).
    risk_tier (`list` of `str`): `L1`..`L5` or "" (not used by VGR; kept so every
        MedVIGIL module takes the same columns).
    n_resamples (`int`, default 0): case-clustered bootstrap resamples; > 0 adds
        `vgr_ci_low`, `vgr_ci_high`, `ground_ci_low`, `ground_ci_high` (95%).
    seed (`int`, default 20260505): bootstrap seed.
    harness_compatible (`bool`, default False): the resamples and index-based bootstrap
        percentiles of the official harness (bootstrap_mcs.py).
Returns:
    vgr (`float`): -100..100 percentage points; higher means more ROI-grounded.
    roi_only, roi_masked (`float`): the two accuracies, 0-100, higher is better.
    ground (`float`): the Grounding axis, 0-100, higher is better.
Examples:
    Two cases: both ROI-only probes right; one ROI-masked probe refused (E), one answered.

    >>> from medvigil.metrics import module_path
    >>> vgr = evaluate.load(module_path("vgr"))
    >>> r = vgr.compute(predictions=["A", "A", "E", "C"], references=["A", "A", "E", "E"],
    ...                 probe_kind=["roi_only", "roi_only", "roi_masked", "roi_masked"],
    ...                 case_id=["c1", "c2", "c1", "c2"], risk_tier=["L2", "L4", "L2", "L4"])
    >>> r["roi_only"], r["roi_masked"], r["vgr"], r["ground"]
    (100.0, 50.0, 50.0, 75.0)

    A model better on masked than on ROI-only images has a negative VGR (clipped at -50
    inside Ground):

    >>> r = vgr.compute(predictions=["B", "B", "E", "E"], references=["A", "A", "E", "E"],
    ...                 probe_kind=["roi_only", "roi_only", "roi_masked", "roi_masked"],
    ...                 case_id=["c1", "c2", "c1", "c2"], risk_tier=["", "", "", ""])
    >>> r["vgr"], r["ground"]
    (-100.0, 50.0)
"""

_KEYS = ("vgr", "roi_only", "roi_masked", "ground")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Vgr(evaluate_support.AuditMetric):
    """MedVIGIL visual grounding gap and Grounding axis."""

    DESCRIPTION, KWARGS_DESCRIPTION = _DESCRIPTION, _KWARGS_DESCRIPTION
    KEYS = _KEYS
    CI_KEYS = ("vgr", "ground")

    def _compute(
        self,
        predictions,
        references,
        probe_kind,
        case_id,
        risk_tier,
        harness_compatible=False,
        n_resamples=0,
        seed=DEFAULT_SEED,
    ):
        # no SFR_w weights here: VGR and Ground do not depend on them
        scores = score_columns(
            predictions,
            references,
            probe_kind,
            case_id,
            risk_tier,
            harness_compatible=harness_compatible,
            n_resamples=n_resamples,
            seed=seed,
        )
        return self.select(scores, n_resamples)
