"""Issue 42, class "silent results": what a command leaves out or cannot compare is said (a warning
naming the file and what was left out, or an error), never passed over in silence. Each case has a
control, the nearest well-formed input, that must keep working."""

from __future__ import annotations

import csv
import json

from conftest import BASE, run_cli, write_log

UNKNOWN = "ZZZ-9999"


def _release_log(folder, release, *, unknown: bool, model: str = "grounded"):
    """A MedVIGIL lmms-eval log answering the first probes of ``release`` (and one of a case it lacks)."""
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
