"""Any multiple-choice dataset through medvigil.mcq.adapter: a dataset built here with another
schema (K = 4 options in four columns, the gold as an index, grey images) runs the three stress
packs in one real lmms-eval run of the ``constant`` baseline (always B), scored and reported.

Worked numbers follow from "always B": an item is right exactly when its displayed gold is B.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from medvigil.mcq.adapter import adapt, load_mcq, read_mapping

SLOW_FIXTURES = {
    "run",
    "bad_mapping",
}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]
N, K = 8, 4
GOLD = [1, 0, 1, 2, 3, 1, 0, 2]  # index of the gold option per item: B for items 0, 2, 5


def _dataset(folder: Path) -> Path:
    import datasets
    from PIL import Image

    rng = np.random.default_rng(0)
    rows = {
        "qid": [],
        "scan": [],
        "prompt": [],
        "opt_1": [],
        "opt_2": [],
        "opt_3": [],
        "opt_4": [],
        "label": [],
        "mod": [],
        "task": [],
        "seen": [],
    }
    for i in range(N):
        rows["qid"].append(f"q{i}")
        rows["scan"].append(
            Image.fromarray(rng.integers(0, 255, (48, 48), dtype=np.uint8), mode="L")
        )
        rows["prompt"].append(
            f"Is there a lesion number {i} on this scan?"
            if i % 2
            else f"Which structure is marked in study {i}?"
        )
        for j in range(K):
            rows[f"opt_{j + 1}"].append(f"answer{i}x{j}")
        rows["label"].append(GOLD[i])
        rows["mod"].append("MRI" if i % 2 else "X-ray")
        rows["task"].append("Diagnosis" if i < 4 else "Anatomical recognition")
        rows["seen"].append(("nodule", "cyst", "fracture")[i % 3])  # the finding (CbD presence)
    features = datasets.Features(
        {
            **{k: datasets.Value("string") for k in rows if k not in ("scan", "label")},
            "scan": datasets.Image(),
            "label": datasets.Value("int64"),
        }
    )
    datasets.DatasetDict(
        {"validation": datasets.Dataset.from_dict(rows, features=features)}
    ).save_to_disk(str(folder / "data"))
    mapping = {
        "data": "data",
        "split": "validation",
        "name": "toyvqa",
        "columns": {
            "image": "scan",
            "question": "prompt",
            "options": ["opt_1", "opt_2", "opt_3", "opt_4"],
            "answer": "label",
            "id": "qid",
            "modality": "mod",
            "capability": "task",
            "finding": "seen",
        },
    }
    (folder / "mapping.json").write_text(json.dumps(mapping))
    return folder / "mapping.json"


def test_adapter_rows_and_errors(tmp_path):
    mapping = _dataset(tmp_path)
    rows = adapt(read_mapping(mapping))
    assert len(rows) == N and rows[0]["options"] == [f"answer0x{j}" for j in range(K)]
    assert rows["correct_letter"] == ["ABCD"[g] for g in GOLD] and rows[0]["image"].mode == "L"
    assert (
        rows[3]["modality"] == "MRI"
        and rows[4]["capability"] == "Anatomical recognition"
        and rows[0]["probe_kind"] == "original"
    )
    assert (
        rows[0]["text_only_answerable"] is False
        and rows[0]["safe_letter"] is None
        and rows[0]["image_file"] == "toyvqa/q0"
    )
    assert len(load_mcq({"MEDVIGIL_MCQ_ADAPTER": str(mapping)})) == N
    spec = json.loads(mapping.read_text())
    kinds = (
        tmp_path / "kinds.json"
    )  # a "kind" column: paraphrase rows for CbD's supplied paraphrase sets
    kinds.write_text(json.dumps({**spec, "columns": {**spec["columns"], "kind": "mod"}}))
    with pytest.raises(
        ValueError, match="row 0: field 'kind' must be one of original, paraphrase, got 'X-ray'"
    ):
        adapt(read_mapping(kinds))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**spec, "columns": {**spec["columns"], "answer": "gold"}}))
    with pytest.raises(ValueError, match=r"bad.json: field 'columns' names \['gold'\]"):
        adapt(read_mapping(bad))
    bad.write_text(
        json.dumps(
            {**spec, "columns": {k: v for k, v in spec["columns"].items() if k != "question"}}
        )
    )
    with pytest.raises(ValueError, match="missing \\['question'\\]"):
        read_mapping(bad)
    bad.write_text(json.dumps({**spec, "columns": {**spec["columns"], "answer": "prompt"}}))
    with pytest.raises(ValueError, match="row 0: field 'answer'"):
        adapt(read_mapping(bad))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("lmms_eval")
    from medvigil.pipeline import offline_env

    base = tmp_path_factory.mktemp("mcq_adapter")
    mapping = _dataset(base)
    env = offline_env(base / "unused")
    env.update(MEDVIGIL_MCQ_ADAPTER=str(mapping), HF_DATASETS_CACHE=str(base / "hf-cache"))
    tasks = (
        "medqdeg_acc_L0,medqdeg_acc_L1,readiness_img,readiness_text,readiness_text_2r,"
        "readiness_img_unk,cbd_binary"
    )
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "constant",
        "--model_args",
        "letter=B",
        "--tasks",
        tasks,
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(base / "out"),
        "--log_samples",
    ]
    proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stderr + proc.stdout, (
        proc.stderr[-4000:]
    )
    return base


def _score(run, suite, tmp):
    from medvigil.cli import main

    out = tmp / f"{suite}.json"
    assert main(["score", "--suite", suite, str(run / "out"), "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_medqdeg_on_the_adapted_dataset(run, tmp_path):
    result = _score(run, "medqdeg", tmp_path)
    (m,) = result["models"].values()
    gold_b = sum(g == 1 for g in GOLD) / N  # always B: right exactly on the items whose gold is B
    assert m["experiment"] == "accuracy" and m["by_severity"]["L0"]["accuracy"] == pytest.approx(
        gold_b
    )
    assert m["by_severity"]["L1"]["accuracy"] == pytest.approx(gold_b)
    # a model the degradation cannot move: every paired drop is exactly 0 (the bug: unpaired drops
    # were not)
    assert all(d["L1-L0"] == 0.0 for d in m["drops_by_degradation"].values())
    assert m["by_capability"]["Diagnosis"]["L1&L2"]["L1&L2-L0"] == 0.0 and set(
        m["by_modality"]
    ) == {"MRI", "X-ray"}
    from medvigil.records.lmms_eval_logs import read_samples

    recs = read_samples(sorted((run / "out").rglob("*_samples_medqdeg_acc_L1.jsonl")))
    assert {r["extra"]["n_options"] for r in recs} == {K} and {
        r["extra"]["trials"] for r in recs
    } == {3}


def test_readiness_on_the_adapted_dataset(run, tmp_path):
    from medvigil.records.lmms_eval_logs import read_samples

    result = _score(run, "readiness", tmp_path)
    (m,) = result["models"].values()
    recs = read_samples(sorted((run / "out").rglob("*_samples_readiness_*.jsonl")))
    for r in recs:
        assert len(r["extra"]["options_shown"]) == K and r["predicted_letter"] == "B"
    by_arm = {}
    for r in recs:
        by_arm.setdefault(r["condition"], []).append(r)
    text = by_arm["noimg"]
    expected = 100 * sum(r["correct_letter"] == "B" for r in text) / len(text)
    assert m["accuracies"]["T2"]["text_visually_required"] == pytest.approx(expected)
    assert m["accuracies"]["T2"]["chance"] == 25.0  # 100 / K
    assert m["fragility"]["T2"] == pytest.approx(max(0.0, expected - 25) / 75)
    two = by_arm["noimg:distractors_2r"]
    assert all(
        r["extra"]["n_replaced"] == 2
        and all(t.startswith("answer") for t in r["extra"]["replaced"])
        for r in two
    )
    assert m["accuracies"]["T4_variants"]["text_2r"]["accuracy"] == pytest.approx(
        100 * sum(r["correct_letter"] == "B" for r in two) / N
    )


def test_cbd_on_the_adapted_dataset(run, tmp_path):
    """The mapped finding column gives the presence questions: per item "Is there {its finding}?"
    and "Is there {another item's finding}?". Always "no" is right on the absent half and flips
    under the negated paraphrase ("Is there no X?": "no" means X is there), so no sample is
    consistent."""
    result = _score(run, "cbd", tmp_path)
    (name,) = result["models"]
    m = result["models"][name]
    assert name.endswith("[binary]") and m["counts"]["Worst"] == m["n_samples"] == 2 * N
    from medvigil.records.lmms_eval_logs import read_samples

    recs = [
        r
        for r in read_samples(sorted((run / "out").rglob("*_samples_cbd_binary.jsonl")))
        if r["condition"] == "binary" and r["probe_kind"] == "original"
    ]
    assert {r["extra"]["question"] for r in recs if r["case_id"] == "q0:present"} == {
        "Is there nodule?"
    }
    assert (
        m["accuracy"]
        == pytest.approx(0.5)
        == sum(r["extra"]["label"] == "no" for r in recs) / (2 * N)
    )
    from medvigil.cli import main

    assert main(["report", str(tmp_path / "cbd.json"), "--out", str(tmp_path / "report")]) == 0
    assert "Binary arm: p(yes)" in (tmp_path / "report" / "report.md").read_text()


@pytest.fixture()
def bad_mapping(tmp_path):
    pytest.importorskip("lmms_eval")
    mapping = _dataset(tmp_path)
    spec = json.loads(mapping.read_text())
    bad = tmp_path / "bad.json"  # a column the dataset lacks
    bad.write_text(json.dumps({**spec, "columns": {**spec["columns"], "question": "prompt_"}}))
    return bad


@pytest.mark.parametrize("plugin", [True, False], ids=["LMMS_EVAL_PLUGINS", "include_path"])
def test_a_bad_mapping_stops_lmms_eval_once_with_exit_1(bad_mapping, tmp_path, plugin):
    """Issue 42: a bad mapping surfaced inside lmms-eval's retry traceback and the run exited 0 with
    nothing written. It stops the run once, non-zero, with the problem as its last line: when the
    plugin loads (LMMS_EVAL_PLUGINS=medvigil), else when the task loads its rows. The control is the
    module's `run` fixture: the good mapping runs the three packs."""
    from medvigil.pipeline import offline_env

    env = offline_env(tmp_path / "unused")
    env.update(MEDVIGIL_MCQ_ADAPTER=str(bad_mapping), HF_DATASETS_CACHE=str(tmp_path / "hf"))
    env.pop("LMMS_EVAL_PLUGINS", None)
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "constant", "--tasks", "readiness_img"]
    cmd += ["--output_path", str(tmp_path / "out"), "--log_samples", "--limit", "2"]
    if plugin:
        env["LMMS_EVAL_PLUGINS"] = "medvigil"
    else:
        cmd += ["--include_path", str(ROOT / "tasks")]
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    said = proc.stderr + proc.stdout
    assert proc.returncode == 1, said[-3000:]
    assert "RetryError" not in said and "Traceback" not in said, said[-3000:]
    message = (
        f"error: MEDVIGIL_MCQ_ADAPTER={bad_mapping}: {bad_mapping}: "
        f"field 'columns' names ['prompt_']"
    )
    assert said.count(message) == 1 and proc.stderr.strip().splitlines()[-1].startswith(message)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.jsonl"))
