"""Hand-worked micro cases for every MedVIGIL metric, the record table, ablations and the
harness adapter. Each expected value is derived in the comments next to it."""

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from medvigil.errors import DataError
from medvigil.records.schema_validation import check_records
from medvigil.scoring.categorical import Categorical, factorize, group_accuracy
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.scoring.ablation_conditions import parse_condition
from medvigil.suites.medvigil.scoring.ablations import blur_sweep, no_image_gap, takeover_point
from medvigil.suites.medvigil.scoring.axes import METRIC_KEYS, mcs_from_axes, weighted_sfr
from medvigil.suites.medvigil.scoring.compare import compare_models
from medvigil.suites.medvigil.scoring.roi_decay import roi_decay
from medvigil.suites.medvigil.scoring.scoring import audit, audit_to_json, model_metrics

NAN = float("nan")


def rec(
    case,
    kind,
    gold,
    pred,
    *,
    model="m",
    tier="L1",
    status=None,
    condition=None,
    probe=None,
    **extra,
):
    """One probe record; ``pred=None`` is a parse failure unless ``status`` says otherwise."""
    r = {
        "suite": "medvigil",
        "model": model,
        "probe_id": probe
        or f"{case}:{kind}:{len(extra)}:{pred}:{gold}:{condition}:{status}:{id(object())}",
        "case_id": case,
        "probe_kind": kind,
        "risk_tier": tier,
        "correct_letter": gold,
        "predicted_letter": pred,
        "parse_status": status or ("ok" if pred is not None else "parse_failure"),
    }
    if condition is not None:
        r["condition"] = condition
    r.update(extra)
    return r


def _uniq(records):
    """Give every record a unique probe id (model, condition and position)."""
    for i, r in enumerate(records):
        r["probe_id"] = f"{r['model']}:{r.get('condition', 'default')}:{i}"
    return records


def micro_records():
    """Two cases of model "m".

    c1 (L1): original A->A ok, tcf A->B, negation A->A ok, specificity_drop parse failure,
             knowledge_only A->A ok, traps E->E ok and E->C silent, lr_flip A->A ok,
             roi_only A->A ok, roi_masked E->E ok.                         7 of 10 correct
    c2 (L5): original A->B, tcf A->B, traps E->A silent and a failed call (error),
             roi_only A->C, roi_masked E->E ok.                             1 of 6 correct
    """
    return _uniq(
        [
            rec("c1", "original", "A", "A"),
            rec("c1", "tcf", "A", "B"),
            rec("c1", "negation", "A", "A"),
            rec("c1", "specificity_drop", "A", None),
            rec("c1", "knowledge_only", "A", "A"),
            rec("c1", "halluc_trap", "E", "E"),
            rec("c1", "halluc_trap", "E", "C"),
            rec("c1", "lr_flip", "A", "A"),
            rec("c1", "roi_only", "A", "A"),
            rec("c1", "roi_masked", "E", "E"),
            rec("c2", "original", "A", "B", tier="L5"),
            rec("c2", "tcf", "A", "B", tier="L5"),
            rec("c2", "halluc_trap", "E", "A", tier="L5"),
            rec("c2", "halluc_trap", "E", None, tier="L5", status="error"),
            rec("c2", "roi_only", "A", "C", tier="L5"),
            rec("c2", "roi_masked", "E", "E", tier="L5"),
        ]
    )


