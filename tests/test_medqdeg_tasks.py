"""MedQ-Deg task pack: real lmms-eval runs with our baselines on a tiny synthetic build.

Two runs of the ``medqdeg`` group (L0, L1, L2) in parallel subprocesses, exactly as a user
runs them: the deterministic ``grounded`` baseline with ``--repeats 3`` and the sampling
one (``temperature=1``) with ``--repeats 4``. The CT working size is lowered to 128 px
(``MEDQDEG_CT_WORK_SIZE``) to keep the module fast.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from medvigil.pipeline import offline_env
from medvigil.suites.medqdeg import degradation_types as T
from medvigil.suites.medqdeg import degradations as D
from medvigil.suites.medqdeg import docs as medqdeg_docs
from medvigil.suites.medqdeg import records as medqdeg_records
from medvigil.suites.medqdeg.scoring import score_records

SLOW_FIXTURES = {
    "built",
    "runs",
}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

pytest.importorskip("lmms_eval")
ROOT = Path(__file__).resolve().parents[1]
CASES = 6
LEVELS = ("L0", "L1", "L2")
RUNS = {"fixed": ("", 3), "sampled": ("temperature=1,seed=0", 4)}  # grounded model_args, T


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("medqdeg_runs")
    generate_release(base / "release", cases=CASES, seed=1)
    build(base / "release", base / "build" / "medvigil")
    return base


@pytest.fixture(scope="module")
def runs(built):
    procs = {}
    for name, (args, trials) in RUNS.items():
        cmd = [
            sys.executable,
            "-m",
            "lmms_eval",
            "--model",
            "grounded",
            "--tasks",
            "medqdeg",
            "--repeats",
            str(trials),
            "--include_path",
            str(ROOT / "tasks"),
            "--output_path",
            str(built / "runs" / name),
            "--log_samples",
        ]
        if args:
            cmd += ["--model_args", args]
        env = offline_env(built / "build" / "medvigil")
        env.update(HF_DATASETS_CACHE=str(built / f"hf-cache-{name}"), MEDQDEG_CT_WORK_SIZE="128")
        procs[name] = subprocess.Popen(
            cmd, env=env, cwd=built, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        # lmms-eval 0.7.3 logs an evaluation error and still exits 0
        assert proc.returncode == 0 and "Error during evaluation" not in err, (
            f"{name}: {out[-2000:]}{err[-4000:]}"
        )
    return {name: built / "runs" / name for name in RUNS}


def _table(out: Path, level: str) -> dict:
    (results,) = out.rglob("*_results.json")
    return {
        k.split(",")[0]: v
        for k, v in json.loads(results.read_text())["results"][f"medqdeg_{level}"].items()
    }


def _records(out: Path, level: str) -> list[dict]:
    from medvigil.records.lmms_eval_logs import read_samples

    (path,) = out.rglob(f"*_samples_medqdeg_{level}.jsonl")
    return read_samples([path])  # validates every record against probe_record.schema.json


def test_results_table_is_the_scoring_core_of_the_logged_records(runs):
    for name, out in runs.items():
        everything = []
        for level in LEVELS:
            records = _records(out, level)
            assert (
                records
                and {r["suite"] for r in records} == {"medqdeg"}
                and {r["condition"] for r in records} == {level}
            )
            assert {len(r["extra"]["votes"]) for r in records} == {RUNS[name][1]}  # T = --repeats
            (model,) = score_records(records)["models"].values()
            table = _table(out, level)
            for metric in ("accuracy", "mean_confidence", "calibration_shift"):
                assert table[metric] == pytest.approx(model["overall"][metric]), (
                    name,
                    level,
                    metric,
                )
            assert table["calibration_shift"] == pytest.approx(
                table["mean_confidence"] - table["accuracy"]
            )
            everything += records
        # all three levels of one model score together, with Eq. (5) decided
        (model,) = score_records(everything)["models"].values()
        assert set(model["by_severity"]) == set(LEVELS) and isinstance(
            model["intra_model_dke"], bool
        )


def test_deterministic_baseline_is_fully_confident_and_sampling_is_not(runs):
    for level in LEVELS:
        assert _table(runs["fixed"], level)["mean_confidence"] == 1.0
        assert all(len(set(r["extra"]["votes"])) == 1 for r in _records(runs["fixed"], level))
    sampled = [_table(runs["sampled"], level)["mean_confidence"] for level in LEVELS]
    assert min(sampled) < 1.0
    assert any(len(set(r["extra"]["votes"])) > 1 for r in _records(runs["sampled"], "L1"))


def test_docs_follow_table5_and_carry_their_seeds(runs, built):
    import datasets

    mcq = datasets.load_dataset(
        str(built / "build" / "medvigil"),
        "mcq",
        split="test",
        cache_dir=str(built / "hf-cache-test"),
    ).remove_columns("image")
    askable = {
        r["probe_id"]: r
        for r in mcq
        if r["probe_kind"] == "original" and r["image_status"] == "embedded"
    }
    assert any(
        r["probe_kind"] == "original" and r["image_status"] == "withheld_credentialed" for r in mcq
    )
    l0 = _records(runs["fixed"], "L0")
    assert sorted(r["probe_id"] for r in l0) == sorted(askable)
    assert all(r["extra"]["degradation"] == "clean" and r["extra"]["params"] == {} for r in l0)
    chosen = {}
    for level, severity in (("L1", 1), ("L2", 2)):
        records = _records(runs["fixed"], level)
        kinds = {}
        for r in records:
            extra, probe = r["extra"], askable[r["probe_id"]]
            assert extra["severity"] == severity and extra["image_id"] == probe["image_file"]
            assert extra["degradation"] in T.applicable_kinds(probe["modality"])
            assert extra["seed"] == T.seed_for(probe["image_file"], extra["degradation"])
            expected = dict(T.PARAMS[extra["degradation"]][severity])
            if extra["degradation"] in T.MODALITY_KINDS["CT"]:
                expected["ct_work_size"] = 128
            assert (
                extra["params"] == expected
                and extra["types_per_probe"] == 3
                and extra["n_options"] == 5
            )
            kinds.setdefault(r["probe_id"], []).append(extra["degradation"])
        assert {p: sorted(k) for p, k in kinds.items()} == {
            p: sorted(T.choose_kinds(askable[p]["image_file"], askable[p]["modality"]))
            for p in askable
        }
        chosen[level] = kinds
    assert chosen["L1"] == chosen["L2"]  # the same types at both severities


def _utils():
    spec = importlib.util.spec_from_file_location(
        "medqdeg_task_utils", ROOT / "tasks" / "medqdeg" / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doc_to_visual_renders_the_seeded_degradation(built, monkeypatch):
    monkeypatch.setenv("MEDVIGIL_DATA", str(built / "build" / "medvigil"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(built / "hf-cache-visual"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    utils = _utils()
    docs = utils.load_L2(None)
    doc = next(d for d in docs if d["degradation"] in T.GENERAL_KINDS)
    (image,) = utils.medqdeg_doc_to_visual(doc)
    seed = T.seed_for(doc["image_file"], doc["degradation"])
    expected = D.degrade_image(
        medqdeg_docs.working_image(doc["image"]), doc["degradation"], 2, seed
    ).convert("RGB")
    assert image.size == doc["image"].size and np.array_equal(
        np.asarray(image), np.asarray(expected)
    )
    assert not np.array_equal(np.asarray(image), np.asarray(doc["image"].convert("RGB")))
    clean = next(iter(utils.load_L0(None)))
    assert np.array_equal(
        np.asarray(utils.medqdeg_doc_to_visual(clean)[0]), np.asarray(clean["image"].convert("RGB"))
    )
    prompt = utils.medqdeg_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""})
    assert prompt == medqdeg_docs.answer_prompt(doc["question"], doc["options"])
    messages = utils.medqdeg_doc_to_messages(doc, {})
    assert [m["role"] for m in messages] == ["user"] and messages[0]["content"][-1][
        "text"
    ] == prompt  # no system message


def test_paper_prompt_verbatim():
    """Appendix B's prompt template, rendered for a doc (snapshot), and nothing else."""
    utils = _utils()
    doc = _doc(question="Is there a mass in the left lobe?", options=["Yes", "No", "Cannot tell"])
    assert utils.medqdeg_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""}) == (
        "You are a medical AI assistant. Please answer the following question based on the "
        "provided medical image. Is there a mass in the left lobe?\n\nA. Yes\nB. No\nC. Cannot "
        "tell\n\nConstraint: Output ONLY the single letter (A, B, C, or D, E, etc) corresponding "
        "to the correct answer. No explanation, no punctuation.\n\nAnswer:"
    )


