"""MediConfusion modes as the authors ran them, checked against the authors' own material.

The literals below were read from the authors' repository (MShahabSepehri/MediConfusion,
commit 40a8b41): ``configs/prompts/answering.json`` (prompts, judge settings),
``utils/answering.py`` (token limit, ``clean_up_manual``, ``get_clean_up_prompt``) and
``scripts/download.py`` (image layout), and from the paper (seed 001: Appendix A.4, Table 3).
They are written out here, not imported, so that a change on our side cannot move both.
"""

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from medvigil.records.schema_validation import check_records
from medvigil.suites.mediconfusion import llm_judge, modes, prompts

ROOT = Path(__file__).resolve().parents[1]
TASK_DIR = ROOT / "tasks" / "mediconfusion"


def _shared() -> Path:
    override = os.environ.get("MEDVIGIL_SHARED")
    return Path(override) if override else ROOT.parent / "shared"


FIXTURES = _shared() / "fixtures" / "mediconfusion"
needs_fixtures = pytest.mark.skipif(
    not (FIXTURES / "dataset.json").is_file(), reason=f"fixtures not at {FIXTURES}"
)

# ---------------------------------------------------------------- the authors' strings (literals)

AUTHORS = {
    (
        "mc",
        "default",
    ): "Based on the image, choose the correct option for the following question.\nQuestion: "
    '{}\n("A": {})\n("B": {})\nAnswer with the option\'s letter from the given choices '
    'directly. Your answer should be just one letter.\n#answer: ("',
    (
        "mc",
        "gpt",
    ): "Based on the image, choose the correct option for the following question.\nQuestion: "
    "{}\nA: {}\nB: {}\nAnswer with the option's letter from the given choices "
    "directly. Your answer should be just one letter.\nAnswer: ",
    (
        "greedy",
        "default",
    ): "Based on the image, choose the correct option for the following question.\nQuestion: "
    "{}\nA: {}\nB: {}\nAnswer with the option's letter from the given choices "
    "directly.\nAnswer: ",
    ("prefix", "default"): "Question: {} Answer: {}",
    ("gpt4", "default"): "Based on the image, answer following question.\n{}",
}
AUTHORS_JUDGE_SYSTEM = (
    "You are a helpful and precise assistant for checking the quality of the answer."
)
AUTHORS_JUDGE_INSTRUCTION = (
    "We would like to request your feedback on the performance of an AI "
    "assistant in response to the user question displayed above. The "
    "user asks the question on observing an image. We have provided two "
    "possible answers, [Answer A] and [Answer B] to the question. Your "
    "job is to evaluate how close the AI assistant's answer is to each "
    "of the answers. You don't have to decide whether the answers are "
    "correct or not. Each answer should receive an overall score on a "
    "scale of 1 to 10, where a higher score indicates the AI assistant's "
    "answer is closer to the specific answer. After providing the "
    "scores, concisely provide your explanation for the given scores. "
    "Remember, you don't need to comment on the correctness of the "
    "answers. Please provide your answer in the following format:\nA: "
    "<SCORE>\nB: <SCORE>\nYour explanation: <EXPLANATION>"
)

Q, A, B = "Is the mass {enhancing}?", "Yes, it enhances", "No "


def _utils():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "mediconfusion_task_utils_protocol", TASK_DIR / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


utils = _utils()


class _TaskLoader(yaml.SafeLoader):
    pass


_TaskLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def _task(name: str) -> dict:
    return yaml.load((TASK_DIR / f"{name}.yaml").read_text(), Loader=_TaskLoader)


def _doc(task: str) -> dict:
    return {
        "question": Q,
        "option_A": A,
        "option_B": B,
        "condition": utils.CONDITIONS[task],
        "protocol": "medvigil" if task.endswith("_medvigil") else "authors",
    }


