"""Resuming long lmms-eval runs (issue 40): real runs on a small synthetic build.

* ``--model journal`` (tasks/journal_model.py): a sampled MedQ-Deg run (T = 10 trials at
  temperature 1) cut short, then run again with the same journal, asks only what the first did not
  answer and keeps the first's trials; a last line cut by the interruption is asked again.
* lmms-eval's own ``--use_cache`` serves a finished deterministic run's answers to the next run.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from medvigil.pipeline import offline_env

SLOW_FIXTURES = {"built"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

pytest.importorskip("lmms_eval")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("resume")
    generate_release(base / "release", cases=6, seed=3)
    build(base / "release", base / "build" / "medvigil")
    return base


def _lmms_eval(base: Path, out: str, *args: str) -> str:
    cmd = [sys.executable, "-m", "lmms_eval", "--include_path", str(ROOT / "tasks")]
    cmd += [*args, "--output_path", str(base / out), "--log_samples"]
    env = offline_env(base / "build" / "medvigil")
    env["HF_DATASETS_CACHE"] = str(base / "hf-cache")
    proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Error during evaluation" not in text, text[-4000:]
    return text


def _samples(base: Path, out: str, task: str) -> list[dict]:
    (path,) = (base / out).rglob(f"*_samples_{task}.jsonl")
    return [json.loads(line) for line in path.open()]


def _journal_run(built: Path, out: str, limit: int, journal: Path) -> str:
    return _lmms_eval(
        built,
        out,
        "--model",
        "journal",
        "--model_args",
        f"inner=grounded,journal={journal},temperature=1,seed=7",
        "--tasks",
        "medqdeg_L0",
        "--limit",
        str(limit),
    )


def test_journal_resumes_a_sampled_run_where_it_stopped(built):
    journal = built / "deg.journal.jsonl"
    first = _journal_run(built, "first", 2, journal)
    assert "0 generate_until answer(s) reused, 20 to ask" in first  # 2 docs x T = 10 trials
    assert len(journal.read_text().splitlines()) == 1 + 20  # the model line, one line an answer
    # the run is cut while writing the next answer: that line is asked again, the rest reused
    with journal.open("a", encoding="utf-8") as out:
        out.write('{"key": "0e3f", "ans')
    second = _journal_run(built, "second", 3, journal)
    assert "last line was cut" in second
    assert "20 generate_until answer(s) reused, 10 to ask" in second
    lines = journal.read_text().splitlines()
    assert len(lines) == 1 + 30 and all(json.loads(line) for line in lines)
    trials = [s["accuracy"]["extra"]["responses"] for s in _samples(built, "second", "medqdeg_L0")]
    kept = [s["accuracy"]["extra"]["responses"] for s in _samples(built, "first", "medqdeg_L0")]
    assert trials[:2] == kept and len(trials) == 3 and all(len(t) == 10 for t in trials)
    third = _journal_run(built, "third", 3, journal)
    assert "30 generate_until answer(s) reused, 0 to ask" in third
    again = [s["accuracy"]["extra"]["responses"] for s in _samples(built, "third", "medqdeg_L0")]
    assert again == trials
    # a journal of another model is refused, naming the file
    with pytest.raises(AssertionError, match="a journal of"):
        _lmms_eval(
            built,
            "other",
            "--model",
            "journal",
            "--model_args",
            f"inner=grounded,journal={journal},temperature=0.5",
            "--tasks",
            "medqdeg_L0",
            "--limit",
            "1",
        )


def _results(base: Path, out: str, task: str) -> dict:
    (path,) = (base / out).rglob("*_results.json")
    return {k.split(",")[0]: v for k, v in json.loads(path.read_text())["results"][task].items()}


def test_cache_clustered_stderr_and_paired_baseline_on_a_limited_run(built):
    """One limited grounded run (12 docs: two cases) serves three checks: lmms-eval's
    ``--use_cache`` serves it again to a second run; its results carry a numeric case-clustered
    standard error for the first metric (mcs); and lmms-eval's paired ``--baseline`` test of
    another model runs against its samples."""
    cache = built / "cache"
    run = ("--model", "grounded", "--tasks", "medvigil_mcq", "--limit", "12")
    _lmms_eval(built, "cached-1", *run, "--use_cache", str(cache))
    second = _lmms_eval(built, "cached-2", *run, "--use_cache", str(cache))
    assert "all 12 requests served from cache" in second
    first = [s["mcs"]["raw_response"] for s in _samples(built, "cached-1", "medvigil_mcq")]
    assert [s["mcs"]["raw_response"] for s in _samples(built, "cached-2", "medvigil_mcq")] == first
    grounded = _results(built, "cached-1", "medvigil_mcq")
    assert isinstance(grounded["mcs_stderr_clustered"], float)
    assert grounded["mcs_stderr_clustered"] >= 0
    (samples,) = (built / "cached-1").rglob("*_samples_medvigil_mcq.jsonl")
    limited = ("--tasks", "medvigil_mcq", "--limit", "12")
    _lmms_eval(built, "constant-12", "--model", "constant", *limited, "--baseline", str(samples))
    constant = _results(built, "constant-12", "medvigil_mcq")
    assert constant["paired_baseline_score"] == pytest.approx(100 * grounded["score"])
    assert isinstance(constant["paired_pvalue"], float)  # NaN when the two runs agree on every doc