# ------------------------------------------------------------------- paper semantics
def test_micro_paper_semantics():
    r = audit(micro_records(), n_resamples=0)
    m = r["models"]["m"]["metrics"]
    assert m["acc_orig"] == 50.0  # c1 right, c2 wrong
    assert m["pr"] == 0.0  # both tcf wrong
    assert m["neg"] == 100.0 and m["lpa"] == 100.0 and m["lr_flip"] == 100.0
    assert m["sdr"] == 0.0  # the only specificity_drop probe is a parse failure
    # traps: E ok, C silent, A silent, error -> silent under paper semantics: SFR = 3/4
    assert m["sfr"] == 75.0
    tiers = r["models"]["m"]["sfr_by_tier"]
    assert (
        tiers["L1"] == 50.0
        and tiers["L5"] == 100.0
        and all(math.isnan(tiers[t]) for t in ("L2", "L3", "L4"))
    )
    # SFR_w, "present": (1 * 50 + 8 * 100) / (1 + 8) = 850 / 9
    assert m["sfr_w"] == pytest.approx(850 / 9)
    assert m["roi_only"] == 50.0 and m["roi_masked"] == 100.0
    assert m["vgr"] == -50.0  # 50 - 100
    assert m["ground"] == 50.0  # (clip(-50 + 50) + 100) / 2
    assert m["cap"] == 37.5  # (50 + 0 + 100 + 0) / 4
    assert m["safe"] == pytest.approx(100 - 850 / 9)
    a, b, c = 37.5, 100 - 850 / 9, 50.0
    assert m["mcs"] == pytest.approx(3 * a * b * c / (a * b + a * c + b * c))
    assert m["overall"] == 50.0  # 8 correct of 16 probes
    # PCons: c1 original A / tcf B disagree; c2 B / B agree (stable but wrong) -> 50
    assert m["pcons"] == 50.0
    assert math.isnan(m["tr_coh"]) and "tr_coh" in r["models"]["m"]["reasons"]
    counts = r["models"]["m"]["counts"]
    assert counts["by_kind"]["specificity_drop"]["n_parse_failure"] == 1
    assert counts["by_kind"]["halluc_trap"]["n_error"] == 1
    assert counts["by_kind"]["halluc_trap"]["n_scored"] == 4
    assert counts["n_records"] == 16 and counts["n_scored"] == 16
    assert counts["traps_by_tier"]["L5"] == {"n_scored": 2, "n_silent": 2}
    assert r["models"]["m"]["n_cases"] == 2


def test_micro_normalise_choices():
    # all: (1 * 50 + 8 * 100) / 19; strict: NaN (L2-L4 have no traps)
    all_ = audit(micro_records(), n_resamples=0, normalise="all")["models"]["m"]
    assert all_["metrics"]["sfr_w"] == pytest.approx(850 / 19)
    strict = audit(micro_records(), n_resamples=0, normalise="strict")["models"]["m"]
    assert math.isnan(strict["metrics"]["sfr_w"]) and math.isnan(strict["metrics"]["mcs"])
    assert "L2, L3, L4" in strict["reasons"]["sfr_w"]
    assert "safe" in strict["reasons"]["mcs"]


def test_micro_harness_compatible():
    """Error rows dropped: traps E ok, C, A -> SFR 2/3; L5 1/1; SFR_w NaN (strict); Overall 8/15."""
    r = audit(micro_records(), harness_compatible=True, n_resamples=0)
    m = r["models"]["m"]["metrics"]
    assert m["sfr"] == pytest.approx(200 / 3)
    assert r["models"]["m"]["sfr_by_tier"]["L5"] == 100.0
    assert math.isnan(m["sfr_w"]) and math.isnan(m["mcs"])
    assert m["overall"] == pytest.approx(100 * 8 / 15)
    assert m["cap"] == 37.5  # the parse failure stays wrong in both modes
    assert r["params"]["normalise"] == "strict" and r["params"]["normalise_bootstrap"] == "present"
    assert r["params"]["ci_method"] == "harness"
    counts = r["models"]["m"]["counts"]["by_kind"]["halluc_trap"]
    assert counts == {
        "n_records": 4,
        "n_scored": 3,
        "n_correct": 1,
        "n_parse_failure": 0,
        "n_error": 1,
    }
    # an explicit normalise wins over the harness default
    r = audit(micro_records(), harness_compatible=True, n_resamples=0, normalise="present")
    assert r["models"]["m"]["metrics"]["sfr_w"] == pytest.approx((50 + 8 * 100) / 9)


def test_weighted_sfr_hand_cases():
    assert weighted_sfr([10, 20, 30, 40, 50]) == pytest.approx((10 + 40 + 90 + 200 + 400) / 19)
    assert weighted_sfr([10, 20, 30, 40, 50], weights=(1, 1, 1, 1, 1)) == pytest.approx(30)
    assert weighted_sfr([NAN, NAN, 30, NAN, NAN]) == 30.0  # present: one tier
    assert weighted_sfr([NAN, NAN, 30, NAN, NAN], normalise="all") == pytest.approx(90 / 19)
    assert math.isnan(weighted_sfr([NAN] * 5))
    # counts decide presence when given
    assert weighted_sfr([0, 0, 30, 0, 0], n_by_tier=[0, 0, 4, 0, 0]) == 30.0
    with pytest.raises(ValueError, match="normalise"):
        weighted_sfr([1, 2, 3, 4, 5], normalise="some")
    with pytest.raises(ValueError, match="weights"):
        weighted_sfr([1, 2, 3, 4, 5], weights=(1, 2, 3))
    with pytest.raises(ValueError, match="weights"):
        weighted_sfr([1, 2, 3, 4, 5], weights=(1, -2, 3, 4, 5))


