"""The protocol record of every score (issue 38): one entry per run with a fingerprint and the
deviations from the paper's protocol; ``compare`` names mismatches.

Fast tests on logs in lmms-eval 0.7.3's shape; the real runs (``grounded``, one with
``--gen_kwargs temperature=0.5``) are the ``real_runs`` fixture (slow).
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lmms_runs import ROOT, medvigil_run, sample_line
from shared_paths import AUTHORS_TOOL

from medvigil.cli import main
from medvigil.records.schema_validation import problems_for
from medvigil.runs.adapters import SYSTEM_TURN, prompt_deviations
from medvigil.runs.protocol import fingerprint
from medvigil.suites import registry

SLOW_FIXTURES = {"real_runs"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
GENERATION = {"max_new_tokens": 8, "temperature": 0.0, "top_p": 1.0, "num_beams": 1}
RECORD = {
    "suite": "medvigil",
    "model": "lmms-eval-run",
    "condition": "default",
    "probe_kind": "original",
    "risk_tier": "L1",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "text_only_answerable": False,
    "correct_letter": "A",
    "predicted_letter": "A",
    "parse_status": "ok",
    "raw_response": "A",
    "retries": 0,
    "extra": {"condition_source": "lmms-eval", "images_sent": 1, "image_variant": "default"},
}
QWEN3_CHAT = "lmms_eval.models.chat.qwen3_vl.Qwen3_VL"


def _run(folder: Path, *, backend: str, model_args: str, **generation) -> Path:
    """A 6-probe medvigil_mcq run of 3 cases in lmms-eval 0.7.3's shape."""
    folder.mkdir(parents=True)
    kwargs = {**GENERATION, "do_sample": False, "until": ["\n\n"], **generation}
    results = {
        "config": {"model": "tiny_vl", "model_args": model_args, "model_backend": backend},
        "configs": {"medvigil_mcq": {"generation_kwargs": kwargs}},
        "n-samples": {"medvigil_mcq": {"original": 6, "effective": 6}},
        "system_instruction": None,
    }
    (folder / "20260101_000000_results.json").write_text(json.dumps(results))
    lines = []
    for i in range(6):
        case = f"MVB-000{i // 2}"
        record = dict(RECORD, case_id=case, probe_id=f"{case}-{i}")
        record["predicted_letter"] = "A" if i % 3 else "B"
        lines.append(sample_line(record, doc_id=i))
    path = folder / "20260101_000000_samples_medvigil_mcq.jsonl"
    path.write_text("".join(lines))
    return path


def _score(*files: Path) -> dict:
    return registry.score("medvigil", [str(f) for f in files], n_resamples=0)


def test_fingerprint_and_deviation_follow_the_settings(tmp_path):
    args = "pretrained=Org/Tiny-VL-2B"
    greedy = _run(tmp_path / "a", backend=f"{QWEN3_CHAT} (chat)", model_args=args)
    warm = _run(tmp_path / "b", backend=f"{QWEN3_CHAT} (chat)", model_args=args, temperature=0.5)
    scored = _score(greedy)
    assert not problems_for("score_summary", scored, "score.json")  # protocol entries included
    (first,) = scored["protocol"]
    (second,) = _score(warm)["protocol"]
    assert HEX64.match(first["fingerprint"]) and HEX64.match(second["fingerprint"])
    assert first["fingerprint"] != second["fingerprint"]
    assert first["prompt_sha256"] == second["prompt_sha256"]
    assert first["adapter"] == {"name": "tiny_vl", "class": QWEN3_CHAT, "kind": "chat"}
    assert first["model"] == "Tiny-VL-2B" and first["task"] == "medvigil_mcq"
    assert "temperature 0.5 (protocol 0)" in second["deviations"]
    assert not any("temperature" in d for d in first["deviations"])
    # Qwen3-VL's chat class adds its own system turn beside medvigil_mcq's
    assert any("two system turns" in d for d in first["deviations"])
    assert fingerprint({**first, "model": "another"}) == first["fingerprint"]


def test_adapter_table():
    simple = "lmms_eval.models.simple.gemma3.Gemma3"
    assert "user turn" in prompt_deviations(simple, "simple", True)[0]
    assert any("--model_args" in d for d in prompt_deviations(simple, "simple", True))
    assert prompt_deviations("lmms_eval.models.chat.openai.OpenAICompatible", "chat", True) == []
    assert prompt_deviations(simple, "simple", False) == []  # the task has no system turn
    baseline = "medvigil.tasks.baseline_models.GroundedBaseline"
    assert prompt_deviations(baseline, "simple", True) == []
    assert "user turn" in prompt_deviations("some.Other", "simple", True)[0]
    assert prompt_deviations("some.OtherChat", "chat", True) == []  # not known: nothing claimed


