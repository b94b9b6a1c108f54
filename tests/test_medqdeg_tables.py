"""MedQ-Deg tables of `medvigil score --suite medqdeg` + `medvigil report`, against hand-computed
numbers.

The logs are lmms-eval samples files in lmms-eval's layout (``<stamp>_samples_<task>.jsonl`` beside
``<stamp>_results.json``) whose records come from the task pack's own hook
(:func:`medvigil.suites.medqdeg.records.record`) for hand-chosen answers, so the whole path (hook
-> reader -> scoring -> tables -> report) is exercised on a case small enough to compute by hand.

Two questions, gold A, K = 5. q1 is CT / "Diagnosis", q2 X-ray / "Anatomical recognition".
Accuracy experiment (T = 3, tasks medqdeg_acc_L*), share of right trials:
    q1 L0 AAA 1      q2 L0 AAB 2/3
    q1 L1 gaussian_noise AAA 1 (drop 0)    q2 L1 gaussian_noise AAB 2/3 (drop 0)
    q1 L1 sparse_view BBB 0 (drop -1)
    q1 L2 gaussian_noise AAB 2/3 (drop -1/3)   q2 L2 motion_blur BBB 0 (drop -2/3)
Calibration experiment (T = 4, tasks medqdeg_L*): q1 L0 AAAA, q2 L0 four unparseable answers,
q1 L2 gaussian_noise AABB.
"""

import json
from pathlib import Path

import pytest

from medvigil.cli import main
from medvigil.suites.medqdeg.records import record

GOLD_OPTIONS = ["yes", "no", "cannot say", "maybe", "refuse"]
CASES = {"q1": ("CT", "Diagnosis"), "q2": ("X-ray", "Anatomical recognition")}
ACCURACY = [
    ("q1", "clean", 0, "AAA"),
    ("q2", "clean", 0, "AAB"),
    ("q1", "gaussian_noise", 1, "AAA"),
    ("q2", "gaussian_noise", 1, "AAB"),
    ("q1", "sparse_view", 1, "BBB"),
    ("q1", "gaussian_noise", 2, "AAB"),
    ("q2", "motion_blur", 2, "BBB"),
]
CALIBRATION = [
    ("q1", "clean", 0, "AAAA"),
    ("q2", "clean", 0, "????"),
    ("q1", "gaussian_noise", 2, "AABB"),
]


def _doc(item, kind, level, experiment):
    modality, capability = CASES[item]
    return {
        "probe_id": item,
        "case_id": item,
        "probe_kind": "original",
        "question": "Is it there?",
        "options": GOLD_OPTIONS,
        "correct_letter": "A",
        "image_file": f"images/{item}.png",
        "modality": modality,
        "capability": capability,
        "degradation": kind,
        "severity": level,
        "experiment": experiment,
        "risk_tier": None,
        "source_dataset": "toy",
    }


def _write_run(folder: Path, model: str) -> None:
    folder.mkdir(parents=True)
    stamp = "20260101_000000"
    (folder / f"{stamp}_results.json").write_text(
        json.dumps({"config": {"model": model, "model_args": ""}})
    )
    for experiment, rows, prefix in (
        ("accuracy", ACCURACY, "medqdeg_acc"),
        ("calibration", CALIBRATION, "medqdeg"),
    ):
        for level in (0, 1, 2):
            lines = []
            for i, (item, kind, lv, answers) in enumerate(r for r in rows if r[2] == level):
                rec = record(
                    _doc(item, kind, lv, experiment), ["" if a == "?" else a for a in answers]
                )
                lines.append(
                    json.dumps(
                        {
                            "doc_id": i,
                            "accuracy": rec,
                            "mean_confidence": rec,
                            "calibration_shift": rec,
                        }
                    )
                )
            if lines:
                (folder / f"{stamp}_samples_{prefix}_L{level}.jsonl").write_text(
                    "\n".join(lines) + "\n"
                )


def _table(md: str, title_start: str) -> list[list[str]]:
    block = md.split(f"### {title_start}", 1)[1].split("###", 1)[0]
    return [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in block.splitlines()
        if line.startswith("| ")
    ][1:]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("medqdeg_tables")
    _write_run(base / "run", "toy")
    assert (
        main(["score", "--suite", "medqdeg", str(base / "run"), "--json", str(base / "deg.json")])
        == 0
    )
    assert main(["report", str(base / "deg.json"), "--out", str(base / "report")]) == 0
    return base


def test_severity_table(report):
    md = (report / "report" / "report.md").read_text()
    (row,) = _table(md, "MedQ-Deg by severity")
    # accuracy experiment: L0 (1 + 2/3)/2, L1 (1 + 2/3 + 0)/3, L2 (2/3 + 0)/2; drops 55.56 - 83.33,
    # 33.33 - 83.33
    assert row[1:6] == ["83.3", "55.6", "33.3", "-27.8", "-50.0"]
    # calibration experiment: L0 C = 1 and 0 (all four answers invalid: no confidence), accuracy 1
    # and 0; L2 AABB: C = 1 - ln 2 / ln 5 = 0.5693, accuracy 0.5
    assert row[6] == "50.0" and row[8] == "56.9" and row[9] == "+0.0" and row[11] == "+6.9"
    assert row[7] == "—" and row[12] == "no"  # no L1 calibration docs; Acc L0 = Acc L2 = 50: no DKE