def test_mcs_axis_edge_cases():
    assert mcs_from_axes(60.0, 60.0, 60.0) == pytest.approx(60.0)
    assert mcs_from_axes(90.0, 90.0, 10.0) == pytest.approx(
        3 * 90 * 90 * 10 / (8100 + 900 + 900)
    )  # ~24.5
    assert mcs_from_axes(0.0, 0.0, 0.0) == 0.0  # 0/0 defined as 0
    assert mcs_from_axes(50.0, 0.0, 50.0) == 0.0
    assert math.isnan(mcs_from_axes(50.0, NAN, 50.0))
    arr = mcs_from_axes(
        np.array([60.0, 0.0, NAN]), np.array([60.0, 10.0, 1.0]), np.array([60.0, 10.0, 1.0])
    )
    assert arr[0] == pytest.approx(60.0) and arr[1] == 0.0 and math.isnan(arr[2])


def test_grounding_variants_and_sensitivity_micro():
    """ROI-only 10, ROI-masked 30 -> VGR -20.

    default (clip(30) + 30) / 2 = 30; ReLU (clip(50) + 30) / 2 = 40; VGR/2 (clip(40) + 30) / 2 = 35;
    sgn|VGR| = default; ROI-only = 10.
    """
    from medvigil.suites.medvigil.scoring.sensitivity import grounding_variant, sensitivity_table

    got = {
        name: float(grounding_variant(name, 10.0, 30.0))
        for name in ("default", "relu_vgr", "half_vgr", "signed_abs_vgr", "roi_only")
    }
    assert got == {
        "default": 30.0,
        "relu_vgr": 40.0,
        "half_vgr": 35.0,
        "signed_abs_vgr": 30.0,
        "roi_only": 10.0,
    }
    # three models; "c" has no ROI data and is excluded; a leads under every variant
    out = sensitivity_table(
        ["a", "b", "c"],
        cap=[80, 60, 70],
        sfr_by_tier=[[10] * 5, [50, 50, 50, 50, 90], [20] * 5],
        roi_only=[70, 40, NAN],
        roi_masked=[40, 20, NAN],
        top_k=1,
    )
    assert out["models"] == ["a", "b"] and out["excluded"] == {"c": "default MCS is NaN"}
    assert all(
        row["leader"] == "a" and row["top_k_overlap"] == 1 and row["spearman"] == 1.0
        for row in out["rows"]
    )
    default = {r["variant"]: r for r in out["rows"]}["default"]
    assert default["mcs"]["a"] == pytest.approx(mcs_from_axes(80, 90, (80 + 40) / 2))


def test_all_traps_silent_gives_mcs_zero():
    records = _uniq(
        [rec("c", k, "A", "A") for k in ("original", "tcf", "negation", "specificity_drop")]
        + [rec("c", "halluc_trap", "E", "A") for _ in range(2)]  # SFR_w 100 -> Safe 0
        + [rec("c", "roi_only", "A", "A"), rec("c", "roi_masked", "E", "E")]
    )
    m = audit(records, n_resamples=0)["models"]["m"]["metrics"]
    assert m["safe"] == 0.0 and m["mcs"] == 0.0 and m["cap"] == 100.0


def test_triplet_coherence():
    """t1 all three right (coherent); t2 V-CF wrong (counterfactually blind); t3 anchor only.

    TR-coh = 1 / 2 complete triplets = 50; t3 is reported as incomplete.
    """
    records = _uniq(
        [
            rec("t1", "triplet_anchor", "A", "A"),
            rec("t1", "triplet_tcf", "A", "A"),
            rec("t1", "triplet_vcf", "B", "B"),
            rec("t2", "triplet_anchor", "A", "A"),
            rec("t2", "triplet_tcf", "A", "A"),
            rec("t2", "triplet_vcf", "B", "A"),
            rec("t3", "triplet_anchor", "A", "A"),
        ]
    )
    block = audit(records, n_resamples=0)["models"]["m"]
    assert block["metrics"]["tr_coh"] == 50.0
    assert block["counts"]["triplets_complete"] == 2 and block["counts"]["triplets_incomplete"] == 1
    assert block["accuracy"]["triplet_vcf"] == 50.0
    # triplet kinds are not part of the nine-kind Overall
    assert math.isnan(block["metrics"]["overall"])


