"""lmms-eval's own model classes over our tasks, end to end (issue #26's "Done when").

A tiny randomly initialised Qwen2.5-VL checkpoint is built offline per test module
(tests/tiny_checkpoints.py); lmms-eval runs it, our baselines and its OpenAI-compatible client
as subprocesses exactly as a user would (``--include_path``, ``--limit``), and ``medvigil score``
reads the logs. Few lmms-eval processes, tiny models: this lane stays in minutes.
"""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from medvigil.pipeline import offline_env

pytest.importorskip("lmms_eval")
pytest.importorskip(
    "decord"
)  # lmms-eval 0.7.3's qwen2_5_vl and llava_hf import it (the `lmms` extra)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TASKS = str(ROOT / "tasks")
CASES = 12
# one of every task family (generation tasks; the chat classes serve no log-likelihoods)
FAMILIES = {
    "medvigil": [
        "medvigil_mcq",
        "medvigil_mcq_noimg",
        "medvigil_mcq_circular",
        "medvigil_blur_s8",
        "medvigil_roi_decay_k1",
        "medvigil_open",
    ],
    "mediconfusion": ["mediconfusion_mc"],
    "medqdeg": ["medqdeg_L1"],
    "readiness": ["readiness_img", "readiness_text"],
    "cbd": ["cbd_image", "cbd_noimg"],
}
LIMIT = 10
QWEN_ARGS = "pretrained={},device=cpu,device_map=cpu,min_pixels=784,max_pixels=3136"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from tiny_checkpoints import build_qwen2_5_vl

    from medvigil.suites.mediconfusion.export import build as build_mediconfusion
    from medvigil.suites.mediconfusion.synthetic import write_sample
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("real_adapters")
    generate_release(base / "release", cases=CASES, seed=1)
    build(base / "release", base / "build" / "medvigil")
    write_sample(base / "mc_rel", n_pairs=4, seed=0)
    build_mediconfusion(
        base / "mc_rel" / "data" / "dataset.json", base / "mc_rel" / "roco", base / "mc_built"
    )
    env = offline_env(base / "build" / "medvigil", base / "mc_built")
    env.update(HF_DATASETS_CACHE=str(base / "hf-cache"), OMP_NUM_THREADS="1")
    env.pop("LMMS_EVAL_PLUGINS", None)
    return SimpleNamespace(
        base=base,
        env=env,
        data=base / "build" / "medvigil",
        mediconfusion_release=base / "mc_rel" / "data" / "dataset.json",
        qwen=build_qwen2_5_vl(base / "qwen"),
    )


def lmms_eval(
    world,
    name: str,
    model: str,
    args: str,
    tasks,
    *extra: str,
    launcher=(sys.executable,),
    env=None,
) -> Path:
    out = world.base / name
    cmd = [
        *launcher,
        "-m",
        "lmms_eval",
        "--model",
        model,
        "--tasks",
        ",".join(tasks),
        "--include_path",
        TASKS,
        "--output_path",
        str(out),
        "--log_samples",
        "--batch_size",
        "1",
        *extra,
    ]
    cmd += ["--model_args", args] if args else []
    done = subprocess.run(
        cmd, env=env or world.env, cwd=world.base, capture_output=True, text=True, timeout=1200
    )
    # lmms-eval 0.7.3 logs an evaluation error and still exits 0
    failed = done.returncode != 0 or "Error during evaluation" in done.stdout + done.stderr
    assert not failed, f"{name}:\n{done.stdout[-3000:]}{done.stderr[-5000:]}"
    return out