def _rendered(task: str, model: str = "default") -> str:
    kwargs = _task(f"mediconfusion_{task}")["lmms_eval_specific_kwargs"]
    return utils.mediconfusion_doc_to_text(_doc(task), kwargs.get(model, kwargs["default"]))


def test_default_prompts_are_the_authors_strings():
    assert _rendered("mc") == AUTHORS["mc", "default"].format(Q, A, B)
    assert _rendered("gd") == AUTHORS["greedy", "default"].format(Q, A, B)
    assert _rendered("ff") == AUTHORS["gpt4", "default"].format(Q)
    # PS: context + target_delimiter + option is their "Question: {} Answer: {}"
    ps = _task("mediconfusion_ps")
    assert _rendered("ps") + ps["target_delimiter"] + A == AUTHORS["prefix", "default"].format(Q, A)
    assert utils.mediconfusion_ps_doc_to_choice(_doc("ps")) == [A, B]


def test_api_models_get_the_authors_gpt_prompt():
    """Every lmms-eval route to an API they used gets their `mc.gpt` text and their system prompt
    (typo kept): a system turn in the chat form (openai, gemini), the first text line for the simple
    adapters (gpt4v, batch_gpt4, claude), which send no system message of a task's."""
    system = "You are a helpful assitant expert in medical domain."
    kwargs = _task("mediconfusion_mc")["lmms_eval_specific_kwargs"]
    for model in ("gpt4v", "batch_gpt4", "claude", "gemini", "gemini_api", "openai"):
        assert _rendered("mc", model) == f"{system}\n" + AUTHORS["mc", "gpt"].format(Q, A, B)
        chat = utils.mediconfusion_doc_to_messages(_doc("mc"), kwargs[model])
        assert chat[0]["content"][0]["text"] == system
        assert chat[1]["content"][0]["text"] == AUTHORS["mc", "gpt"].format(Q, A, B)
    # their LLaVA prefix score puts the bare question in the user turn
    assert _rendered("ps", "llava_hf") == Q and _rendered("ps", "llama_vision") == f"Question: {Q}"


def test_token_limits_are_the_authors():
    # MC: set_model_params forces max_new_tokens 32 and temperature 0; FF: LLaVA's config, 100
    mc, ff = (
        _task("mediconfusion_mc")["generation_kwargs"],
        _task("mediconfusion_ff")["generation_kwargs"],
    )
    assert (mc["max_new_tokens"], mc["temperature"], ff["max_new_tokens"]) == (32, 0, 100)
    assert _task("mediconfusion_gd")["target_delimiter"] == ""


def test_medvigil_variants_keep_the_0_1_prompts():
    assert (
        _rendered("mc_medvigil") == f"{Q}\nOptions:\nA. {A.strip()}\nB. {B.strip()}\nAnswer with "
        f"the option's letter from the given choices directly."
    )
    assert _rendered("ff_medvigil") == f"Based on the image, answer the following question.\n{Q}"
    assert (
        _rendered("ps_medvigil") == Q
        and _task("mediconfusion_ps_medvigil")["target_delimiter"] == ""
    )
    limits = [
        _task(f"mediconfusion_{m}_medvigil")["generation_kwargs"]["max_new_tokens"]
        for m in ("mc", "ff")
    ]
    assert limits == [8, 128]
    with pytest.raises(ValueError, match="prompt_style for gd must be one of authors, medvigil"):
        prompts.render("gd", "authors_gpt", Q, A, B)