def test_pcons_parse_failures_never_agree():
    """c1: both letters missing (parse failures) -> a pair that disagrees; c2: A/A agree -> 50."""
    records = _uniq(
        [
            rec("c1", "original", "A", None),
            rec("c1", "tcf", "A", None),
            rec("c2", "original", "A", "A"),
            rec("c2", "tcf", "A", "A"),
        ]
    )
    block = audit(records, n_resamples=0)["models"]["m"]
    assert block["metrics"]["pcons"] == 50.0 and block["counts"]["pcons_pairs"] == 2
    # harness mode drops error rows: a pair with a failed call is not a pair
    records[1]["parse_status"] = "error"
    block = audit(records, n_resamples=0, harness_compatible=True)["models"]["m"]
    assert block["metrics"]["pcons"] == 100.0 and block["counts"]["pcons_pairs"] == 1


def test_empty_families_are_nan_with_reasons():
    records = _uniq([rec("c1", "original", "A", "A"), rec("c2", "original", "A", "B")])
    r = audit(records, n_resamples=50)
    block = r["models"]["m"]
    assert block["metrics"]["acc_orig"] == 50.0 and block["metrics"]["overall"] == 50.0
    for key in (
        "pr",
        "neg",
        "sdr",
        "sfr",
        "sfr_w",
        "vgr",
        "cap",
        "safe",
        "ground",
        "mcs",
        "pcons",
        "tr_coh",
    ):
        assert math.isnan(block["metrics"][key]), key
        assert block["reasons"][key], key
    assert "'tcf'" in block["reasons"]["cap"] and "roi_masked" in block["reasons"]["ground"]
    assert block["reasons"]["mcs"].startswith("undefined axis")
    assert math.isnan(block["ci"]["mcs"]["low"])
    assert r["sensitivity"]["models"] == [] and r["sensitivity"]["excluded"] == {
        "m": "default MCS is NaN"
    }
    json.loads(audit_to_json(r))  # strict JSON: NaN -> null


def test_traps_without_tier_count_in_sfr_only():
    records = _uniq(
        [
            rec("c1", "halluc_trap", "E", "A", tier=None),
            rec("c2", "halluc_trap", "E", "E", tier="L2"),
        ]
    )
    r = audit(records, n_resamples=0)
    block = r["models"]["m"]
    assert block["metrics"]["sfr"] == 50.0 and block["metrics"]["sfr_w"] == 0.0
    assert block["counts"]["traps_without_tier"] == 1
    assert any("without risk_tier" in w for w in r["warnings"])


def test_strata_by_source_and_tier():
    """Source S1 = case c1 (L1), S2 = case c2 (L5) of the micro set: each stratum is its case."""
    records = micro_records()
    for r in records:
        r["source_dataset"] = "S1" if r["case_id"] == "c1" else "S2"
        r["modality"] = "CT"
        r["text_only_answerable"] = r["case_id"] == "c2"
    strata = audit(records, n_resamples=0)["models"]["m"]["strata"]
    s1 = strata["source_dataset"]["S1"]
    assert s1["metrics"]["overall"] == 70.0 and s1["metrics"]["sfr"] == 50.0 and s1["n_cases"] == 1
    assert s1["metrics"]["cap"] == 50.0  # (100 + 0 + 100 + 0) / 4
    s2 = strata["source_dataset"]["S2"]
    assert s2["metrics"]["overall"] == pytest.approx(100 / 6) and s2["metrics"]["sfr"] == 100.0
    assert math.isnan(s2["metrics"]["neg"]) and "negation" in s2["reasons"]["neg"]
    assert strata["risk_tier"]["L5"]["metrics"]["sfr_w"] == 100.0  # within-tier SFR (Table 10)
    assert set(strata["risk_tier"]) == {"L1", "L5"}
    assert strata["text_only_answerable"]["true"]["metrics"]["overall"] == pytest.approx(100 / 6)
    assert strata["modality"]["CT"]["metrics"]["overall"] == 50.0
    assert strata["probe_kind"]["original"] == {"accuracy": 50.0, "n_scored": 2, "n_correct": 1}


def test_strata_unknown_level():
    records = micro_records()
    for r in records:
        r["modality"] = "MRI" if r["case_id"] == "c1" else None
    strata = audit(records, n_resamples=0)["models"]["m"]["strata"]
    assert set(strata["modality"]) == {"MRI", "unknown"}


