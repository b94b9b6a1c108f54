"""MedQ-Deg tables of `medvigil score --suite medqdeg` + `medvigil report`, against hand-computed numbers.

The logs are lmms-eval samples files in lmms-eval's layout (``<stamp>_samples_<task>.jsonl`` beside
``<stamp>_results.json``) whose records come from the task pack's own hook
(:func:`medvigil.suites.medqdeg.protocol.record`) for hand-chosen answers, so the whole path (hook ->
reader -> scoring -> tables -> report) is exercised on a case small enough to compute by hand.

Two questions, gold A, K = 5. q1 is CT / "Diagnosis", q2 X-ray / "Anatomical recognition".
Accuracy experiment (T = 3, tasks medqdeg_acc_L*), share of right trials:
    q1 L0 AAA 1      q2 L0 AAB 2/3
    q1 L1 gaussian_noise AAA 1 (drop 0)    q2 L1 gaussian_noise AAB 2/3 (drop 0)
    q1 L1 sparse_view BBB 0 (drop -1)
    q1 L2 gaussian_noise AAB 2/3 (drop -1/3)   q2 L2 motion_blur BBB 0 (drop -2/3)
Calibration experiment (T = 4, tasks medqdeg_L*): q1 L0 AAAA, q2 L0 four unparseable answers,
q1 L2 gaussian_noise AABB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medvigil.cli import main
from medvigil.suites.medqdeg.protocol import record

GOLD_OPTIONS = ["yes", "no", "cannot say", "maybe", "refuse"]
CASES = {"q1": ("CT", "Diagnosis"), "q2": ("X-ray", "Anatomical recognition")}
ACCURACY = [("q1", "clean", 0, "AAA"), ("q2", "clean", 0, "AAB"), ("q1", "gaussian_noise", 1, "AAA"),
            ("q2", "gaussian_noise", 1, "AAB"), ("q1", "sparse_view", 1, "BBB"), ("q1", "gaussian_noise", 2, "AAB"),
            ("q2", "motion_blur", 2, "BBB")]
CALIBRATION = [("q1", "clean", 0, "AAAA"), ("q2", "clean", 0, "????"), ("q1", "gaussian_noise", 2, "AABB")]


def _doc(item, kind, level, experiment):
    modality, capability = CASES[item]
    return {"probe_id": item, "case_id": item, "probe_kind": "original", "question": "Is it there?", "options": GOLD_OPTIONS,
            "correct_letter": "A", "image_file": f"images/{item}.png", "modality": modality, "capability": capability,
            "degradation": kind, "severity": level, "experiment": experiment, "risk_tier": None, "source_dataset": "toy"}


def _write_run(folder: Path, model: str) -> None:
    folder.mkdir(parents=True)
    stamp = "20260101_000000"
    (folder / f"{stamp}_results.json").write_text(json.dumps({"config": {"model": model, "model_args": ""}}))
    for experiment, rows, prefix in (("accuracy", ACCURACY, "medqdeg_acc"), ("calibration", CALIBRATION, "medqdeg")):
        for level in (0, 1, 2):
            lines = []
            for i, (item, kind, lv, answers) in enumerate(r for r in rows if r[2] == level):
                rec = record(_doc(item, kind, lv, experiment), ["" if a == "?" else a for a in answers])
                lines.append(json.dumps({"doc_id": i, "accuracy": rec, "mean_confidence": rec, "calibration_shift": rec}))
            if lines:
                (folder / f"{stamp}_samples_{prefix}_L{level}.jsonl").write_text("\n".join(lines) + "\n")


def _table(md: str, title_start: str) -> list[list[str]]:
    block = md.split(f"### {title_start}", 1)[1].split("###", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines() if line.startswith("| ")][1:]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("medqdeg_tables")
    _write_run(base / "run", "toy")
    assert main(["score", "--suite", "medqdeg", str(base / "run"), "--json", str(base / "deg.json")]) == 0
    assert main(["report", str(base / "deg.json"), "--out", str(base / "report")]) == 0
    return base


def test_severity_table(report):
    md = (report / "report" / "report.md").read_text()
    (row,) = _table(md, "MedQ-Deg by severity")
    # accuracy experiment: L0 (1 + 2/3)/2, L1 (1 + 2/3 + 0)/3, L2 (2/3 + 0)/2; drops 55.56 - 83.33, 33.33 - 83.33
    assert row[1:6] == ["83.3", "55.6", "33.3", "-27.8", "-50.0"]
    # calibration experiment: L0 C = 1 and 0 (all four answers invalid: no confidence), accuracy 1 and 0;
    # L2 AABB: C = 1 - ln 2 / ln 5 = 0.5693, accuracy 0.5
    assert row[6] == "50.0" and row[8] == "56.9" and row[9] == "+0.0" and row[11] == "+6.9"
    assert row[7] == "—" and row[12] == "no"  # no L1 calibration docs; Acc L0 = Acc L2 = 50: no DKE


def test_category_capability_modality_tables(report):
    md = (report / "report" / "report.md").read_text()
    (row,) = _table(md, "Accuracy by degradation category")
    # Avg.: five degraded docs (1, 2/3, 0, 2/3, 0) = 46.7, drops (0, 0, -1, -1/3, -2/3)/5 = -40
    # Noise: (1, 2/3, 2/3) = 77.8, drops (0, 0, -1/3)/3 = -11.1; R&B: motion_blur q2 0 (-66.7); Artifacts 0 (-100)
    assert row == ["toy", "46.7 (-40.0)", "—", "77.8 (-11.1)", "0.0 (-66.7)", "0.0 (-100.0)", "—"]
    cap = _table(md, "Accuracy by capability")
    # Diagnosis = q1: (1, 0, 2/3) = 55.6, drops (0, -1, -1/3)/3 = -44.4; Anatomical recognition = q2: (2/3, 0), (0, -2/3)/2
    assert cap == [["toy", "46.7 (-40.0)", "33.3 (-33.3)", "55.6 (-44.4)", "33.3 (-33.3)", "55.6 (-44.4)"]]
    assert "| Model | Avg. | Medical Perception | Clinical Reasoning | Anatomical recognition | Diagnosis |" in md
    mod = _table(md, "Accuracy by modality")
    assert mod == [["toy", "CT", "100.0", "50.0", "66.7", "-50.0", "-33.3"], ["toy", "X-ray", "66.7", "66.7", "0.0", "+0.0", "-66.7"]]


def test_type_table_and_figures(report):
    md = (report / "report" / "report.md").read_text()
    rows = {r[0].replace("\\_", "_"): r for r in _table(md, "toy: by degradation type")}  # report.md escapes Markdown
    assert rows["gaussian_noise"][1:4] == ["2", "83.3", "+0.0"] and rows["gaussian_noise"][5:8] == ["1", "66.7", "-33.3"]
    assert rows["sparse_view"][1:4] == ["1", "0.0", "-100.0"]
    assert "Spearman ρ(accuracy, Δcalib)" not in md  # one model: no inter-model table
    for name in ("medqdeg_severity", "medqdeg_type_drops", "medqdeg_capability_drops", "medqdeg_modality"):
        assert (report / "report" / "figures" / f"{name}.png").stat().st_size > 1000
    scores = json.loads((report / "deg.json").read_text())["models"]["toy"]
    assert scores["experiment"] == "calibration" and scores["accuracy_experiment"]["by_severity"]["L0"]["n"] == 2


def test_inter_model_header(tmp_path):
    from medvigil.suites.medqdeg.tables import inter_model_table

    table = inter_model_table({"inter_model_dke": {"L2": {"n_pairs_compared": 3, "pairs": [["a", "b"]], "fraction": 1 / 3,
                                                          "spearman_rho": -0.5}}})
    assert table.headers[-1] == "Spearman ρ(accuracy, Δcalib)" and table.rows[0][-1] == "-0.50"