@pytest.mark.parametrize(
    "reply, letter",
    [
        ("B", "B"),
        (" c\n", "C"),
        ("B. Yes", "B"),
        ("(D)", "D"),
        ("The answer is B", None),
        ("no letter", None),
        ("F", None),
        ("", None),
    ],
)
def test_paper_parser(reply, letter):
    """Appendix B: a single-letter reply, else the first capital letter; not an option letter:
    invalid."""
    assert medqdeg_records.parse_answer(reply, 5) == letter


# ---------------------------------------------------------------- units: records, settings,
# sampling


def _doc(**kw):
    doc = {
        "probe_id": "P-original",
        "case_id": "P",
        "probe_kind": "original",
        "question": "Q?",
        "options": list("vwxyz"),
        "correct_letter": "A",
        "image_file": "images/P.jpg",
        "modality": "CT",
        "degradation": "gaussian_blur",
        "severity": 1,
    }
    return {**doc, **kw}


def test_grey_images_stay_grey_under_colour_independent_noise():
    from PIL import Image

    rng = np.random.default_rng(0)
    grey = Image.fromarray(rng.integers(0, 255, (32, 32), dtype=np.uint8), mode="L")
    for image in (grey, grey.convert("RGB")):  # a grey mode, and grey content stored as RGB
        out = np.asarray(
            medqdeg_docs.render(_doc(image=image, degradation="gaussian_noise", severity=2))
        )
        assert (
            out.shape == (32, 32, 3)
            and np.array_equal(out[..., 0], out[..., 1])
            and np.array_equal(out[..., 1], out[..., 2])
        )
        assert not np.array_equal(out[..., 0], np.asarray(grey))  # degraded
    colour = Image.fromarray(rng.integers(0, 255, (32, 32, 3), dtype=np.uint8), mode="RGB")
    assert (
        medqdeg_docs.working_image(colour).mode == "RGB"
        and medqdeg_docs.working_image(grey.convert("RGB")).mode == "L"
    )