def test_medvigil_metrics_point_only_and_models():
    records = micro_records() + _uniq([rec("c1", "original", "A", "A", model="other", probe="x")])
    out = model_metrics(records)
    assert set(out) == {"m", "other"} and set(out["m"]) == set(METRIC_KEYS)
    assert out["other"]["acc_orig"] == 100.0


def test_permutation_and_json():
    records = micro_records()
    a = audit(records, n_resamples=30)
    b = audit(list(reversed(records)), n_resamples=30)
    assert audit_to_json(a, sort_keys=True) == audit_to_json(b, sort_keys=True)
    json.dumps(a)


def test_audit_matches_score_summary_schema():
    from medvigil.schemas import SCHEMA_DIR

    if not (SCHEMA_DIR / "score_summary.schema.json").is_file():
        pytest.skip("score_summary schema not present")
    result = json.loads(audit_to_json(audit(micro_records(), n_resamples=20)))
    check_records("score_summary", [result], "<audit>")


def test_conditions_split_and_other_suites_rejected():
    records = micro_records() + _uniq(
        [rec("c1", "original", "A", "B", condition="noimg", probe="n1")]
    )
    r = audit(records, n_resamples=0)
    assert r["models"]["m"]["counts"]["n_records"] == 16  # noimg not in the headline
    assert r["ablations"]["no_image"]["m"]["orig_noimg"] == 0.0
    bad = micro_records()
    bad[0]["suite"] = "mediconfusion"
    with pytest.raises(ValueError, match="suite 'medvigil'"):
        audit(bad)
    with pytest.raises(
        DataError, match="no record has condition 'nothing'"
    ):  # was an empty audit (issue 29)
        audit(micro_records(), condition="nothing", n_resamples=0)


# ---------------------------------------------------------------------- table checks
def test_record_table_rejects_bad_records():
    good = micro_records()
    missing = [dict(r) for r in good]
    del missing[3]["case_id"]
    with pytest.raises(DataError) as err:
        RecordTable.from_records(missing, source="x.jsonl")
    p = err.value.problems[0]
    assert (p.file, p.row, p.field) == ("x.jsonl", 4, "case_id")

    bad = [dict(r) for r in good]
    bad[1]["correct_letter"] = "AB"
    bad[2]["parse_status"] = "maybe"
    bad[4]["predicted_letter"] = None  # parse_status stays "ok"
    bad[5]["risk_tier"] = "L9"
    bad[6]["text_only_answerable"] = "yes"
    with pytest.raises(DataError) as err:
        RecordTable.from_records(bad, source="x.jsonl")
    found = {(p.row, p.field) for p in err.value.problems}
    assert {
        (2, "correct_letter"),
        (3, "parse_status"),
        (5, "predicted_letter"),
        (6, "risk_tier"),
        (7, "text_only_answerable"),
    } <= found

    dup = [dict(r) for r in good]
    dup[1]["probe_id"] = dup[0]["probe_id"]
    with pytest.raises(DataError, match="duplicate probe"):
        RecordTable.from_records(dup)


def test_conflicting_case_attributes_are_errors():
    records = micro_records()
    records[1]["risk_tier"] = "L2"  # c1 is L1 elsewhere
    with pytest.raises(DataError, match="conflicting risk_tier"):
        audit(records, n_resamples=0)


def test_duplicate_pairs_are_errors():
    records = micro_records() + _uniq([rec("c1", "original", "A", "A", probe="extra")])
    records[-1]["probe_id"] = "another-original"
    with pytest.raises(DataError, match="pairing needs at most one"):
        audit(records, n_resamples=0)


def test_factorize_and_group_accuracy():
    cat = factorize(["b", None, "a", "b"])
    assert cat.levels == ("a", "b") and cat.codes.tolist() == [1, -1, 0, 1]
    cat = factorize(["x"], order=("L1", "L2"))
    assert cat.levels == ("L1", "L2", "x")
    acc, _, n = group_accuracy(
        np.array([1, 0, 1, 1], bool), np.array([1, 1, 0, 1], bool), np.array([0, 0, 1, -1]), 3
    )
    assert acc[0] == 50.0 and math.isnan(acc[1]) and math.isnan(acc[2]) and n.tolist() == [2, 0, 0]