def samples(folder: Path, task: str) -> list[dict]:
    (path,) = folder.rglob(f"*_samples_{task}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def record_of(sample: dict) -> dict:
    """The probe record a task's process_results logged (under one of its metric keys)."""
    return next(v for v in sample.values() if isinstance(v, dict) and "probe_id" in v)


def answer(sample: dict) -> str:
    """The model's answer as the task scored it."""
    return record_of(sample)["raw_response"]


def medvigil_score(world, suite: str, files, *extra: str) -> dict:
    out = world.base / f"score_{suite}_{len(list(world.base.glob('score_*')))}.json"
    cmd = [
        sys.executable,
        "-m",
        "medvigil",
        "score",
        "--suite",
        suite,
        *map(str, files),
        "--json",
        str(out),
        *extra,
    ]
    done = subprocess.run(cmd, env=world.env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


# ---------------------------------------------------------------- Qwen2.5-VL chat class, every
# family, then score


@pytest.fixture(scope="module")
def qwen_run(world):
    tasks = [t for family in FAMILIES.values() for t in family]
    # --limit 10 keeps whole MediConfusion pairs and circular rotation sets
    return lmms_eval(
        world, "qwen", "qwen2_5_vl", QWEN_ARGS.format(world.qwen), tasks, "--limit", str(LIMIT)
    )


def test_qwen_chat_runs_every_family_and_medvigil_scores_it(world, qwen_run):
    for tasks in FAMILIES.values():
        for task in tasks:
            rows = samples(qwen_run, task)
            assert 0 < len(rows) <= LIMIT, task  # (MediConfusion: 4 pairs, 8 docs)
            for row in rows:  # every record says what the adapter was handed
                extra = record_of(row)["extra"]
                assert isinstance(extra["images_sent"], int) and extra["image_variant"], task
    noimg = [record_of(r)["extra"] for r in samples(qwen_run, "medvigil_mcq_noimg")]
    assert all(e["images_sent"] == 0 and e["image_variant"] == "none" for e in noimg)
    blur = [record_of(r)["extra"] for r in samples(qwen_run, "medvigil_blur_s8")]
    assert all(e["images_sent"] == 1 and e["image_variant"] == "blur:8" for e in blur)
    mcq = {
        record_of(r)["probe_kind"]: record_of(r)["extra"]["images_sent"]
        for r in samples(qwen_run, "medvigil_mcq")
    }
    assert mcq["knowledge_only"] == 0 and mcq["original"] == 1

    mcq_files = list(qwen_run.rglob("*_samples_medvigil_mcq.jsonl"))
    scored = medvigil_score(world, "medvigil", mcq_files, "--n-resamples", "0")
    (model,) = scored["models"]
    assert model == world.qwen.name  # the short run label: the checkpoint named by pretrained=
    # the protocol record names the class that ran; Qwen2.5-VL's chat class sends our messages as
    # they are, so no deviation (medvigil/runs/adapters.py)
    (entry,) = scored["protocol"]
    assert entry["adapter"] == {
        "name": "qwen2_5_vl",
        "class": "medvigil.tasks.qwen_models.Qwen2_5_VLChatScored",  # the stock name, ours
        "kind": "chat",
    }
    assert entry["deviations"] == [] and len(entry["fingerprint"]) == 64
    scored = medvigil_score(
        world,
        "mediconfusion",
        list(qwen_run.rglob("*_samples_mediconfusion_mc.jsonl")),
        "--release",
        str(world.mediconfusion_release),
    )
    assert scored["runs"]
    # (cbd's arms need whole cases, which --limit cuts; cbd_binary is scored after its own run
    # below)
    for suite in ("medqdeg", "readiness"):
        files = [p for t in FAMILIES[suite] for p in qwen_run.rglob(f"*_samples_{t}.jsonl")]
        assert medvigil_score(world, suite, files, "--allow-partial")["n_records"] == sum(
            len(samples(qwen_run, t)) for t in FAMILIES[suite]
        )


# (LLaVA-HF under its stock name, text-only docs and cbd_binary: tests/test_stock_adapters.py)


# ---------------------------------------------------------------- data parallel with a baseline


def test_baseline_data_parallel_torchrun_and_accelerate(world):
    one = lmms_eval(world, "dp_one", "grounded", "", ["medvigil_mcq"])
    torchrun = lmms_eval(
        world,
        "dp_torchrun",
        "grounded",
        "",
        ["medvigil_mcq"],
        launcher=(
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nproc_per_node",
            "2",
            "--master_port",
            "29613",
        ),
    )
    # `accelerate launch --cpu` starts ONE process (accelerate's simple launcher); --multi_gpu
    # starts N and falls back to gloo on a machine without GPUs
    accelerate = lmms_eval(
        world,
        "dp_accelerate",
        "grounded",
        "",
        ["medvigil_mcq"],
        launcher=(
            sys.executable,
            "-m",
            "accelerate.commands.launch",
            "--multi_gpu",
            "--num_processes",
            "2",
            "--main_process_port",
            "29614",
        ),
    )
    reference = samples(one, "medvigil_mcq")
    results = {}
    for name, folder in (("one", one), ("torchrun", torchrun), ("accelerate", accelerate)):
        rows = samples(folder, "medvigil_mcq")
        ids = [r["doc_id"] for r in rows]
        assert len(ids) == len(set(ids)) == len(reference), name  # each doc exactly once
        assert {r["doc_id"]: answer(r) for r in rows} == {
            r["doc_id"]: answer(r) for r in reference
        }, name
        (path,) = folder.rglob("*_results.json")
        results[name] = json.loads(path.read_text())["results"]["medvigil_mcq"]
    assert results["torchrun"] == results["one"] and results["accelerate"] == results["one"]


# ---------------------------------------------------------------- OpenAI-compatible client: request
# bytes


def test_openai_requests_stay_within_1_5x_the_source_image_bytes(world):
    from datasets import Image as ImageFeature

    from medvigil.baselines import server
    from medvigil.data_location import load_config

    seen = []
    answer = server.completion

    def recording(body):
        seen.append(body)
        return answer(body)

    source = load_config("mcq", env={"MEDVIGIL_DATA": str(world.data)}).cast_column(
        "image", ImageFeature(decode=False)
    )
    by_question = {
        q: (img or {}).get("bytes") for q, img in zip(source["question"], source["image"])
    }
    env = dict(world.env, LMMS_EVAL_PLUGINS="medvigil")  # the plugin sets the JPEG default
    env.pop("LMMS_IMAGE_ENCODE_FORMAT", None)
    with pytest.MonkeyPatch.context() as mp, server.BaselineServer(0) as srv:
        mp.setattr(server, "completion", recording)
        lmms_eval(
            world,
            "openai",
            "openai",
            f"model_version=grounded,base_url={srv.base_url},api_key=unused,num_concurrent=1",
            ["medvigil_mcq"],
            "--limit",
            "6",
            env=env,
        )
    assert len(seen) == 6
    sent_images = 0
    for body in seen:
        text = " ".join(
            c.get("text", "")
            for m in body["messages"]
            if isinstance(m["content"], list)
            for c in m["content"]
        )
        (src,) = [b for q, b in by_question.items() if q in text]
        urls = [
            c["image_url"]["url"]
            for m in body["messages"]
            if isinstance(m["content"], list)
            for c in m["content"]
            if c.get("type") == "image_url"
        ]
        for url in urls:
            head, payload = url.split(",", 1)
            assert head == "data:image/jpeg;base64"
            assert len(payload) <= 1.5 * len(src), (len(payload), len(src))
            assert base64.b64decode(payload)[:2] == b"\xff\xd8"
            sent_images += 1
        if urls:  # the whole request: image + prompt text
            assert len(json.dumps(body)) <= 1.5 * len(src) + 4096
        else:
            assert src is None  # a text-only doc
    assert sent_images == 5  # doc 4 is text-only: sent without an image


# ---------------------------------------------------------------- discovery


def test_tasks_list_shows_our_tasks(world):
    env = dict(world.env, LMMS_EVAL_PLUGINS="medvigil")
    done = subprocess.run(
        [sys.executable, "-m", "lmms_eval", "--tasks", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    listing = done.stdout + done.stderr
    for task in ("medvigil_mcq", "cbd_binary", "mediconfusion_gd", "readiness_text", "medqdeg_L1"):
        assert task in listing
    # 0.7.3's `tasks list` subcommand loads no plugin; it takes our folder as --include-path
    done = subprocess.run(
        [sys.executable, "-m", "lmms_eval", "tasks", "list", "--include-path", TASKS],
        env=world.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "medvigil_mcq" in done.stdout and os.path.isdir(TASKS)
