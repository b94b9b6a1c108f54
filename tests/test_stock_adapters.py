"""lmms-eval's own model names with medvigil installed (issue 40): text-only docs, log-likelihoods
beyond LLaVA, the retry wrapper around a chat model, and the accelerate ``--cpu`` launcher.

Tiny randomly initialised checkpoints are built at test time (tests/tiny_checkpoints.py) and the
API models talk to ``serve-baseline``'s server on 127.0.0.1, whose answers are computed from each
request (the grounded policy for letters, a digest of the request for token log-probabilities).
One module fixture per lmms-eval process; the tests read their logs.
"""

import hashlib
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("lmms_eval")
pytest.importorskip("decord")  # lmms-eval 0.7.3's llava_hf and qwen2_5_vl import it

from test_real_adapters import answer, lmms_eval, medvigil_score, record_of, samples  # noqa: E402

from medvigil.pipeline import offline_env  # noqa: E402

SLOW_FIXTURES = frozenset(
    {"world", "llava_runs", "idefics2_run", "qwen_run", "openai_run", "retry_run", "accelerate_cpu"}
)
LLAVA_ARGS = "pretrained={},device=cpu,device_map=cpu"
QWEN_ARGS = "pretrained={},device=cpu,device_map=cpu,min_pixels=784,max_pixels=3136"
LIMIT = 30  # medvigil_mcq docs 0-29 hold text-only probes; cbd_binary docs 0-29 hold whole cases
UNSURE = "I am not certain."


def stub_logprobs(prompt: str, images: list[bytes]) -> list[tuple[str, float]]:
    """The server's first-token alternatives for a log-probability request: p (yes over no, A over
    B) is a function of the request (its text and image bytes), split over spellings the client
    must add up."""
    digest = hashlib.sha256(prompt.encode() + b"".join(images)).digest()
    p = 1 / (1 + math.exp(-(digest[0] - 127.5) / 32))
    return [
        ("Yes", math.log(0.9 * 0.7 * p)),
        (" no", math.log(0.9 * 0.8 * (1 - p))),
        (" yes", math.log(0.9 * 0.3 * p)),
        ("No.", math.log(0.9 * 0.2 * (1 - p))),
        ("A", math.log(0.05 * p)),
        (" B", math.log(0.05 * (1 - p))),
        ("maybe", math.log(0.05)),
    ]


def stub_p(prompt: str, images: list[bytes]) -> float:
    return math.exp(dict(stub_logprobs(prompt, images))["A"]) / 0.05


