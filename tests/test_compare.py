"""``medvigil compare`` (issue #32): paired case-clustered bootstrap of every pair of models, Holm.

The "done when" checks run on result files in the authors' shape, written by
``shared/tools/authors_format_release.py`` (300 cases, error rows included): a clear gap is
significant; an identical copy gives delta 0 and p >= 0.5; a copy with 6% of its wrong answers
corrected is significant under pairing although the two models' own 95% CIs (``medvigil score``)
overlap. The numbers are cross-checked with ``medvigil score`` on the same files.
"""

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from shared_paths import AUTHORS_TOOL

from medvigil.cli import main
from medvigil.records.schema_validation import problems_for
from medvigil.scoring.paired import (
    UnitSums,
    compare_units,
    holm,
    pair_rows,
    paired_p_value,
    percentile_floor_note,
)
from medvigil.scoring.stats import bootstrap_p_value
from medvigil.suites import registry
from medvigil.suites.medvigil.scoring.compare import compare_models

needs_tool = pytest.mark.skipif(
    not AUTHORS_TOOL.exists(), reason="authors_format_release.py not available (MEDVIGIL_SHARED)"
)
PAIR_KEYS = {"a", "b", "metric", "delta", "ci95", "p", "p_holm", "n_probes", "n_cases"}


# ------------------------------------------------------------------ the statistics
def test_holm_matches_the_step_down_by_hand():
    # sorted 0.01 0.02 0.03 0.04 -> x4 x3 x2 x1 = 0.04 0.06 0.06 0.04 -> running max 0.04 0.06 0.06
    # 0.06
    assert holm([0.04, 0.01, 0.03, 0.02]).tolist() == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]  # capped at 1
    out = holm([0.01, float("nan"), 0.02])  # NaN is no hypothesis: m = 2
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.02)
    assert holm([]).size == 0
    with pytest.raises(ValueError):
        holm([1.5])


def test_p_values_of_both_methods():
    rng = np.random.default_rng(0)
    shifted = rng.normal(1.0, 0.5, size=(1000, 1))
    z = 1.0 / np.std(shifted, ddof=1)
    assert paired_p_value(shifted, np.array([1.0]))[0] == pytest.approx(
        2 * 0.5 * _erfc_half(z), rel=1e-12
    )
    assert paired_p_value(shifted, np.array([1.0]), "percentile")[0] == bootstrap_p_value(
        shifted[:, 0]
    )
    zeros = np.zeros((100, 1))
    assert paired_p_value(zeros, np.array([0.0]))[0] == 1.0
    assert paired_p_value(zeros, np.array([0.0]), "percentile")[0] == 1.0
    assert np.isnan(paired_p_value(np.full((10, 1), np.nan), np.array([0.0]))[0])
    with pytest.raises(ValueError, match="p-value method"):
        paired_p_value(zeros, np.array([0.0]), "exact")


def _erfc_half(z: float) -> float:
    import math

    return math.erfc(z / math.sqrt(2.0))


def test_pair_rows_are_b_minus_a_on_the_same_resamples():
    boot = np.array([[1.0, 2.0, 5.0], [2.0, 2.5, 4.0], [3.0, 3.0, 6.0]])
    rows = pair_rows(
        ["x", "y", "z"],
        [(0, 1), (1, 2)],
        "m",
        np.array([2.0, 2.5, 5.0]),
        boot,
        p_value="percentile",
    )
    assert [(r["a"], r["b"], r["delta"]) for r in rows] == [("x", "y", 0.5), ("y", "z", 2.5)]
    lo, hi = np.percentile(boot[:, 1] - boot[:, 0], [2.5, 97.5])
    assert rows[0]["ci95"] == [pytest.approx(lo), pytest.approx(hi)]


def test_percentile_floor_is_stated():
    assert percentile_floor_note(1000, 2) is None  # 2 * 2/1001 < 0.05
    assert "at least 6120 resamples" in percentile_floor_note(1000, 153)