# ---------------------------------------------------------------- the authors' MC parser


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("A", "A"),
        ("B", "B"),
        ("A:", "A"),
        (".A", "A"),
        (".B:", "B"),
        ("B.", "B"),
        ('A")', "A"),
        ('("B":', "B"),
        ('("A")', "A"),
        ('("B").', "B"),
        ("The answer is A.", "A"),
        ("Answer: B", "B"),
        ("B\n", "B"),
        ('A") Yes, it enhances', "A"),
        # naming both letters is invalid
        ("A or B", None),
        ("A\nB", None),
        ("A. Yes B. No", None),
        # only whole space-separated words count
        ("(A)", None),
        ("A,", None),
        ("**A**", None),
        ("a", None),
        ("AB", None),
        ("A\tB", None),
        ("", None),
        (None, None),
    ],
)
def test_authors_parser(response, letter):
    assert modes.authors_letter(response) == letter
    assert modes.mc_votes(response) == {"A": (10, 0), "B": (0, 10), None: (0, 0)}[letter]


def test_first_letter_parser_is_the_named_variant():
    assert modes.mc_votes("A or B", "first_letter") == (10, 0) and modes.mc_votes("A or B") == (
        0,
        0,
    )
    record = utils.mediconfusion_mc_process_results(
        {
            **_doc("mc_medvigil"),
            "pair_id": "1",
            "image_key": "im1",
            "correct_letter": "A",
            "categories": [],
        },
        ["A or B"],
    )
    assert (
        record["set_acc"]["predicted_letter"] == "A"
        and record["set_acc"]["extra"]["parser"] == "first_letter"
    )
    record = utils.mediconfusion_mc_process_results(
        {**_doc("mc"), "pair_id": "1", "image_key": "im1", "correct_letter": "A", "categories": []},
        ["A or B"],
    )
    assert (
        record["set_acc"]["predicted_letter"] is None
        and record["set_acc"]["extra"]["parser"] == "authors"
    )


@needs_fixtures
def test_authors_parser_reproduces_the_votes_of_their_result_files():
    """Every stored MC answer re-parsed (7 files): 2179 of 2180 images get the authors' stored
    votes.

    The one exception, instructblip pair 10160 image 2, 'B") A flap is visible', names both
    letters; the rule in every version of their parser marks that invalid, yet the file
    stores B (the run predates the repository's history)."""
    agree, disagree = 0, []
    for path in sorted(FIXTURES.glob("Results__*mc.json")):
        for pid, entry in json.loads(path.read_text()).items():
            for image, answer in entry["answer"].items():
                if modes.mc_votes(answer["full_answer"]) == (answer["A"], answer["B"]):
                    agree += 1
                else:
                    disagree.append((path.name, pid, image))
    assert agree == 2179 and disagree == [("Results__instructblip_mc.json", "10160", "im2")]


# ---------------------------------------------------------------- the FF judge


def test_judge_prompts_are_the_papers_and_the_codes():
    paper = (
        "[Question]\nQ?\n[Answer A]\nx\n[Answer B]\ny\n[Assistant]\nr\n[End "
        "of Assistant]\n[System]\n" + AUTHORS_JUDGE_INSTRUCTION
    )
    code = (
        f"[Question]\nQ?\n\n[Answer A]\nx\n\n[Answer B]\ny\n\n[AI Assistant]\nr\n\n[End "
        f"of AI Assistant]\n\n[System]\n{AUTHORS_JUDGE_INSTRUCTION}\n\n"
    )
    assert llm_judge.judge_prompt("Q?", "x", "y", "r") == paper
    assert llm_judge.judge_prompt("Q?", "x", "y", "r", layout="code") == code
    assert llm_judge.JUDGE_SYSTEM_MESSAGE == AUTHORS_JUDGE_SYSTEM
    assert (llm_judge.JUDGE_TEMPERATURE, llm_judge.JUDGE_ATTEMPTS) == (0.7, 3)


