"""Classes 5-8 and 11: every reader validates its input's shape and reports file, row (line) and
field; undecodable bytes name the file and line; no record scored is an error unless
``--allow-empty``; implausible numbers (negative votes, Infinity) are refused; report.md escapes
model names. Every case runs the real command in-process and checks the contract of
:func:`conftest.run_cli` (exit code, message, no traceback, inputs intact, no partial output)."""

import copy
import json
import re

import pytest
from conftest import mc_results, run_cli, suite_records, write_log


def _score(capsys, suite, target, tmp_path, *, says, code=2, extra=()):
    out = tmp_path / "scores.json"
    run_cli(
        capsys,
        ["score", "--suite", suite, target, "--json", out, *extra],
        code=code,
        says=says,
        inputs=[target],
        absent=[out] if code else [],
    )


# ---------------------------------------------------------------- lmms-eval logs of every suite


def _mutated(suite, field, value, index=1):
    records = suite_records(suite)
    target = records[index]
    keys = field.split(".")
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return records


BAD_RECORDS = [
    ("medqdeg", "extra.votes", None, "extra.votes"),
    ("medqdeg", "extra.votes", [1, 2, 3], "extra.votes"),
    ("medqdeg", "extra.votes", [], "extra.votes"),
    ("medqdeg", "extra.n_options", -4, "extra.n_options"),
    ("medqdeg", "extra.n_options", "4", "extra.n_options"),
    ("medqdeg", "extra.severity", 7, "extra.severity"),
    ("medqdeg", "extra.severity", [0], "extra.severity"),
    ("cbd", "extra.paraphrase_index", -1, "extra.paraphrase_index"),
    ("cbd", "extra.paraphrase_index", "x", "extra.paraphrase_index"),
    ("readiness", "extra.laterality_dependent", "yes", "extra.laterality_dependent"),
    ("readiness", "extra", [], "extra"),
    ("medqdeg", "retries", -1, "retries"),
    ("cbd", "predicted_letter", 3, "predicted_letter"),
    ("readiness", "correct_letter", "AB", "correct_letter"),
]


@pytest.mark.parametrize(
    ("suite", "field", "value", "named"),
    BAD_RECORDS,
    ids=[f"{s}-{f}-{v!r}" for s, f, v, _ in BAD_RECORDS],
)
def test_bad_record_fields_are_located(capsys, tmp_path, suite, field, value, named):
    log = write_log(tmp_path / "runs", suite, _mutated(suite, field, value))
    _score(capsys, suite, tmp_path / "runs", tmp_path, says=[log.name, "row 2", f"field '{named}'"])


@pytest.mark.parametrize("suite", ["medqdeg", "cbd", "readiness"])
def test_non_finite_numbers_are_refused_where_used(capsys, tmp_path, suite):
    # lmms-eval itself writes NaN (e.g. a stderr), so its logs parse NaN/Infinity; every field we
    # use is checked
    records = suite_records(suite)
    lines = [json.dumps({"acc": r, "mcs": r}) for r in records]
    lines[2] = (
        lines[2]
        .replace('"retries": 0', '"retries": Infinity')
        .replace('"severity": 0', '"severity": Infinity')
    )
    log = write_log(tmp_path / "runs", suite, lines=lines)
    says = [log.name, "row 3", "field 'retries'"] + (
        ["field 'extra.severity'"] if suite == "medqdeg" else []
    )
    _score(capsys, suite, tmp_path / "runs", tmp_path, says=says)


@pytest.mark.parametrize("suite", ["medqdeg", "cbd", "readiness"])
def test_undecodable_bytes_name_file_and_line(capsys, tmp_path, suite):
    log = write_log(tmp_path / "runs", suite)
    data = log.read_bytes().split(b"\n")
    data[1] = data[1][:40] + b"\xff\xfe" + data[1][40:]
    log.write_bytes(b"\n".join(data))
    _score(
        capsys,
        suite,
        tmp_path / "runs",
        tmp_path,
        says=[log.name, "row 2", "not valid UTF-8: byte 0xff", "(line 2)"],
    )


@pytest.mark.parametrize(
    "shape", ["[]", "[1, 2]", '{"config": []}', '{"config": {"model": 3}}', "NaN", "{"]
)
def test_results_json_of_the_wrong_shape(capsys, tmp_path, shape):
    log = write_log(tmp_path / "runs", "medqdeg")
    log.with_name("20260101_000000_results.json").write_text(shape)
    _score(capsys, "medqdeg", tmp_path / "runs", tmp_path, says=["20260101_000000_results.json"])


