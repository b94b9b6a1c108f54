"""``medvigil_mcq_authors`` / ``medvigil_blur_authors_s*``: the MedVIGIL authors' released runner
(``scripts/bench_run_baseline.py``, ``scripts/bench_blur_sweep_make.py``) replayed in lmms-eval.

The prompt, parser and blur are checked against the runner's rules on hand-written cases; one real
lmms-eval run of ``grounded`` on both the paper-prompt task and the runner task shows the same
letters, hence the same scores, through either prompt.
"""

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter

from medvigil.suites.medvigil.harness.authors_runner import (
    authors_blur,
    authors_letter,
    authors_prompt,
    llava_med_prompt,
)

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = [
    "Left pleural effusion",
    "Right pleural effusion",
    "No effusion",
    "Both sides",
    "Insufficient visual evidence: the region needed to answer is not visible in this image.",
]


def _utils():
    spec = importlib.util.spec_from_file_location(
        "medvigil_task_utils_authors", ROOT / "tasks" / "medvigil" / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prompt_is_the_runners():
    assert authors_prompt("Which side is the effusion on?", OPTIONS) == (
        "Which side is the effusion on?\n\nA) Left pleural effusion\nB) Right pleural "
        "effusion\nC) No effusion\nD) Both sides\nE) Insufficient visual evidence: the "
        "region needed to answer is not visible in this image.\n\nReply with ONLY the "
        "single letter of the correct option (A, B, C, D, or E). No explanation."
    )


# The runner's parse_letter rules on edge strings: upper-cased, a leading letter after ( [ * and
# spaces, else the first letter followed by . or ), else the first standalone letter.
EDGE = [
    ("A", "A"),
    ("b", "B"),
    ("(C)", "C"),
    ("[d] because", "D"),
    ("**E**", "E"),
    ("  a.", "A"),
    ("The answer is B.", "B"),
    ("I choose c", "C"),
    ("answer: d", "D"),
    ("Option E)", "E"),
    ("F", None),
    ("", None),
    ("None of these", None),
    ("AB", None),
    ("A and B", "A"),
]


@pytest.mark.parametrize("reply, letter", EDGE)
def test_parser_is_the_runners(reply, letter):
    assert authors_letter(reply) == letter


def test_blur_is_pils_filter():
    rng = np.random.default_rng(0)
    image = Image.fromarray(rng.integers(0, 255, (40, 48, 3), dtype=np.uint8), mode="RGB")
    assert np.array_equal(
        np.asarray(authors_blur(image, 4)),
        np.asarray(image.filter(ImageFilter.GaussianBlur(radius=4))),
    )
    assert authors_blur(image, 0) is image  # sigma 0: the original
    jpeg = authors_blur(image, 2, "JPEG")  # their saved JPEG copy (quality 92)
    buffer = io.BytesIO()
    image.filter(ImageFilter.GaussianBlur(radius=2)).save(buffer, format="JPEG", quality=92)
    assert np.array_equal(
        np.asarray(jpeg), np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
    )


def test_task_hooks_send_the_runners_request():
    utils = _utils()
    image = Image.new("RGB", (16, 16), (90, 90, 90))
    doc = {
        "question": "Which side is the effusion on?",
        "options": OPTIONS,
        "image": image,
        "condition": "default",
        "runner": "authors",
        "correct_letter": "A",
    }
    text = utils.medvigil_authors_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""})
    assert text == authors_prompt(doc["question"], OPTIONS)
    (turn,) = utils.medvigil_authors_doc_to_messages(doc, {})  # no system message
    assert turn["role"] == "user" and [c["type"] for c in turn["content"]] == ["image", "text"]
    (blurred,) = utils.medvigil_doc_to_visual({**doc, "condition": "blur:8"})
    assert np.array_equal(
        np.asarray(blurred), np.asarray(image.filter(ImageFilter.GaussianBlur(radius=8)))
    )
    from medvigil.mcq.prompting import parse_mcq_prompt

    assert parse_mcq_prompt(text)[1]["B"] == OPTIONS[1]  # the baselines read the runner's layout