TEMPLATE_REPLY = {
    "id": "chatcmpl-stub",
    "object": "chat.completion",
    "created": 0,
    "model": "stub",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def stub_p_yes(prompt: str, images: list[bytes]) -> float:
    top = dict(stub_logprobs(prompt, images))
    return math.exp(top["Yes"]) / (0.95 * 0.7)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from tiny_checkpoints import build_idefics2, build_llava, build_qwen2_5_vl

    from medvigil.baselines import server
    from medvigil.suites.mediconfusion.export import build as build_mediconfusion
    from medvigil.suites.mediconfusion.synthetic import write_sample
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("stock_adapters")
    generate_release(base / "release", cases=12, seed=1)
    build(base / "release", base / "build" / "medvigil")
    write_sample(base / "mc_rel", n_pairs=4, seed=0)
    build_mediconfusion(
        base / "mc_rel" / "data" / "dataset.json", base / "mc_rel" / "roco", base / "mc_built"
    )
    env = offline_env(base / "build" / "medvigil", base / "mc_built")
    env.update(HF_DATASETS_CACHE=str(base / "hf-cache"), OMP_NUM_THREADS="1")
    env.pop("LMMS_EVAL_PLUGINS", None)

    seen, asked = [], Counter()
    real = server.completion

    def completion(body):
        """Token log-probabilities when asked for them; else the grounded policy's letter, after
        one unparseable reply to each new prompt (so the retry wrapper has something to re-ask)."""
        prompt, images = server.split_messages(body.get("messages"))
        seen.append((body, prompt, images))
        if body.get("logprobs"):
            top = stub_logprobs(prompt, images)
            token, logprob = max(top, key=lambda t: t[1])
            reply = json.loads(json.dumps(TEMPLATE_REPLY))
            reply["choices"][0]["message"]["content"] = token
            reply["choices"][0]["logprobs"] = {
                "content": [
                    {
                        "token": token,
                        "logprob": logprob,
                        "bytes": None,
                        "top_logprobs": [
                            {"token": t, "logprob": lp, "bytes": None} for t, lp in top
                        ],
                    }
                ]
            }
            return reply
        asked[prompt] += 1
        reply = real(body)
        if asked[prompt] == 1:
            reply["choices"][0]["message"]["content"] = UNSURE
        return reply

    with pytest.MonkeyPatch.context() as mp, server.BaselineServer(0) as srv:
        mp.setattr(server, "completion", completion)
        yield SimpleNamespace(
            base=base,
            env=env,
            data=base / "build" / "medvigil",
            mediconfusion_release=base / "mc_rel" / "data" / "dataset.json",
            llava=build_llava(base / "llava"),
            qwen=build_qwen2_5_vl(base / "qwen"),
            idefics2=build_idefics2(base / "idefics2"),
            server=srv,
            seen=seen,
        )


def _docs_by_id(folder: Path, task: str) -> dict[int, dict]:
    return {r["doc_id"]: r for r in samples(folder, task)}


# ------------------------------------------------------------ llava_hf (stock name), chat and
# simple


@pytest.fixture(scope="module")
def llava_runs(world):
    """Per class: docs 0-29 of medvigil_mcq and cbd_binary in one run, then the first text-only
    doc after an image doc asked alone (--offset)."""
    args = LLAVA_ARGS.format(world.llava)
    runs = {}
    for kind, force in (("chat", ()), ("simple", ("--force_simple",))):
        run = lmms_eval(
            world,
            f"llava_{kind}",
            "llava_hf",
            args,
            ["medvigil_mcq", "cbd_binary"],
            "--limit",
            str(LIMIT),
            *force,
        )
        docs = _docs_by_id(run, "medvigil_mcq")
        text_only = min(
            i for i, r in docs.items() if i > 0 and record_of(r)["extra"]["images_sent"] == 0
        )
        alone = lmms_eval(
            world,
            f"llava_{kind}_alone",
            "llava_hf",
            args,
            ["medvigil_mcq"],
            "--limit",
            "1",
            "--offset",
            str(text_only),
            *force,
        )
        runs[kind] = SimpleNamespace(run=run, docs=docs, text_only=text_only, alone=alone)
    return runs


@pytest.mark.parametrize("kind", ["chat", "simple"])
def test_stock_llava_hf_answers_a_text_only_doc_from_its_own_input(llava_runs, kind):
    got = llava_runs[kind]
    docs, k = got.docs, got.text_only
    assert len(docs) == LIMIT
    assert record_of(docs[k])["probe_kind"] == "knowledge_only"
    assert record_of(docs[k - 1])["extra"]["images_sent"] == 1  # an image doc comes before it
    (alone,) = samples(got.alone, "medvigil_mcq")
    assert alone["doc_id"] == k
    # the same answer as when it is the only doc: nothing of doc k-1 (its prompt, its image) reached
    # the model with it; and a different one from doc k-1's (a random model answers a different
    # input differently)
    assert answer(alone) == answer(docs[k])
    assert answer(docs[k]) != answer(docs[k - 1])


@pytest.mark.parametrize("kind", ["chat", "simple"])
def test_stock_llava_hf_runs_cbd_binary_and_it_scores(world, llava_runs, kind):
    run = llava_runs[kind].run
    records = [record_of(r) for r in samples(run, "cbd_binary")]
    assert len(records) == LIMIT
    values = [v for rec in records for v in rec["extra"]["loglikelihoods"]]
    assert all(v > 0 for v in values)  # lmms-eval's HF convention for this class: mean losses
    from medvigil.suites.cbd import records as cbd_records

    for rec in records:  # the same p(yes) when the losses are handed over as log-probabilities
        pair = rec["extra"]["loglikelihoods"]
        assert rec["extra"]["p_yes"] == pytest.approx(cbd_records.p_yes([(-v, 0) for v in pair]))
        # the answer as asked; a negated paraphrase's letter is read in the original polarity
        assert (rec["extra"]["answer_as_asked"] == "yes") == (pair[0] <= pair[1])
        negated = rec["extra"]["polarity"] == "negated"
        assert (rec["predicted_letter"] == "A") == ((pair[0] <= pair[1]) != negated)
    conditions = {rec["condition"]: rec["extra"]["images_sent"] for rec in records}
    assert conditions["binary:noimg"] == 0 and conditions["binary:null"] == 1
    scored = medvigil_score(world, "cbd", list(run.rglob("*_samples_cbd_binary.jsonl")))
    assert scored["n_records"] == LIMIT


def test_chat_and_simple_llava_give_the_same_log_likelihoods(llava_runs):
    chat, simple = (
        [
            v
            for r in samples(llava_runs[k].run, "cbd_binary")
            for v in record_of(r)["extra"]["loglikelihoods"]
        ]
        for k in ("chat", "simple")
    )
    assert chat == pytest.approx(simple)


# ---------------------------------------------------------------- idefics2 (stock name)


@pytest.fixture(scope="module")
def idefics2_run(world):
    args = f"pretrained={world.idefics2},device=cpu,device_map=cpu,dtype=float32"
    return lmms_eval(world, "idefics2", "idefics2", args, ["medvigil_mcq"], "--limit", "6")


def test_stock_idefics2_completes_a_range_with_a_text_only_doc_and_scores(world, idefics2_run):
    records = [record_of(r) for r in samples(idefics2_run, "medvigil_mcq")]
    assert len(records) == 6
    sent = [rec["extra"]["images_sent"] for rec in records]
    assert 0 in sent and 1 in sent  # lmms-eval's own class raised IndexError at the 0
    files = list(idefics2_run.rglob("*_samples_medvigil_mcq.jsonl"))
    scored = medvigil_score(world, "medvigil", files, "--n-resamples", "0")
    (model,) = scored["models"]
    assert model == world.idefics2.name


# ------------------------------------------------------------ Qwen2.5-VL (stock name, chat class)


@pytest.fixture(scope="module")
def qwen_run(world):
    tasks = ["cbd_binary", "mediconfusion_gd", "mediconfusion_ps"]
    return lmms_eval(world, "qwen_ll", "qwen2_5_vl", QWEN_ARGS.format(world.qwen), tasks)


def test_qwen2_5_vl_chat_runs_the_log_likelihood_arms_and_they_score(world, qwen_run):
    records = [record_of(r) for r in samples(qwen_run, "cbd_binary")]
    values = [v for rec in records for v in rec["extra"]["loglikelihoods"]]
    assert values and all(v > 0 for v in values)  # mean losses, as lmms-eval's HF classes
    noimg = [rec for rec in records if rec["condition"] == "binary:noimg"]
    assert noimg and all(rec["extra"]["images_sent"] == 0 for rec in noimg)
    assert medvigil_score(world, "cbd", list(qwen_run.rglob("*_samples_cbd_binary.jsonl")))[
        "n_records"
    ] == len(records)
    for mode in ("gd", "ps"):
        rows = samples(qwen_run, f"mediconfusion_{mode}")
        assert len(rows) == 8  # 4 pairs
        extras = [record_of(r)["extra"] for r in rows]
        assert all(len(e["option_scores"]) == 2 for e in extras)
        assert all(e["value_kinds"] == ["mean_nll", "mean_nll"] for e in extras)
    ps = [record_of(r)["extra"] for r in samples(qwen_run, "mediconfusion_ps")]
    assert {e["normalisation_applied"] for e in ps} == {"per_token"}  # the authors' per-token mean
    files = [p for m in ("gd", "ps") for p in qwen_run.rglob(f"*_samples_mediconfusion_{m}.jsonl")]
    scored = medvigil_score(
        world, "mediconfusion", files, "--release", str(world.mediconfusion_release)
    )
    assert scored["runs"]


# ------------------------------------------------------------ OpenAI-compatible client (stock name)


def _api_args(world, model: str = "grounded") -> str:
    return f"model={model},base_url={world.server.base_url},api_key=unused,num_concurrent=1"


@pytest.fixture(scope="module")
def openai_run(world):
    start = len(world.seen)
    run = lmms_eval(
        world, "openai_ll", "openai", _api_args(world), ["cbd_binary", "mediconfusion_gd"]
    )
    return SimpleNamespace(run=run, seen=world.seen[start:])


def test_openai_client_reads_p_yes_from_the_returned_token_log_probabilities(world, openai_run):
    cbd = [record_of(r) for r in samples(openai_run.run, "cbd_binary")]
    gd = [record_of(r) for r in samples(openai_run.run, "mediconfusion_gd")]
    assert len(gd) == 8  # MediConfusion GD: the continuations are the letters A and B
    asked = [(prompt, images) for _body, prompt, images in openai_run.seen]
    # one request per doc (both continuations read from one reply), a text-only doc without image
    assert len(asked) == len(cbd) + len(gd)
    assert all(b["logprobs"] is True and b["top_logprobs"] == 20 for b, _p, _i in openai_run.seen)
    assert sum(not images for _p, images in asked) == sum(
        rec["extra"]["images_sent"] == 0 for rec in cbd + gd
    )
    # p(yes) (and p(A)) = the server's probability of that word, its spellings added, against the
    # other
    logged = [rec["extra"]["p_yes"] for rec in cbd] + [
        1 / (1 + math.exp(b - a)) for a, b in (rec["extra"]["option_scores"] for rec in gd)
    ]
    expected = [stub_p(p, i) for p, i in asked]
    assert sorted(logged) == pytest.approx(sorted(expected), abs=1e-9)
    assert len({round(p, 6) for p in expected}) > 2
    scored = medvigil_score(world, "cbd", list(openai_run.run.rglob("*_samples_cbd_binary.jsonl")))
    assert scored["n_records"] == len(cbd)


# ---------------------------------------------------------------- --model retry around openai, as
# README shows


@pytest.fixture(scope="module")
def retry_run(world):
    env = dict(world.env, LMMS_EVAL_PLUGINS="medvigil")
    start = len(world.seen)
    out = world.base / "retry"
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "retry",
        "--model_args",
        f"inner=openai,retries=3,{_api_args(world)}",
        "--tasks",
        "medvigil_mcq",
        "--output_path",
        str(out),
        "--log_samples",
        "--limit",
        "6",
    ]
    done = subprocess.run(cmd, env=env, cwd=world.base, capture_output=True, text=True, timeout=900)
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "Error during evaluation" not in log, log[-5000:]
    return SimpleNamespace(run=out, seen=world.seen[start:])


