"""Property tests (hypothesis) for the MedVIGIL metrics."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from medvigil.suites.medvigil.release.release_format import PROBE_KINDS, TIERS
from medvigil.suites.medvigil.scoring.axes import TRIPLET_KINDS, mcs_from_axes, weighted_sfr
from medvigil.suites.medvigil.scoring.scoring import audit, audit_to_json

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
axis = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)
GOLD = {"halluc_trap": "E", "roi_masked": "E"}


# ------------------------------------------------------------------------- MCS (Eq. 5)
@SETTINGS
@given(axis, axis, axis)
def test_mcs_bounded_by_its_weakest_axis(a, b, c):
    """Harmonic mean: min <= MCS <= 3 min (and <= the arithmetic mean)."""
    m = mcs_from_axes(a, b, c)
    lo = min(a, b, c)
    assert m <= 3 * lo + 1e-9
    assert m >= lo - 1e-9
    assert m <= (a + b + c) / 3 + 1e-9


@SETTINGS
@given(axis, axis, axis, axis, st.integers(0, 2))
def test_mcs_monotone_in_each_axis(a, b, c, bigger, which):
    axes = [a, b, c]
    raised = list(axes)
    raised[which] = max(axes[which], bigger)
    assert mcs_from_axes(*raised) >= mcs_from_axes(*axes) - 1e-9


@SETTINGS
@given(
    st.lists(st.one_of(st.none(), st.floats(0, 100)), min_size=5, max_size=5),
    st.lists(st.floats(0.1, 10), min_size=5, max_size=5),
)
def test_present_normalisation_is_a_weighted_mean(tier_sfr, weights):
    values = [math.nan if v is None else v for v in tier_sfr]
    present = [v for v in values if not math.isnan(v)]
    got = weighted_sfr(values, weights=weights, normalise="present")
    if not present:
        assert math.isnan(got)
        return
    assert min(present) - 1e-9 <= got <= max(present) + 1e-9
    assert (
        weighted_sfr(values, weights=weights, normalise="all") <= got + 1e-9
    )  # "all" is never larger
    if len(present) == 5:
        assert got == weighted_sfr(values, weights=weights, normalise="strict")


# --------------------------------------------------------------------- record sets
@st.composite
def record_sets(draw, max_cases=6, kinds=PROBE_KINDS + TRIPLET_KINDS):
    """A random single-condition record set over a random subset of probe kinds."""
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=len(kinds), unique=True))
    n_models = draw(st.integers(1, 3))
    n_cases = draw(st.integers(1, max_cases))
    tiers = [draw(st.sampled_from(TIERS + (None,))) for _ in range(n_cases)]  # a case-level field
    records = []
    for m in range(n_models):
        for c in range(n_cases):
            tier = tiers[c]
            for kind in chosen:
                copies = 2 if kind == "halluc_trap" else 1
                for k in range(copies):
                    if not draw(st.booleans()) and kind not in ("original", "tcf"):
                        continue  # families may be partially or entirely absent
                    status = draw(st.sampled_from(("ok", "ok", "ok", "parse_failure", "error")))
                    gold = GOLD.get(kind, "A")
                    pred = draw(st.sampled_from("ABCDE")) if status == "ok" else None
                    records.append(
                        {
                            "suite": "medvigil",
                            "model": f"m{m}",
                            "probe_id": f"c{c}:{kind}:{k}",
                            "case_id": f"c{c}",
                            "probe_kind": kind,
                            "risk_tier": tier,
                            "correct_letter": gold,
                            "predicted_letter": pred,
                            "parse_status": status,
                        }
                    )
    assume(records)
    return records


@SETTINGS
@given(record_sets(), st.randoms(use_true_random=False), st.booleans())
def test_permuting_records_changes_nothing(records, rnd, harness):
    """Except the harness-compatible intervals: like bootstrap_mcs.py they resample each
    model's cases in order of first record, the models in order of first record
    (tests/test_harness_bootstrap.py), so row order picks the draws there."""
    shuffled = list(records)
    rnd.shuffle(shuffled)
    a = audit(records, n_resamples=20, harness_compatible=harness)
    b = audit(shuffled, n_resamples=20, harness_compatible=harness)
    if harness:
        for result in (a, b):
            for block in result["models"].values():
                del block["ci"]
    assert audit_to_json(a, sort_keys=True) == audit_to_json(b, sort_keys=True)


@SETTINGS
@given(record_sets(), st.booleans(), st.sampled_from(("present", "all", "strict")))
def test_every_nan_has_a_reason_and_nothing_crashes(records, harness, normalise):
    result = audit(records, n_resamples=10, harness_compatible=harness, normalise=normalise)
    for name, block in result["models"].items():
        for key, value in block["metrics"].items():
            if math.isnan(value):
                assert block["reasons"].get(key), (name, key)
            else:
                assert key not in block["reasons"], (name, key)
                lo, hi = (-100.0, 100.0) if key == "vgr" else (0.0, 100.0)
                assert lo - 1e-9 <= value <= hi + 1e-9, (key, value)
        for level_blocks in block["strata"].values():
            for level, sub in level_blocks.items():
                for key, value in sub.get("metrics", {}).items():
                    assert not math.isnan(value) or sub["reasons"].get(key), (level, key)


@SETTINGS
@given(record_sets(kinds=PROBE_KINDS), st.data())
def test_correcting_an_answer_never_lowers_the_axes(records, data):
    """Turning one wrong answer right keeps every denominator and cannot lower Overall, Cap,
    Safe, Ground or MCS (Ground: a right ROI-masked answer lowers VGR by as much as it raises
    the masked accuracy, and the clip only helps)."""
    wrong = [
        i
        for i, r in enumerate(records)
        if r["predicted_letter"] != r["correct_letter"] and r["parse_status"] != "error"
    ]
    assume(wrong)
    i = data.draw(st.sampled_from(wrong))
    fixed = [dict(r) for r in records]
    fixed[i].update(predicted_letter=fixed[i]["correct_letter"], parse_status="ok")
    model = records[i]["model"]
    before = audit(records, n_resamples=0, strata=False, sensitivity=False)["models"][model][
        "metrics"
    ]
    after = audit(fixed, n_resamples=0, strata=False, sensitivity=False)["models"][model]["metrics"]
    for key in ("overall", "cap", "safe", "ground", "mcs"):
        if not math.isnan(before[key]):
            assert after[key] >= before[key] - 1e-9, key


# ----------------------------------------------------------------- bootstrap intervals
@SETTINGS
@given(st.lists(st.booleans(), min_size=2, max_size=80), st.sampled_from((False, True)))
def test_ci_contains_point_estimate_for_one_probe_per_case_accuracy(correct, harness):
    """Precise claim: with exactly one probe of a kind per case, the resampled accuracy is
    K / C with K ~ Binomial(C, m / C) (m = correct cases). Its mean C * m / C = m is an
    integer, so the binomial median is exactly m: P(K <= m) >= 1/2 and P(K >= m) >= 1/2.
    The empirical 2.5% point of B = 200 draws exceeds the estimate only if at most 5 draws
    are <= m, which has probability <= P(Bin(200, 1/2) <= 5) < 1e-50 (same for the upper end,
    and for the harness's order statistics sorted[5] / sorted[194]). So the interval
    contains the point estimate for every data set, up to that probability.

    This is not claimed for ratio or composite statistics (SFR_w, MCS): a percentile
    interval of a non-linear statistic can exclude its point estimate.
    """
    records = [
        {
            "suite": "medvigil",
            "model": "m",
            "probe_id": f"p{c}",
            "case_id": f"c{c}",
            "probe_kind": "original",
            "correct_letter": "A",
            "predicted_letter": "A" if ok else "B",
            "parse_status": "ok",
        }
        for c, ok in enumerate(correct)
    ]
    block = audit(
        records, n_resamples=200, harness_compatible=harness, strata=False, sensitivity=False
    )["models"]["m"]
    point = block["metrics"]["acc_orig"]
    ci = block["ci"]["acc_orig"]
    assert ci["low"] - 1e-9 <= point <= ci["high"] + 1e-9
    if all(correct) or not any(correct):  # homogeneous clusters: the interval is a point
        assert ci["low"] == ci["high"] == point


@SETTINGS
@given(record_sets(max_cases=5))
def test_ci_ends_are_ordered_and_in_range(records):
    result = audit(records, n_resamples=30, strata=False, sensitivity=False)
    for block in result["models"].values():
        for key, ci in block["ci"].items():
            if not math.isnan(ci["low"]):
                assert ci["low"] <= ci["high"] + 1e-12
                lo, hi = (-100.0, 100.0) if key == "vgr" else (0.0, 100.0)
                assert lo - 1e-9 <= ci["low"] and ci["high"] <= hi + 1e-9


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_spearman_matches_scipy():
    from scipy.stats import spearmanr

    from medvigil.scoring.stats import spearman

    rng = np.random.default_rng(0)
    for n in (2, 3, 5, 16, 40):
        for _ in range(20):
            x = rng.integers(0, 5, n).astype(float)  # many ties
            y = rng.normal(size=n)
            a, b = spearman(x, y), spearmanr(x, y).statistic
            assert (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-12