@pytest.mark.parametrize("suite", ["medqdeg", "cbd", "readiness"])
def test_empty_logs_are_an_error_unless_allowed(capsys, tmp_path, suite):
    write_log(tmp_path / "runs", suite, lines=[])
    _score(capsys, suite, tmp_path / "runs", tmp_path, says=["no record to score", "--allow-empty"])
    _score(capsys, suite, tmp_path / "runs", tmp_path, code=0, says=[], extra=["--allow-empty"])


def test_lines_that_are_not_samples(capsys, tmp_path):
    log = write_log(tmp_path / "runs", "medqdeg", lines=["[]", '"text"', "{}", '{"acc": 5}'])
    _score(
        capsys,
        "medqdeg",
        tmp_path / "runs",
        tmp_path,
        says=[log.name, "row 1", "row 4", "field 'mcs'"],
    )


# ---------------------------------------------------------------- MediConfusion results (authors'
# format and lmms-eval)


@pytest.fixture()
def mc_case(mc_sample, tmp_path):
    dataset = mc_sample / "data" / "dataset.json"
    results = tmp_path / "Results"
    results.mkdir()
    return dataset, results, mc_results(dataset)


def _mc_score(capsys, dataset, path, tmp_path, *, says, code=2, extra=()):
    out = tmp_path / "mc.json"
    run_cli(
        capsys,
        ["score", "--suite", "mediconfusion", "--release", dataset, path, "--json", out, *extra],
        code=code,
        says=says,
        inputs=[dataset, path],
        absent=[out] if code else [],
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-5, "vote count must be >= 0"),
        (None, "finite number"),
        ("10", "finite number"),
        (True, "finite number"),
        (float("inf"), "Infinity is not a JSON number"),
    ],
)
def test_mediconfusion_vote_counts(capsys, mc_case, tmp_path, value, message):
    dataset, folder, data = mc_case
    pid = next(iter(data))
    data[pid]["answer"]["im2"]["B"] = value
    path = folder / "m_mc.json"
    path.write_text(json.dumps(data))
    says = [path.name, message] + (
        [] if value == float("inf") else ["row 1", f"field '{pid}.answer.im2.B'"]
    )
    _mc_score(capsys, dataset, path, tmp_path, says=says)


@pytest.mark.parametrize("text", ["[]", "[{}]", "3", '"x"', "{}", ""])
def test_mediconfusion_results_of_the_wrong_shape(capsys, mc_case, tmp_path, text):
    dataset, folder, _ = mc_case
    path = folder / "m_mc.json"
    path.write_text(text)
    _mc_score(capsys, dataset, path, tmp_path, says=[path.name])


def test_mediconfusion_undecodable_results(capsys, mc_case, tmp_path):
    dataset, folder, data = mc_case
    path = folder / "m_mc.json"
    path.write_bytes(
        json.dumps(data, indent=1)
        .encode()
        .replace(b'"full_answer": "A"', b'"full_answer": "\xff"', 1)
    )
    _mc_score(capsys, dataset, path, tmp_path, says=[path.name, "not valid UTF-8", "(line "])


@pytest.mark.parametrize(
    ("field", "value"),
    [("extra.votes", {"A": -3, "B": 0}), ("extra.margin", -1), ("extra.votes", [3, 0])],
)
def test_mediconfusion_lmms_eval_numbers(capsys, mc_case, tmp_path, field, value):
    dataset, _, _ = mc_case
    pairs = [p for p in json.loads(dataset.read_text()) if not p.startswith("_")]
    records = suite_records("mediconfusion", n=2)
    for r, pid in zip(records, pairs):
        r.update(case_id=pid, probe_id=f"{pid}:im1")
    records[1]["extra"][field.split(".")[1]] = value
    log = write_log(tmp_path / "runs", "mediconfusion", records)
    _mc_score(capsys, dataset, log, tmp_path, says=[log.name, "row 2", f"field '{field}'"])


def test_mediconfusion_empty_lmms_eval_log(capsys, mc_case, tmp_path):
    dataset, _, _ = mc_case
    log = write_log(tmp_path / "runs", "mediconfusion", lines=[])
    _mc_score(capsys, dataset, log, tmp_path, says=["no record to score"])


# ---------------------------------------------------------------- report's score files


def _medvigil_scores() -> dict:
    block = {
        "metrics": {"mcs": 50.0, "overall": 60.0, "sfr": 10.0, "sfr_w": 10.0},
        "accuracy": {"original": 60.0},
        "sfr_by_tier": {"L1": 10.0},
        "n_by_tier": {"L1": 3},
    }
    return {"suite": "medvigil", "models": {"m1": block}, "params": {}, "warnings": []}