def test_category_capability_modality_tables(report):
    md = (report / "report" / "report.md").read_text()
    (row,) = _table(md, "Accuracy by degradation category")
    # Noise: (1, 2/3, 2/3) = 77.8, drops (0, 0, -1/3)/3 = -11.1; R&B: motion_blur q2 0 (-66.7);
    # Artifacts 0 (-100) Avg. = mean of the three cells (Table 3): (77.8 + 0 + 0)/3 = 25.9, drops
    # (-11.1 - 66.7 - 100)/3 = -59.3 (not the pooled five docs' 46.7 (-40.0))
    assert row == ["toy", "25.9 (-59.3)", "—", "77.8 (-11.1)", "0.0 (-66.7)", "0.0 (-100.0)", "—"]
    cap = _table(md, "Accuracy by capability")
    # Diagnosis = q1: (1, 0, 2/3) = 55.6, drops (0, -1, -1/3)/3 = -44.4; Anatomical recognition =
    # q2: (2/3, 0), (0, -2/3)/2 Avg. = mean of the two capability cells (Table 2): (55.6 + 33.3)/2 =
    # 44.4, (-44.4 - 33.3)/2 = -38.9
    assert cap == [
        ["toy", "44.4 (-38.9)", "33.3 (-33.3)", "55.6 (-44.4)", "33.3 (-33.3)", "55.6 (-44.4)"]
    ]
    assert (
        "| Model | Avg. | Medical Perception | Clinical Reasoning "
        "| Anatomical recognition | Diagnosis |" in md
    )
    mod = _table(md, "Accuracy by modality")
    assert mod == [
        ["toy", "CT", "100.0", "50.0", "66.7", "-50.0", "-33.3"],
        ["toy", "X-ray", "66.7", "66.7", "0.0", "+0.0", "-66.7"],
    ]


def test_type_table_and_figures(report):
    md = (report / "report" / "report.md").read_text()
    rows = {
        r[0].replace("\\_", "_"): r for r in _table(md, "toy: by degradation type")
    }  # report.md escapes Markdown
    assert rows["gaussian_noise"][1:4] == ["2", "83.3", "+0.0"] and rows["gaussian_noise"][5:8] == [
        "1",
        "66.7",
        "-33.3",
    ]
    assert rows["sparse_view"][1:4] == ["1", "0.0", "-100.0"]
    assert "Spearman ρ(accuracy, Δcalib)" not in md  # one model: no inter-model table
    for name in (
        "medqdeg_severity",
        "medqdeg_type_drops",
        "medqdeg_capability_drops",
        "medqdeg_modality",
    ):
        assert (report / "report" / "figures" / f"{name}.png").stat().st_size > 1000
    scores = json.loads((report / "deg.json").read_text())["models"]["toy"]
    assert (
        scores["experiment"] == "calibration"
        and scores["accuracy_experiment"]["by_severity"]["L0"]["n"] == 2
    )
    avg = scores["accuracy_experiment"]["category_mean"][
        "L1&L2"
    ]  # the score JSON carries the Avg. the report prints
    assert avg["accuracy"] == pytest.approx(7 / 27) and avg["L1&L2-L0"] == pytest.approx(-16 / 27)
    assert avg["cells"] == ["Noise", "Resolution & Blur", "Artifacts"]


# Seed 002, GPT-5's rows: Table 3 (five category cells, drop from L0) and Table 2 (six capability
# cells).
TABLE3_GPT5 = {
    "Intensity": (72.2, -4.0),
    "Noise": (66.2, -3.2),
    "Resolution & Blur": (67.5, -2.5),
    "Artifacts": (63.1, -6.4),
    "Motion": (68.4, -4.8),
}
TABLE2_GPT5 = {
    "CU": (67.2, -4.3),
    "IP": (36.5, -0.9),
    "AR": (67.4, -4.4),
    "BS": (75.0, -6.0),
    "Diag.": (62.1, -2.9),
    "Treat.": (78.8, -2.3),
}


@pytest.mark.parametrize("cells, avg, drop", [(TABLE3_GPT5, 67.5, -4.2), (TABLE2_GPT5, 64.5, -3.5)])
def test_avg_is_the_mean_of_the_paper_cells(cells, avg, drop):
    from medvigil.suites.medqdeg.breakdowns import cell_mean

    entry = {
        k: {"L1&L2": {"accuracy": a / 100, "L1&L2-L0": d / 100}} for k, (a, d) in cells.items()
    }
    mean = cell_mean(entry, list(cells))["L1&L2"]
    assert round(100 * mean["accuracy"], 1) == avg and round(100 * mean["L1&L2-L0"], 1) == drop
    assert mean["n_cells"] == len(cells)


def test_inter_model_header(tmp_path):
    from medvigil.suites.medqdeg.tables import inter_model_table

    table = inter_model_table(
        {
            "inter_model_dke": {
                "L2": {
                    "n_pairs_compared": 3,
                    "pairs": [["a", "b"]],
                    "fraction": 1 / 3,
                    "spearman_rho": -0.5,
                }
            }
        }
    )
    assert table.headers[-1] == "Spearman ρ(accuracy, Δcalib)" and table.rows[0][-1] == "-0.50"