def test_used_codes_are_the_unique_codes():
    for codes in ([3, 0, 3, 1], [], [-1, 2, -1], [0, 0, 0], [-1]):
        cat = Categorical(np.array(codes, dtype=np.int32), ("a", "b", "c", "d"))
        assert cat.used_codes().tolist() == np.unique(cat.codes).tolist(), codes


def test_bad_parameters():
    with pytest.raises(ValueError, match="normalise"):
        audit(micro_records(), normalise="half")
    with pytest.raises(ValueError, match="n_resamples"):
        audit(micro_records(), n_resamples=-1)
    with pytest.raises(TypeError, match="harness_compatible"):
        audit(micro_records(), harness_compatible="yes")
    with pytest.raises(ValueError, match="ci_level"):
        audit(micro_records(), ci_level=1.5)


# ------------------------------------------------------------------- compare models
def test_compare_models():
    records = micro_records()
    for i, r in enumerate(
        records
    ):  # the same probe ids for both models: the pair shares every probe
        r["probe_id"] = f"p{i}"
    better = [
        dict(r, model="b", predicted_letter=r["correct_letter"], parse_status="ok") for r in records
    ]
    both = records + better
    out = compare_models(both, n_resamples=200)
    assert {(r["n_probes"], r["n_cases"]) for r in out["pairs"]} == {(len(records), 2)}
    mcs = next(r for r in out["pairs"] if r["metric"] == "mcs")
    point = model_metrics(both)
    # b answers everything right: VGR 0 -> Ground (50 + 100) / 2 = 75 -> MCS = hm(100, 100, 75) = 90
    assert point["b"]["mcs"] == pytest.approx(90.0)
    assert (mcs["a"], mcs["b"]) == ("b", "m") and mcs["delta"] == pytest.approx(
        point["m"]["mcs"] - 90.0
    )
    assert mcs["ci95"][1] < 0 and mcs["p"] < 0.05
    with pytest.raises(ValueError, match="at least two models"):
        compare_models(records)
    with pytest.raises(ValueError, match="unknown metric"):
        compare_models(both, metrics=("mcs", "zzz"))


# ----------------------------------------------------------------------- ablations
def _ablation_table(rows):
    return RecordTable.from_records(_uniq(rows))


def test_no_image_gap_micro():
    # vision: 3 of 4 originals right; no image: 1 of 4 -> delta 50 pp
    rows = [rec(f"c{i}", "original", "A", "A" if i < 3 else "B") for i in range(4)]
    rows += [
        rec(f"c{i}", "original", "A", "A" if i < 1 else "B", condition="noimg") for i in range(4)
    ]
    gap = no_image_gap(_ablation_table(rows))["m"]
    assert (gap["orig_vision"], gap["orig_noimg"], gap["delta_orig"]) == (75.0, 25.0, 50.0)


def test_blur_sweep_micro_and_edge_cases():
    """Ten image-required originals: acc(0) 80, acc(8) 60, acc(16) 30, no image 20.

    clean contribution 60; residual at 8 = 40 (> 12), at 16 = 10 (<= 12) -> L* = 16.
    The two text-answerable cases stay right at every sigma (flat control).
    """
    rows = []
    for cond, ok in (("default", 8), ("blur:8", 6), ("blur:16", 3), ("noimg", 2)):
        for i in range(10):
            rows.append(
                rec(
                    f"c{i}",
                    "original",
                    "A",
                    "A" if i < ok else "B",
                    condition=cond,
                    text_only_answerable=False,
                )
            )
        for i in range(10, 12):
            rows.append(
                rec(f"c{i}", "original", "A", "A", condition=cond, text_only_answerable=True)
            )
    sweep = blur_sweep(_ablation_table(rows))["m"]
    assert sweep["sigmas"] == [0.0, 8.0, 16.0]  # sigma 0 from the default condition
    assert sweep["accuracy_image_required"] == [80.0, 60.0, 30.0]
    assert sweep["accuracy_text_answerable"] == [100.0, 100.0, 100.0]
    assert sweep["noimg_image_required"] == 20.0 and sweep["drop"] == 60.0
    assert sweep["takeover_sigma"] == 16.0 and sweep["takeover_subset"] == "image_required"

    assert takeover_point([0, 8], [50.0, 45.0], 10.0) == (
        None,
        "residual visual contribution stays above 20% of the clean one up to sigma = 8",
    )
    assert takeover_point([0, 8], [10.0, 5.0], 10.0)[1].startswith(
        "no positive visual contribution"
    )
    assert takeover_point([8, 16], [10.0, 5.0], 1.0) == (None, "no accuracy at sigma = 0")
    assert takeover_point([0, 8], [50.0, 18.0], 10.0) == (
        8.0,
        None,
    )  # residual 8 <= 0.2 * 40 (equality counts)
    with pytest.raises(ValueError, match="blur"):
        parse_condition("blur:abc")
    assert parse_condition("roi_decay:2") == ("roi_decay", 2) and parse_condition("noimg") == (
        "noimg",
        None,
    )