def test_record_votes_plurality_and_parse_failures():
    rec = medqdeg_records.record(
        _doc(), medqdeg_records.responses_of([["B", "A", "B.", "I am not sure", "A"]])
    )
    assert (
        rec["extra"]["votes"] == ["B", "A", "B", None, "A"] and rec["predicted_letter"] == "A"
    )  # ties to the lowest
    assert rec["condition"] == "L1" and rec["extra"]["trials"] == 5
    assert rec["extra"]["experiment"] == "calibration" and rec["extra"]["item_id"] == "P-original"
    assert (
        medqdeg_records.record(_doc(experiment="accuracy", capability="Diagnosis"), ["A"])["extra"][
            "capability"
        ]
        == "Diagnosis"
    )
    none = medqdeg_records.record(_doc(), ["unsure", "no idea"])
    assert none["predicted_letter"] is None and none["parse_status"] == "parse_failure"
    (model,) = score_records([{**rec, "model": "m"}, {**none, "model": "m"}])["models"].values()
    assert model["overall"]["accuracy"] == pytest.approx((2 / 5 + 0) / 2)
    with pytest.raises(ValueError, match="no responses"):
        medqdeg_records.responses_of([[]])


def test_settings_are_validated():
    assert (
        medqdeg_docs.types_per_probe({}) == 3
        and medqdeg_docs.types_per_probe({"MEDQDEG_TYPES_PER_PROBE": "all"}) is None
    )
    with pytest.raises(ValueError, match="MEDQDEG_TYPES_PER_PROBE"):
        medqdeg_docs.types_per_probe({"MEDQDEG_TYPES_PER_PROBE": "0"})
    with pytest.raises(ValueError, match="MEDQDEG_CT_WORK_SIZE"):
        medqdeg_docs.ct_work_size({"MEDQDEG_CT_WORK_SIZE": "big"})
    with pytest.raises(ValueError, match="level"):
        medqdeg_docs.plan_docs([], 3)
    with pytest.raises(ValueError, match="metric"):
        medqdeg_records.task_score([], "auc")


