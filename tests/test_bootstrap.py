"""Case-clustered bootstrap (Appendix M): the vectorised resampling equals re-scoring each
resample naively, intervals follow the documented percentile rules, and the clustering
is by case."""

import math
import random

import numpy as np
import pytest

from medvigil.scoring.bootstrap import (
    DEFAULT_SEED,
    cluster_bootstrap,
    cluster_sums,
    resample_counts,
    resample_indices,
    resampled_sums,
)
from medvigil.scoring.stats import bootstrap_p_value, percentile_interval
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.scoring.audit_inputs import check_params
from medvigil.suites.medvigil.scoring.axes import METRIC_KEYS
from medvigil.suites.medvigil.scoring.compare import compare_models
from medvigil.suites.medvigil.scoring.scoring import (
    _bootstrap,
    _score,
    audit,
    audit_to_json,
    model_metrics,
)

KINDS = (
    "original",
    "tcf",
    "halluc_trap",
    "halluc_trap",
    "negation",
    "specificity_drop",
    "knowledge_only",
    "lr_flip",
    "roi_only",
    "roi_masked",
)
GOLD = {"halluc_trap": "E", "roi_masked": "E"}


def synthetic_records(n_models=3, n_cases=12, seed=0, p_error=0.05):
    rng = random.Random(seed)
    out = []
    for m in range(n_models):
        skill = 0.3 + 0.2 * m
        for c in range(n_cases):
            tier = f"L{c % 5 + 1}"
            for j, kind in enumerate(KINDS):
                gold = GOLD.get(kind, "A")
                u = rng.random()
                if u < p_error:
                    pred, status = None, "error"
                elif u < 2 * p_error:
                    pred, status = None, "parse_failure"
                else:
                    pred, status = (gold if rng.random() < skill else rng.choice("ABCD")), "ok"
                out.append(
                    {
                        "suite": "medvigil",
                        "model": f"model{m}",
                        "probe_id": f"c{c:03d}:{j}",
                        "case_id": f"c{c:03d}",
                        "probe_kind": kind,
                        "risk_tier": tier,
                        "source_dataset": "SLAKE" if c % 2 else "ROCO",
                        "correct_letter": gold,
                        "predicted_letter": pred,
                        "parse_status": status,
                    }
                )
    return out


def test_resample_counts_are_index_draws():
    idx = resample_indices(7, 20, seed=5)
    w = resample_counts(7, 20, seed=5)
    assert w.shape == (20, 7) and np.all(w.sum(axis=1) == 7)
    for b in range(20):
        assert np.array_equal(w[b], np.bincount(idx[b], minlength=7))
    assert np.array_equal(resample_indices(7, 20, seed=5), idx)
    assert not np.array_equal(resample_indices(7, 20, seed=6), idx)
    with pytest.raises(ValueError):
        resample_counts(0, 10)


def test_cluster_bootstrap_generic():
    # per-cluster (correct, scored) sums; statistic = pooled accuracy
    per = cluster_sums(np.array([[1, 1], [0, 1], [1, 1], [1, 1]], float), np.array([0, 0, 1, 2]), 3)
    assert per.tolist() == [[1, 2], [1, 1], [1, 1]]
    counts = resample_counts(3, 50, seed=1)
    acc = cluster_bootstrap(lambda s: s[:, 0] / s[:, 1], per, counts=counts)
    naive = [(counts[b] @ per[:, 0]) / (counts[b] @ per[:, 1]) for b in range(50)]
    assert np.allclose(acc, naive)
    assert np.array_equal(resampled_sums(per, counts), counts.astype(float) @ per)


@pytest.mark.parametrize("harness", [False, True])
def test_vectorised_bootstrap_equals_naive_rescoring(harness):
    """Resample b re-scored from scratch (records of the drawn cases, duplicates relabelled)
    gives exactly the vectorised value for every metric and model."""
    records = synthetic_records()
    table = RecordTable.from_records(records)
    w, point_norm, boot_norm, _ = check_params(
        (1, 2, 3, 5, 8), None, harness, 8, DEFAULT_SEED, 0.95
    )
    feats, _ = _score(table, w, point_norm, harness)
    # paired: the shared draws of resample_indices, also in harness mode (whose own per-model random
    # stream is checked against the official procedure in test_harness_bootstrap.py)
    boot = _bootstrap(feats, w, boot_norm, 8, DEFAULT_SEED, paired=True)
    cases = feats.cases  # sorted case ids: the order resample indices refer to
    by_case: dict[str, list] = {}
    for r in records:
        by_case.setdefault(r["case_id"], []).append(r)
    idx = resample_indices(len(cases), 8, DEFAULT_SEED)
    for b in range(8):
        drawn = []
        for j, ci in enumerate(idx[b].tolist()):
            for r in by_case[cases[ci]]:
                drawn.append(
                    dict(r, case_id=f"{r['case_id']}#{j}", probe_id=f"{r['probe_id']}#{j}")
                )
        naive = model_metrics(drawn, harness_compatible=harness, normalise=boot_norm)
        for m, name in enumerate(feats.models):
            for key in METRIC_KEYS:
                a, e = boot[key][b, m], naive[name][key]
                assert (math.isnan(a) and math.isnan(e)) or a == pytest.approx(e, abs=1e-9), (
                    b,
                    name,
                    key,
                )


