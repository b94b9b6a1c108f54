"""The reasoning variants (``<task>_reasoning``, 4096 new tokens; tasks/task_yaml.py) run in
lmms-eval and score exactly like their base tasks: one ``--limit 8`` run of two variants with the
``grounded`` baseline, then ``medvigil score``. The partial statement gives the total of cases from
the build."""

import json
import re
from pathlib import Path

import pytest
from lmms_runs import run_grounded

from medvigil.cli import main
from medvigil.pipeline import offline_env

pytest.importorskip("lmms_eval")
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
TASKS = ("medvigil_mcq_reasoning", "medvigil_mcq_circular_reasoning")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("reasoning")
    generate_release(base / "release", cases=20, seed=3)
    build(base / "release", base / "build")
    run_grounded(base, offline_env(base / "build"), TASKS)
    return base


def test_reasoning_variants_score_like_the_base_tasks(run, capsys):
    (results,) = (run / "runs").rglob("*_results.json")
    data = json.loads(results.read_text())
    samples = [str(p) for task in TASKS for p in (run / "runs").rglob(f"*_samples_{task}.jsonl")]
    assert len(samples) == 2
    for task in TASKS:  # lmms-eval ran them with the variant's budget
        assert data["configs"][task]["generation_kwargs"]["max_new_tokens"] == 4096
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--json",
                "-",
                "--n-resamples",
                "0",
                "--release",
                str(run / "build"),
                *samples,
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    generation = out["generation"]
    assert (
        generation["warnings"] == []
    )  # the variant's budget is its protocol: no deviation warning
    for task in TASKS:
        entry = generation["tasks"][task]
        assert (
            entry["used"]["max_new_tokens"] == entry["protocol"]["max_new_tokens"] == 4096
            and entry["differs"] == {}
        )
        assert entry["reasoning_variant_of"]["task"] == task.removesuffix("_reasoning")
        assert entry["reasoning_variant_of"]["protocol"]["max_new_tokens"] == 8
    import datasets

    cases = len(set(datasets.load_dataset(str(run / "build"), "mcq", split="test")["case_id"]))
    statement = out["partial"]["statement"]
    for task in TASKS:
        entry = out["partial"]["tasks"][task]
        assert (
            entry["probes"] == 8
            and entry["cases_of"] == cases
            and entry["cases_of_source"] == f"--release {run / 'build'}"
        )
        assert (
            f"{task} 8 of {data['n-samples'][task]['original']} "
            f"probes, {entry['cases']} of {cases} cases" in statement
        )
    # the circular variant is collapsed per probe like medvigil_mcq_circular (the limit cut a
    # rotation group)
    assert out["models"], out.keys()


def test_total_cases_unknown_without_the_build(run, capsys, monkeypatch):
    """A release folder (not loadable by the tasks) and no MEDVIGIL_DATA build: the cases asked
    alone."""
    monkeypatch.setenv("MEDVIGIL_DATA", str(run / "no-such-build"))
    samples = [str(p) for p in (run / "runs").rglob("*_samples_medvigil_mcq_reasoning.jsonl")]
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--json",
                "-",
                "--n-resamples",
                "0",
                "--release",
                str(run / "release"),
                *samples,
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    statement = out["partial"]["statement"]
    assert (
        re.search(r"medvigil_mcq_reasoning 8 of \d+ probes \(\d+ cases?\);", statement)
        and "?" not in statement
    )
    assert "no-such-build" in out["partial"]["tasks"]["medvigil_mcq_reasoning"]["cases_of_unknown"]