@pytest.mark.skipif(importlib.util.find_spec("lmms_eval") is None, reason="lmms-eval not installed")
def test_adapter_table_matches_the_installed_lmms_eval():
    """Each class of the table exists in the installed lmms-eval, and the system-turn facts hold."""
    root = Path(importlib.util.find_spec("lmms_eval").submodule_search_locations[0]).parent
    ours = {dotted: note for dotted, note in SYSTEM_TURN.items() if dotted.startswith("medvigil.")}
    for dotted, note in ours.items():  # our stock-name classes send prompts as their bases do
        module, cls = dotted.rsplit(".", 1)
        (base,) = [
            f"{b.__module__}.{b.__qualname__}"
            for b in getattr(importlib.import_module(module), cls).__mro__[1:]
            if b.__module__.startswith("lmms_eval.models.")
        ][:1]
        assert SYSTEM_TURN[base] == note, dotted
    for dotted, note in SYSTEM_TURN.items():
        if dotted in ours:
            continue
        module, cls = dotted.rsplit(".", 1)
        source = (root / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        assert re.search(rf"^class {cls}\b", source, re.M), dotted
        if note and "own system turn" in note and ".simple." in dotted:
            assert 'system_prompt: Optional[str] = "You are a helpful assistant."' in source
            assert '{"role": "system", "content": ' in source
    qwen3 = (root / "lmms_eval/models/chat/qwen3_vl.py").read_text(encoding="utf-8")
    assert 'messages.insert(0, {"role": "system"' in qwen3


@pytest.mark.skipif(not AUTHORS_TOOL.exists(), reason="authors_format_release.py not available")
def test_authors_files_get_entries_with_the_unknowns(tmp_path):
    cmd = [sys.executable, str(AUTHORS_TOOL), str(tmp_path), "--models", "2", "--cases", "40"]
    subprocess.run(cmd, check=True, capture_output=True)
    files = sorted((tmp_path / "results" / "baselines").glob("*__mcq.jsonl"))
    release = str(tmp_path / "data" / "medvigil_v1")
    result = registry.score("medvigil", [str(f) for f in files], release=release, n_resamples=0)
    assert [e["model"] for e in result["protocol"]] == sorted(result["models"])
    for entry in result["protocol"]:
        assert entry["source"] == "result file" and entry["task"] == "<model>__mcq.jsonl"
        assert entry["deviations"] == [] and entry["generation"] == "unknown"
        assert set(entry["unknown"]) == {"adapter", "generation settings", "prompt"}
        assert HEX64.match(entry["fingerprint"])
    assert len({e["fingerprint"] for e in result["protocol"]}) == 1
    compared = registry.compare(
        "medvigil", [str(f) for f in files], release=release, n_resamples=20
    )
    assert not [w for w in compared["warnings"] if "different protocols" in w]


def test_compare_names_the_protocol_difference(tmp_path, capsys):
    greedy = _run(tmp_path / "a", backend=f"{QWEN3_CHAT} (chat)", model_args="pretrained=Org/M1")
    warm = _run(
        tmp_path / "b", backend=f"{QWEN3_CHAT} (chat)", model_args="pretrained=Org/M2", top_p=0.9
    )
    args = ["compare", "--suite", "medvigil", "--resamples", "20", "--json", "-"]
    assert main([*args, str(greedy), str(warm)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    (warning,) = [w for w in out["warnings"] if "different protocols" in w]
    assert "M1 and M2" in warning and "generation" in warning and "top_p" in warning
    assert "different protocols" in captured.err
    assert len({e["fingerprint"] for e in out["protocol"]}) == 2


# --------------------------------------------------------------------------- real lmms-eval runs
@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    """Two ``lmms-eval --model grounded --tasks medvigil_mcq --limit 6`` runs, the second with
    ``--gen_kwargs temperature=0.5``, through ``LMMS_EVAL_PLUGINS=medvigil``."""
    from medvigil.pipeline import offline_env
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    pytest.importorskip("lmms_eval")
    base = tmp_path_factory.mktemp("protocol_runs")
    generate_release(base / "release", cases=6, seed=5)
    build(base / "release", base / "build")
    env = {
        **offline_env(base / "build", base / "build"),
        "HF_DATASETS_CACHE": str(base / "hf-cache"),
        "LMMS_EVAL_PLUGINS": "medvigil",
    }
    runs = {}
    for name, extra in (("greedy", []), ("warm", ["--gen_kwargs", "temperature=0.5"])):
        cmd = [sys.executable, "-m", "lmms_eval", "--model", "grounded", "--tasks", "medvigil_mcq"]
        cmd += ["--output_path", str(base / name), "--log_samples", "--limit", "6", *extra]
        proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[name] = base / name
    return runs


def test_real_runs_fingerprints_differ_and_only_the_warm_one_deviates(real_runs, capsys):
    entries = {}
    for name, folder in real_runs.items():
        (samples,) = folder.rglob("*_samples_medvigil_mcq.jsonl")
        args = ["score", "--suite", "medvigil", "--n-resamples", "0", "--json", "-", str(samples)]
        assert main(args) == 0
        (entries[name],) = json.loads(capsys.readouterr().out)["protocol"]
    greedy, warm = entries["greedy"], entries["warm"]
    assert HEX64.match(greedy["fingerprint"]) and HEX64.match(warm["fingerprint"])
    assert greedy["fingerprint"] != warm["fingerprint"]
    assert greedy["deviations"] == []
    assert [d for d in warm["deviations"] if "temperature" in d] == ["temperature 0.5 (protocol 0)"]
    assert greedy["adapter"]["class"] == "medvigil.tasks.baseline_models.GroundedBaseline"
    assert greedy["prompt_sha256"] == warm["prompt_sha256"] and ROOT.is_dir()


def test_medvigil_scores_an_lmms_eval_run_folder(tmp_path, capsys):
    """``score --suite medvigil RUN_FOLDER`` (issue 40) scores the run as its samples files."""
    path = _run(tmp_path / "runs" / "m", backend="x.Y (chat)", model_args="pretrained=Org/M1")
    base = ["score", "--suite", "medvigil", "--n-resamples", "0", "--json", "-"]
    assert main([*base, str(tmp_path / "runs")]) == 0
    folder = json.loads(capsys.readouterr().out)
    assert main([*base, str(path)]) == 0
    single = json.loads(capsys.readouterr().out)
    assert folder["models"] == single["models"] and list(folder["models"]) == ["M1"]
    assert [e["task"] for e in folder["protocol"]] == ["medvigil_mcq"]
    assert folder["inputs"]["files"] == [str(tmp_path / "runs")]


def test_report_opens_with_the_summary(tmp_path, capsys):
    """The report's first section: per model each suite's headline with its CI and the
    deviations."""
    from medvigil.report.document import load_results, write_report

    qwen3 = {"model_backend": f"{QWEN3_CHAT} (chat)"}
    greedy = medvigil_run(tmp_path / "a", "M1", config=qwen3)
    warm = medvigil_run(
        tmp_path / "b",
        "M2",
        config={"model_backend": "x.Y (chat)"},
        configs={"medvigil_mcq": {"generation_kwargs": {**GENERATION, "temperature": 0.5}}},
    )
    scores = tmp_path / "scores.json"
    args = ["score", "--suite", "medvigil", "--n-resamples", "50", "--json", str(scores)]
    assert main([*args, str(greedy), str(warm)]) == 0
    capsys.readouterr()
    paths = write_report(load_results([scores]), tmp_path / "report", inputs=[scores])
    text = paths["markdown"].read_text()
    assert text.index("## Summary") < text.index("## MedVIGIL")
    summary = text[text.index("## Summary") : text.index("## MedVIGIL")]
    (m1,) = [line for line in summary.splitlines() if line.startswith("| M1 ")]
    (m2,) = [line for line in summary.splitlines() if line.startswith("| M2 ")]
    assert "| MedVIGIL | MCS |" in m1 and "\\[" in m1  # the bootstrap CI
    assert "two system turns" in m1 and "temperature" not in m1
    assert "medvigil\\_mcq: temperature 0.5 (protocol 0)" in m2
    stored = json.loads(paths["scores"].read_text())
    assert {e["model"] for e in stored["protocol"]} == {"M1", "M2"}


def test_mediconfusion_runs_name_what_their_adapter_cannot_send():
    """The authors'-prompt MediConfusion tasks list the adapter's departures from the authors'
    client (the simple API adapters send no system message); our own prompt variants do not."""
    from medvigil.suites.mediconfusion import entry

    def details(model: str, task: str) -> list[str]:
        found = entry.protocol_details({"task": task, "adapter": {"name": model}}, {})
        return found.get("deviations", [])

    assert any("first line of the user turn" in d for d in details("gpt4v", "mediconfusion_mc"))
    # the authors' GPT route: system prompt and template as theirs; only the token budget differs
    assert details("openai", "mediconfusion_mc") == [
        "max_new_tokens 32 (the authors' GPT call sets no "
        "limit; lmms-eval's adapter always sends one)"
    ]
    assert any("no API model in this mode" in d for d in details("openai", "mediconfusion_ps"))
    assert details("gpt4v", "mediconfusion_mc_medvigil") == []
