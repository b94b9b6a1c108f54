"""MedQ-Deg: perceived confidence (Eq. 3), Calibration Shift (Eq. 4), DKE flags (Eqs. 5-6), Table
6."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.suites.medqdeg.breakdowns import score_groups, severity_drops
from medvigil.suites.medqdeg.calibration import (
    calibration_shift,
    inter_model_dke,
    inter_model_dke_summary,
    intra_model_dke,
)
from medvigil.suites.medqdeg.sample_scores import perceived_confidence, sample_accuracy, vote_counts
from medvigil.suites.medqdeg.scoring import score_records, score_trials


def _conf(trials, k, **kw):
    counts, invalid = vote_counts(trials, k)
    return perceived_confidence(counts, k, invalid, **kw)


# -- Eq. 3 ------------------------------------------------------------------------------------


def test_spec_example_1():
    # K = 4, T = 10: votes (7, 2, 1, 0) -> H = 0.8018, C = 1 - 0.8018 / ln 4 = 0.4216
    c = _conf([list("AAAAAAABBC"), list("A" * 10), list("AAABBBCCDD")], 4)
    assert np.round(c, 4).tolist() == [0.4216, 1.0, 0.0145]


def test_confidence_extremes_and_log_base():
    assert _conf([list("ABCD")], 4)[0] == pytest.approx(
        0.0, abs=1e-12
    )  # uniform over K: no confidence
    assert _conf([list("AB")], 2)[0] == pytest.approx(0.0, abs=1e-12)
    assert _conf([["C"]], 5)[0] == 1.0  # T = 1 is always "certain"
    # H / log K is the same in every base: the paper's log is unspecified
    p = np.array([0.7, 0.2, 0.1])
    for log in (np.log, np.log2, np.log10):
        assert 1 - (-(p * log(p)).sum()) / log(4) == pytest.approx(0.4216, abs=5e-5)


def test_k_and_t_per_sample():
    # same votes, different K: more options = the same entropy is less uncertain
    counts, invalid = vote_counts([list("AABB"), list("AABB")], [2, 4])
    c = perceived_confidence(counts, [2, 4], invalid)
    assert c[0] == pytest.approx(0.0, abs=1e-12) and c[1] == pytest.approx(0.5)
    # different T per sample
    c = _conf([list("AAAB"), list("AAAAAAAAAB")], 4)
    h1 = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    h2 = -(0.9 * math.log(0.9) + 0.1 * math.log(0.1))
    assert c.tolist() == pytest.approx([1 - h1 / math.log(4), 1 - h2 / math.log(4)])


def test_invalid_trials():
    # votes A, A, invalid with K = 2
    extra = _conf([["A", "A", None]], 2)[0]
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert extra == pytest.approx(
        1 - h / math.log(2)
    )  # 0.0817: the invalid trial is a third outcome
    assert _conf([["A", "A", ""]], 2, invalid_policy="drop")[0] == 1.0
    # all trials invalid: no option voted for, so no confidence (default); literal extra bin: C = 1
    assert _conf([[None] * 5], 4)[0] == 0.0
    assert _conf([[None] * 5], 4, all_invalid="extra_bin")[0] == 1.0
    assert _conf([[None] * 5], 4, invalid_policy="drop")[0] == 0.0
    assert math.isnan(_conf([[None] * 5], 4, all_invalid="exclude")[0])
    with pytest.raises(ValueError, match="all_invalid"):
        _conf([["A"]], 2, all_invalid="one")
    # clipping: an extra bin can push H above log K
    assert _conf([["A", "B", None]], 2)[0] == 0.0
    with pytest.raises(ValueError, match="invalid_policy"):
        _conf([["A"]], 2, invalid_policy="bin")


def test_vote_count_errors():
    with pytest.raises(ValueError, match="beyond its 2 options"):
        vote_counts([["C"]], 2)
    with pytest.raises(ValueError, match=">= 2"):
        vote_counts([["A"]], 1)
    with pytest.raises(ValueError, match="no trials"):
        vote_counts([[]], 4)
    with pytest.raises(ValueError, match="one entry per sample"):
        vote_counts([["A"], ["B"]], [4])
    with pytest.raises(TypeError):
        vote_counts([["A"]], 2.5)
    with pytest.raises(ValueError, match="letter"):
        vote_counts([["a"]], 4)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda k: st.tuples(
            st.just(k), st.lists(st.sampled_from([*"ABCDEF"[:k], None]), min_size=1, max_size=12)
        )
    )
)
def test_confidence_in_unit_interval_and_order_invariant(case):
    k, trials = case
    for policy in ("extra_bin", "drop"):
        c = _conf([trials, trials[::-1]], k, invalid_policy=policy)
        assert 0.0 <= c[0] <= 1.0 and c[0] == pytest.approx(c[1])


# -- Eqs. 2 and 4 -------------------------------------------------------------------------------

L0 = [list("A" * 10), list("A" * 8 + "B" * 2)]
L2 = [list("B" * 10), list("A" * 9 + "B")]


@pytest.mark.parametrize(
    "rule, shift_l0, shift_l2, acc_l0, acc_l2",
    [("trial_mean", -0.0805, 0.4328, 0.90, 0.45), ("plurality", -0.1805, 0.3828, 1.0, 0.5)],
)
def test_spec_example_2(rule, shift_l0, shift_l2, acc_l0, acc_l2):
    results = {}
    for name, trials in (("L0", L0), ("L2", L2)):
        counts, invalid = vote_counts(trials, 4)
        conf = perceived_confidence(counts, 4, invalid)
        acc = sample_accuracy(counts, ["A", "A"], invalid, accuracy_rule=rule)
        results[name] = (acc.mean(), calibration_shift(conf, acc))
    assert results["L0"][0] == pytest.approx(acc_l0) and results["L2"][0] == pytest.approx(acc_l2)
    assert round(results["L0"][1], 4) == shift_l0 and round(results["L2"][1], 4) == shift_l2
    assert (
        intra_model_dke(results["L0"][0], results["L2"][0], results["L0"][1], results["L2"][1])
        is True
    )
    # inter-model: model g with Acc 0.70 and Delta 0.10 on D_L2
    assert inter_model_dke(results["L2"][0], results["L2"][1], 0.70, 0.10) is True


def test_accuracy_rules():
    counts, invalid = vote_counts([["A", "B", None, None], ["B", "A"], [None, None]], 3)
    gold = ["A", "A", "A"]
    assert sample_accuracy(counts, gold, invalid).tolist() == [
        0.25,
        0.5,
        0.0,
    ]  # invalid trials are wrong
    # plurality: ties to the lowest letter; no valid trial = wrong
    assert sample_accuracy(counts, gold, invalid, accuracy_rule="plurality").tolist() == [
        1.0,
        1.0,
        0.0,
    ]
    with pytest.raises(ValueError, match="accuracy_rule"):
        sample_accuracy(counts, gold, invalid, accuracy_rule="majority")
    with pytest.raises(ValueError, match="options"):
        sample_accuracy(counts, ["D", "A", "A"], invalid)


# -- Eqs. 5 and 6 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "acc0, acc2, d0, d2, expected",
    [
        (0.9, 0.5, 0.1, 0.1, True),
        (0.9, 0.5, 0.1, 0.3, True),
        (0.9, 0.5, 0.2, 0.1, False),
        (0.5, 0.5, 0.0, 0.3, False),
        (0.4, 0.5, 0.0, 0.3, False),
    ],
)
def test_intra_model_dke_truth_table(acc0, acc2, d0, d2, expected):
    assert intra_model_dke(acc0, acc2, d0, d2) is expected


def test_inter_model_dke_and_summary():
    assert inter_model_dke(0.5, 0.3, 0.7, 0.1) is True
    assert inter_model_dke(0.5, 0.1, 0.7, 0.1) is False  # equal shift: not strictly greater
    assert inter_model_dke(0.7, 0.3, 0.7, 0.1) is False  # equal accuracy
    assert inter_model_dke(np.array([0.5, 0.8]), np.array([0.3, 0.3]), 0.7, 0.1).tolist() == [
        True,
        False,
    ]
    s = inter_model_dke_summary(
        {"a": 0.5, "b": 0.6, "c": 0.7, "d": 0.7}, {"a": 0.4, "b": 0.2, "c": 0.3, "d": 0.1}
    )
    # pairs with different accuracy: a<b, a<c, a<d, b<c, b<d (5); DKE: (a,b), (a,c), (a,d), (b,d)
    assert sorted(map(tuple, s["pairs"])) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "d")]
    assert s["n_pairs_compared"] == 5 and s["fraction"] == 0.8
    assert s["spearman_rho"] < 0
    assert (
        inter_model_dke_summary({"a": 0.5, "b": 0.6}, {"a": 0.2, "b": 0.1})["spearman_rho"] is None
    )
    with pytest.raises(ValueError):
        inter_model_dke_summary({"a": 0.5}, {"b": 0.1})


# -- Table 6: accuracy drops from L0
# ----------------------------------------------------------------

TABLE_6 = """\
Gemini-2.5-Pro	71.39	69.93	65.20	-1.46	-6.19
GPT-5	70.27	69.09	64.30	-1.18	-5.97
GPT-5.1	68.56	67.34	62.16	-1.22	-6.40
Gemini-2.5-Flash	67.39	67.18	62.00	-0.21	-5.39
GPT-4o	66.98	65.22	59.73	-1.76	-7.25
GPT-4.1	66.00	66.50	62.00	0.50	-4.00
GPT-4.1-mini	65.21	65.87	61.67	0.66	-3.54
Claude-Sonnet-4.5	59.64	58.28	52.86	-1.36	-6.78
GPT-4o-mini	57.32	55.49	51.53	-1.83	-5.79
InternVL3-Instruct(78B)	74.04	72.46	68.63	-1.58	-5.41
Qwen3-VL-Instruct(235B)	73.15	71.87	66.40	-1.28	-6.75
Qwen3-VL-Instruct(30B)	72.74	70.79	66.14	-1.95	-6.60
InternVL3-Instruct(38B)	68.83	67.38	62.87	-1.45	-5.96
InternVL2.5-MPO(38B)	68.00	66.87	63.81	-1.13	-4.19
InternVL2.5(26B)	66.88	66.48	62.12	-0.40	-4.76
GLM-4.5v	65.77	64.57	58.94	-1.20	-6.83
Gemma-3(27B)	61.03	58.91	52.45	-2.12	-8.58
Qwen2.5-VL-Instruct(72B)	59.68	58.28	52.92	-1.40	-6.76
Qwen2-VL-Instruct(72B)	58.52	58.26	53.61	-0.26	-4.91
Qwen2.5-VL-Instruct(32B)	57.22	55.67	50.69	-1.55	-6.53
Idefics3(8B)	56.71	55.85	51.82	-0.86	-4.89
Qwen2-VL-Instruct(7B)	55.69	54.77	51.14	-0.92	-4.55
ShowO2(7B)	55.60	53.59	47.72	-2.01	-7.88
Gemma-3(4B)	53.60	52.06	46.70	-1.54	-6.90
Mistral-Small-3.1-Instruct(24B)	53.55	53.43	48.61	-0.12	-4.94
BAGEL-MoT(7B)	48.30	45.17	39.92	-3.13	-8.38
Qwen2.5-VL-Instruct(3B)	46.86	44.72	40.43	-2.14	-6.43
DeepSeek-VL2	46.77	45.37	42.80	-1.40	-3.97
Janus-Pro(7B)	45.29	45.23	42.17	-0.06	-3.12
ShowO2(1.5B)	43.15	42.47	39.35	-0.68	-3.80
UniMedVL	70.18	68.48	62.69	-1.70	-7.49
Hulu-Med(14B)	70.04	70.20	65.40	0.16	-4.64
Lingshu(7B)	69.67	67.48	61.34	-2.19	-8.33
Lingshu(32B)	68.65	67.07	60.40	-1.58	-8.25
Hulu-Med(7B)	68.09	67.07	62.20	-1.02	-5.89
HealthGPT-L(14B)	60.29	59.71	56.75	-0.58	-3.54
HealthGPT-XL(32B)	58.99	57.16	53.69	-1.83	-5.30
MedGemma(4B)	58.48	58.12	53.77	-0.36	-4.71
HealthGPT-M(3B)	57.32	56.61	53.45	-0.71	-3.87
MedGemma(27B)	54.90	53.06	49.22	-1.84	-5.68
"""


def test_table_6_drops_all_40_models():
    rows = [line.split("\t") for line in TABLE_6.strip().splitlines()]
    assert len(rows) == 40
    for name, l0, l1, l2, d1, d2 in rows:
        drops = severity_drops({0: float(l0), 1: float(l1), 2: float(l2)})
        assert round(drops["L1-L0"], 2) == pytest.approx(float(d1), abs=1e-9), name
        assert round(drops["L2-L0"], 2) == pytest.approx(float(d2), abs=1e-9), name
    with pytest.raises(ValueError, match="severity 0"):
        severity_drops({1: 50.0})


# -- grouped scoring and records
# --------------------------------------------------------------------


def test_score_groups_by_severity_and_degradation():
    trials = L0 + L2 + [list("A" * 10)]
    counts, invalid = vote_counts(trials, 4)
    r = score_groups(
        counts,
        invalid,
        4,
        ["A"] * 5,
        ["clean", "clean", "motion_blur", "motion_blur", "gaussian_noise"],
        [0, 0, 2, 2, 1],
    )
    assert round(r["by_severity"]["L0"]["calibration_shift"], 4) == -0.0805
    assert (
        round(r["by_degradation_severity"]["motion_blur"]["L2"]["calibration_shift"], 4) == 0.4328
    )
    assert r["intra_model_dke"] is True
    assert r["drops"]["L1-L0"] == pytest.approx(0.1) and r["drops"]["L2-L0"] == pytest.approx(-0.45)
    assert "drops_by_degradation" not in r  # pairing needs the item of each doc
    assert r["overall"]["n"] == 5
    with pytest.raises(ValueError, match="severity"):
        score_groups(counts, invalid, 4, ["A"] * 5, ["x"] * 5, [0, 0, 3, 2, 1])


def test_always_refusing_model_is_not_overconfident():
    trials = [[None] * 10, [None] * 10, list("A" * 10)]
    zero = score_trials(trials, ["A", "B", "A"], 4)
    # C = 0, 0, 1 and accuracy 0, 0, 1: shift (1/3) - (1/3) = 0 (the extra-bin reading gives C = 1:
    # +2/3)
    assert zero["calibration_shift"] == pytest.approx(0.0) and zero["n_excluded_all_invalid"] == 0
    assert score_trials(trials, ["A", "B", "A"], 4, all_invalid="extra_bin")[
        "calibration_shift"
    ] == pytest.approx(2 / 3)
    excl = score_trials(trials, ["A", "B", "A"], 4, all_invalid="exclude")
    assert (
        excl["n"] == 1
        and excl["n_excluded_all_invalid"] == 2
        and excl["calibration_shift"] == pytest.approx(0.0)
    )


def test_drops_are_paired_on_items():
    # L0: q1 right, q2 wrong, q3 half right (trial_mean); mean L0 accuracy 0.5. "nothing" degrades
    # q1 and q2 and changes no answer: paired drop 0 (unpaired: (1+0)/2 - 0.5 = 0). "ct_only"
    # degrades q1 alone, no effect: paired 0, unpaired 1 - 0.5 = +0.5 (the old confound). "hurts"
    # degrades q1 at L1 (1 -> 0) and q3 at L2 (0.5 -> 0): L1 drop -1, L2 drop -0.5, L1&L2 -0.75.
    A, B = list("AAAA"), list("BBBB")
    half = list("AABB")
    rows = [  # item, degradation, severity, votes, modality, capability
        ("q1", "clean", 0, A, "CT", "Diagnosis"),
        ("q2", "clean", 0, B, "X-ray", "Anatomical recognition"),
        ("q3", "clean", 0, half, "X-ray", "Diagnosis"),
        ("q1", "gaussian_noise", 1, A, "CT", "Diagnosis"),
        ("q2", "gaussian_noise", 1, B, "X-ray", "Anatomical recognition"),
        ("q1", "low_dose", 2, A, "CT", "Diagnosis"),
        ("q1", "motion_blur", 1, B, "CT", "Diagnosis"),
        ("q3", "motion_blur", 2, B, "X-ray", "Diagnosis"),
        ("q4", "motion_blur", 1, A, "X-ray", None),  # no L0 doc: unpaired, counted
    ]
    items, degs, sevs, votes, mods, caps = map(list, zip(*rows))
    counts, invalid = vote_counts(votes, 4)
    r = score_groups(
        counts,
        invalid,
        4,
        ["A"] * len(rows),
        degs,
        sevs,
        items=items,
        modality=mods,
        capability=caps,
    )
    d = r["drops_by_degradation"]
    assert d["gaussian_noise"] == {"L1-L0": 0.0, "n_paired": 2}
    assert d["low_dose"] == {"L2-L0": 0.0, "n_paired": 1}
    assert d["motion_blur"]["L1-L0"] == pytest.approx(-1.0) and d["motion_blur"][
        "L2-L0"
    ] == pytest.approx(-0.5)
    mb = r["by_degradation_severity"]["motion_blur"]["L1"]
    assert mb["n"] == 2 and mb["accuracy"] == pytest.approx(
        0.5
    )  # q4 counts in the accuracy, not in the drop
    cat = r["by_category"]
    assert cat["Noise"]["L1&L2"]["L1&L2-L0"] == 0.0 and cat["Noise"]["L1&L2"]["n_paired"] == 3
    assert cat["Resolution & Blur"]["L1&L2"]["L1&L2-L0"] == pytest.approx(-0.75)  # (-1 - 0.5) / 2
    assert cat["Resolution & Blur"]["L1"]["n_unpaired"] == 1 and cat["Resolution & Blur"]["L1&L2"][
        "accuracy"
    ] == pytest.approx(1 / 3)
    # per modality: CT = q1 only; L0 1.0, L1 (noise 1, blur 0) 0.5, L2 1.0
    ct = r["by_modality"]["CT"]
    assert (
        ct["L0"]["accuracy"] == 1.0
        and ct["L1"]["accuracy"] == 0.5
        and ct["L1"]["L1-L0"] == pytest.approx(-0.5)
    )
    assert ct["L2"]["L2-L0"] == 0.0 and ct["L1&L2"]["L1&L2-L0"] == pytest.approx(-1 / 3)
    # capability (Table 2) and its high-level group; q4 has no label
    diag = r["by_capability"]["Diagnosis"]
    assert diag["L1&L2"]["accuracy"] == pytest.approx(0.5) and diag["L1&L2"][
        "L1&L2-L0"
    ] == pytest.approx((0 + 0 - 1 - 0.5) / 4)
    assert r["by_capability_group"]["Clinical Reasoning"]["L1&L2"]["n"] == 4
    assert r["by_capability_group"]["Medical Perception"]["L1&L2"]["L1&L2-L0"] == 0.0
    assert "(unlabelled)" in r["by_capability"]
    # overall paired drops: L1 docs q1,q2,q1,q4 -> paired (0, 0, -1); L2 q1, q3 -> (0, -0.5)
    assert r["paired_drops"]["L1"]["L1-L0"] == pytest.approx(-1 / 3) and r["paired_drops"]["L2"][
        "L2-L0"
    ] == pytest.approx(-0.25)
    with pytest.raises(ValueError, match="more than one L0"):
        score_groups(
            counts[:2], invalid[:2], 4, ["A", "A"], ["clean"] * 2, [0, 0], items=["q", "q"]
        )


def test_capability_groups():
    from medvigil.suites.medqdeg.breakdowns import capability_group, category_of

    assert capability_group("Diagnostic reasoning") == "Clinical Reasoning"
    assert capability_group("Treatment planning") == "Clinical Reasoning"
    assert capability_group("imaging perception") == "Medical Perception"
    assert capability_group("laterality") == "other"
    assert category_of("sparse_view") == "Artifacts" and category_of("exposure") == "Intensity"
    assert (
        category_of("object_rotation") == "Motion" and category_of("bubble") == "Resolution & Blur"
    )


def test_score_trials_matches_groups_and_letters():
    r = score_trials([list("AAAAAAAAAA"), list("AAAAAAAABB")], ["A", "A"], [4, 4])
    assert round(r["calibration_shift"], 4) == -0.0805 and r["n"] == 2
    with pytest.raises(ValueError, match="both"):
        score_trials([["A"]], ["A"], 2, degradations=["x"])


def _rec(model, pid, votes, gold="A", k=4, **extra):
    return {
        "suite": "medqdeg",
        "model": model,
        "probe_id": pid,
        "case_id": pid.split("@")[0],
        "probe_kind": "vqa",
        "correct_letter": gold,
        "predicted_letter": votes[0],
        "parse_status": "ok",
        "extra": {"votes": votes, "n_options": k, **extra},
    }


def test_score_records_per_model_and_inter_model():
    recs = [
        _rec("f", "q1@L0", list("A" * 10), degradation="clean", severity=0),
        _rec("f", "q2@L0", list("A" * 8 + "B" * 2), degradation="clean", severity=0),
        _rec("f", "q1@L2", list("B" * 10), degradation="motion_blur", severity=2),
        _rec("f", "q2@L2", list("A" * 9 + "B"), degradation="motion_blur", severity="L2"),
        _rec("g", "q1@L2", list("A" * 10), degradation="motion_blur", severity=2),
        {
            **_rec("g", "q2@L0", ["A"] * 10),
            "condition": "default",
            "extra": {"votes": ["A"] * 10, "n_options": 4},
        },
        {
            **_rec("g", "q2@L2", ["B"] * 5 + ["A"] * 5),
            "condition": "motion_blur:2",
            "extra": {"votes": ["B"] * 5 + ["A"] * 5},
        },
    ]
    r = score_records(recs, n_options=4)
    f = r["models"]["f"]
    assert (
        f["intra_model_dke"] is True
        and round(f["by_severity"]["L2"]["calibration_shift"], 4) == 0.4328
    )
    assert r["models"]["g"]["by_degradation_severity"]["motion_blur"]["L2"]["n"] == 2
    assert r["inter_model_dke"]["L2"]["pairs"] == [["f", "g"]]  # f: lower accuracy, higher shift
    with pytest.raises(ValueError, match="number of options"):
        score_records([{**_rec("f", "q", ["A"]), "extra": {"votes": ["A"], "severity": 0}}])
    with pytest.raises(ValueError, match="degradation"):
        score_records(
            [
                {
                    **_rec("f", "q", ["A"]),
                    "condition": "weird",
                    "extra": {"votes": ["A"], "n_options": 4},
                }
            ]
        )
    with pytest.raises(ValueError, match="suite"):
        score_records([{**_rec("f", "q", ["A"]), "suite": "cbd"}])


def test_vectorised_scale():
    rng = np.random.default_rng(0)
    n, t = 20_000, 10
    letters = np.array(list("ABCD"))
    trials = letters[rng.integers(0, 4, size=(n, t))].tolist()
    counts, invalid = vote_counts(trials, 4)
    c = perceived_confidence(counts, 4, invalid)
    assert c.shape == (n,) and np.all((0 <= c) & (c <= 1))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["clean", "gaussian_noise", "motion blur", "low_dose", "a b"]),
            st.integers(0, 2),
            st.sampled_from([None, "", "CT", "(unlabelled)", "MRI"]),
            st.integers(0, 3),
            st.sampled_from(list("AB") + [None]),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_breakdowns_group_the_samples_they_name(rows):
    """Every breakdown key holds exactly the samples that carry it (checked against grouping by
    hand): degradation x severity, modality (missing and empty labels together), category."""
    from medvigil.suites.medqdeg.breakdowns import UNLABELLED, category_of

    degs, sevs, mods, items, answers = map(list, zip(*rows))
    items = [f"{d}|{s}|{i}" if s else f"q{i}" for d, s, i in zip(degs, sevs, items)]
    if len(set(i for i, s in zip(items, sevs) if s == 0)) < sum(s == 0 for s in sevs):
        return  # two L0 docs of one item: refused, tested above
    counts, invalid = vote_counts([[a] * 3 for a in answers], 4)
    r = score_groups(counts, invalid, 4, ["A"] * len(rows), degs, sevs, items=items, modality=mods)
    assert r["overall"]["n"] == len(rows)  # all-invalid samples are kept (all_invalid="zero")
    joint = {}
    for d, s, *_ in rows:
        joint.setdefault(d, {}).setdefault(f"L{s}", 0)
        joint[d][f"L{s}"] += 1
    assert {
        d: {lv: v["n"] for lv, v in levels.items()}
        for d, levels in r["by_degradation_severity"].items()
    } == {d: dict(sorted(joint[d].items())) for d in sorted(joint)}
    assert list(r["by_degradation_severity"]) == sorted(joint)
    by_mod = {}
    for _, s, m, *_ in rows:
        key = UNLABELLED if m in (None, "") else m
        by_mod.setdefault(key, {}).setdefault(s, 0)
        by_mod[key][s] += 1
    assert sorted(r["by_modality"]) == sorted(by_mod)
    for key, entry in r["by_modality"].items():
        assert entry.get("L0", {}).get("n", 0) == by_mod[key].get(0, 0)
        assert entry.get("L1&L2", {}).get("n", 0) == by_mod[key].get(1, 0) + by_mod[key].get(2, 0)
    cats = {}
    for d, s, *_ in rows:
        if s:
            cats[category_of(d)] = cats.get(category_of(d), 0) + 1
    assert {c: e["L1&L2"]["n"] for c, e in r["by_category"].items()} == cats