def test_sampling_grounded_policy():
    from medvigil.baselines import make_policy
    from medvigil.mcq.prompting import build_mcq_prompt

    prompt = build_mcq_prompt(
        "Is there a nodule?", ["Yes", "No", "Maybe", "Unclear", "Insufficient evidence"]
    )
    fixed = make_policy("grounded")
    assert len({fixed.answer(prompt, []) for _ in range(20)}) == 1  # default unchanged
    assert make_policy("grounded", temperature=0).answer(prompt, []) == fixed.answer(prompt, [])
    first = make_policy("grounded", temperature="1.0", seed=5)
    draws = [first.answer(prompt, []) for _ in range(40)]
    again = make_policy("grounded", temperature=1, seed=5)
    assert draws == [again.answer(prompt, []) for _ in range(40)]  # reproducible
    assert (
        len(set(draws)) > 1 and draws.count(fixed.answer(prompt, [])) > 40 * 0.4
    )  # e^2 / (e^2 + 4) = 0.65
    other = make_policy("grounded", temperature=1, seed=6)
    assert draws != [other.answer(prompt, []) for _ in range(40)]
    cold = make_policy("grounded", temperature=0.05, seed=5)
    assert {cold.answer(prompt, []) for _ in range(20)} == {fixed.answer(prompt, [])}
    with pytest.raises(ValueError, match="temperature"):
        make_policy("grounded", temperature="hot")
    with pytest.raises(ValueError, match="temperature"):
        make_policy("grounded", temperature=-1)
    with pytest.raises(TypeError, match="seed"):
        make_policy("grounded", temperature=1, seed="x")


def test_score_command_scores_all_levels_of_every_run(runs, tmp_path, capsys):
    from medvigil.cli import main

    out = tmp_path / "medqdeg.json"
    assert main(["score", "--suite", "medqdeg", *map(str, runs.values()), "--json", str(out)]) == 0
    table = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert (
        len(result["files"]) == len(LEVELS) * len(runs)
        and result["options"]["accuracy_rule"] == "trial_mean"
    )
    everything = [
        r for out_dir in runs.values() for level in LEVELS for r in _records(out_dir, level)
    ]
    expected = score_records(everything)
    assert set(result["models"]) == set(expected["models"]) and set(
        result["inter_model_dke"]
    ) == set(LEVELS)
    for name, model in expected["models"].items():
        for level in LEVELS:
            got = result["models"][name]["by_severity"][level]
            assert got["calibration_shift"] == pytest.approx(
                model["by_severity"][level]["calibration_shift"]
            )
    assert "Calibration Shift" in table and "by degradation type" in table


def test_report_has_the_medqdeg_section(runs, tmp_path):
    from medvigil.cli import main

    scores, report = tmp_path / "medqdeg.json", tmp_path / "report"
    assert (
        main(["score", "--suite", "medqdeg", *map(str, runs.values()), "--json", str(scores)]) == 0
    )
    assert main(["report", str(scores), "--out", str(report)]) == 0
    md = (report / "report.md").read_text()
    assert "## MedQ-Deg" in md and "Calibration Shift" in md and "Inter-model Dunning" in md
    assert (report / "figures" / "medqdeg_severity.png").stat().st_size > 1000