def test_compare_units_pairs_on_shared_records_with_one_resample_per_shared_set():
    """Records are (unit, i) keys with a 0/1 value; the metric is the mean value in percent."""
    values = {
        "x": {("u1", 0): 1, ("u1", 1): 0, ("u2", 0): 1, ("u3", 0): 0},
        "y": {("u1", 0): 1, ("u1", 1): 1, ("u2", 0): 0},  # no ("u3", 0)
        "z": {("u1", 0): 0, ("u1", 1): 1, ("u2", 0): 1, ("u3", 0): 1},
    }

    def scores_on(model, shared):
        kept = {k: v for k, v in values[model].items() if shared is None or k in shared}
        units = sorted({u for u, _ in kept})
        sums = np.array(
            [
                [
                    sum(v for (u2, _), v in kept.items() if u2 == u),
                    sum(1 for u2, _ in kept if u2 == u),
                ]
                for u in units
            ],
            dtype=float,
        )
        return UnitSums(units, sums, lambda s: {"mean": 100 * s[..., 0] / s[..., 1]})

    out = compare_units(
        {m: set(v) for m, v in values.items()}, scores_on, ["mean"], n_resamples=200, seed=1
    )
    rows = {(r["a"], r["b"]): r for r in out["pairs"]}
    assert out["models"] == {"x": {"n_probes": 4}, "y": {"n_probes": 3}, "z": {"n_probes": 4}}
    assert (rows["x", "y"]["n_probes"], rows["x", "y"]["n_cases"]) == (3, 2)  # u3 is not shared
    assert rows["x", "y"]["delta"] == pytest.approx(100 * 2 / 3 - 100 * 2 / 3)
    assert (rows["x", "z"]["n_probes"], rows["x", "z"]["n_cases"]) == (4, 3)
    assert rows["x", "z"]["delta"] == pytest.approx(75.0 - 50.0)
    assert rows["y", "z"]["delta"] == pytest.approx(0.0)  # y 1,1,0 and z 0,1,1 on the shared three
    assert all(r["p_holm"] >= r["p"] for r in out["pairs"])
    with pytest.raises(ValueError, match="at least two models"):
        compare_units({"x": set()}, scores_on, ["mean"])


# ------------------------------------------------------------ authors'-shape files
@pytest.fixture(scope="module")
def authors(tmp_path_factory):
    if not AUTHORS_TOOL.exists():
        pytest.skip("authors_format_release.py not available (MEDVIGIL_SHARED)")
    root = tmp_path_factory.mktemp("authors")
    subprocess.run(
        [sys.executable, str(AUTHORS_TOOL), str(root), "--models", "6"],
        check=True,
        capture_output=True,
    )
    files = sorted((root / "results" / "baselines").glob("*__mcq.jsonl"))
    return root / "data" / "medvigil_v1", files


