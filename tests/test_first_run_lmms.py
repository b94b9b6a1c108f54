"""What a new user runs first: ``lmms-eval --tasks ... --limit 8`` on a task of every suite, then
``medvigil score`` on it (issue #27). The units the limit cuts (a circular group, a CbD case's
arms) are left out, lmms-eval completes, and every suite scores the run with exit 0 and says it
is partial. The reasoning variants (``<task>_reasoning``, 4096 new tokens; tasks/task_yaml.py) run
and score exactly like their base tasks; the partial statement gives the total of cases from the
build. One lmms-eval process for all nine tasks, with the ``grounded`` baseline.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lmms_runs import run_grounded

from medvigil.cli import main
from medvigil.pipeline import offline_env

pytest.importorskip("lmms_eval")
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
TASKS = (
    "medvigil_mcq",
    "medvigil_mcq_circular",
    "cbd_binary",
    "cbd_quadrants",
    "mediconfusion_mc",
    "medqdeg_L1",
    "readiness_img",
)
REASONING = ("medvigil_mcq_reasoning", "medvigil_mcq_circular_reasoning")


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    from medvigil.suites.mediconfusion import export as mediconfusion_export
    from medvigil.suites.mediconfusion.synthetic import write_sample
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("first_run")
    generate_release(base / "release", cases=20, seed=3)
    build(base / "release", base / "build")
    write_sample(base / "mc", n_pairs=8, seed=3)
    mediconfusion_export.build(
        base / "mc" / "data" / "dataset.json", base / "mc" / "roco", base / "mc-build"
    )
    run_grounded(base, offline_env(base / "build", base / "mc-build"), TASKS + REASONING)
    return base


def _samples(base: Path, task: str) -> str:
    (path,) = (base / "runs").rglob(f"*_samples_{task}.jsonl")
    return str(path)


@pytest.mark.parametrize(
    "suite, tasks, release",
    [
        ("medvigil", ("medvigil_mcq", "medvigil_mcq_circular"), "release"),
        ("cbd", ("cbd_binary", "cbd_quadrants"), None),
        ("mediconfusion", ("mediconfusion_mc",), "mc/data/dataset.json"),
        ("medqdeg", ("medqdeg_L1",), None),
        ("readiness", ("readiness_img",), None),
    ],
)
def test_limited_run_scores_and_says_partial(limited, suite, tasks, release, capsys):
    (results,) = (limited / "runs").rglob("*_results.json")
    n_samples = json.loads(results.read_text())["n-samples"]
    args = ["score", "--suite", suite, "--json", "-", *(_samples(limited, t) for t in tasks)]
    args += ["--release", str(limited / release)] if release else []
    args += ["--n-resamples", "0"] if suite == "medvigil" else []
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["partial"]["statement"].startswith("partial run (lmms-eval --limit 8): ")
    for task in tasks:
        entry = out["partial"]["tasks"][task]
        assert (
            entry["probes"] == 8
            and entry["of"] == n_samples[task]["original"] > 8
            and entry["cases"] >= 1
        )
    if suite == "cbd":  # the case the limit cut in half is left out and counted
        assert any(block.get("n_incomplete_cases", 0) >= 1 for block in out["models"].values())


def test_wrong_data_location_is_lmms_evals_last_lines(limited):
    """MEDVIGIL_DATA at a release folder (not a build): lmms-eval stops, exit 1, with what to do as
    its last lines (not a bare BuilderConfig error, not wrapped in tenacity's RetryError)."""
    env = offline_env(limited / "release")
    env["HF_DATASETS_CACHE"] = str(limited / "hf-cache")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--tasks",
        "medvigil_mcq,cbd_quadrants",
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(limited / "bad"),
        "--limit",
        "2",
    ]
    proc = subprocess.run(cmd, env=env, cwd=limited, capture_output=True, text=True, timeout=900)
    last = proc.stderr.strip().splitlines()[-3:]
    assert proc.returncode != 0, proc.stderr[-2000:]
    assert last[0].startswith("error: MEDVIGIL_DATA=") and "is a release folder" in last[0], last
    assert last[1].strip() == f"medvigil build {limited / 'release'} --out BUILD"
    assert "RetryError" not in proc.stderr


