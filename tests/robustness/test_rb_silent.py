"""Issue 42, class "silent results": what a command leaves out or cannot compare is said (a warning
naming the file and what was left out, or an error), never passed over in silence. Each case has a
control, the nearest well-formed input, that must keep working."""

import csv
import json

from conftest import BASE, run_cli, write_log

UNKNOWN = "ZZZ-9999"


def _release_log(folder, release, *, unknown: bool, model: str = "grounded"):
    """A MedVIGIL lmms-eval log answering the first probes of ``release`` (and one of a case it
    lacks)."""
    with open(release / "probes_mcq.csv", encoding="utf-8") as handle:
        probes = list(csv.DictReader(handle))[:6]
    rows = [(p["probe_id"], p["case_id"], p["probe_kind"], p["correct_letter"]) for p in probes]
    if unknown:
        rows.append((f"{UNKNOWN}-original", UNKNOWN, "original", "A"))
    records = [
        {
            **BASE,
            "suite": "medvigil",
            "condition": "default",
            "probe_id": probe,
            "case_id": case,
            "probe_kind": kind,
            "correct_letter": gold,
            "predicted_letter": gold,
            "raw_response": gold,
            "parse_status": "ok",
        }
        for probe, case, kind, gold in rows
    ]
    return write_log(folder, "medvigil", records, model=model)


def test_lmms_eval_records_of_cases_not_in_the_release_are_refused(capsys, small_release, tmp_path):
    rel = small_release[0]
    log = _release_log(tmp_path / "a", rel, unknown=True)
    other = _release_log(tmp_path / "b", rel, unknown=False, model="blind")
    run_cli(
        capsys,
        ["score", "--suite", "medvigil", "--release", rel, log, "--n-resamples", "0"],
        says=[str(log), "field 'case_id'", "1 record(s)", "not in the release", UNKNOWN],
        inputs=[log],
    )
    run_cli(
        capsys,
        ["compare", "--suite", "medvigil", "--release", rel, log, other, "--resamples", "10"],
        says=["not in the release", UNKNOWN],
        inputs=[log, other],
    )
    # --skip-invalid-rows leaves them out, counted and said
    out = tmp_path / "s.json"
    _, err = run_cli(
        capsys,
        [
            "score",
            "--suite",
            "medvigil",
            "--release",
            rel,
            log,
            "--n-resamples",
            "0",
            "--skip-invalid-rows",
            "--json",
            out,
        ],
        code=0,
    )
    assert "not in the release" in err and "left out" in err
    result = json.loads(out.read_text())
    assert result["inputs"]["skipped_rows"]["grounded"] == {"case_not_in_release": 1}
    assert result["inputs"]["n_records"] == 6
    # control: a log of the release's cases scores
    run_cli(
        capsys,
        ["score", "--suite", "medvigil", "--release", rel, other, "--n-resamples", "0"],
        code=0,
    )


def test_an_empty_samples_file_in_a_run_folder_is_said(capsys, tmp_path):
    runs = tmp_path / "runs"
    write_log(runs, "medqdeg")
    for name, text in (("medqdeg_L1", ""), ("medqdeg_L2", "\n  \n")):
        (runs / f"20260101_000000_samples_{name}.jsonl").write_text(text)
    out = tmp_path / "deg.json"
    _, err = run_cli(capsys, ["score", "--suite", "medqdeg", runs, "--json", out], code=0)
    assert err.count("empty samples file (no record in it); left out") == 2
    result = json.loads(out.read_text())
    assert sorted(s["file"].rsplit("_", 1)[-1] for s in result["skipped_files"]) == [
        "L1.jsonl",
        "L2.jsonl",
    ]
    assert len(result["files"]) == 1 and result["n_records"] == 4
    # MedVIGIL logs too
    logs = tmp_path / "mv"
    log = write_log(logs, "medvigil", [dict(r, condition="default") for r in _records()])
    (logs / "20260101_000000_samples_medvigil_mcq_noimg.jsonl").write_text("")
    _, err = run_cli(
        capsys,
        [
            "score",
            "--suite",
            "medvigil",
            log,
            logs / "20260101_000000_samples_medvigil_mcq_noimg.jsonl",
            "--n-resamples",
            "0",
        ],
        code=0,
    )
    assert "medvigil_mcq_noimg.jsonl: empty samples file" in err
    # control: a folder without an empty file says nothing of the kind
    _, err = run_cli(
        capsys,
        ["score", "--suite", "medqdeg", runs / "20260101_000000_samples_medqdeg_L0.jsonl"],
        code=0,
    )
    assert "empty samples file" not in err


def _records():
    from conftest import suite_records

    return suite_records("medvigil")


def test_compare_of_models_that_share_no_probe_is_an_error(capsys, tmp_path):
    from conftest import suite_records

    a = write_log(tmp_path / "a", "medqdeg", model="grounded")
    other = [
        dict(r, probe_id=f"q{i}", case_id=f"d{i}") for i, r in enumerate(suite_records("medqdeg"))
    ]
    b = write_log(tmp_path / "b", "medqdeg", other, model="blind")
    run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", a, b, "--resamples", "10"],
        says=["'blind' and 'grounded' share no probe", "field 'model'"],
        inputs=[a, b],
    )
    # control: two models on the same probes compare
    c = write_log(tmp_path / "c", "medqdeg", model="blind")
    out, _ = run_cli(capsys, ["compare", "--suite", "medqdeg", a, c, "--resamples", "10"], code=0)
    assert "grounded" in out