def test_percentile_rules():
    x = np.arange(1000, dtype=float)[::-1].copy()
    lo, hi = percentile_interval(x, 0.95, "harness")
    s = np.sort(x)
    assert (lo, hi) == (s[int(0.025 * 1000)], s[int(0.975 * 1000) - 1])  # (25, 974)
    lo, hi = percentile_interval(x, 0.95, "percentile")
    assert (float(lo), float(hi)) == pytest.approx(tuple(np.percentile(x, [2.5, 97.5])), abs=1e-9)
    # columns independent, NaN ignored, all-NaN -> NaN
    y = np.stack([x, np.where(x % 2 == 0, x, np.nan), np.full(1000, np.nan)], axis=1)
    lo, hi = percentile_interval(y, 0.95, "percentile")
    assert lo[1] == pytest.approx(np.percentile(x[x % 2 == 0], 2.5)) and math.isnan(lo[2])
    with pytest.raises(ValueError, match="method"):
        percentile_interval(x, method="bca")


def test_p_value():
    assert bootstrap_p_value(np.full(99, 3.0)) == pytest.approx(2 / 100)
    assert bootstrap_p_value(np.r_[np.full(50, -1.0), np.full(50, 1.0)]) == 1.0
    assert math.isnan(bootstrap_p_value(np.full(5, np.nan)))


def test_audit_cis_reproducible_and_seeded():
    records = synthetic_records()
    a = audit(records, n_resamples=60, strata=False, sensitivity=False)
    b = audit(records, n_resamples=60, strata=False, sensitivity=False)
    c = audit(records, n_resamples=60, seed=7, strata=False, sensitivity=False)
    assert audit_to_json(a["models"]["model1"]["ci"]) == audit_to_json(b["models"]["model1"]["ci"])
    assert a["models"]["model1"]["ci"]["mcs"] != c["models"]["model1"]["ci"]["mcs"]
    ci = a["models"]["model1"]["ci"]["mcs"]
    assert ci["n_resamples"] == 60 and ci["seed"] == DEFAULT_SEED and ci["level"] == 0.95


def test_clustering_is_by_case():
    """Copying the probes of a case (same answers) changes neither the estimate nor the CI:
    a case is resampled as a whole. An i.i.d. probe bootstrap would narrow the interval.
    (original / tcf are not copied: PCons pairs exactly one of each per case.)"""
    records = synthetic_records(n_models=1, n_cases=20, p_error=0.0)
    doubled = records + [
        dict(r, probe_id=r["probe_id"] + "#copy")
        for r in records
        if r["probe_kind"] not in ("original", "tcf")
    ]
    a = audit(records, n_resamples=100, strata=False, sensitivity=False)["models"]["model0"]
    b = audit(doubled, n_resamples=100, strata=False, sensitivity=False)["models"]["model0"]
    for key in ("acc_orig", "neg", "sfr_w", "cap", "ground", "mcs"):
        assert a["metrics"][key] == pytest.approx(b["metrics"][key])
        assert a["ci"][key]["low"] == pytest.approx(b["ci"][key]["low"])
        assert a["ci"][key]["high"] == pytest.approx(b["ci"][key]["high"])


def test_paired_comparison_with_itself_is_zero():
    records = synthetic_records(n_models=2)
    twin = [dict(r, model="twin") for r in records if r["model"] == "model1"]
    out = compare_models(records + twin, n_resamples=100)
    rows = [
        r for r in out["pairs"] if {r["a"], r["b"]} == {"model1", "twin"} and r["delta"] is not None
    ]
    assert rows
    for row in rows:
        assert row["delta"] == 0.0 and row["ci95"] == [0.0, 0.0] and row["p"] == 1.0


def test_paired_comparison_uses_the_same_resamples():
    """The difference CI equals the percentile of per-resample differences of the two
    models' own bootstrap values (same case draws)."""
    records = synthetic_records(n_models=2)
    table = RecordTable.from_records(records)
    w, pn, bn, _ = check_params((1, 2, 3, 5, 8), None, False, 50, 11, 0.95)
    feats, _ = _score(table, w, pn, False)
    boot = _bootstrap(feats, w, bn, 50, 11)
    lo, hi = percentile_interval(boot["cap"][:, 1] - boot["cap"][:, 0])
    out = compare_models(records, metrics=("cap",), n_resamples=50, seed=11)
    (row,) = out["pairs"]
    assert (row["a"], row["b"]) == ("model0", "model1")
    assert row["ci95"] == [pytest.approx(float(lo)), pytest.approx(float(hi))]


def test_cases_of_other_conditions_are_not_clusters():
    """Cases seen only under another condition (e.g. a no-image run on extra cases) must not
    be drawn as empty clusters of the headline bootstrap."""
    records = synthetic_records(n_models=1, n_cases=10)
    extra = [
        dict(r, case_id=f"z{r['case_id']}", probe_id=f"z{r['probe_id']}", condition="noimg")
        for r in records
        if r["probe_kind"] == "original"
    ]
    a = audit(records, n_resamples=50, strata=False, sensitivity=False, ablations=False)
    b = audit(records + extra, n_resamples=50, strata=False, sensitivity=False, ablations=False)
    assert audit_to_json(a["models"]) == audit_to_json(b["models"])
