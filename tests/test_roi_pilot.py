"""Appendix K as the authors ran it: the 80-case pilot draw, 5 samples at T = 0.7, modal vote.

The draw follows scripts/bench_visual_token_ablation.py (select_pilot_cases): manifest order,
credentialed CXR and box-less cases skipped, one random.Random(20260506) shuffling the L1..L5
buckets in turn, 16 kept per tier. The real lmms-eval run uses the grounded baseline with
temperature sampling.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from shared_paths import AUTHORS_TOOL

from medvigil.pipeline import offline_env
from medvigil.suites.medvigil.scoring.roi_decay import modal_letter
from medvigil.suites.medvigil.scoring.roi_pilot import PILOT_SEED, select_pilot_cases

SLOW_FIXTURES = {"built"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]
BOX = [0.2, 0.2, 0.6, 0.7]


def _case(i, tier, source="VQA-RAD", box=BOX):
    return {"case_id": f"MVB-{i:04d}", "risk_tier": tier, "source_dataset": source, "roi_bbox": box}


def test_pilot_draw_follows_the_authors_steps():
    cases = [_case(i, f"L{1 + i % 5}") for i in range(1, 151)]  # 30 per tier
    cases[0]["source_dataset"] = "cxr"  # their credentialed source label
    cases[1]["source_dataset"] = "MIMIC-CXR"
    cases[2]["roi_bbox"] = None  # no ROI box
    cases[3]["roi_bbox"] = "[0.1, 0.1, 0.5]"  # not four numbers
    picked = select_pilot_cases(cases)
    # the steps, spelled out: buckets in manifest order, one generator for all tiers in turn
    buckets = {}
    for c in cases[4:]:
        buckets.setdefault(c["risk_tier"], []).append(c["case_id"])
    rng, expected = random.Random(PILOT_SEED), []
    for tier in ("L1", "L2", "L3", "L4", "L5"):
        rng.shuffle(buckets[tier])
        expected += buckets[tier][:16]
    assert picked == expected and len(picked) == 80
    assert not {"MVB-0001", "MVB-0002", "MVB-0003", "MVB-0004"} & set(picked)
    tiers = [next(c["risk_tier"] for c in cases if c["case_id"] == cid) for cid in picked]
    assert tiers == [t for t in ("L1", "L2", "L3", "L4", "L5") for _ in range(16)]


TOOL = AUTHORS_TOOL


@pytest.mark.skipif(
    not TOOL.is_file(), reason=f"{TOOL} (the authors-format generator) is not on this machine"
)
def test_pilot_draw_on_a_release_in_the_authors_layout(tmp_path):
    """manifest.csv + grounding.csv as their runner reads them (sources spelled 'cxr', boxes as JSON
    text)."""
    import csv

    subprocess.run(
        [sys.executable, str(TOOL), str(tmp_path), "--authors-spelling"],
        check=True,
        capture_output=True,
    )
    bench = tmp_path / "data" / "medvigil_v1"
    boxes = {
        r["case_id"]: r["roi_bbox_norm"]
        for r in csv.DictReader((bench / "grounding.csv").open(encoding="utf-8"))
    }
    manifest = list(csv.DictReader((bench / "manifest.csv").open(encoding="utf-8")))
    picked = select_pilot_cases([{**r, "roi_bbox": boxes.get(r["case_id"])} for r in manifest])
    by_id = {r["case_id"]: r for r in manifest}
    assert len(picked) == 80 and len(set(picked)) == 80
    assert [by_id[c]["risk_tier"] for c in picked] == [
        t for t in ("L1", "L2", "L3", "L4", "L5") for _ in range(16)
    ]
    assert all(by_id[c]["source_dataset"] != "cxr" for c in picked)
    assert any(r["source_dataset"] == "cxr" for r in manifest)


def test_small_tier_gives_all_its_cases_and_the_draw_is_stable():
    cases = [_case(1, "L1"), _case(2, "L3"), _case(3, "L3", box="[0.1, 0.2, 0.3, 0.4]")]
    assert sorted(select_pilot_cases(cases)) == ["MVB-0001", "MVB-0002", "MVB-0003"]
    with pytest.raises(ValueError, match="twice"):
        select_pilot_cases(cases + [_case(1, "L2")])


def test_modal_letter_as_their_runner():
    # the most common letter wins, first drawn on a tie; empty answers count in the share only
    assert modal_letter(["C", "A", "A", "C", ""]) == ("C", 40.0)
    assert modal_letter(["", "", "E", "", ""]) == ("E", 20.0)
    assert modal_letter(["", ""]) == ("", 0.0)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    pytest.importorskip("lmms_eval")
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("roi_pilot")
    generate_release(base / "release", cases=20, seed=1)
    build(base / "release", base / "build" / "medvigil")
    return base


def test_pilot_task_samples_five_times_and_scores_the_modal_vote(built):
    """A real lmms-eval run of medvigil_roi_decay (the pilot, default) with grounded at T = 0.7."""
    out = built / "runs"
    env = offline_env(built / "build" / "medvigil")
    env["HF_DATASETS_CACHE"] = str(built / "hf-cache")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--model_args",
        "temperature=0.7,seed=3",
        "--tasks",
        "medvigil_roi_decay",
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(out),
        "--log_samples",
    ]
    proc = subprocess.run(cmd, env=env, cwd=built, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stderr, proc.stderr[
        -3000:
    ]
    import datasets

    originals = datasets.load_dataset(
        str(built / "build" / "medvigil"), "mcq", split="test"
    ).filter(lambda r: r["probe_kind"] == "original")
    expected = set(select_pilot_cases(originals.to_list()))
    logs = sorted(out.rglob("*_samples_medvigil_roi_decay_k*.jsonl"))
    assert len(logs) == 4
    for log in logs:
        # the record is logged under the task's first metric (tasks/medvigil/utils.task_metrics)
        records = [
            json.loads(line)["acc_original"]
            for line in log.read_text().splitlines()
            if line.strip()
        ]
        assert {r["case_id"] for r in records} == expected
        for r in records:
            samples = r["extra"]["samples"]
            assert len(samples) == 5 and r["extra"]["protocol"] == "appendix_k_modal_vote"
            letter, share = modal_letter(samples)
            assert (r["predicted_letter"] or "") == letter and r["extra"]["modal_share"] == share
    scores = built / "scores.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "score",
            "--suite",
            "medvigil",
            "--release",
            str(built / "release"),
            *map(str, logs),
            "--n-resamples",
            "0",
            "--json",
            str(scores),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modal = json.loads(scores.read_text())["ablations"]["roi_decay_modal"]
    (entry,) = modal.values()
    assert entry["steps"] == [0, 1, 2, 3] and entry["n"] == [len(expected)] * 4
    assert entry["switch_rate"][0] == 0.0 and entry["letter_stability"][0] == 100.0
    # the rates are the modal letters counted by hand from the logs
    step3 = [
        json.loads(line)["acc_original"]
        for line in logs[3].read_text().splitlines()
        if line.strip()
    ]
    assert entry["refusal_rate"][3] == pytest.approx(
        100 * sum(r["predicted_letter"] == "E" for r in step3) / len(step3)
    )
    assert set(entry["by_tier"]) <= {"L1", "L2", "L3", "L4", "L5"} and len(
        entry["trajectories"]
    ) == len(expected)
