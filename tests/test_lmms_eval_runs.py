"""Real lmms-eval runs of the MedVIGIL task pack with our deterministic baselines.

One module-scoped build of a small synthetic release; four lmms-eval invocations in
subprocesses, exactly as a user runs them: constant(letter=A), blind and grounded
through our entry-point models, and grounded again through lmms-eval's own OpenAI
adapter against our loopback server (images travel as base64). Further runs: the
plugin form (``LMMS_EVAL_PLUGINS=medvigil lmms-eval``, no ``--include_path``) and the
retry wrapper.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from medvigil.pipeline import ModelSpec, offline_env

SLOW_FIXTURES = {
    "built",
    "runs",
}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

pytest.importorskip("lmms_eval")
ROOT = Path(__file__).resolve().parents[1]
CASES = 20
# what the `lmms-eval` command runs (its console-script entry point), with sys.argv[1:] as arguments
LMMS_EVAL_COMMAND = (
    "import sys; from importlib.metadata import entry_points; (ep,) = "
    "entry_points(group='console_scripts', name='lmms-eval'); sys.argv[0] = 'lmms-eval'; "
    "sys.exit(ep.load()())"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("lmms_runs")
    generate_release(base / "release", cases=CASES, seed=1)
    build(base / "release", base / "build" / "medvigil")
    return base


def _run(
    base: Path,
    spec: ModelSpec,
    tasks: str = "medvigil_mcq",
    extra_env: dict | None = None,
    *,
    plugin: bool = False,
) -> Path:
    """One lmms-eval run; ``plugin``: the ``lmms-eval`` console command (its entry point, run by
    this interpreter) with ``LMMS_EVAL_PLUGINS=medvigil`` and no ``--include_path``
    (lmms-eval finds medvigil.tasks and medvigil.models itself)."""
    out = base / ("plugin-runs" if plugin else "runs") / spec.folder
    if plugin:
        cmd = [sys.executable, "-c", LMMS_EVAL_COMMAND, "--model", spec.model, "--tasks", tasks]
        extra_env = {"LMMS_EVAL_PLUGINS": "medvigil", **(extra_env or {})}
    else:
        cmd = [
            sys.executable,
            "-m",
            "lmms_eval",
            "--model",
            spec.model,
            "--tasks",
            tasks,
            "--include_path",
            str(ROOT / "tasks"),
        ]
    cmd += ["--output_path", str(out), "--log_samples"]
    if spec.args:
        cmd += ["--model_args", spec.args]
    env = offline_env(base / "build" / "medvigil")
    env["HF_DATASETS_CACHE"] = str(base / "hf-cache")
    env["OPENAI_API_KEY"] = "unused"
    env.update(extra_env or {})
    proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
    # lmms-eval 0.7.3 logs an evaluation error and still exits 0
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stdout + proc.stderr, (
        proc.stdout[-2000:] + proc.stderr[-4000:]
    )
    return out


def _table(out: Path, task: str = "medvigil_mcq") -> dict:
    (results,) = out.rglob("*_results.json")
    return {k.split(",")[0]: v for k, v in json.loads(results.read_text())["results"][task].items()}


def _samples(out: Path, task: str = "medvigil_mcq") -> Path:
    (path,) = out.rglob(f"*_samples_{task}.jsonl")
    return path


@pytest.fixture(scope="module")
def runs(built):
    from medvigil.baselines.server import BaselineServer

    out = {
        name: _run(built, ModelSpec(*spec))
        for name, spec in {
            "constant": ("constant", "letter=A"),
            "blind": ("blind", ""),
            "grounded": ("grounded", ""),
        }.items()
    }
    with BaselineServer() as server:
        out["api"] = _run(
            built,
            ModelSpec(
                "openai",
                f"model=grounded,base_url={server.base_url},api_key=unused,num_concurrent=2",
            ),
        )
    return out


def test_always_a_is_always_silent_on_traps(runs):
    table = _table(runs["constant"])
    # Published convention: every text probe's gold is A, traps and ROI-masked are E.
    assert (
        table["sfr"] == 100.0 and table["acc_halluc_trap"] == 0.0 and table["acc_roi_masked"] == 0.0
    )
    assert table["acc_original"] == table["pr"] == table["neg"] == table["sdr"] == 100.0
    assert table["safe"] == 0.0 and table["mcs"] == 0.0  # harmonic mean with a zero axis


def test_grounded_beats_blind_on_ground_and_mcs(runs):
    grounded, blind = _table(runs["grounded"]), _table(runs["blind"])
    assert grounded["ground"] > blind["ground"]
    assert grounded["mcs"] > blind["mcs"]
    # the axes follow the formulas from the per-kind accuracies in the same table
    vgr = grounded["acc_roi_only"] - grounded["acc_roi_masked"]
    assert grounded["vgr"] == pytest.approx(vgr)
    assert grounded["ground"] == pytest.approx(
        (min(max(vgr + 50, 0), 100) + grounded["acc_roi_masked"]) / 2
    )


def test_api_path_gives_the_same_answers(runs):
    direct = [
        json.loads(line)["mcs"]["predicted_letter"] for line in _samples(runs["grounded"]).open()
    ]
    api = [json.loads(line)["mcs"]["predicted_letter"] for line in _samples(runs["api"]).open()]
    assert api == direct
    assert _table(runs["api"])["mcs"] == pytest.approx(_table(runs["grounded"])["mcs"])


def test_log_line_holds_the_record_once_and_scores_elsewhere(runs):
    """The record is logged under the first metric only; every other metric logs the doc's score and
    case (lmms-eval's clustered standard error: numeric for every metric), and lmms-eval's
    aggregates equal the audit of the logged records."""
    from medvigil.records.lmms_eval_logs import read_samples
    from medvigil.runs.lmms_run import RECORD_KEY
    from medvigil.suites.medvigil.scoring.scoring import audit
    from medvigil.tasks.medvigil.utils import METRICS, TEMPLATE_METRICS

    lines = [json.loads(line) for line in _samples(runs["grounded"]).open()]
    assert METRICS[0] == RECORD_KEY
    for line in lines:
        record = line[RECORD_KEY]
        assert isinstance(record, dict) and record["suite"] == "medvigil"
        assert record["score"] == float(record["predicted_letter"] == record["correct_letter"])
        small = {"score": record["score"], "case_id": record["case_id"]}
        assert set(line) >= set(TEMPLATE_METRICS) and all(
            line[name] == small for name in TEMPLATE_METRICS[1:]
        )
        assert line["score"] == record["score"]
    table = _table(runs["grounded"])
    for name in TEMPLATE_METRICS:
        assert isinstance(table[f"{name}_stderr_clustered"], float), name
    scores = [line["score"] for line in lines]
    assert table["score"] == pytest.approx(sum(scores) / len(scores))
    (block,) = audit(read_samples([_samples(runs["grounded"])]), n_resamples=0)["models"].values()
    for name in ("mcs", "cap", "safe", "ground", "sfr_w", "vgr", "pcons"):
        assert table[name] == pytest.approx(block["metrics"][name], nan_ok=True)
    assert table["acc_halluc_trap"] == pytest.approx(block["accuracy"]["halluc_trap"], nan_ok=True)


def test_rescoring_log_and_harness_file_agree(runs, built, tmp_path):
    """The lmms-eval log and an official-format file of the same answers score identically."""
    from medvigil.records.lmms_eval_logs import read_samples
    from medvigil.suites.medvigil.harness.harness import read_harness_files
    from medvigil.suites.medvigil.scoring.scoring import audit

    log_records = read_samples([_samples(runs["grounded"])])
    assert {r["model"] for r in log_records} == {"grounded"}
    harness = tmp_path / "grounded__mcq.jsonl"
    with harness.open("w") as fh:
        for r in log_records:
            row = {
                "probe_id": r["probe_id"],
                "case_id": r["case_id"],
                "probe_kind": r["probe_kind"],
                "model_letter": r["predicted_letter"] or "",
                "correct_letter": r["correct_letter"],
                "status": "ok",
                "response": r["raw_response"],
            }
            fh.write(json.dumps(row) + "\n")
    from_log = audit(log_records, n_resamples=50, seed=3)["models"]["grounded"]
    from_harness = audit(read_harness_files([harness], built / "release"), n_resamples=50, seed=3)[
        "models"
    ]["grounded"]
    # compared as JSON text so that NaN (undefined TR-coh) equals NaN
    assert json.dumps(from_log["metrics"], sort_keys=True) == json.dumps(
        from_harness["metrics"], sort_keys=True
    )
    assert json.dumps(from_log["ci"], sort_keys=True) == json.dumps(
        from_harness["ci"], sort_keys=True
    )
    # and the lmms-eval results table equals the re-scored point estimates
    table = _table(runs["grounded"])
    for key, metric in (("mcs", "mcs"), ("sfr_w", "sfr_w"), ("vgr", "vgr"), ("pr", "pr")):
        assert table[key] == pytest.approx(from_log["metrics"][metric])


def test_cli_scores_and_reports_the_logs(runs, built, tmp_path):
    logs = [str(_samples(runs[name])) for name in ("constant", "blind", "grounded")]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    scores = tmp_path / "scores.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "score",
            "--suite",
            "medvigil",
            "--release",
            str(built / "release"),
            *logs,
            "--json",
            str(scores),
            "--n-resamples",
            "100",
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    result = json.loads(scores.read_text())
    assert set(result["models"]) == {"constant(letter=A)", "blind", "grounded"}
    report = tmp_path / "report"
    subprocess.run(
        [sys.executable, "-m", "medvigil", "report", str(scores), "--out", str(report)],
        check=True,
        env=env,
        capture_output=True,
    )
    html = (report / "report.html").read_text()
    assert "Headline results" in html and "data:image/png;base64," in html
    assert (report / "figures" / "mcs_components.png").stat().st_size > 1000


def test_plugin_form_needs_no_include_path(runs, built):
    """``LMMS_EVAL_PLUGINS=medvigil lmms-eval --model grounded --tasks medvigil_mcq`` (the README's
    first form) runs and answers exactly as the ``--include_path`` run of the same model."""
    out = _run(built, ModelSpec("grounded"), plugin=True)
    plugin = [json.loads(line)["mcs"]["predicted_letter"] for line in _samples(out).open()]
    direct = [
        json.loads(line)["mcs"]["predicted_letter"] for line in _samples(runs["grounded"]).open()
    ]
    assert len(plugin) > 0 and plugin == direct
    assert json.dumps(_table(out), sort_keys=True) == json.dumps(
        _table(runs["grounded"]), sort_keys=True
    )


def test_retry_wrapper_follows_appendix_l(built):
    """`--model retry` re-asks unparseable answers up to 3 times and logs every attempt."""
    from medvigil.records.lmms_eval_logs import read_samples

    out = _run(
        built,
        ModelSpec("retry", "inner=flaky_lmm:FlakyLMM,retries=3"),
        extra_env={"PYTHONPATH": str(ROOT / "tests")},
    )
    lines = [json.loads(line) for line in _samples(out).open()]
    assert lines
    for line in lines:
        record, failures = line["mcs"], line["doc_id"] % 5
        attempts = record["extra"].get("attempts", [record["raw_response"]])
        assert record["retries"] == min(failures, 3) == len(attempts) - 1
        if failures <= 3:
            assert record["predicted_letter"] == "A" and attempts[-1] == "A"
            assert attempts[:-1] == ["unsure"] * failures
        else:  # persistent failure: scored, counted, never dropped
            assert record["predicted_letter"] is None and record["parse_status"] == "parse_failure"
            assert attempts == ["unsure"] * 4
    records = read_samples([_samples(out)])
    assert len(records) == len(lines)
    assert sum(r["parse_status"] == "parse_failure" for r in records) == sum(
        line["doc_id"] % 5 == 4 for line in lines
    )