def test_llava_med_runner_prompt_and_hooks():
    """bench_run_llava_med.py / bench_run_huatuo.py: an Options: block and their closing
    question."""
    assert llava_med_prompt("Which side is the effusion on?", OPTIONS) == (
        "Which side is the effusion on?\n\nOptions:\nA. Left pleural effusion\nB. Right pleural "
        "effusion\nC. No effusion\nD. Both sides\nE. Insufficient visual evidence: the region "
        "needed to answer is not visible in this image.\n\nWhich one is correct (A, B, C, D, or "
        "E)?"
    )
    utils = _utils()
    doc = {
        "question": "Which side is the effusion on?",
        "options": OPTIONS,
        "image": Image.new("RGB", (16, 16), (90, 90, 90)),
        "condition": "default",
        "runner": "authors_llava_med",
        "correct_letter": "A",
        "probe_id": "MVB-0002-knowledge_only",
        "case_id": "MVB-0002",
        "probe_kind": "knowledge_only",
        "placeholder_image": True,
    }
    text = utils.medvigil_authors_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""})
    assert text == llava_med_prompt(doc["question"], OPTIONS)
    (turn,) = utils.medvigil_authors_doc_to_messages(doc, {})  # no system message
    assert [c["type"] for c in turn["content"]] == ["image", "text"]
    record = utils._record(doc, "The correct answer is b.")  # their parser: lower case read
    assert record["predicted_letter"] == "B" and record["extra"]["runner"] == "authors_llava_med"
    assert record["extra"]["placeholder_image"] == "images/MVB-0001.jpg"
    from medvigil.mcq.prompting import parse_mcq_prompt

    assert parse_mcq_prompt(text)[1]["E"] == OPTIONS[4]  # the baselines read it


@pytest.mark.slow
def test_runner_task_in_a_real_lmms_eval_run(tmp_path):
    """grounded answers the runner's prompt as the paper's: the same letters, the same scores."""
    pytest.importorskip("lmms_eval")
    from medvigil.pipeline import offline_env
    from medvigil.records.lmms_eval_logs import read_samples
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    generate_release(tmp_path / "release", cases=8, seed=1)
    build(tmp_path / "release", tmp_path / "build" / "medvigil")
    env = offline_env(tmp_path / "build" / "medvigil")
    env["HF_DATASETS_CACHE"] = str(tmp_path / "hf-cache")
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--tasks",
        "medvigil_mcq,medvigil_mcq_authors,medvigil_blur_authors_s4,medvigil_blur_authors_s0,"
        "medvigil_blur_authors_sinf,medvigil_mcq_authors_llava_med",
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(out),
        "--log_samples",
    ]
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stdout + proc.stderr, (
        proc.stderr[-4000:]
    )
    paper, runner, blur = (
        read_samples(sorted(out.rglob(f"*_samples_{t}.jsonl")))
        for t in ("medvigil_mcq", "medvigil_mcq_authors", "medvigil_blur_authors_s4")
    )
    assert {r["probe_id"]: r["predicted_letter"] for r in runner} == {
        r["probe_id"]: r["predicted_letter"] for r in paper
    }
    assert all(r["extra"]["runner"] == "authors" and r["condition"] == "default" for r in runner)
    assert blur and all(
        r["condition"] == "blur:4" and r["extra"]["runner"] == "authors" for r in blur
    )
    (results,) = out.rglob("*_results.json")
    table = json.loads(results.read_text())["results"]
    assert table["medvigil_mcq_authors"]["mcs,none"] == table["medvigil_mcq"]["mcs,none"]

    # sigma = inf: the sigma 0 arm's probes and text, no image (their --sigma inf run: noimg)
    s0, sinf = (
        [
            json.loads(line)
            for line in next(out.rglob(f"*_samples_{t}.jsonl")).read_text().splitlines()
        ]
        for t in ("medvigil_blur_authors_s0", "medvigil_blur_authors_sinf")
    )
    assert sinf and sorted(r["input"] for r in sinf) == sorted(r["input"] for r in s0)
    records = read_samples(sorted(out.rglob("*_samples_medvigil_blur_authors_sinf.jsonl")))
    assert all(
        r["condition"] == "noimg"
        and r["extra"]["runner"] == "authors"
        and r["extra"]["images_sent"] == 0
        and r["probe_kind"] == "original"
        for r in records
    )
    zero = read_samples(sorted(out.rglob("*_samples_medvigil_blur_authors_s0.jsonl")))
    assert {r["probe_id"] for r in records} == {r["probe_id"] for r in zero}
    assert all(r["extra"]["images_sent"] == 1 for r in zero)
    # the LLaVA-Med / HuatuoGPT runner: its prompt, 128 new tokens, a placeholder image where none
    llava = read_samples(sorted(out.rglob("*_samples_medvigil_mcq_authors_llava_med.jsonl")))
    assert {r["probe_id"] for r in llava} == {r["probe_id"] for r in paper}
    knowledge = [r for r in llava if r["probe_kind"] == "knowledge_only"]
    assert knowledge and all(
        r["extra"]["images_sent"] == 1 and r["extra"]["placeholder_image"] == "images/MVB-0001.jpg"
        for r in knowledge
    )
    assert all(
        "placeholder_image" not in r["extra"] for r in llava if r["probe_kind"] != "knowledge_only"
    )
    lines = (
        next(out.rglob("*_samples_medvigil_mcq_authors_llava_med.jsonl")).read_text().splitlines()
    )
    assert all(
        json.loads(line)["input"].endswith("\n\nWhich one is correct (A, B, C, D, or E)?")
        for line in lines
    )
    configs = json.loads(results.read_text())["configs"]
    assert configs["medvigil_mcq_authors_llava_med"]["generation_kwargs"]["max_new_tokens"] == 128
