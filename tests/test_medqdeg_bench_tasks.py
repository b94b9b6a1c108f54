"""The ``medqdeg_bench`` tasks: a real lmms-eval run of the ``grounded`` baseline over a synthetic
MedQ-DEG-Bench build (``--limit``, ``--repeats 3``), scored by ``medvigil score --suite
medqdeg``."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from medqdeg_bench_files import HEADER, tsv_rows, write_tsvs

from medvigil.cli import main
from medvigil.pipeline import offline_env
from medvigil.suites.medqdeg.bench_docs import doc_fields
from medvigil.tasks import task_yaml

SLOW_FIXTURES = {"run"}  # builds a dataset and drives lmms-eval
ROOT = Path(__file__).resolve().parents[1]
TRIALS = 3


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("lmms_eval")
    base = tmp_path_factory.mktemp("medqdeg_bench_run")
    tsvs = write_tsvs(base / "tsv")
    build = base / "build"
    assert main(["medqdeg-build", *map(str, tsvs.values()), "--out", str(build)]) == 0
    env = offline_env(base / "no-medvigil-build") | {
        "MEDQDEG_DATA": str(build),
        "HF_DATASETS_CACHE": str(base / "hf-cache"),
    }
    cmd = [
        sys.executable, "-m", "lmms_eval", "--model", "grounded", "--tasks", "medqdeg_bench",
        "--repeats", str(TRIALS), "--limit", "12", "--include_path", str(ROOT / "tasks"),
        "--output_path", str(base / "runs"), "--log_samples",
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
    # lmms-eval 0.7.3 logs an evaluation error and still exits 0
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stderr, proc.stderr[
        -4000:
    ]
    return base, env


def test_a_limited_grounded_run_scores_by_severity_type_modality_and_source(run, monkeypatch):
    base, env = run
    monkeypatch.setenv("MEDQDEG_DATA", env["MEDQDEG_DATA"])
    out = base / "scores.json"
    assert main(["score", "--suite", "medqdeg", str(base / "runs"), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["partial"]["tasks"]["medqdeg_bench_simulate_test"]["probes"] == 12
    (model,) = result["models"].values()
    assert set(model["by_severity"]) == {"L0", "L1", "L2"}
    assert all(math.isfinite(v["calibration_shift"]) for v in model["by_severity"].values())
    assert model["intra_model_dke"] in (True, False)  # Eq. 5: L0 (good file) and L2 (simulate)
    assert {"low_dose", "sparse_view", "clean"} <= set(model["by_degradation"])
    assert set(model["by_modality"]) >= {"CT", "X-Ray"}
    assert set(model["by_source"]) >= {"OmniMedVQA", "GMAI-MMBench"}
    # drops from L0 are paired on the pair key: the 12 degraded docs asked are 4 CT + 4 X-Ray rows
    # of paired questions and 4 MRI rows of a third, all paired
    assert model["paired_drops"]["L1&L2"]["n_paired"] == 12
    samples = sorted((base / "runs").rglob("*_samples_medqdeg_bench_simulate_test.jsonl"))
    line = json.loads(samples[0].read_text().splitlines()[0])
    record = line["accuracy"]
    assert (
        len(record["extra"]["votes"]) == TRIALS and record["extra"]["benchmark"] == "MedQ-DEG-Bench"
    )
    assert record["probe_id"] == "simulate_test:2000" and record["condition"] == "L1"


def test_prompt_snapshot_is_appendix_b():
    utils = task_yaml.load_utils(ROOT / "tasks" / "medqdeg_bench", "medqdeg_bench_utils")
    row = dict(zip(HEADER, tsv_rows("simulate")[0]))
    columns = ["index", "question", *"ABCDE", "answer", "modality", "degradation_type"]
    columns += ["degradation_severity", "source"]
    doc = {**row, **doc_fields("simulate_test", *(row[c] for c in columns), "k")}
    assert (doc["degradation"], doc["severity"], doc["case_id"]) == ("low_dose", 1, "k")
    assert utils.medqdeg_bench_doc_to_text(doc) == (
        "You are a medical AI assistant. Please answer the following question based on the "
        "provided medical image. Which organ is shown?\n\nA. Liver\nB. Lung\nC. Brain\nD. "
        "Kidney\n\nConstraint: Output ONLY the single letter (A, B, C, or D, E, etc) "
        "corresponding to the correct answer. No explanation, no punctuation.\n\nAnswer:"
    )