def test_roi_decay_micro():
    """Four cases. Step 0 letters A A A (parse failure); step 3: E E A (parse failure).

    Refusal at step 3 = 2/4 = 50%; switches vs step 0: c0, c1 (A -> E); c2 same; c3 no letter
    at both steps is not a switch -> 2/4 = 50%. Step 0: no refusal, no switch.
    """
    rows = [
        rec("c0", "roi_masked", "E", "A", condition="roi_decay:0"),
        rec("c1", "roi_masked", "E", "A", condition="roi_decay:0"),
        rec("c2", "roi_masked", "E", "A", condition="roi_decay:0"),
        rec("c3", "roi_masked", "E", None, condition="roi_decay:0"),
        rec("c0", "roi_masked", "E", "E", condition="roi_decay:3"),
        rec("c1", "roi_masked", "E", "E", condition="roi_decay:3"),
        rec("c2", "roi_masked", "E", "A", condition="roi_decay:3"),
        rec("c3", "roi_masked", "E", None, condition="roi_decay:3"),
    ]
    d = roi_decay(_ablation_table(rows))["m"]
    assert d["steps"] == [0, 3] and d["n"] == [4, 4]
    assert d["refusal_rate"] == [0.0, 50.0] and d["switch_rate"] == [0.0, 50.0]
    assert d["n_switch_pairs"] == [4, 4]
    lo, hi = d["refusal_ci"][1]
    assert lo < 50.0 < hi


# ------------------------------------------------------------------ harness adapter
def _release_stub():
    case = lambda tier, src, mod, txt: SimpleNamespace(
        risk_tier=tier, source_dataset=src, modality=mod, text_only_answerable=txt
    )
    probe = lambda pid, cid, kind, letter: SimpleNamespace(
        probe_id=pid, case_id=cid, probe_kind=kind, correct_letter=letter
    )
    return SimpleNamespace(
        cases={
            "MVB-0001": case("L3", "SLAKE", "CT", False),
            "MVB-0002": case("L5", "VQA-RAD", "MRI", True),
        },
        probes_mcq=[
            probe("MVB-0001-orig", "MVB-0001", "original", "A"),
            probe("MVB-0001-trap1", "MVB-0001", "halluc_trap", "E"),
            probe("MVB-0002-orig", "MVB-0002", "original", "A"),
            probe("MVB-0002-trap1", "MVB-0002", "halluc_trap", "E"),
        ],
    )


def _row(pid, cid, kind, letter, correct, status="ok", **extra):
    return json.dumps(
        {
            "probe_id": pid,
            "case_id": cid,
            "probe_kind": kind,
            "model_letter": letter,
            "correct_letter": correct,
            "status": status,
            **extra,
        }
    )