BAD_SCORES = [
    (
        "string metric",
        lambda d: d["models"]["m1"]["metrics"].update(mcs="high"),
        "field 'models.m1.metrics.mcs'",
    ),
    ("missing metrics", lambda d: d["models"]["m1"].pop("metrics"), "field 'models.m1.metrics'"),
    ("model not an object", lambda d: d["models"].update(m1=[1]), "field 'models.m1'"),
    (
        "nested string",
        lambda d: d["models"]["m1"]["sfr_by_tier"].update(L1={"x": "y"}),
        "field 'models.m1.sfr_by_tier.L1.x'",
    ),
    ("no models", lambda d: d.pop("models"), "field 'suite'"),
    ("unknown suite", lambda d: d.update(suite="other"), "field 'suite'"),
    ("not an object", lambda d: d.clear() or d.update(suite=None), "field 'suite'"),
]


@pytest.mark.parametrize(("name", "mutate", "named"), BAD_SCORES, ids=[b[0] for b in BAD_SCORES])
def test_report_validates_score_files(capsys, tmp_path, name, mutate, named):
    data = copy.deepcopy(_medvigil_scores())
    mutate(data)
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data))
    run_cli(
        capsys,
        ["report", path, "--out", tmp_path / "rep"],
        says=["scores.json", named],
        inputs=[path],
        absent=[tmp_path / "rep"],
    )


@pytest.mark.parametrize(
    "text",
    [
        b'{"suite": "medvigil", "models": {"m": {"metrics": {"mcs": NaN}}}}',
        b"\xff{}",
        b"[" * 100000,
        b"",
    ],
)
def test_report_strict_json(capsys, tmp_path, text):
    path = tmp_path / "scores.json"
    path.write_bytes(text)
    run_cli(
        capsys,
        ["report", path, "--out", tmp_path / "rep"],
        says=["scores.json"],
        inputs=[path],
        absent=[tmp_path / "rep"],
    )


def test_report_suite_result_of_the_wrong_shape(capsys, tmp_path):
    path = tmp_path / "deg.json"
    path.write_text(json.dumps({"suite": "medqdeg", "models": {"m": {"by_severity": "x"}}}))
    run_cli(
        capsys,
        ["report", path, "--out", tmp_path / "rep"],
        says=["deg.json", "unexpected shape"],
        inputs=[path],
        absent=[tmp_path / "rep"],
    )


def test_report_markdown_escapes_model_names(capsys, tmp_path):
    data = _medvigil_scores()
    evil = "<img src=x onerror=alert(1)>|[x](javascript:alert(1))"
    data["models"] = {evil: data["models"]["m1"]}
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data))
    run_cli(capsys, ["report", path, "--out", tmp_path / "rep"], code=0, inputs=[path])
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    assert not re.search(r"(?<!\\)<img", md) and not re.search(r"(?<!\\)\]\(javascript", md)
    assert "\\<img src=x onerror=alert(1)\\>\\|" in md
    assert "<img src=x" not in html


# ---------------------------------------------------------------- harness JSONL (reader owned by
# `conform`)


def test_harness_undecodable_bytes_name_file_and_line(capsys, small_release, tmp_path):
    path = tmp_path / "m__mcq.jsonl"
    path.write_bytes(b'{"a": 1}\n\xff\n')
    run_cli(
        capsys,
        ["score", "--suite", "medvigil", "--release", small_release[0], path, "--n-resamples", "0"],
        says=[path.name, "2"],
        inputs=[path],
    )


def test_harness_empty_file_is_an_error(capsys, small_release, tmp_path):
    path = tmp_path / "m__mcq.jsonl"
    path.write_bytes(b"")
    run_cli(
        capsys,
        ["score", "--suite", "medvigil", "--release", small_release[0], path, "--n-resamples", "0"],
        says=[path.name],
        inputs=[path],
    )


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"samples": [\n{"question": "\xff"}]}', ["not valid UTF-8", "(line 2)"]),
        (b'{"samples": [], "x": Infinity}', ["Infinity is not a JSON number"]),
        (b"[" * 100000, ["nested too deeply"]),
    ],
)
def test_judge_answers_reader(capsys, tmp_path, data, says):
    path = tmp_path / "answers.json"
    path.write_bytes(data)
    run_cli(
        capsys,
        ["judge", path, "--json", tmp_path / "out.json"],
        says=["answers.json", *says],
        inputs=[path],
        absent=[tmp_path / "out.json"],
    )