def _copy(src: Path, dst_dir: Path, name: str, change=None) -> Path:
    """``src`` as model ``name`` (file name and model_id), each row through ``change`` (None drops
    it)."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(line) for line in src.read_text().splitlines() if line.strip()]
    out = []
    for i, row in enumerate(rows):
        row = dict(row, model_id=name)
        row = change(i, row) if change else row
        if row is not None:
            out.append(json.dumps(row))
    path = dst_dir / f"{name}__mcq.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


def _compare(tmp_path, release, files, *extra) -> dict:
    out = tmp_path / f"compare{len(list(tmp_path.glob('compare*.json')))}.json"
    code = main(
        [
            "compare",
            "--suite",
            "medvigil",
            "--release",
            str(release),
            *map(str, files),
            "--json",
            str(out),
            *extra,
        ]
    )
    assert code == 0
    return json.loads(out.read_text())


def _score(release, files) -> dict:
    return registry.score(
        "medvigil", [str(f) for f in files], release=str(release), n_resamples=500
    )


def _row(result, a, b, metric="mcs"):
    (row,) = [r for r in result["pairs"] if (r["a"], r["b"], r["metric"]) == (a, b, metric)]
    return row


def test_a_clear_gap_is_significant(authors, tmp_path):
    release, files = authors
    scored = _score(release, files)
    mcs = {m: block["metrics"]["mcs"] for m, block in scored["models"].items()}
    low, high = min(mcs, key=mcs.get), max(mcs, key=mcs.get)
    assert mcs[high] - mcs[low] > 10  # the generator's models are apart
    result = _compare(tmp_path, release, files)
    assert set(result) >= {"pairs", "models", "params"} and all(
        set(r) == PAIR_KEYS for r in result["pairs"]
    )
    assert not problems_for(
        "compare_result", result, "compare.json"
    )  # schemas/compare_result.schema.json
    assert len(result["pairs"]) == 15 * 6  # 6 models: 15 pairs x the 6 default metrics
    a, b = sorted((low, high))
    row = _row(result, a, b)
    # the same probes as `score`: the same point values
    assert row["delta"] == pytest.approx(mcs[b] - mcs[a], abs=1e-9)
    assert row["n_probes"] == 2556 and row["n_cases"] == 300
    lo, hi = row["ci95"]
    assert (lo > 0 or hi < 0) and row["p_holm"] < 0.05 and row["p"] <= row["p_holm"]


def test_an_identical_copy_gives_delta_0_and_p_1(authors, tmp_path):
    release, files = authors
    twin = _copy(files[0], tmp_path / "copy", "twin")
    result = _compare(tmp_path, release, [files[0], twin])
    a = files[0].name.removesuffix("__mcq.jsonl")
    assert len(result["pairs"]) == 6
    for row in result["pairs"]:
        assert (row["a"], row["b"]) == (a, "twin")
        assert row["delta"] == 0.0 and row["ci95"] == [0.0, 0.0]
        assert row["p"] >= 0.5 and row["p_holm"] >= 0.5
    percentile = _compare(
        tmp_path, release, [files[0], twin], "--p-value", "percentile", "--metrics", "mcs"
    )
    assert percentile["pairs"][0]["p"] == 1.0


def test_six_percent_of_wrong_answers_corrected_is_significant_only_paired(authors, tmp_path):
    """Own CIs (``medvigil score``) overlap; the paired comparison finds the improvement."""
    release, files = authors
    source = files[0]
    rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    wrong = [
        i
        for i, r in enumerate(rows)
        if r["status"] == "ok" and r["model_letter"] != r["correct_letter"]
    ]
    fixed = set(random.Random(32).sample(wrong, round(0.06 * len(wrong))))

    def correct(i, row):
        if i in fixed:
            row.update(model_letter=row["correct_letter"], model_answer=row["correct_letter"])
        return row

    a = source.name.removesuffix("__mcq.jsonl")
    b = a + "-fixed"  # after a in name order: delta = fixed - original
    better = _copy(source, tmp_path / "better", b, correct)
    own = _score(release, [source, better])["models"]
    ci_a, ci_b = own[a]["ci"]["mcs"], own[b]["ci"]["mcs"]
    assert ci_b["low"] < ci_a["high"]  # the two models' own 95% intervals overlap
    result = _compare(tmp_path, release, [source, better])
    row = _row(result, a, b)
    assert row["delta"] == pytest.approx(
        own[b]["metrics"]["mcs"] - own[a]["metrics"]["mcs"], abs=1e-9
    )
    assert row["delta"] > 0 and row["ci95"][0] > 0 and row["p_holm"] < 0.05


def test_different_probe_sets_are_compared_on_the_shared_probes(authors, tmp_path):
    release, files = authors
    dropped = set(range(0, 2556, 17))  # every 17th row of the second model's file
    a = files[0].name.removesuffix("__mcq.jsonl")
    b = a + "-partial"
    partial = _copy(files[1], tmp_path / "partial", b, lambda i, r: None if i in dropped else r)
    result = _compare(tmp_path, release, [files[0], partial])
    assert result["models"] == {a: {"n_probes": 2556}, b: {"n_probes": 2556 - len(dropped)}}
    row = _row(result, a, b)
    assert row["n_probes"] == 2556 - len(dropped)
    # the same delta as scoring both models on those probes only
    trimmed = _copy(files[0], tmp_path / "trimmed", a, lambda i, r: None if i in dropped else r)
    own = _score(release, [trimmed, partial])["models"]
    assert row["delta"] == pytest.approx(
        own[b]["metrics"]["mcs"] - own[a]["metrics"]["mcs"], abs=1e-9
    )


def test_seeded_and_deterministic(authors, tmp_path):
    release, files = authors
    first = _compare(tmp_path, release, files[:3], "--seed", "7", "--resamples", "200")
    again = _compare(tmp_path, release, files[:3], "--seed", "7", "--resamples", "200")
    other = _compare(tmp_path, release, files[:3], "--seed", "8", "--resamples", "200")
    assert first["pairs"] == again["pairs"]
    assert [r["delta"] for r in first["pairs"]] == [r["delta"] for r in other["pairs"]]
    assert [r["ci95"] for r in first["pairs"]] != [r["ci95"] for r in other["pairs"]]


def test_bad_input_exits_2_without_output(authors, tmp_path, capsys):
    release, files = authors
    out = tmp_path / "out.json"
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                str(files[0]),
                "--json",
                str(out),
            ]
        )
        == 2
    )
    assert "at least two models" in capsys.readouterr().err and not out.exists()
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                *map(str, files[:2]),
                "--metrics",
                "mcs,nope",
                "--json",
                str(out),
            ]
        )
        == 2
    )
    assert "unknown metric" in capsys.readouterr().err and not out.exists()
    broken = tmp_path / "broken__mcq.jsonl"
    broken.write_text(files[1].read_text().replace('"status": "ok"', '"status": 5', 1))
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                str(files[0]),
                str(broken),
                "--json",
                str(out),
            ]
        )
        == 2
    )
    assert "broken__mcq.jsonl" in capsys.readouterr().err and not out.exists()


@pytest.mark.slow
@needs_tool
def test_18_models_300_cases_1000_resamples_in_under_10_s_of_cpu(tmp_path):
    """The issue's bound, on the comparison itself (CPU time of this process: the reading is
    ``score``'s)."""
    subprocess.run(
        [sys.executable, str(AUTHORS_TOOL), str(tmp_path)], check=True, capture_output=True
    )
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    files = sorted((tmp_path / "results" / "baselines").glob("*__mcq.jsonl"))
    records = read_harness_files(files, str(tmp_path / "data" / "medvigil_v1"), as_table=True)
    start = time.process_time()
    result = compare_models(records, n_resamples=1000)
    assert time.process_time() - start < 10.0
    assert len(result["pairs"]) == 153 * 6