def test_readme_retry_command_completes_and_re_asks_unparsed_replies(retry_run):
    from medvigil.mcq.prompting import parse_letter

    records = [record_of(r) for r in samples(retry_run.run, "medvigil_mcq")]
    assert len(records) == 6
    for rec in records:  # the server's first reply to each prompt is not a letter
        attempts = rec["extra"]["attempts"]
        assert rec["retries"] == 1 and attempts[0] == UNSURE, rec["extra"]
        assert parse_letter(attempts[1]) is not None and rec["raw_response"] == attempts[1]
    prompts = Counter(prompt for _b, prompt, _i in retry_run.seen)
    assert sorted(prompts.values()) == [2] * 6  # each prompt asked twice, with the same request


# ---------------------------------------------------------------- accelerate launch --cpu


@pytest.fixture(scope="module")
def accelerate_cpu(world):
    cmd = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--cpu",
        "--num_processes",
        "2",
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--tasks",
        "medvigil_mcq",
        "--include_path",
        str(Path(__file__).resolve().parents[1] / "tasks"),
        "--output_path",
        str(world.base / "accelerate_cpu"),
        "--limit",
        "2",
    ]
    return subprocess.run(
        cmd, env=world.env, cwd=world.base, capture_output=True, text=True, timeout=900
    )


def test_accelerate_cpu_launch_points_to_torchrun(accelerate_cpu):
    assert accelerate_cpu.returncode == 0, accelerate_cpu.stderr[-3000:]
    from medvigil.tasks.launch_check import MESSAGE

    assert accelerate_cpu.stderr.count(MESSAGE.strip()) == 1
    assert "torchrun --nproc_per_node N -m lmms_eval" in MESSAGE