def test_predict_only_run_scores_like_the_run(limited, monkeypatch, capsys):
    """``--predict_only`` logs no per-probe record; ``medvigil score`` rebuilds it with the tasks'
    own hooks (medvigil/task_pack.py) and scores the run exactly as the same run without it."""
    env = offline_env(limited / "build", limited / "mc-build")
    env["HF_DATASETS_CACHE"] = str(limited / "hf-cache")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--tasks",
        "medvigil_mcq,cbd_quadrants",
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(limited / "predicted"),
        "--log_samples",
        "--predict_only",
        "--limit",
        "8",
        "--gen_kwargs",
        "max_new_tokens=4096",
    ]
    proc = subprocess.run(cmd, env=env, cwd=limited, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stdout + proc.stderr, (
        proc.stderr[-4000:]
    )
    for name in ("MEDVIGIL_DATA", "MEDICONFUSION_DATA", "HF_DATASETS_CACHE"):
        monkeypatch.setenv(name, env[name])
    for suite, task, extra in (
        ("medvigil", "medvigil_mcq", ["--n-resamples", "0"]),
        ("cbd", "cbd_quadrants", []),
    ):
        (predicted,) = (limited / "predicted").rglob(f"*_samples_{task}.jsonl")
        scored = []
        for path in (str(predicted), _samples(limited, task)):
            assert main(["score", "--suite", suite, "--json", "-", path, *extra]) == 0
            scored.append(json.loads(capsys.readouterr().out))
        assert scored[0]["predict_only"] == [str(predicted)]
        assert scored[0]["models"] == scored[1]["models"]
        assert scored[0]["partial"]["tasks"][task]["probes"] == 8
        # the --gen_kwargs override is recorded, with a warning (a reasoning model given room to
        # think)
        assert scored[0]["generation"]["tasks"][task]["differs"] == {
            "max_new_tokens": {"used": 4096, "protocol": 8}
        }
        assert (
            scored[1]["generation"]["tasks"][task]["differs"] == {}
            and not scored[1]["generation"]["warnings"]
        )
        (warning,) = scored[0]["generation"]["warnings"]
        assert warning.startswith(
            f"{task}: generation settings differ from the "
            f"protocol's: max_new_tokens 4096 (protocol 8)"
        )


def test_results_file_has_no_empty_entries(limited):
    """Every task hands lmms-eval only the metrics it aggregates: no empty ``tr_coh`` /
    ``over_refusal`` (or other) entries in results.json."""
    (results,) = (limited / "runs").rglob("*_results.json")
    table = json.loads(results.read_text())["results"]
    assert set(TASKS) <= set(table)
    assert not [
        (task, key)
        for task, entries in table.items()
        for key, value in entries.items()
        if value == []
    ]


# ---------------------------------------------------------------- the reasoning variants


def _scored(release: Path, samples: list[str], capsys) -> dict:
    """``medvigil score --suite medvigil --json -`` of ``samples`` (no bootstrap), parsed."""
    args = ["score", "--suite", "medvigil", "--json", "-", "--n-resamples", "0"]
    assert main([*args, "--release", str(release), *samples]) == 0
    return json.loads(capsys.readouterr().out)


def test_reasoning_variants_score_like_the_base_tasks(limited, capsys):
    (results,) = (limited / "runs").rglob("*_results.json")
    data = json.loads(results.read_text())
    samples = [
        str(p) for task in REASONING for p in (limited / "runs").rglob(f"*_samples_{task}.jsonl")
    ]
    assert len(samples) == 2
    for task in REASONING:  # lmms-eval ran them with the variant's budget
        assert data["configs"][task]["generation_kwargs"]["max_new_tokens"] == 4096
    out = _scored(limited / "build", samples, capsys)
    generation = out["generation"]
    assert (
        generation["warnings"] == []
    )  # the variant's budget is its protocol: no deviation warning
    for task in REASONING:
        entry = generation["tasks"][task]
        assert (
            entry["used"]["max_new_tokens"] == entry["protocol"]["max_new_tokens"] == 4096
            and entry["differs"] == {}
        )
        assert entry["reasoning_variant_of"]["task"] == task.removesuffix("_reasoning")
        assert entry["reasoning_variant_of"]["protocol"]["max_new_tokens"] == 8
    import datasets

    cases = len(set(datasets.load_dataset(str(limited / "build"), "mcq", split="test")["case_id"]))
    statement = out["partial"]["statement"]
    for task in REASONING:
        entry = out["partial"]["tasks"][task]
        assert (
            entry["probes"] == 8
            and entry["cases_of"] == cases
            and entry["cases_of_source"] == f"--release {limited / 'build'}"
        )
        assert (
            f"{task} 8 of {data['n-samples'][task]['original']} "
            f"probes, {entry['cases']} of {cases} cases" in statement
        )
    # the circular variant is collapsed per probe like medvigil_mcq_circular (the limit cut a
    # rotation group)
    assert out["models"], out.keys()


def test_total_cases_unknown_without_the_build(limited, capsys, monkeypatch):
    """A release folder (not loadable by the tasks) and no MEDVIGIL_DATA build: the cases asked
    alone."""
    monkeypatch.setenv("MEDVIGIL_DATA", str(limited / "no-such-build"))
    samples = [str(p) for p in (limited / "runs").rglob("*_samples_medvigil_mcq_reasoning.jsonl")]
    out = _scored(limited / "release", samples, capsys)
    statement = out["partial"]["statement"]
    assert (
        re.search(r"medvigil_mcq_reasoning 8 of \d+ probes \(\d+ cases?\);", statement)
        and "?" not in statement
    )
    assert "no-such-build" in out["partial"]["tasks"]["medvigil_mcq_reasoning"]["cases_of_unknown"]