def test_report_draws_the_mcs_significance_matrix(authors, tmp_path, capsys):
    release, files = authors
    scores, compared = tmp_path / "scores.json", tmp_path / "compared.json"
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                *map(str, files[:3]),
                "--n-resamples",
                "50",
                "--json",
                str(scores),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                *map(str, files[:3]),
                "--json",
                str(compared),
            ]
        )
        == 0
    )
    assert main(["report", str(scores), str(compared), "--out", str(tmp_path / "report")]) == 0
    text = (tmp_path / "report" / "report.md").read_text()
    names = [f.name.removesuffix("__mcq.jsonl") for f in files[:3]]
    assert "## Paired comparisons" in text and "pairwise MCS differences" in text
    assert "| Model | " + " | ".join(names) + " |" in text
    pairs = json.loads(compared.read_text())["pairs"]
    first = _row({"pairs": pairs}, names[0], names[1])
    star = "\\*" if first["p_holm"] < 0.05 else ""
    assert f"| {names[1]} | {first['delta']:+.1f}{star} |  |" in text  # row b, column a: b - a
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"suite": "medvigil", "models": {}, "pairs": [{"a": "x"}]}))
    capsys.readouterr()
    assert main(["report", str(broken), "--out", str(tmp_path / "again")]) == 2
    assert (
        "field 'b': 'b' is a required property" in capsys.readouterr().err
        and not (tmp_path / "again").exists()
    )
    data = json.loads(compared.read_text())
    data["pairs"][0]["p_holm"] = 2
    broken.write_text(json.dumps(data))
    assert main(["report", str(broken), "--out", str(tmp_path / "again")]) == 2
    assert "field 'pairs.0.p_holm'" in capsys.readouterr().err and not (tmp_path / "again").exists()


def test_json_never_replaces_or_lands_in_an_input(authors, tmp_path, capsys):
    release, files = authors
    before = files[0].read_bytes()
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                *map(str, files[:2]),
                "--json",
                str(files[0]),
            ]
        )
        == 2
    )
    assert "field '--json'" in capsys.readouterr().err and files[0].read_bytes() == before
    inside = release / "compare.json"
    assert (
        main(
            [
                "compare",
                "--suite",
                "medvigil",
                "--release",
                str(release),
                *map(str, files[:2]),
                "--json",
                str(inside),
            ]
        )
        == 2
    )
    assert "lies inside" in capsys.readouterr().err and not inside.exists()


def test_harness_counting_rules_give_the_harness_points(authors, tmp_path):
    """--harness-compatible: error rows dropped for both models (the official scripts' rules); the
    deltas are those of `score --harness-compatible`, the resampling stays paired."""
    release, files = authors
    result = _compare(
        tmp_path, release, files[:2], "--harness-compatible", "--metrics", "mcs,sfr_w,pcons"
    )
    own = registry.score(
        "medvigil",
        [str(f) for f in files[:2]],
        release=str(release),
        n_resamples=0,
        harness_compatible=True,
    )["models"]
    a, b = (f.name.removesuffix("__mcq.jsonl") for f in files[:2])
    for metric in ("mcs", "sfr_w", "pcons"):
        row = _row(result, a, b, metric)
        assert row["delta"] == pytest.approx(
            own[b]["metrics"][metric] - own[a]["metrics"][metric], abs=1e-9
        )
    assert result["params"]["harness_compatible"] is True