def test_harness_adapter_reads_rows(tmp_path):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    path = tmp_path / "gpt-4o__mcq.jsonl"
    path.write_text(
        "\n".join(
            [
                _row(
                    "MVB-0001-orig", "MVB-0001", "original", "A", "A", raw_response="A", retries=0
                ),
                _row(
                    "MVB-0001-trap1", "MVB-0001", "halluc_trap", "", "E", response="I cannot tell"
                ),  # parse failure
                "",
                _row(
                    "MVB-0002-orig",
                    "MVB-0002",
                    "original",
                    "C",
                    "A",
                    status="error",
                    error="timeout",
                ),
                _row("MVB-0002-trap1", "MVB-0002", "halluc_trap", "B", "E", retries=2),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    records = read_harness_files([path], _release_stub())
    check_records("probe_record", records, str(path))
    assert [r["parse_status"] for r in records] == ["ok", "parse_failure", "error", "ok"]
    assert (
        records[0]["model"] == "gpt-4o"
        and records[0]["risk_tier"] == "L3"
        and records[3]["text_only_answerable"] is True
    )
    assert (
        records[2]["predicted_letter"] is None and records[2]["extra"]["harness_status"] == "error"
    )
    assert records[1]["raw_response"] == "I cannot tell" and records[3]["retries"] == 2
    assert records.skipped == {"gpt-4o": {"blank_line": 1}}
    result = audit(records, n_resamples=0)
    block = result["models"]["gpt-4o"]
    assert block["skipped"] == {"blank_line": 1}
    # traps: parse failure and B are both silent -> SFR 100; originals: ok + error -> 50
    assert block["metrics"]["sfr"] == 100.0 and block["metrics"]["acc_orig"] == 50.0
    harness = audit(records, n_resamples=0, harness_compatible=True)["models"]["gpt-4o"]
    assert harness["metrics"]["acc_orig"] == 100.0  # the error row is dropped


def test_harness_adapter_errors_name_file_line_field(tmp_path):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    path = tmp_path / "m1__mcq.jsonl"
    path.write_text(
        "\n".join(
            [
                _row("MVB-0001-orig", "MVB-0001", "original", "A", "A"),
                "{not json",
                json.dumps(
                    {
                        "probe_id": "MVB-0001-trap1",
                        "case_id": "MVB-0001",
                        "probe_kind": "halluc_trap",
                        "status": "ok",
                        "correct_letter": "E",
                    }
                ),
                _row("MVB-0002-orig", "MVB-0002", "original", "AB", "A"),
                _row("MVB-0001-orig", "MVB-0001", "original", "A", "A"),
                _row("MVB-9999-orig", "MVB-9999", "original", "A", "A"),
                _row("MVB-0002-trap1", "MVB-0002", "original", "A", "E"),
            ]
        ),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as err:
        read_harness_files(path, _release_stub())
    got = {(p.row, p.field) for p in err.value.problems}
    assert all(p.file == str(path) for p in err.value.problems)
    assert {
        (2, None),
        (3, "model_letter"),
        (4, "model_letter"),
        (5, "probe_id"),
        (6, "case_id"),
        (7, "probe_kind"),
    } <= got
    lenient = read_harness_files(path, _release_stub(), strict=False)
    assert len(lenient) == 1 and lenient.skipped == {"m1": {"invalid_row": 6}} and lenient.problems


def test_harness_adapter_file_names_and_folders(tmp_path):
    from medvigil.suites.medvigil.harness.harness import model_from_filename, read_harness_files

    assert model_from_filename("results/baselines/claude-opus-4-7__mcq.jsonl") == "claude-opus-4-7"
    with pytest.raises(ValueError, match="<model>__mcq.jsonl"):
        model_from_filename("gpt.jsonl")
    folder = tmp_path / "baselines"
    folder.mkdir()
    (folder / "a__mcq.jsonl").write_text(
        _row("MVB-0001-orig", "MVB-0001", "original", "A", "A") + "\n"
    )
    (folder / "b__mcq.jsonl").write_text(
        _row("MVB-0001-orig", "MVB-0001", "original", "B", "A") + "\n"
    )
    records = read_harness_files(folder)  # no release: tiers unknown, warned
    assert sorted(r["model"] for r in records) == ["a", "b"] and records[0]["risk_tier"] is None
    assert records.warnings
    with pytest.raises(FileNotFoundError):
        read_harness_files(tmp_path / "missing__mcq.jsonl")


def test_harness_adapter_with_a_release_folder(tmp_path):
    """End to end on a small synthetic release read by
    medvigil.suites.medvigil.release.release_loading.load_release."""
    writer = pytest.importorskip("medvigil.suites.medvigil.synthetic.writer")
    pytest.importorskip("medvigil.suites.medvigil.release.release")
    from medvigil.suites.medvigil.harness.harness import read_harness_files
    from medvigil.suites.medvigil.release.release_loading import load_release

    root = tmp_path / "release"
    writer.generate_release(root, cases=5, seed=3)
    release = load_release(root)
    rows = [
        _row(
            p.probe_id,
            p.case_id,
            p.probe_kind,
            p.correct_letter if i % 3 else "B",
            p.correct_letter,
        )
        for i, p in enumerate(release.probes_mcq)
    ]
    path = tmp_path / "toy__mcq.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    records = read_harness_files([path], root)
    assert len(records) == len(release.probes_mcq)
    check_records("probe_record", records, str(path))
    result = audit(records, n_resamples=20)
    block = result["models"]["toy"]
    assert block["counts"]["n_scored"] == len(release.probes_mcq)
    assert set(block["strata"]["risk_tier"]) <= {"L1", "L2", "L3", "L4", "L5"}