class _Endpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/chat/completions that records requests and replies as told."""

    requests: list = []
    replies: list = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        status, text = (
            type(self).replies.pop(0)
            if type(self).replies
            else (200, "A: 5\nB: 5\nYour explanation: -")
        )
        payload = json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": text}}]}
            if status == 200
            else {"error": {"message": text}}
        ).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture()
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Endpoint.requests, _Endpoint.replies = [], []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_endpoint_judge_sends_the_papers_request(endpoint, monkeypatch):
    for key in (
        "MEDICONFUSION_FF_JUDGE",
        "MEDICONFUSION_JUDGE_MODEL",
        "MEDICONFUSION_JUDGE_TEMPERATURE",
        "MEDICONFUSION_JUDGE_PROMPT",
        "MEDICONFUSION_JUDGE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(key, raising=False)
    assert utils.settings()["judge"] == "token_f1"  # offline default: no endpoint configured
    monkeypatch.setenv("MEDICONFUSION_JUDGE_URL", endpoint)
    monkeypatch.setenv("MEDICONFUSION_JUDGE_API_KEY", "test-key")
    run = utils.settings()
    assert run["judge"] == "llm"  # an endpoint makes the authors' judge the default
    assert run["judge_settings"] == {
        "url": endpoint,
        "model": "gpt-4o",
        "temperature": 0.7,
        "prompt": "paper",
    }
    _Endpoint.replies = [(200, "A: 2\nB: 9\nYour explanation: the answer says no.")]
    doc = {
        **_doc("ff"),
        "pair_id": "7",
        "image_key": "im2",
        "correct_letter": "B",
        "categories": ["Spinal"],
    }
    record = utils.mediconfusion_ff_process_results(doc, ["No enhancement is seen."])["set_acc"]
    assert record["predicted_letter"] == "B" and record["extra"]["votes"] == {"A": 2.0, "B": 9.0}
    assert record["extra"]["judge_settings"]["model"] == "gpt-4o"
    assert record["extra"]["judge_reply"] == "A: 2\nB: 9\nYour explanation: the answer says no."
    check_records("probe_record", [record], file="process_results")
    path, auth, body = _Endpoint.requests[0]
    assert path == "/v1/chat/completions" and auth == "Bearer test-key"
    assert body == {
        "model": "gpt-4o",
        "temperature": 0.7,
        "messages": [
            {"role": "system", "content": AUTHORS_JUDGE_SYSTEM},
            {
                "role": "user",
                "content": f"[Question]\n{Q}\n[Answer A]\n{A}\n[Answer B]\n{B}\n[Assistant]\nNo "
                f"enhancement is seen.\n[End of "
                f"Assistant]\n[System]\n{AUTHORS_JUDGE_INSTRUCTION}",
            },
        ],
    }


@pytest.mark.slow  # waits out the retry backoff
def test_endpoint_judge_retries_three_times_then_stops(endpoint):
    _Endpoint.replies = [(500, "busy"), (200, "A: 9\nB: 1\nYour explanation: -")]
    judge = llm_judge.endpoint_judge(endpoint, layout="code")
    assert judge(Q, A, B, "yes") == (9.0, 1.0) and len(_Endpoint.requests) == 2
    assert _Endpoint.requests[1][2]["messages"][1]["content"].startswith(
        f"[Question]\n{Q}\n\n[Answer A]"
    )
    _Endpoint.replies = [(500, "busy")] * 3
    with pytest.raises(
        RuntimeError, match=r"chat/completions failed 3 time\(s\); last error: HTTP 500"
    ):
        judge(Q, A, B, "yes")


def test_bad_judge_settings_fail_before_inference(monkeypatch):
    monkeypatch.delenv("MEDICONFUSION_JUDGE_URL", raising=False)
    monkeypatch.setenv("MEDICONFUSION_FF_JUDGE", "llm")
    with pytest.raises(ValueError, match="needs MEDICONFUSION_JUDGE_URL"):
        utils.settings()
    monkeypatch.setenv("MEDICONFUSION_JUDGE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEDICONFUSION_JUDGE_PROMPT", "slides")
    with pytest.raises(ValueError, match="MEDICONFUSION_JUDGE_PROMPT must be one of paper, code"):
        utils.settings()


# ---------------------------------------------------------------- the authors' image layout


def test_the_authors_image_layout_builds_the_same_dataset(tmp_path):
    """scripts/download.py saves every image as data/images/<im_local>.jpg (its default)."""
    from medvigil.suites.mediconfusion.export import build
    from medvigil.suites.mediconfusion.release import read_release
    from medvigil.suites.mediconfusion.roco import image_layout
    from medvigil.suites.mediconfusion.synthetic import write_sample

    write_sample(tmp_path / "rel", n_pairs=4, seed=3)
    dataset = tmp_path / "rel" / "data" / "dataset.json"
    release = read_release(dataset)
    repo = tmp_path / "MediConfusion"
    (repo / "data" / "images").mkdir(parents=True)
    for pair in release.pairs.values():
        for rel, local in ((pair.im_1, pair.im_1_local), (pair.im_2, pair.im_2_local)):
            shutil.copy(tmp_path / "rel" / "roco" / rel, repo / "data" / "images" / f"{local}.jpg")
    for given in (repo, repo / "data", repo / "data" / "images"):
        assert image_layout(release, given) == (repo / "data" / "images", "authors")
    roco = build(dataset, tmp_path / "rel" / "roco", tmp_path / "built-roco")
    authors = build(dataset, repo, tmp_path / "built-authors")
    assert authors.source_digest == roco.source_digest and authors.build_digest == roco.build_digest
    # a missing file is named by its ROCO path and its local name
    first = next(iter(release.pairs.values()))
    (repo / "data" / "images" / f"{first.im_1_local}.jpg").unlink()
    from medvigil.errors import DataError

    with pytest.raises(DataError) as info:
        build(dataset, repo, tmp_path / "built-again")
    (missing,) = info.value.problems[1:]
    assert missing.message.startswith(
        f"missing ROCO image {first.im_1!r}, saved as '{first.im_1_local}.jpg' "
        f"in the authors' layout"
    )
    assert (missing.file, missing.row, missing.field) == (
        "dataset.json",
        1,
        f"{first.pair_id}.im_1",
    )
    assert not (tmp_path / "built-again").exists()


# ---------------------------------------------------------------- Table 3

# Claude 3 Opus in Table 3 (set, indiv. per category, paper order)
TABLE3_CLAUDE = [
    "7.59",
    "55.70",
    "20.55",
    "58.90",
    "0.00",
    "44.78",
    "0.00",
    "52.94",
    "9.52",
    "45.24",
    "11.54",
    "53.85",
    "11.63",
    "51.16",
    "10.00",
    "50.00",
    "14.29",
    "50.00",
]


@needs_fixtures
def test_table3_rendered_in_full_from_the_authors_claude_run():
    """The authors' Claude MC run gives 17 of the 18 Table 3 cells of Claude 3 Opus exactly;
    Head & Neck individual is 31/67 = 46.27 here against 30/67 = 44.78 in the paper: that
    file's run has 180 correct images, the paper's (Table 1: 50.85 %) 179."""
    from medvigil.suites.mediconfusion.tables import tables
    from medvigil.suites.registry import score

    result = score(
        "mediconfusion",
        [FIXTURES / "Results__claude__claude_mc.json"],
        release=str(FIXTURES / "dataset.json"),
    )
    table = tables(result)[-1]
    assert table.headers == ["Model"] + [
        f"{c} {p}"
        for c in (
            "Cerebral",
            "Vascular",
            "Head & Neck",
            "Spinal",
            "Musculoskel.",
            "Cardiac",
            "Gastroint.",
            "Pulmonary",
            "Nuclear Med.",
        )
        for p in ("set", "indiv.")
    ]
    (row,) = table.rows
    assert row[0] == "claude"
    differ = [
        (table.headers[i + 1], ours, paper)
        for i, (ours, paper) in enumerate(zip(row[1:], TABLE3_CLAUDE))
        if ours != paper
    ]
    assert differ == [("Head & Neck indiv.", "46.27", "44.78")]
