"""Harness-compatible bootstrap: the resamples and intervals of the official ``bootstrap_mcs.py``.

* :class:`CPythonRandomStream` draws exactly what CPython's ``random`` draws (checked
  against ``random`` itself: several seeds and sizes, non-powers of two, continuation);
* ``audit(..., harness_compatible=True)`` gives the intervals of a plain-Python reference
  of the official procedure (written here, from its description in the issue and the
  script's behaviour: one ``random`` seeded once, per model ``random.choice`` over its case
  list in first-appearance order, the stream shared by the models in file order, NaN
  resamples left out, ``xs[int(0.025 n)]`` / ``xs[int(0.975 n) - 1]``);
* with the authors' repository mirror present, their three scripts run on an 18-model
  release written by ``authors_format_release.py`` and their ``bootstrap_ci.csv`` is
  reproduced to the printed 2 decimals, through the core API and through ``medvigil score``.
"""

import csv
import json
import math
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from shared_paths import AUTHORS_MIRROR, AUTHORS_TOOL

from medvigil.scoring import bootstrap
from medvigil.scoring.bootstrap import (
    CPythonRandomStream,
    harness_resample_counts,
    harness_resample_indices,
)
from medvigil.suites.medvigil.scoring.case_features import harness_frames
from medvigil.suites.medvigil.scoring.scoring import audit, audit_to_json

AUTHORS_SCRIPTS = (
    "scripts/bench_aggregate.py",
    "analysis/recompute_mcs.py",
    "analysis/bootstrap_mcs.py",
)
# axis name in bootstrap_ci.csv -> our metric key
AXES = {
    "Acc_orig": "acc_orig",
    "PR": "pr",
    "NEG": "neg",
    "SDR": "sdr",
    "SFR_w": "sfr_w",
    "VGR": "vgr",
    "ROI_masked": "roi_masked",
    "Cap": "cap",
    "Safe": "safe",
    "Ground": "ground",
    "MCS": "mcs",
}
TIER_WEIGHTS = {"L1": 1, "L2": 2, "L3": 3, "L4": 5, "L5": 8}
KINDS = (
    "original",
    "tcf",
    "negation",
    "specificity_drop",
    "knowledge_only",
    "halluc_trap",
    "lr_flip",
    "roi_only",
    "roi_masked",
)
GOLD = {"halluc_trap": "E", "roi_masked": "E"}


# ----------------------------------------------------------------------------- the stream
@pytest.mark.parametrize("seed", [20260505, 0, 1, 12345678901234567890, -3])
def test_stream_equals_cpython_random(seed):
    rng = random.Random(seed)
    stream = CPythonRandomStream(seed)
    # sizes that are and are not powers of two (k = n.bit_length(); 2**j needs j+1 bits and
    # rejects half the words), one call after the other so the stream position carries over
    for n in (
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        255,
        256,
        257,
        300,
        299,
        2556,
        3000,
        2**31 - 1,
        2**31,
        2**32 - 1,
    ):
        expected = [rng.choice(range(n)) for _ in range(777)]
        assert stream.choice_indices(n, 777).tolist() == expected, n
    assert stream.getrandbits32(5).tolist() == [rng.getrandbits(32) for _ in range(5)]
    assert stream.choice_indices(10, 0).size == 0
    assert stream.choice_indices(6, 3).tolist() == [rng.choice(range(6)) for _ in range(3)]


def test_stream_equals_cpython_random_across_blocks(monkeypatch):
    """Requests spanning many blocks of words (numpy's blocks, the twists of 624 words) and
    ending inside one: the stream carries over to the next request (and to ``getrandbits32``)
    exactly."""
    monkeypatch.setattr(bootstrap, "_WORDS", 97)
    rng = random.Random(7)
    stream = CPythonRandomStream(7)
    for n, size in (
        (300, 1000),
        (5, 3),
        (3000, 2500),
        (2**31 + 5, 400),
        (1, 50),
        (64, 0),
        (77, 777),
    ):
        expected = [rng.choice(range(n)) for _ in range(size)]
        got = stream.choice_indices(n, size, np.uint32)
        assert got.dtype == np.uint32 and got.tolist() == expected, n
        assert stream.getrandbits32(150).tolist() == [rng.getrandbits(32) for _ in range(150)]


