"""MediConfusion modes and lmms-eval task pack: prompts, answer extraction, judges, real runs."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medvigil.records.schema_validation import check_records
from medvigil.suites.mediconfusion import judges, llm_judge, modes
from medvigil.suites.mediconfusion.record_scoring import score_records

SLOW_FIXTURES = {
    "lmms_run",
    "openai_run",
}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "tasks"
FIXTURE = (
    Path(os.environ.get("MEDVIGIL_SHARED") or ROOT.parent / "shared")
    / "fixtures"
    / "mediconfusion"
    / "dataset.json"
)


def _utils():
    spec = importlib.util.spec_from_file_location(
        "mediconfusion_task_utils_test", TASKS / "mediconfusion" / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


utils = _utils()

DOC = {
    "pair_id": "90001",
    "image_key": "im1",
    "question": "On which side of the patient is the pneumothorax?",
    "option_A": "Right",
    "option_B": "Left",
    "correct_letter": "B",
    "categories": ["Pulmonary"],
    "synthetic": True,
    "image": None,
    "choices": ["Right", "Left"],
}
NO_WRAP = {"pre_prompt": "", "post_prompt": ""}


def _doc(mode: str, **change) -> dict:
    protocol = "medvigil" if mode.endswith("_medvigil") else "authors"
    return {**DOC, "condition": utils.CONDITIONS[mode], "protocol": protocol, **change}


def _record(result: dict) -> dict:
    """The record of a process_results result: logged once, under the first metric; every other
    metric gets its score and pair (lmms-eval's clustered standard error) and carries it in
    memory."""
    first, *others = utils.METRIC_DIRECTIONS
    assert list(result) == [first, *others, "score"]
    record = result[first]
    assert (
        result["score"]
        == record["score"]
        == float(record["predicted_letter"] == record["correct_letter"])
    )
    for name in others:
        assert json.loads(json.dumps(result[name])) == {
            "score": record["score"],
            "case_id": record["case_id"],
        }
        assert result[name].record is record
    record = json.loads(json.dumps(record))
    check_records("probe_record", [record], file="process_results")
    return record


def test_utils_doctests():
    import doctest

    from medvigil.scoring import loglikelihood

    # the log-likelihood reader moved to the core (shared with CbD); its examples live there
    for module in (utils, loglikelihood):
        result = doctest.testmod(module)
        assert result.failed == 0
    assert doctest.testmod(loglikelihood).attempted > 0


# ------------------------------------------------------------------ prompts (frozen)


def test_prompt_snapshots():
    # the authors' prompts (defaults; checked against their strings in
    # test_mediconfusion_protocol.py)
    assert utils.mediconfusion_doc_to_text(_doc("mc"), NO_WRAP) == (
        "Based on the image, choose the correct option for the following question.\n"
        "Question: On which side of the patient is the pneumothorax?\n"
        '("A": Right)\n("B": Left)\n'
        "Answer with the option's letter from the given choices directly. "
        "Your answer should be just one letter.\n"
        '#answer: ("'
    )
    assert (
        utils.mediconfusion_doc_to_text(_doc("ps"), NO_WRAP)
        == "Question: On which side of the patient is the pneumothorax? Answer:"
    )
    # medvigil 0.1 (tasks *_medvigil)
    assert utils.mediconfusion_doc_to_text(_doc("mc_medvigil"), NO_WRAP) == (
        "On which side of the patient is the pneumothorax?\nOptions:\nA. Right\nB. Left\n"
        "Answer with the option's letter from the given choices directly."
    )
    # PS and FF: no options and no letters (paper Sec. 3.1)
    assert utils.mediconfusion_doc_to_text(_doc("ps_medvigil"), NO_WRAP) == DOC["question"]
    assert utils.mediconfusion_doc_to_text(_doc("ff_medvigil"), NO_WRAP) == (
        "Based on the image, answer the following question.\nOn "
        "which side of the patient is the pneumothorax?"
    )
    # pre_prompt / post_prompt still wrap any style
    wrapped = utils.mediconfusion_doc_to_text(
        _doc("ff"), {"pre_prompt": "<image>\n", "post_prompt": " Be brief."}
    )
    assert (
        wrapped == "<image>\nBased on the image, answer following question.\nOn "
        "which side of the patient is the pneumothorax? Be brief."
    )
    assert (
        utils.mediconfusion_ps_doc_to_choice(DOC) == ["Right", "Left"]
        and utils.mediconfusion_ps_doc_to_target(DOC) == 1
    )


def test_authors_system_prompt_for_api_models():
    """Their init_prompts.default (spelling kept) as the system turn of the API models in MC and FF;
    other models get no system turn."""
    import yaml

    from medvigil.suites.mediconfusion import prompts

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    for mode in ("mc", "ff"):
        config = yaml.load(
            (ROOT / "tasks" / "mediconfusion" / f"mediconfusion_{mode}.yaml").read_text(),
            Loader=Loader,
        )
        kwargs = config["lmms_eval_specific_kwargs"]
        assert {m for m, k in kwargs.items() if "system_prompt" in k} == set(prompts.API_MODELS)
        messages = utils.mediconfusion_doc_to_messages(_doc(mode), kwargs["openai"])
        assert messages[0] == {
            "role": "system",
            "content": [
                {"type": "text", "text": "You are a helpful assitant expert in medical domain."}
            ],
        }
        # the chat turn holds the prompt; the text form (simple adapters) has the system line first
        assert utils.mediconfusion_doc_to_text(_doc(mode), kwargs["openai"]) == (
            f"{prompts.AUTHORS_SYSTEM_PROMPT}\n{messages[1]['content'][0]['text']}"
        )
        assert messages[1]["content"][0]["text"] == utils.mediconfusion_doc_to_text(
            _doc(mode), {**kwargs["openai"], "system_prompt": ""}
        )
        assert [
            m["role"] for m in utils.mediconfusion_doc_to_messages(_doc(mode), kwargs["default"])
        ] == ["user"]
    assert prompts.authors_gen_kwargs("gpt") == "temperature=0.7,do_sample=True"
    assert (
        prompts.authors_gen_kwargs("instructblip")
        == "temperature=1,do_sample=True,top_p=0.9,num_beams=5,max_new_tokens=128"
    )


def test_baselines_read_the_options():
    from medvigil.mcq.prompting import parse_mcq_prompt

    # medvigil's MC layout has an options block the baselines parse, like a model reads it
    question, options = parse_mcq_prompt(
        utils.mediconfusion_doc_to_text(_doc("mc_medvigil"), NO_WRAP)
    )
    assert question == DOC["question"] and options == {"A": "Right", "B": "Left"}
    # the authors' layout has none: the baselines answer over `choices`, with a letter for MC/GD
    with pytest.raises(ValueError, match="no 'Options:' line"):
        parse_mcq_prompt(utils.mediconfusion_doc_to_text(_doc("mc"), NO_WRAP))


# ------------------------------------------------------------------ per-mode answers and records


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("B", "B"),
        ("  A. Right", "A"),
        ("The answer is B.", "B"),
        ('A")', "A"),
        ("C", None),
        ("Both", None),
        ("a", None),
        ("", None),
        ("A or B", None),
    ],
)
def test_mc_records(response, letter):
    record = _record(utils.mediconfusion_mc_process_results(_doc("mc"), [response]))
    assert record["predicted_letter"] == letter
    assert record["parse_status"] == ("ok" if letter else "parse_failure")
    assert (record["probe_id"], record["case_id"], record["condition"], record["category"]) == (
        "90001:im1",
        "90001",
        "mc",
        "Pulmonary",
    )
    assert record["extra"]["image"] == "im1" and record["extra"]["mode_label"] == "MC"


def test_gd_reads_lmms_eval_results_in_both_conventions():
    # lmms-eval 0.7.3 hands process_results str((value, is_greedy)); HF models return the mean NLL
    nll = _record(
        utils.mediconfusion_gd_process_results(_doc("gd"), ["(2.5, False)", "(0.1, True)"])
    )
    assert nll["predicted_letter"] == "B" and nll["extra"]["value_kinds"] == [
        "mean_nll",
        "mean_nll",
    ]
    logprob = _record(
        utils.mediconfusion_gd_process_results(_doc("gd"), [(0.0, True), (-10000.0, False)])
    )
    assert (
        logprob["predicted_letter"] == "A"
        and logprob["extra"]["normalisation_applied"] == "single_token"
    )
    tie = _record(
        utils.mediconfusion_gd_process_results(_doc("gd"), ["(1.0, False)", "(1.0, False)"])
    )
    assert tie["predicted_letter"] is None and tie["extra"]["note"] == "tie"


def test_ps_normalisation_is_a_parameter(monkeypatch):
    doc = _doc(
        "ps",
        option_A="Pneumothorax",
        option_B="Pleural effusion",
        choices=["Pneumothorax", "Pleural effusion"],
    )
    # total log-probabilities: -12 over 12 chars (-1.0/char) vs -13 over 16 chars (-0.8125/char)
    results = ["(-12.0, False)", "(-13.0, False)"]
    assert (
        _record(utils.mediconfusion_ps_process_results(doc, results))["predicted_letter"] == "A"
    )  # as is: -12 > -13
    monkeypatch.setenv("MEDICONFUSION_PS_NORMALISATION", "per_char")
    record = _record(utils.mediconfusion_ps_process_results(doc, results))
    assert record["predicted_letter"] == "B" and record["extra"]["ps_normalisation"] == "per_char"
    monkeypatch.setenv("MEDICONFUSION_PS_NORMALISATION", "per_token")
    mean_nll = _record(
        utils.mediconfusion_ps_process_results(doc, ["(0.9, False)", "(0.4, False)"])
    )
    assert mean_nll["predicted_letter"] == "B" and mean_nll["extra"]["option_scores"] == [
        -0.9,
        -0.4,
    ]


def test_ff_records_use_the_judge_and_the_gap_rule():
    record = _record(
        utils.mediconfusion_ff_process_results(_doc("ff"), ["There is a pneumothorax on the left."])
    )
    assert record["predicted_letter"] == "B" and record["extra"]["judge"] == "token_f1"
    # 'pneumothorax' echoes the question and is dropped, leaving {left}: F1 1.0 with B, 0 with A
    assert record["extra"]["votes"] == {"A": 1, "B": 10} and record["raw_response"].startswith(
        "There is"
    )
    vague = _record(
        utils.mediconfusion_ff_process_results(_doc("ff"), ["I cannot tell from this image."])
    )
    assert vague["predicted_letter"] is None and vague["extra"]["votes"] == {"A": 1, "B": 1}


def test_settings_are_checked_before_inference(monkeypatch):
    monkeypatch.setenv("MEDICONFUSION_PS_NORMALISATION", "per_word")
    with pytest.raises(ValueError, match="MEDICONFUSION_PS_NORMALISATION"):
        utils.settings()
    monkeypatch.delenv("MEDICONFUSION_PS_NORMALISATION")
    monkeypatch.setenv("MEDICONFUSION_FF_JUDGE", "token_f2")
    with pytest.raises(ValueError, match="Did you mean 'token_f1'"):
        utils.settings()
    monkeypatch.setenv("MEDICONFUSION_FF_JUDGE", "token_f1")
    monkeypatch.setenv("MEDICONFUSION_MARGIN", "-1")
    with pytest.raises(ValueError, match="MEDICONFUSION_MARGIN"):
        utils.settings()
    monkeypatch.setenv("MEDICONFUSION_MARGIN", "5")
    assert utils.settings()["margin"] == 5


def test_aggregations_call_the_scoring_core():
    records = []
    answers = {
        ("1", "im1"): "A",
        ("1", "im2"): "B",
        ("2", "im1"): "A",
        ("2", "im2"): "A",
        ("3", "im1"): "",
        ("3", "im2"): "A",
    }
    gold = {"1": ("A", "B"), "2": ("B", "A"), "3": ("A", "B")}
    for (pair, key), response in answers.items():
        doc = _doc(
            "mc",
            pair_id=pair,
            image_key=key,
            correct_letter=gold[pair][key == "im2"],
            categories=["Cerebral"],
        )
        records.append(_record(utils.mediconfusion_mc_process_results(doc, [response])))
    assert utils.mediconfusion_aggregate_set_acc(records) == pytest.approx(100 / 3)
    assert utils.mediconfusion_aggregate_indiv_acc(records) == pytest.approx(100 * 3 / 6)
    assert utils.mediconfusion_aggregate_confusion(records) == pytest.approx(
        50.0
    )  # 1 of 2 pairs with two valid answers
    assert utils.mediconfusion_aggregate_invalid(records) == 1.0
    score = score_records(records)
    assert (
        score.totals["set_score"],
        score.totals["individual_score"],
        score.totals["invalid"],
    ) == (1, 3, 1)


# ------------------------------------------------------------------ modes and judges


def test_likelihood_value_kinds():
    assert modes.gd_scores([0.3, -2.1]).votes == (
        0,
        0,
    )  # one loss and one log-probability: not one model
    assert modes.gd_scores([0.3, 2.1], value_kind="sum_logprob").votes == (
        0,
        0,
    )  # positive log-probabilities
    assert modes.prefix_scores([0.5, 0.7], ["a", "b"], normalisation="per_char").votes == (0, 0)
    assert modes.prefix_scores([-1.0, -4.0], ["a", "bbbbbbbb"], normalisation="per_char").votes == (
        0,
        10,
    )
    with pytest.raises(ValueError, match="normalisation"):
        modes.prefix_scores([-1.0, -2.0], ["a", "b"], normalisation="per_word")


def test_token_f1_judge_definition():
    judge = judges.token_f1_judge
    assert judge("Which side?", "Left", "Right", "Left") == (10, 1)
    assert judge("Which side?", "Left", "Right", "") == (1, 1)
    # F1 2/3 with 'not effaced', halved because exactly one side is negated
    assert judge("Fourth ventricle?", "Effaced", "Not effaced", "effaced") == (10, 4)
    assert judge(
        "Which lobe?", "Frontal lobe", "Occipital lobe", "It is in the frontal region"
    ) == (6, 1)
    assert judge("Which lobe?", "Frontal lobe", "Occipital lobe", "lobe") == (7, 7)
    assert (
        judges.judge_response("Which lobe?", "Frontal lobe", "Occipital lobe", "lobe").letter
        is None
    )  # gap 0
    result = judges.judge_response("Fourth ventricle?", "Effaced", "Not effaced", "effaced")
    assert result.letter == "A"  # gap 6
    assert (
        judges.judge_response(
            "Fourth ventricle?", "Effaced", "Not effaced", "effaced", margin=7
        ).letter
        is None
    )


@pytest.mark.skipif(not FIXTURE.is_file(), reason="shared MediConfusion fixture not present")
def test_token_f1_judge_reads_every_real_option_verbatim():
    from medvigil.suites.mediconfusion.release import read_release

    for pair in read_release(FIXTURE).pairs.values():
        for letter, option in zip("AB", pair.options):
            assert (
                judges.judge_response(pair.question, pair.option_A, pair.option_B, option).letter
                == letter
            ), pair.pair_id


def test_judges_are_pluggable(tmp_path, monkeypatch):
    calls = []

    def complete(system: str, prompt: str) -> str:
        calls.append((system, prompt))
        return "A: 2\nB: 9\nYour explanation: the response names the right side."

    judges.register_judge("fake_llm", llm_judge.make_llm_judge(complete), overwrite=True)
    result = judges.judge_response("Which side?", "Left", "Right", "right", judge="fake_llm")
    assert result.letter == "B" and result.scores == (2.0, 9.0)
    system, prompt = calls[0]
    assert system == llm_judge.JUDGE_SYSTEM_MESSAGE
    assert prompt.startswith(
        "[Question]\nWhich side?\n[Answer A]\nLeft\n[Answer B]\nRight\n[Assistant]\nright\n"
    )
    assert "fake_llm" in judges.available_judges()
    with pytest.raises(ValueError, match="already registered"):
        judges.register_judge("fake_llm", complete)

    (tmp_path / "my_judges.py").write_text(
        "def constant(question, a, b, response):\n    return (9, 1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert judges.judge_response("Q?", "x", "y", "z", judge="my_judges:constant").letter == "A"
    (tmp_path / "bad_judges.py").write_text(
        "def eleven(question, a, b, response):\n    return (11, 1)\n"
    )
    with pytest.raises(ValueError, match=r"two scores in \[1, 10\]"):
        judges.judge_response("Q?", "x", "y", "z", judge="bad_judges:eleven")
    with pytest.raises(ValueError, match="no 'A: <score>'"):
        llm_judge.parse_judge_reply("Answer A is closer.")


# ------------------------------------------------------------------ real lmms-eval runs

# Runs lmms-eval in a subprocess. The baselines answer prompts without an options block (the
# authors' MC/GD layout, every PS/FF prompt) over the doc's `choices` (tasks/baseline_models.py;
# tasks/mediconfusion/README.md, "Baselines").

MODES = ("mc", "gd", "ps", "ff", "mc_medvigil", "gd_medvigil", "ps_medvigil", "ff_medvigil")


def _built(base: Path) -> dict:
    """An 8-pair synthetic MediConfusion build under ``base``; the environment lmms-eval runs it
    in."""
    from medvigil.suites.mediconfusion.export import build
    from medvigil.suites.mediconfusion.synthetic import write_sample

    write_sample(base / "rel", n_pairs=8, seed=0)
    build(base / "rel" / "data" / "dataset.json", base / "rel" / "roco", base / "built")
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_DATASETS_CACHE=str(base / "hf-cache"),
        MEDICONFUSION_DATA=str(base / "built"),
    )
    for key in (
        "MEDICONFUSION_PS_NORMALISATION",
        "MEDICONFUSION_LL_KIND",
        "MEDICONFUSION_FF_JUDGE",
        "MEDICONFUSION_MARGIN",
        "MEDICONFUSION_JUDGE_URL",
    ):
        env.pop(key, None)
    return env


@pytest.fixture(scope="module")
def lmms_run(tmp_path_factory):
    """One lmms-eval invocation of both groups (four modes, authors' and medvigil's prompts),
    always-A baseline."""
    pytest.importorskip("lmms_eval")
    base = tmp_path_factory.mktemp("mediconfusion_lmms")
    env = _built(base)
    command = [
        sys.executable, "-m", "lmms_eval",
        "--model", "constant", "--model_args", "letter=A",
        "--tasks", "mediconfusion,mediconfusion_medvigil", "--include_path", str(TASKS),
        "--output_path", str(base / "out"), "--log_samples",
    ]  # fmt: skip
    start = time.monotonic()
    proc = subprocess.run(
        command, check=False, env=env, cwd=base, capture_output=True, text=True, timeout=600
    )
    seconds = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    # no judge endpoint: the FF tasks say they judge offline with token_f1
    assert (proc.stdout + proc.stderr).count("judged offline by token_f1") == 2
    (results_file,) = (base / "out").rglob("*_results.json")
    samples = {m: next((base / "out").rglob(f"*_samples_mediconfusion_{m}.jsonl")) for m in MODES}
    print(f"lmms-eval run of the eight MediConfusion tasks: {seconds:.1f} s")
    return json.loads(results_file.read_text()), samples, seconds


@pytest.mark.parametrize("mode", MODES)
def test_always_a_baseline_in_a_real_lmms_eval_run(lmms_run, mode):
    results, samples, _ = lmms_run
    table = results["results"][f"mediconfusion_{mode}"]
    # balanced pairs: always-A is right on exactly one image of every pair (paper's random: 25 % /
    # 50 %)
    assert table["set_acc,none"] == 0.0
    assert table["indiv_acc,none"] == 50.0
    assert table["confusion,none"] == 100.0
    assert table["invalid,none"] == 0.0
    lines = [json.loads(line) for line in samples[mode].read_text().splitlines()]
    # the prompt lmms-eval sent is the task's style: the authors' by default, medvigil 0.1's for
    # *_medvigil
    sent = lines[0]["input"]
    protocol = "medvigil" if mode.endswith("_medvigil") else "authors"
    assert sent.startswith(
        {
            "authors": {
                "mc": "Based on the image, choose",
                "gd": "Based on the image, choose",
                "ps": "Question: ",
                "ff": "Based on the image, answer following question.\n",
            },
            "medvigil": {"ff": "Based on the image, answer the following question.\n"},
        }[protocol].get(mode.removesuffix("_medvigil"), "")
    )
    assert ("\nOptions:\nA. " in sent) == (protocol == "medvigil" and mode[:2] in ("mc", "gd"))
    records = [r["set_acc"] for r in lines]
    assert len(records) == 16 and {r["condition"] for r in records} == {utils.CONDITIONS[mode]}
    check_records("probe_record", records, file=samples[mode].name)
    assert all(r["predicted_letter"] == "A" for r in records)
    rescored = score_records(records)
    assert (rescored.set_accuracy, rescored.individual_accuracy) == (0.0, 0.5)


def test_cli_rescores_the_lmms_eval_logs(lmms_run):
    """`medvigil score --suite mediconfusion` reads lmms-eval logs: one run per mode, same
    numbers."""
    results, samples, _ = lmms_run
    base = next(p for p in next(iter(samples.values())).parents if (p / "rel").is_dir())
    release = base / "rel" / "data" / "dataset.json"
    assert release.is_file()
    proc = subprocess.run(
        [sys.executable, "-m", "medvigil", "score", "--suite", "mediconfusion",
         "--release", str(release), *map(str, samples.values()), "--json", "-"],
        check=False, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    scored = json.loads(proc.stdout)
    runs = {run["mode"]: run for run in scored["runs"]}
    assert set(runs) == {utils.CONDITIONS[m] for m in MODES}
    for mode in MODES:
        run, table = runs[utils.CONDITIONS[mode]], results["results"][f"mediconfusion_{mode}"]
        assert run["model"] == "constant(letter=A)" and run["n_missing_pairs"] == 0
        assert 100 * run["set_accuracy"] == table["set_acc,none"]
        assert 100 * run["individual_accuracy"] == table["indiv_acc,none"]
    assert set(scored["best_over_modes"]) == {"constant(letter=A)"}


def test_runs_in_the_order_of_their_first_files(lmms_run, tmp_path):
    """Several models' logs interleaved: one run per file, in the order of the files; a bad log is
    named with its line."""
    from medvigil.errors import DataError
    from medvigil.suites.mediconfusion import entry
    from medvigil.suites.mediconfusion.release import read_release

    _, samples, _ = lmms_run
    base = next(p for p in next(iter(samples.values())).parents if (p / "rel").is_dir())
    release = read_release(base / "rel" / "data" / "dataset.json")
    run_folder = next(iter(samples.values())).parent
    copies = {}
    for name in ("m1", "m2", "m3"):  # the real run as three models
        folder = tmp_path / name
        shutil.copytree(run_folder, folder)
        (results,) = folder.glob("*_results.json")
        data = json.loads(results.read_text())
        data["config"].update(model=name, model_args="")
        results.write_text(json.dumps(data))
        copies[name] = sorted(folder.glob("*_samples_mediconfusion_*.jsonl"))
    logs = [
        str(p) for trio in zip(*copies.values()) for p in trio
    ]  # interleaved: m1 mc, m2 mc, m3 mc, m1 gd, ...
    scored = entry._scored_logs(logs, release, "both_valid")
    assert [e["file"] for e, _ in scored] == logs  # one run per file, named by it
    text = Path(logs[4]).read_text()
    Path(logs[4]).write_text(
        text.replace("\n", "\n" + text[:50] + "\n", 1)
    )  # m2's second log: a line cut short
    with pytest.raises(DataError) as bad:
        entry.score(logs, release=str(base / "rel" / "data" / "dataset.json"))
    assert logs[4] in str(bad.value.problems[0]) and "row 2" in str(bad.value.problems[0])


# ------------------------------------------------------------------ the OpenAI-compatible route, on
# the wire


@pytest.fixture(scope="module")
def openai_run(tmp_path_factory):
    """lmms-eval's own `openai` client (chat) on `mediconfusion_mc` and `mediconfusion_ff` against
    the loopback `medvigil serve-baseline` server (policy constant:letter=A), every request body
    kept."""
    pytest.importorskip("lmms_eval")
    from medvigil.baselines import server

    base = tmp_path_factory.mktemp("mediconfusion_openai")
    env = _built(base)
    seen: list[dict] = []
    answer = server.completion

    def recording(body):
        seen.append(body)
        return answer(body)

    with pytest.MonkeyPatch.context() as mp, server.BaselineServer(0) as srv:
        mp.setattr(server, "completion", recording)
        args = (
            f"model_version=constant:letter=A,base_url={srv.base_url},"
            "api_key=unused,num_concurrent=1"
        )
        command = [
            sys.executable, "-m", "lmms_eval", "--model", "openai", "--model_args", args,
            "--tasks", "mediconfusion_mc,mediconfusion_ff", "--include_path", str(TASKS),
            "--output_path", str(base / "out"), "--log_samples", "--limit", "4",
        ]  # fmt: skip
        proc = subprocess.run(
            command, check=False, env=env, cwd=base, capture_output=True, text=True, timeout=600
        )
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stdout + proc.stderr, (
        proc.stdout[-3000:] + proc.stderr[-5000:]
    )
    return seen, base / "out"


def _text(message: dict) -> str:
    return "".join(c["text"] for c in message["content"] if c.get("type") == "text")


def test_openai_route_sends_the_authors_gpt_protocol(openai_run):
    """MC: their GPT system prompt (typo kept) as the system message, then one user turn with their
    `mc.gpt` text and the image (the order of their Models/gpt.py), temperature 0 (their MC), 32
    tokens. FF: the same system prompt, their `gpt4.default` text and their GPT temperature 0.7."""
    from medvigil.suites.mediconfusion import prompts

    seen, _ = openai_run
    mc = [b for b in seen if "Answer with the option's letter" in json.dumps(b)]
    ff = [b for b in seen if b not in mc]
    assert len(mc) == len(ff) == 4
    for body in seen:
        system, user = body["messages"]
        assert system["role"] == "system"
        assert _text(system) == "You are a helpful assitant expert in medical domain."
        assert user["role"] == "user" and [c["type"] for c in user["content"]] == [
            "text",
            "image_url",
        ]
    for body in mc:
        text = _text(body["messages"][1])
        assert text.startswith(
            "Based on the image, choose the correct option for the following question.\nQuestion: "
        )
        assert "\nA: " in text and "\nB: " in text and '("A"' not in text
        assert text.endswith(
            "Answer with the option's letter from the given choices directly. "
            "Your answer should be just one letter.\nAnswer: "
        )
        assert body["temperature"] == 0 and body["max_tokens"] == 32
    for body in ff:
        assert _text(body["messages"][1]).startswith(
            "Based on the image, answer following question.\n"
        )
        assert body["temperature"] == 0.7  # their configs/Models/gpt/vanilla.json
    # the text is their template, character for character, for the docs sent
    question = _text(mc[0]["messages"][1]).split("\nQuestion: ", 1)[1].split("\nA: ", 1)[0]
    a, b = (
        _text(mc[0]["messages"][1]).split("\nA: ", 1)[1].split("\nAnswer with", 1)[0].split("\nB: ")
    )
    assert _text(mc[0]["messages"][1]) == prompts.render("mc", "authors_gpt", question, a, b)


def test_openai_route_scores_without_a_generation_warning(openai_run):
    """The FF temperature 0.7 is the protocol of the `openai` route (the task's per-model generation
    settings), so `medvigil score` does not call it a deviation."""
    from medvigil.runs.generation import generation_report

    _, out = openai_run
    report = generation_report([out], prefix="mediconfusion_")
    assert report["tasks"]["mediconfusion_ff"]["protocol"]["temperature"] == 0.7
    assert report["tasks"]["mediconfusion_ff"]["differs"] == {} and report["warnings"] == []


def test_adapter_deviations_name_what_lmms_eval_cannot_send():
    from medvigil.suites.mediconfusion import prompts

    assert any("system prompt" in d for d in prompts.adapter_deviations("gpt4v", "mc"))
    assert any("system prompt" in d for d in prompts.adapter_deviations("claude", "ff"))
    assert not any("system prompt" in d for d in prompts.adapter_deviations("openai", "mc"))
    assert prompts.adapter_deviations("llava_hf", "mc") == []
    (greedy,) = prompts.adapter_deviations("llava_hf", "ff")  # their LLaVA sampled at 0.2 in FF
    assert "greedily" in greedy and "temperature=0.2" in greedy
    assert prompts.adapter_deviations("qwen2_5_vl", "ff") == []  # a model they did not run
    # the simple adapters get the system prompt on the first line of their one user turn
    kwargs = {"prompt_style": "authors_gpt", "system_prompt": prompts.AUTHORS_SYSTEM_PROMPT}
    assert utils.mediconfusion_doc_to_text(_doc("mc"), kwargs).startswith(
        prompts.AUTHORS_SYSTEM_PROMPT + "\nBased on the image"
    )
