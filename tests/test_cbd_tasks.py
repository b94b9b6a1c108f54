"""Consistent but Dangerous (seed 004) as lmms-eval tasks: real runs of our baselines.

One module-scoped synthetic build (12 cases, the credentialed ones withheld) and three
lmms-eval subprocesses run in parallel, exactly as a user runs them:
``--tasks cbd,cbd_quadrants`` for ``constant(letter=A)``, ``blind`` and ``grounded``.
The quadrant facts asserted follow from how the baselines work (medvigil/baselines):
constant ignores prompt and image; blind reads only the prompt text; grounded reads the
phantom and, without an image, falls back to the blind prior.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from medvigil.pipeline import offline_env
from medvigil.suites.cbd.arm_scoring import binary_table, quadrant_table
from medvigil.suites.cbd.arms import BINARY_ARMS
from medvigil.suites.cbd.docs import plan_docs
from medvigil.suites.cbd.paraphrases import SOURCES, paraphrase_setting
from medvigil.suites.cbd.records import make_record
from medvigil.suites.cbd.result import suite_result
from medvigil.suites.cbd.task_metrics import arm_metrics, binary_metrics, table_metrics

SLOW_FIXTURES = {"runs"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

pytest.importorskip("lmms_eval")
ROOT = Path(__file__).resolve().parents[1]
CASES = 12
MODELS = {
    "constant": ("constant", "letter=A"),
    "blind": ("blind", ""),
    "grounded": ("grounded", ""),
}
ARM_TASKS = ("cbd_image", "cbd_noimg", "cbd_quadrants")
SAMPLED = ("grounded", "temperature=1,seed=0")  # run "sampled": cbd_binary only, graded p(yes)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("cbd_runs")
    generate_release(base / "release", cases=CASES, seed=1)
    build(base / "release", base / "build" / "medvigil")
    procs = {}
    for name, (model, args) in {**MODELS, "sampled": SAMPLED}.items():
        tasks = "cbd_binary" if name == "sampled" else "cbd,cbd_quadrants,cbd_binary"
        cmd = [
            sys.executable,
            "-m",
            "lmms_eval",
            "--model",
            model,
            "--tasks",
            tasks,
            "--include_path",
            str(ROOT / "tasks"),
            "--output_path",
            str(base / name),
            "--log_samples",
        ]
        cmd += ["--model_args", args] if args else []
        env = offline_env(base / "build" / "medvigil")
        env["HF_DATASETS_CACHE"] = str(
            base / f"hf-cache-{name}"
        )  # parallel runs: no shared cache lock
        procs[name] = subprocess.Popen(
            cmd, env=env, cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        # lmms-eval 0.7.3 logs an evaluation error and still exits 0
        assert proc.returncode == 0 and "Error during evaluation" not in err, (
            f"{name}:\n{out[-2000:]}{err[-4000:]}"
        )
    return base


def _samples(runs: Path, model: str, task: str) -> Path:
    (path,) = (runs / model).rglob(f"*_samples_{task}.jsonl")
    return path


def _table(runs: Path, model: str, task: str) -> dict:
    (path,) = (runs / model).rglob("*_results.json")
    return {
        k.split(",")[0]: v
        for k, v in json.loads(path.read_text())["results"][task].items()
        if "_stderr" not in k
    }


def _records(runs: Path, model: str, *tasks: str) -> list[dict]:
    from medvigil.records.lmms_eval_logs import (
        read_samples,
    )  # validates every record against the schema

    return read_samples([_samples(runs, model, t) for t in tasks])


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def _letters(records: list[dict], condition: str) -> dict[str, str]:
    """case -> answer to the original question q under one condition."""
    return {
        r["case_id"]: r["predicted_letter"]
        for r in records
        if r["condition"] == condition and r["extra"]["paraphrase_index"] == 0
    }


def test_records_carry_the_paraphrase_set(runs):
    lines = [json.loads(x) for x in _samples(runs, "grounded", "cbd_image").open()]
    by_case: dict[str, list] = {}
    for line in lines:
        by_case.setdefault(line["accuracy"]["case_id"], []).append(line)
    assert 8 <= len(by_case) <= CASES  # credentialed (CXR) cases are withheld from the build
    for items in by_case.values():
        indices = [it["accuracy"]["extra"]["paraphrase_index"] for it in items]
        assert indices[:2] == [0, 1] and len(set(indices)) == len(indices) >= 3
        # the options block and the gold never change across the paraphrase set
        assert len({it["input"].split("Options:")[1] for it in items}) == 1
        assert {it["accuracy"]["correct_letter"] for it in items} == {"A"}
        assert len({it["input"].split("Options:")[0] for it in items}) == len(
            items
        )  # distinct wordings
    noimg = _records(runs, "grounded", "cbd_noimg")
    assert {r["condition"] for r in noimg} == {"noimg"} and {r["probe_kind"] for r in noimg} == {
        "original"
    }
    assert {r["case_id"] for r in noimg} == set(by_case)


@pytest.mark.parametrize("model", list(MODELS))
def test_lmms_eval_tables_equal_recomputation_from_the_logs(runs, model):
    arms = _records(runs, model, "cbd_image", "cbd_noimg")
    (result,) = quadrant_table(arms).values()
    (same,) = quadrant_table(_records(runs, model, "cbd_quadrants")).values()
    assert json.dumps(result, sort_keys=True) == json.dumps(
        same, sort_keys=True
    )  # one task or two: same table
    expected = {
        "cbd_quadrants": table_metrics(result),
        "cbd_image": arm_metrics(_records(runs, model, "cbd_image"), "image"),
        "cbd_noimg": arm_metrics(_records(runs, model, "cbd_noimg"), "noimg"),
    }
    for task in ARM_TASKS:
        table = _table(runs, model, task)
        # and the mean per-doc score (lmms-eval's --baseline compares it): the accuracy of the docs
        assert set(table) - {"alias", " ", "score"} == set(expected[task])
        for name, value in expected[task].items():
            assert _same(table[name], value), (task, name, table[name], value)
    assert (
        _table(runs, model, "cbd_image")["flip_rate"]
        == _table(runs, model, "cbd_quadrants")["flip_rate"]
    )


def test_always_a_is_all_dangerous(runs):
    """Same letter for every prompt, image or not: consistent (Eq. 1) and not image-reliant (Eq.
    2)."""
    (r,) = quadrant_table(_records(runs, "constant", "cbd_quadrants")).values()
    assert r["counts"]["Dangerous"] == r["n_samples"] == r["n_evaluable"] > 0
    assert (
        r["flip_rate"] == 0.0 and r["dangerous_fraction"] == 1.0 and r["image_reliance_rate"] == 0.0
    )
    # published convention: the original probe's gold is A, so the Dangerous samples are all correct
    assert r["accuracy_by_quadrant"] == {
        "Ideal": None,
        "Fragile": None,
        "Dangerous": 1.0,
        "Worst": None,
    }


def test_blind_never_relies_on_the_image(runs):
    records = _records(runs, "blind", "cbd_quadrants")
    (r,) = quadrant_table(records).values()
    assert r["image_reliance_rate"] == 0.0 and r["counts"]["Ideal"] == r["counts"]["Fragile"] == 0
    assert _letters(records, "default") == _letters(
        records, "noimg"
    )  # same prompt text, image unread
    assert r["counts"]["Dangerous"] + r["counts"]["Worst"] == r["n_samples"]


def test_grounded_answers_change_without_the_image(runs):
    grounded = _records(runs, "grounded", "cbd_quadrants")
    blind = _letters(_records(runs, "blind", "cbd_quadrants"), "noimg")
    assert _letters(grounded, "noimg") == blind  # no image: grounded falls back to the blind prior
    image = _letters(grounded, "default")
    (r,) = quadrant_table(grounded).values()
    # Eq. 2 per case: reliant exactly where the phantom reading departs from the text prior
    changed = sum(image[c] != blind[c] for c in image)
    assert changed > 0 and r["image_reliance_rate"] == pytest.approx(changed / len(image))
    assert r["counts"]["Ideal"] + r["counts"]["Fragile"] == changed


def test_binary_arm_reads_p_yes_from_loglikelihoods(runs):
    """grounded at temperature 1 scores the continuations with its sampling distribution over
    yes/no: p(own answer) = e^2 / (e^2 + 1) = 0.8808, so every p(yes) is 0.8808 or 0.1192 and
    every entropy is H(0.8808) = 0.3653 nats."""
    records = read_samples_of(runs / "sampled", "cbd_binary")
    p_own = math.e**2 / (math.e**2 + 1)
    h = -(p_own * math.log(p_own) + (1 - p_own) * math.log(1 - p_own))
    assert {round(r["extra"]["p_yes"], 4) for r in records} <= {
        round(p_own, 4),
        round(1 - p_own, 4),
    }
    assert {r["condition"] for r in records} == set(BINARY_ARMS.values())
    (result,) = binary_table(records).values()
    assert result["mean_entropy"] == pytest.approx(h)
    assert all(
        v is None or v == pytest.approx(h) for v in result["mean_entropy_by_quadrant"].values()
    )
    (path,) = (runs / "sampled").rglob("*_results.json")
    table = {
        k.split(",")[0]: v
        for k, v in json.loads(path.read_text())["results"]["cbd_binary"].items()
        if "_stderr" not in k
    }
    for name, value in binary_metrics(records).items():
        assert _same(table[name], value), name
    # the deterministic constant model says yes to everything: p(yes) = 1; the negated paraphrase
    # ("Is there no X?", read in q's polarity) flips every sample, and no answer needs the image:
    # Worst
    (const,) = binary_table(_records(runs, "constant", "cbd_binary")).values()
    assert const["counts"]["Worst"] == const["n_samples"] > 0
    assert const["mean_entropy"] is None or const["mean_entropy"] == 0.0
    labels = [
        r["extra"]["label"]
        for r in _records(runs, "constant", "cbd_binary")
        if r["condition"] == "binary" and r["probe_kind"] == "original"
    ]
    assert const["accuracy"] == pytest.approx(labels.count("yes") / len(labels))


def test_binary_docs_ask_presence_questions(runs):
    """What lmms-eval asked in cbd_binary: "Is there [finding]?" and its paraphrases, no proposed
    answer, 35-65 % of the docs with gold yes (lmms-eval's target, the answer as asked)."""
    (path,) = (runs / "constant").rglob("*_samples_cbd_binary.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert lines and all("Proposed answer" not in line["input"] for line in lines)
    assert all(line["input"].startswith(("Is there", "Is a", "Is an")) for line in lines)
    yes = sum(str(line["target"]) in ("0", "yes") for line in lines) / len(lines)
    assert 0.35 <= yes <= 0.65, yes
    records = _records(runs, "constant", "cbd_binary")
    assert {r["case_id"].rsplit(":", 1)[1] for r in records} == {"present", "absent"}
    negated = [r for r in records if r["extra"]["polarity"] == "negated"]
    assert negated and all(
        r["extra"]["answer_as_asked"] == "yes" and r["predicted_letter"] == "B" for r in negated
    )


def read_samples_of(folder: Path, task: str) -> list[dict]:
    from medvigil.records.lmms_eval_logs import read_samples

    (path,) = folder.rglob(f"*_samples_{task}.jsonl")
    return read_samples([path])


# ---------------------------------------------------------------- the core without lmms-eval


def test_doctests():
    import doctest

    from medvigil.suites.cbd import binary_checks, paraphrases

    for module in (paraphrases, binary_checks):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def _row(kind: str, question: str, **over) -> dict:
    return {
        "probe_id": f"C1-{kind}",
        "probe_kind": kind,
        "case_id": "C1",
        "question": question,
        "options": ["Yes", "No", "Both", "Neither", "Cannot tell"],
        "correct_letter": "A",
        **over,
    }


def test_paraphrase_set_is_deterministic_and_keeps_options():
    rows = [
        _row("original", "Is there a pleural effusion on this chest radiograph?"),
        _row("tcf", "Does this chest radiograph show a pleural effusion?"),
        _row("negation", "Is it free of...?"),
    ]
    plans = plan_docs(rows, ["image", "noimg"])
    assert plans == plan_docs(rows, ["image", "noimg"])
    image = [o for _, o in plans if o["condition"] == "default"]
    assert [o["paraphrase_source"] for o in image] == list(SOURCES)
    assert image[2]["question"] == "Is there a pleural effusion on this chest X-ray?"
    assert (
        image[3]["question"]
        == "Looking at the study provided, is there a pleural effusion on this chest radiograph?"
    )
    assert [o["question"] for _, o in plans if o["condition"] == "noimg"] == [rows[0]["question"]]
    assert {i for i, _ in plans} == {
        0
    }  # every doc is the original row (its image, options and gold)


def test_supplied_paraphrase_set(monkeypatch):
    """CBD_PARAPHRASES=supplied: a case's set is q and its supplied paraphrase rows (PSF-Med's, for
    a user who has them), in row order, no template; the scoring reads them as any q'."""
    rows = [
        _row("original", "Is there a pleural effusion?"),
        _row("paraphrase", "Is a pleural effusion present?", probe_id="C1-p1"),
        _row("paraphrase", "Does the image show a pleural effusion?", probe_id="C1-p2"),
    ]
    plans = plan_docs(rows, ["image", "noimg"], "supplied")
    image = [o for _, o in plans if o["condition"] == "default"]
    assert [(o["probe_id"], o["probe_kind"], o["paraphrase_index"]) for o in image] == [
        ("C1-original", "original", 0),
        ("C1-p1", "paraphrase", 1),
        ("C1-p2", "paraphrase", 2),
    ]
    assert [o["question"] for o in image] == [r["question"] for r in rows] and {
        i for i, _ in plans
    } == {0}
    assert [o["probe_id"] for _, o in plans if o["condition"] == "noimg"] == ["C1-original"]
    # the default set ignores supplied rows (templates, our stand-in)
    assert "C1-p1" not in {o["probe_id"] for _, o in plan_docs(rows, ["image"])}
    # q' answered A, A / B without the image: Ideal when the paraphrases agree, Fragile when one
    # flips
    for answers, quadrant in (("AAA", "Ideal"), ("ABA", "Fragile")):
        records = [
            make_record(
                {**rows[0], **o},
                answers[o["paraphrase_index"]] if o["condition"] == "default" else "B",
            )
            for _, o in plans
        ]
        (result,) = quadrant_table([{**r, "model": "m"} for r in records]).values()
        assert result["counts"][quadrant] == 1
    with pytest.raises(ValueError, match="'correct_letter'"):
        plan_docs([rows[0], {**rows[1], "correct_letter": "B"}], ["image"], "supplied")
    with pytest.raises(ValueError, match="no supplied paraphrase"):
        plan_docs(rows[:1], ["image"], "supplied")
    monkeypatch.setenv("CBD_PARAPHRASES", "psf")
    with pytest.raises(ValueError, match="CBD_PARAPHRASES must be one of templates, supplied"):
        paraphrase_setting()


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="'options'"):
        plan_docs(
            [_row("original", "Q?"), _row("tcf", "Q2?", options=["No", "Yes", "B", "C", "D"])],
            ["image"],
        )
    # without a release paraphrase (other datasets) the templates alone form the paraphrase set
    alone = plan_docs([_row("original", "Q?")], ["image"])
    assert [o["paraphrase_source"] for _, o in alone] == [
        "original",
        "frame_prefix",
        "frame_suffix",
    ]
    with pytest.raises(ValueError, match="arm"):
        plan_docs([], ["audio"])
    record = make_record(
        {
            **_row("original", "Q?"),
            "condition": "noimg",
            "paraphrase_index": 0,
            "paraphrase_source": "original",
        },
        "B",
    )
    assert record["predicted_letter"] == "B" and record["extra"]["paraphrase_index"] == 0
    with pytest.raises(ValueError, match="'suite'"):
        quadrant_table([{**record, "suite": "medvigil"}])
    with pytest.raises(ValueError, match="paraphrase_index"):
        quadrant_table([{**record, "extra": {}}])
    # a text-only record with no image arm: lmms-eval's aggregate leaves the case out (a run cut by
    # --limit)
    (table,) = quadrant_table([record]).values()
    assert table["n_incomplete_cases"] == 1
    with pytest.raises(ValueError, match="lacks"):  # scoring a whole run: an error
        suite_result([record])
    # e.g. the logs of `cbd` and `cbd_quadrants` together
    with pytest.raises(
        ValueError,
        match=r"has two 'original' records under condition 'noimg' "
        r"\(fields 'probe_kind', 'condition'\)",
    ):
        quadrant_table([record, record])


def test_score_command_reads_each_probe_once(runs, tmp_path, capsys):
    from medvigil.cli import main

    out = tmp_path / "cbd.json"
    assert (
        main(["score", "--suite", "cbd", *(str(runs / m) for m in MODELS), "--json", str(out)]) == 0
    )
    result = json.loads(out.read_text())
    # each run logged both arms twice (arm tasks and cbd_quadrants): the arm files are skipped, and
    # said so
    assert len(result["files"]) == 2 * len(MODELS) and len(result["skipped_files"]) == 2 * len(
        MODELS
    )
    assert "skipped 6 file(s)" in capsys.readouterr().out
    for name, (model, args) in MODELS.items():
        label = f"{model}({args})" if args else model
        (expected,) = quadrant_table(_records(runs, name, "cbd_image", "cbd_noimg")).values()
        got = result["models"][label]
        assert json.dumps({k: got[k] for k in expected}, sort_keys=True) == json.dumps(
            expected, sort_keys=True
        )
        (binary,) = binary_table(_records(runs, name, "cbd_binary")).values()
        got = result["models"][f"{label} [binary]"]
        assert (
            got["arm"] == "binary"
            and got["counts"] == binary["counts"]
            and got["flip_rate"] == binary["flip_rate"]
        )
    flips = [m["flip_rate"] for _, m in sorted(result["models"].items())]
    dangers = [m["dangerous_fraction"] for _, m in sorted(result["models"].items())]
    from medvigil.suites.cbd.scoring import rate_correlation

    assert (
        result["correlation"] == rate_correlation(flips, dangers)
        and result["correlation"]["n"] == 6
    )


def test_model_configurations_in_arm_order(runs):
    from medvigil.records.suite_logs import find_samples
    from medvigil.suites.cbd import entry, logs

    # the binary-only run first: its model's configuration still follows every generative one
    files, _ = logs.without_repeated_arms(
        find_samples([runs / "sampled", *(runs / m for m in MODELS)], "cbd", logs.TASKS)
    )
    arms = [m["arm"] for m in entry.score([str(f) for f in files])["models"].values()]
    assert arms == ["generative"] * len(MODELS) + ["binary"] * (len(MODELS) + 1)


def test_score_command_refuses_a_probe_answered_twice(runs, tmp_path, capsys):
    import shutil

    from medvigil.cli import main

    other = tmp_path / "again"
    other.mkdir()
    for path in (_samples(runs, "blind", "cbd_image"), *(runs / "blind").rglob("*_results.json")):
        shutil.copy(path, other / path.name)
    code = main(
        [
            "score",
            "--suite",
            "cbd",
            str(_samples(runs, "blind", "cbd_image")),
            str(_samples(runs, "blind", "cbd_noimg")),
            str(other / _samples(runs, "blind", "cbd_image").name),
        ]
    )
    err = capsys.readouterr().err
    # a second run of one model (here the same log copied to another folder): refused, naming both
    # files
    assert (
        code == 2
        and "field 'model'" in err
        and "a second run of model 'blind' on task cbd_image" in err
    )
    assert str(other) in err and str(_samples(runs, "blind", "cbd_image")) in err


def test_report_has_the_quadrant_section(runs, tmp_path, capsys):
    from medvigil.cli import main

    scores, report = tmp_path / "cbd.json", tmp_path / "report"
    assert (
        main(["score", "--suite", "cbd", *(str(runs / m) for m in MODELS), "--json", str(scores)])
        == 0
    )
    assert main(["report", str(scores), "--out", str(report)]) == 0
    assert (
        "reported: cbd 6 model(s)" in capsys.readouterr().err
    )  # each model's generative and binary arms
    md, html = (report / "report.md").read_text(), (report / "report.html").read_text()
    assert (
        "## Consistent but Dangerous" in md
        and "| constant(letter=A) |" in md
        and "data:image/png;base64," in html
    )
    for figure in ("cbd_quadrants", "cbd_flip_vs_dangerous", "cbd_entropy"):
        assert (report / "figures" / f"{figure}.png").stat().st_size > 1000
    assert "Flip rate vs Dangerous fraction" in md and "p(yes) with and without the image" in md
    assert "null-image and image-swap" in md and "Flip rate per paraphrase phenomenon" in md
    assert (
        json.loads((report / "cbd.json").read_text())["models"]
        == json.loads(scores.read_text())["models"]
    )
    assert not (report / "scores.json").exists()  # no MedVIGIL audit was given