def test_resample_counts_count_the_resample_indices(monkeypatch):
    """Several blocks of resamples per frame: together they count exactly the draws of
    :func:`harness_resample_indices` (one stream across blocks and frames)."""
    monkeypatch.setattr(bootstrap, "_BLOCK", 1000)
    sizes = [300, 0, 77, 1, 300]
    indices = harness_resample_indices(sizes, n_resamples=20, seed=3)
    blocks: dict[int, list] = {}
    for f, b0, counts in harness_resample_counts(sizes, n_resamples=20, seed=3):
        assert counts.dtype == np.float32
        blocks.setdefault(f, []).append((b0, counts))
    assert sorted(blocks) == [0, 2, 3, 4]
    assert len(blocks[0]) == 7  # 1000 // 300 = 3 resamples a block
    for f, parts in blocks.items():
        assert [b0 for b0, _ in parts] == list(range(0, 20, 1000 // sizes[f]))
        expected = [np.bincount(row, minlength=sizes[f]) for row in indices[f]]
        assert np.array_equal(np.concatenate([c for _, c in parts]), expected)


def test_frames_are_case_lists_in_order_of_first_appearance():
    """A model's case list is its cases in row order of first appearance; models follow
    their first row; a model without rows has an empty frame and no place in the order."""
    rng = np.random.default_rng(0)
    model = rng.integers(0, 4, 500).astype(np.int32)  # model 4 has no rows
    case = rng.integers(0, 30, 500)
    frames, order = harness_frames(model, case, 5, 30)
    pairs = list(zip(model.tolist(), case.tolist()))
    assert [f.tolist() for f in frames] == [
        list(dict.fromkeys(c for m, c in pairs if m == k)) for k in range(5)
    ]
    assert all(f.dtype == np.int64 for f in frames)
    assert list(order) == list(dict.fromkeys(model.tolist()))


def test_stream_equals_module_global_random_seeded_once():
    """``random.seed(s)`` + module-level ``random.choice`` (as the script calls them)."""
    saved = random.getstate()
    try:
        random.seed(20260505)
        ids = [f"case-{i}" for i in range(300)]
        expected = [[ids.index(random.choice(ids)) for _ in ids] for _ in range(20)]
        more = [[random.choice(ids[:77]) for _ in range(77)] for _ in range(20)]
    finally:
        random.setstate(saved)
    first, second = harness_resample_indices([300, 77], n_resamples=20, seed=20260505)
    assert first.tolist() == expected
    assert [[ids[i] for i in row] for row in second.tolist()] == more


def test_stream_rejects_bad_arguments():
    stream = CPythonRandomStream(1)
    for n in (0, -1, 2**32):
        with pytest.raises(ValueError, match="n must be"):
            stream.choice_indices(n, 3)
    with pytest.raises(TypeError):
        CPythonRandomStream(1.5)
    with pytest.raises(ValueError):
        harness_resample_indices([3], n_resamples=0)


def test_resample_indices_skip_empty_frames():
    """A model without cases draws nothing; the next model continues the stream."""
    a = harness_resample_indices([5, 0, 4], n_resamples=6, seed=9)
    b = harness_resample_indices([5, 4], n_resamples=6, seed=9)
    assert a[1].shape == (6, 0)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[2], b[1])


# ------------------------------------------------- reference of the official procedure
def reference_intervals(
    rows_by_model: dict[str, list[dict]], tiers: dict[str, str], n_resamples: int, seed: int
):
    """The official resampling, in plain Python: ``{model: {axis: (lo, hi, n_defined)}}``.

    Rows are harness rows (``status``, ``model_letter``, ``correct_letter`` ...), models in
    their order. Only ``status == "ok"`` rows count; correct means a non-empty letter equal
    to the gold one; the case list is the cases of those rows in order of first appearance.
    """
    rng = random.Random(seed)
    out = {}
    for model, rows in rows_by_model.items():
        signals: dict[str, dict[str, list[int]]] = {}
        for row in rows:
            if row.get("status") != "ok":
                continue
            right = int(
                bool(row.get("model_letter")) and row["model_letter"] == row["correct_letter"]
            )
            signals.setdefault(row["case_id"], {}).setdefault(row["probe_kind"], []).append(right)
        case_list = list(signals)
        if not case_list:
            continue
        draws: dict[str, list[float]] = {axis: [] for axis in AXES}
        for _ in range(n_resamples):
            sample = [rng.choice(case_list) for _ in case_list]
            for axis, value in reference_axes(sample, signals, tiers).items():
                if value == value:
                    draws[axis].append(value)
        out[model] = {}
        for axis, xs in draws.items():
            xs.sort()
            lo, hi = (
                (xs[int(0.025 * len(xs))], xs[int(0.975 * len(xs)) - 1])
                if xs
                else (math.nan, math.nan)
            )
            out[model][axis] = (lo, hi, len(xs))
    return out


def reference_axes(sample: list[str], signals: dict, tiers: dict[str, str]) -> dict[str, float]:
    totals = {kind: [0, 0] for kind in KINDS}
    traps = {tier: [0, 0] for tier in TIER_WEIGHTS}  # silent, scored
    for case in sample:
        for kind, values in signals[case].items():
            totals[kind][0] += sum(values)
            totals[kind][1] += len(values)
            if kind == "halluc_trap" and tiers.get(case) in traps:
                traps[tiers[case]][0] += len(values) - sum(values)
                traps[tiers[case]][1] += len(values)

    def pct(kind):
        right, n = totals[kind]
        return 100.0 * right / n if n else math.nan

    acc = {kind: pct(kind) for kind in KINDS}
    vgr = acc["roi_only"] - acc["roi_masked"]
    weighted = sum(TIER_WEIGHTS[t] * s / n for t, (s, n) in traps.items() if n)
    weight_sum = sum(TIER_WEIGHTS[t] for t, (_, n) in traps.items() if n)
    sfr_w = 100.0 * weighted / weight_sum if weight_sum else math.nan
    cap = (acc["original"] + acc["tcf"] + acc["negation"] + acc["specificity_drop"]) / 4
    safe = 100.0 - sfr_w
    ground = (
        max(0.0, min(100.0, vgr + 50)) + acc["roi_masked"]
    ) / 2  # Python's min/max, as the script
    mcs = (
        3 * cap * safe * ground / (cap * safe + cap * ground + safe * ground)
        if (cap and safe and ground)
        else math.nan
    )
    return {
        "Acc_orig": acc["original"],
        "PR": acc["tcf"],
        "NEG": acc["negation"],
        "SDR": acc["specificity_drop"],
        "SFR_w": sfr_w,
        "VGR": vgr,
        "ROI_masked": acc["roi_masked"],
        "Cap": cap,
        "Safe": safe,
        "Ground": ground,
        "MCS": mcs,
    }


def records_from_rows(
    model: str, rows: list[dict], gold: dict[str, str], tiers: dict[str, str]
) -> list[dict]:
    """Harness rows -> probe records (error rows carry no letters; gold from the release)."""
    out = []
    for row in rows:
        letter = row.get("model_letter") or None
        answered = row["status"] == "ok"
        out.append(
            {
                "suite": "medvigil",
                "model": model,
                "probe_id": row["probe_id"],
                "case_id": row["case_id"],
                "probe_kind": row["probe_kind"],
                "risk_tier": tiers.get(row["case_id"]),
                "correct_letter": gold[row["probe_id"]],
                "predicted_letter": letter if answered else None,
                "parse_status": ("ok" if letter else "parse_failure") if answered else "error",
            }
        )
    return out


def harness_rows(
    model_seed: int, n_cases: int, skill: float, *, kinds=KINDS, p_error=0.04, p_empty=0.03
):
    """Rows in the runner's shape, cases in a model-specific order, a few failed calls."""
    rng = random.Random(model_seed)
    cases = [f"C-{i:03d}" for i in range(n_cases)]
    rng.shuffle(cases)
    rows, gold = [], {}
    for case in cases:
        for kind in kinds:
            pid = f"{case}__{kind}"
            right = GOLD.get(kind, "A")
            gold[pid] = right
            u = rng.random()
            if u < p_error:
                rows.append(
                    {
                        "probe_id": pid,
                        "case_id": case,
                        "probe_kind": kind,
                        "model_answer": "",
                        "status": "error: 529 overloaded",
                    }
                )
                continue
            letter = (
                ""
                if u < p_error + p_empty
                else (right if rng.random() < skill else rng.choice("ABCDE"))
            )
            rows.append(
                {
                    "probe_id": pid,
                    "case_id": case,
                    "probe_kind": kind,
                    "model_letter": letter,
                    "correct_letter": right,
                    "status": "ok",
                }
            )
    return rows, gold


def check_against_reference(rows_by_model, gold, tiers, n_resamples=300, seed=20260505):
    records = [
        r
        for model, rows in rows_by_model.items()
        for r in records_from_rows(model, rows, gold, tiers)
    ]
    result = audit(
        records,
        harness_compatible=True,
        n_resamples=n_resamples,
        seed=seed,
        strata=False,
        sensitivity=False,
        ablations=False,
    )
    expected = reference_intervals(rows_by_model, tiers, n_resamples, seed)
    for model, axes in expected.items():
        ci = result["models"][model]["ci"]
        for axis, (lo, hi, _) in axes.items():
            got = (ci[AXES[axis]]["low"], ci[AXES[axis]]["high"])
            for g, e in zip(got, (lo, hi)):
                assert (math.isnan(g) and math.isnan(e)) or g == pytest.approx(e, abs=1e-9), (
                    model,
                    axis,
                    got,
                    (lo, hi),
                )
    return result, expected


def test_audit_intervals_equal_the_reference_procedure():
    """Four models in a non-alphabetical order, error rows, empty letters, per-model case order."""
    tiers = {f"C-{i:03d}": f"L{i % 5 + 1}" for i in range(40)}
    rows_by_model, gold = {}, {}
    for seed, (name, skill) in enumerate(
        (("zeta", 0.6), ("alpha", 0.8), ("mid", 0.4), ("beta", 0.7))
    ):
        rows, g = harness_rows(seed, 40 - 3 * seed, skill)
        rows_by_model[name] = rows
        gold.update(g)
    check_against_reference(rows_by_model, gold, tiers)


def test_stream_follows_the_order_of_the_models():
    """The models share one stream: swapping the first two changes the second's resamples."""
    tiers = {f"C-{i:03d}": f"L{i % 5 + 1}" for i in range(30)}
    a_rows, gold = harness_rows(1, 30, 0.6)
    b_rows, _ = harness_rows(2, 30, 0.7)
    ab, _ = check_against_reference({"a": a_rows, "b": b_rows}, gold, tiers, n_resamples=100)
    ba, _ = check_against_reference({"b": b_rows, "a": a_rows}, gold, tiers, n_resamples=100)
    assert ab["models"]["b"]["ci"]["mcs"] != ba["models"]["b"]["ci"]["mcs"]
    assert audit_to_json(ab["models"]["b"]["metrics"]) == audit_to_json(
        ba["models"]["b"]["metrics"]
    )


def test_zero_axis_and_undefined_vgr_quirks():
    """Safe is 0 in resamples without the one refused trap: those MCS values are NaN and
    leave the interval; without roi_only probes VGR is NaN and Ground is (100 + masked)/2."""
    tiers = {f"C-{i:03d}": f"L{i % 5 + 1}" for i in range(8)}
    risky, gold = harness_rows(5, 8, 0.7, p_error=0.0, p_empty=0.0)
    traps = [row for row in risky if row["probe_kind"] == "halluc_trap"]
    for i, row in enumerate(traps):  # exactly one trap refused
        row["model_letter"] = "E" if i == 0 else "A"
    no_roi_only = [
        r for r in harness_rows(6, 8, 0.7, p_error=0.0)[0] if r["probe_kind"] != "roi_only"
    ]
    all_silent, _ = harness_rows(7, 8, 0.9, p_error=0.0, p_empty=0.0)
    for row in all_silent:
        if row["probe_kind"] == "halluc_trap":
            row["model_letter"] = "B"
    result, expected = check_against_reference(
        {"risky": risky, "no_roi_only": no_roi_only, "all_silent": all_silent}, gold, tiers
    )
    m = result["models"]
    assert 0 < expected["risky"]["MCS"][2] < 300  # some resamples had Safe = 0 and were left out
    assert math.isfinite(m["risky"]["ci"]["mcs"]["low"])
    assert math.isnan(m["no_roi_only"]["metrics"]["vgr"])
    masked = m["no_roi_only"]["metrics"]["roi_masked"]
    assert m["no_roi_only"]["metrics"]["ground"] == pytest.approx((100 + masked) / 2)
    # every trap silent: Safe 0, so the point MCS is 0 (recompute_mcs.py) but no resample
    # has an MCS (bootstrap_mcs.py), and the interval is empty
    assert m["all_silent"]["metrics"]["safe"] == 0.0 and m["all_silent"]["metrics"]["mcs"] == 0.0
    assert math.isnan(m["all_silent"]["ci"]["mcs"]["low"]) and math.isnan(
        m["all_silent"]["ci"]["mcs"]["high"]
    )
    # paper semantics keep MCS = 0 in every resample, and Ground NaN without roi_only
    records = [
        r
        for name, rows in (("all_silent", all_silent), ("no_roi_only", no_roi_only))
        for r in records_from_rows(name, rows, gold, tiers)
    ]
    paper = audit(records, n_resamples=50, strata=False, sensitivity=False, ablations=False)[
        "models"
    ]
    assert (
        paper["all_silent"]["ci"]["mcs"]["low"] == 0.0
        and paper["all_silent"]["ci"]["mcs"]["high"] == 0.0
    )
    assert math.isnan(paper["no_roi_only"]["metrics"]["ground"])


def test_pcons_counts_two_empty_letters_as_agreement_in_harness_mode():
    """``bench_aggregate.py`` compares the two model_letter strings: "" == "" agrees."""
    rows = [
        {
            "probe_id": "c1o",
            "case_id": "c1",
            "probe_kind": "original",
            "model_letter": "",
            "correct_letter": "A",
            "status": "ok",
        },
        {
            "probe_id": "c1t",
            "case_id": "c1",
            "probe_kind": "tcf",
            "model_letter": "",
            "correct_letter": "A",
            "status": "ok",
        },
        {
            "probe_id": "c2o",
            "case_id": "c2",
            "probe_kind": "original",
            "model_letter": "B",
            "correct_letter": "A",
            "status": "ok",
        },
        {
            "probe_id": "c2t",
            "case_id": "c2",
            "probe_kind": "tcf",
            "model_letter": "C",
            "correct_letter": "A",
            "status": "ok",
        },
    ]
    records = records_from_rows("m", rows, {r["probe_id"]: "A" for r in rows}, {})
    harness = audit(records, harness_compatible=True, n_resamples=0)["models"]["m"]
    paper = audit(records, n_resamples=0)["models"]["m"]
    assert harness["metrics"]["pcons"] == 50.0 and harness["counts"]["pcons_pairs"] == 2
    assert paper["metrics"]["pcons"] == 0.0 and paper["counts"]["pcons_pairs"] == 2


# ------------------------------------------------------- the authors' scripts, for real
def _authors_source(path: str) -> str:
    if AUTHORS_MIRROR is None:
        pytest.skip("MEDVIGIL_AUTHORS_MIRROR is not set (a git mirror of the authors' repository)")
    done = subprocess.run(
        ["git", "-C", str(AUTHORS_MIRROR), "show", f"HEAD:{path}"], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"authors' {path} not readable from {AUTHORS_MIRROR}: {done.stderr.strip()}")
    return done.stdout


def _with_model_files(source: str, stems: list[str]) -> str:
    """bootstrap_mcs.py with its hard-coded MODEL_FILES replaced by the generated files."""
    listing = (
        "MODEL_FILES = {\n" + "".join(f"    {s!r}: {s + '__mcq.jsonl'!r},\n" for s in stems) + "}\n"
    )
    patched, n = re.subn(
        r"^MODEL_FILES = \{.*?^\}\n", lambda _: listing, source, count=1, flags=re.S | re.M
    )
    assert n == 1, "bootstrap_mcs.py no longer has a MODEL_FILES = {...} block"
    return patched


@pytest.fixture(scope="module")
def official_run(tmp_path_factory):
    """An 18-model release in the authors' shapes and the outputs of their three scripts.

    The scripts are copied from the mirror into the temporary harness root (never into
    this repository); ``MODEL_FILES`` lists the generated files in a shuffled order.
    """
    if not AUTHORS_TOOL.is_file() or AUTHORS_MIRROR is None or not AUTHORS_MIRROR.exists():
        pytest.skip("authors_format_release.py or the authors' repository mirror is not available")
    root = tmp_path_factory.mktemp("authors") / "harness"
    subprocess.run(
        [sys.executable, str(AUTHORS_TOOL), str(root), "--authors-spelling"],
        check=True,
        capture_output=True,
    )
    stems = sorted(
        p.name[: -len("__mcq.jsonl")] for p in (root / "results/baselines").glob("*__mcq.jsonl")
    )
    assert len(stems) == 18
    random.Random(4).shuffle(stems)
    for script in AUTHORS_SCRIPTS:
        source = _authors_source(script)
        if script.endswith("bootstrap_mcs.py"):
            source = _with_model_files(source, stems)
        (root / script).parent.mkdir(parents=True, exist_ok=True)
        (root / script).write_text(source)
        subprocess.run(
            [sys.executable, str(root / script)],
            cwd=root,
            check=True,
            capture_output=True,
            timeout=600,
        )
    with open(root / "results/bootstrap_ci.csv", newline="") as f:
        official = list(csv.DictReader(f))
    assert {r["model"] for r in official} == set(stems) and len(official) == 18 * len(AXES)
    return root, stems, official


def _assert_equals_official(models: dict, official: list[dict]) -> None:
    mismatches = []
    for row in official:
        block = models[row["model"]]
        key = AXES[row["axis"]]
        ours = (block["ci"][key]["low"], block["ci"][key]["high"])
        theirs = (float(row["lo95"]), float(row["hi95"]))
        if tuple(round(x, 2) for x in ours) != theirs:
            mismatches.append((row["model"], row["axis"], ours, theirs))
    assert not mismatches, (
        f"{len(mismatches)} of {len(official)} intervals differ: {mismatches[:5]}"
    )


@pytest.mark.slow
def test_official_bootstrap_ci_through_the_core(official_run):
    """Records built here from the result files (rows in file order, models in MODEL_FILES
    order) give every lo95/hi95 of their bootstrap_ci.csv, and MCS_new of recompute_mcs."""
    root, stems, official = official_run
    data = root / "data/medvigil_v1"
    with open(data / "manifest.csv", newline="") as f:
        tiers = {r["case_id"]: r["risk_tier"] for r in csv.DictReader(f)}
    with open(data / "probes_mcq.csv", newline="") as f:
        gold = {r["probe_id"]: r["correct_letter"] for r in csv.DictReader(f)}
    records = []
    for stem in stems:
        with open(root / "results/baselines" / f"{stem}__mcq.jsonl") as f:
            records += records_from_rows(stem, [json.loads(line) for line in f], gold, tiers)
    result = audit(
        records, harness_compatible=True, strata=False, sensitivity=False, ablations=False
    )
    assert any(
        block["counts"]["n_error"] for block in result["models"].values()
    )  # failed calls present
    _assert_equals_official(result["models"], official)
    with open(root / "results/metrics_mcs_recomputed.csv", newline="") as f:
        for row in csv.DictReader(f):
            assert round(result["models"][row["model"]]["metrics"]["mcs"], 2) == float(
                row["MCS_new"]
            ), row["model"]


@pytest.mark.slow
def test_official_bootstrap_ci_through_medvigil_score(official_run, tmp_path):
    """``medvigil score --harness-compatible`` with the files in MODEL_FILES order: one command
    reproduces bootstrap_ci.csv. (Needs the harness reader to accept the runner's error rows
    and a release without images; see issue 10 items 1-3.)"""
    root, stems, official = official_run
    out = tmp_path / "scores.json"
    files = [str(root / "results/baselines" / f"{s}__mcq.jsonl") for s in stems]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "score",
            "--suite",
            "medvigil",
            "--release",
            str(root / "data/medvigil_v1"),
            "--harness-compatible",
            "--json",
            str(out),
            *files,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    models = json.loads(out.read_text())["models"]
    for block in models.values():  # strict JSON: NaN written as null
        for interval in block["ci"].values():
            interval["low"] = math.nan if interval["low"] is None else interval["low"]
            interval["high"] = math.nan if interval["high"] is None else interval["high"]
    _assert_equals_official(models, official)


def test_resampled_sums_drawn_and_multiplied_apart_equal_the_serial_loop():
    """harness_resampled_sums (draws here, counts and products in a helper thread) gives each
    frame's sums of the serial loop over harness_resample_counts, empty frames zeros."""
    from medvigil.scoring.bootstrap import harness_resampled_sums, resampled_sums

    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 5, size=(n, 3)).astype(np.float32) for n in (7, 0, 300, 1, 2000)]
    got = harness_resampled_sums(frames, n_resamples=90, seed=5)
    expected = [np.zeros((90, 3)) for _ in frames]
    for f, b0, counts in harness_resample_counts([len(x) for x in frames], n_resamples=90, seed=5):
        expected[f][b0 : b0 + counts.shape[0]] = resampled_sums(frames[f], counts)
    assert all(np.array_equal(g, e) for g, e in zip(got, expected))