def _harness_file(path, release, *, extra: str = ""):
    """An authors' result file (``<model>__mcq.jsonl`` shape) answering the first probes of
    ``release``; ``extra`` is added to the third row as written (raw JSON text)."""
    with open(release / "probes_mcq.csv", encoding="utf-8") as handle:
        probes = list(csv.DictReader(handle))[:6]
    lines = []
    for i, p in enumerate(probes):
        row = {
            "probe_id": p["probe_id"],
            "case_id": p["case_id"],
            "probe_kind": p["probe_kind"],
            "status": "ok",
            "model_letter": p["correct_letter"],
            "correct_letter": p["correct_letter"],
            "raw_response": "NaN? no: " + p["correct_letter"],  # the word in a string is text
        }
        text = json.dumps(row)
        lines.append(text[:-1] + ", " + extra + "}" if i == 2 and extra else text)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_nan_in_an_authors_result_row_is_refused(capsys, small_release, tmp_path):
    rel = small_release[0]
    for name in ("m__mcq.jsonl", "m__mcq_noimg.jsonl"):
        for bad, field in (
            ('"latency_s": NaN', "latency_s"),
            ('"usage": {"cost": [1, -Infinity]}', "usage.cost[1]"),
        ):
            path = _harness_file(tmp_path / name, rel, extra=bad)
            run_cli(
                capsys,
                ["score", "--suite", "medvigil", "--release", rel, path, "--n-resamples", "0"],
                says=[f"{path}, row 3, field '{field}'", "NaN or Infinity is not a JSON number"],
                inputs=[path],
            )
        # control: finite numbers (and the word NaN inside a string) score
        path = _harness_file(tmp_path / name, rel, extra='"latency_s": 1.5')
        run_cli(
            capsys,
            ["score", "--suite", "medvigil", "--release", rel, path, "--n-resamples", "0"],
            code=0,
        )


def test_the_same_run_labelled_twice_is_refused(capsys, tmp_path):
    log = write_log(tmp_path / "runs", "medqdeg")
    for first, second in (
        (f"{log}=A", f"{log}=B"),
        (f"{tmp_path / 'runs'}=A", f"{tmp_path / 'runs' / '.'}=B"),  # one folder, two spellings
        ("A", "B"),
    ):
        run_cli(
            capsys,
            ["score", "--suite", "medqdeg", log, "--label", first, "--label", second],
            says=[f"--label {second!r}", "already named by", repr(first)],
            inputs=[log],
        )
    # control: one label per run, or the same label twice, is taken
    for labels in ((f"{log}=A",), (f"{log}=A", f"{log}=A")):
        out, _ = run_cli(
            capsys,
            ["score", "--suite", "medqdeg", log, *(x for v in labels for x in ("--label", v))],
            code=0,
        )
        assert "| A " in out or "A |" in out or " A" in out


HOSTILE = "evil\x1b]0;owned\x07\x1b[2J\x9b31m\u202egnp.exe"


def test_control_characters_of_input_text_never_reach_the_terminal(capsys, tmp_path):
    log = write_log(tmp_path / "runs", "medqdeg", model=HOSTILE)
    out, err = run_cli(capsys, ["score", "--suite", "medqdeg", log], code=0)
    for shown in ("evil\\u001b", "owned\\u0007\\u001b", "\\u009b31m\\u202egnp.exe"):
        assert shown in out
    assert not set(out + err) & {"\x1b", "\x07", "\x9b", "\u202e"}
    bad = write_log(tmp_path / "bad", "medqdeg", lines=['{"doc_id": 0, "acc": "\x1b[31m"}'])
    out, err = run_cli(capsys, ["score", "--suite", "medqdeg", bad, "--label", HOSTILE])
    assert not set(out + err) & {"\x1b", "\x07", "\x9b", "\u202e"}
    # control: names in any script, tabs and newlines print as they are; JSON output is unchanged
    log = write_log(tmp_path / "ok", "medqdeg", model="模型-β")
    out, _ = run_cli(capsys, ["score", "--suite", "medqdeg", log, "--json", "-"], code=0)
    assert "模型-β" in out and "\n" in out
    out, _ = run_cli(
        capsys, ["score", "--suite", "medqdeg", tmp_path / "runs", "--json", "-"], code=0
    )
    assert json.loads(out)["models"].keys() == {HOSTILE}


def test_an_empty_mediconfusion_samples_file_is_said(capsys, mc_sample, tmp_path):
    from conftest import suite_records

    dataset = mc_sample / "data" / "dataset.json"
    pairs = json.loads(dataset.read_text())
    records = []
    for pair_id, pair in pairs.items():
        for image in ("im1", "im2"):
            gold = pair[f"{image[:2]}_{image[2]}_correct"]
            base = suite_records("mediconfusion", 1)[0]
            records.append(
                dict(
                    base,
                    case_id=pair_id,
                    probe_id=f"{pair_id}:{image}",
                    correct_letter=gold,
                    predicted_letter=gold,
                    raw_response=gold,
                )
            )
    runs = tmp_path / "runs"
    log = write_log(runs, "mediconfusion", records)
    empty = runs / "20260101_000000_samples_mediconfusion_gd.jsonl"
    empty.write_text("\n")
    _, err = run_cli(
        capsys, ["score", "--suite", "mediconfusion", log, empty, "--release", dataset], code=0
    )
    assert f"{empty}: empty samples file (no record in it); left out" in err
    _, err = run_cli(  # control: the log alone says nothing of the kind
        capsys, ["score", "--suite", "mediconfusion", log, "--release", dataset], code=0
    )
    assert "empty samples file" not in err
