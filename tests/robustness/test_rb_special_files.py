"""Class 2: every file a command reads must be a regular file, checked before reading, and reads
are bounded. Symbolic links to /dev/zero, FIFOs and oversized files on every reader; run in one
subprocess under a memory limit and a timeout so a regression fails instead of hanging."""

import json
import os
import shutil
from pathlib import Path

from conftest import mc_results, run_batch, tree_digest, write_log


def _zero(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def test_special_files_are_refused_by_every_reader(small_release, small_build, mc_sample, tmp_path):
    rel, cred = small_release
    cases: list[tuple[list, int, list[str]]] = []  # (argv, exit code, fragments of stderr)

    def release_with(name: str, make) -> Path:
        copy = tmp_path / f"rel_{len(cases)}"
        shutil.copytree(rel, copy, symlinks=True)
        make(copy / name)
        return copy

    r = release_with("splits/by_tier.json", _zero)
    cases.append((["validate", r], 1, ["splits/by_tier.json", "character device", "/dev/zero"]))
    cases.append(
        (["build", r, "--out", tmp_path / "b0"], 2, ["splits/by_tier.json", "character device"])
    )
    r = release_with("manifest.csv", _fifo)
    cases.append((["build", r, "--out", tmp_path / "b1"], 2, ["manifest.csv"]))
    r = release_with("probes_mcq.csv", _zero)
    cases.append(
        (["validate", r, "--no-images"], 1, ["probes_mcq.csv", "symbolic links are not allowed"])
    )

    # lmms-eval logs and their results.json (every suite reader goes through the same adapter)
    for suite, make in (
        ("medqdeg", _zero),
        ("cbd", _fifo),
        ("readiness", _zero),
        ("medvigil", _fifo),
    ):
        log = write_log(tmp_path / f"log_{suite}", suite)
        make(log)
        cases.append((["score", "--suite", suite, log], 2, [log.name, "not a regular file"]))
    log = write_log(tmp_path / "log_results", "medqdeg")
    _zero(log.with_name("20260101_000000_results.json"))
    cases.append((["score", "--suite", "medqdeg", log], 2, ["_results.json", "character device"]))

    # MediConfusion: release and results files
    dataset = mc_sample / "data" / "dataset.json"
    fifo_release = tmp_path / "mc_release.json"
    _fifo(fifo_release)
    results = tmp_path / "Results" / "m_mc.json"
    results.parent.mkdir()
    results.write_text(json.dumps(mc_results(dataset)))
    cases.append(
        (
            ["score", "--suite", "mediconfusion", "--release", fifo_release, results],
            2,
            ["mc_release.json", "FIFO"],
        )
    )
    zero_results = tmp_path / "Results" / "z_mc.json"
    _zero(zero_results)
    cases.append(
        (
            ["score", "--suite", "mediconfusion", "--release", dataset, zero_results],
            2,
            ["z_mc.json", "character device"],
        )
    )
    cases.append(
        (
            [
                "mediconfusion-build",
                fifo_release,
                "--images",
                mc_sample / "roco",
                "--out",
                tmp_path / "mcb",
            ],
            2,
            ["mc_release.json", "FIFO"],
        )
    )
    zero_sums = tmp_path / "sums.txt"
    _zero(zero_sums)
    cases.append(
        (
            [
                "mediconfusion-build",
                dataset,
                "--images",
                mc_sample / "roco",
                "--checksums",
                zero_sums,
                "--out",
                tmp_path / "mcb2",
            ],
            2,
            ["sums.txt", "character device"],
        )
    )

    # report's score files
    scores = tmp_path / "scores.json"
    _zero(scores)
    cases.append(
        (["report", scores, "--out", tmp_path / "rep"], 2, ["scores.json", "character device"])
    )

    # reconstruct: the licensed source file is a link to /dev/zero
    src = tmp_path / "cred"
    shutil.copytree(cred, src)
    for f in [p for p in src.rglob("*") if p.is_file()]:
        _zero(f)
    cases.append(
        (["reconstruct", rel, "--source", src, "--out", tmp_path / "recon"], 2, ["source_path"])
    )

    # publish: a FIFO among the build's files
    build = tmp_path / "built"
    shutil.copytree(small_build, build)
    _fifo(build / "DATASHEET.md")
    publish = ["publish", build, "--release", rel, "--repo", "org/x", "--dry-run"]
    cases.append((publish, 2, ["DATASHEET.md", "FIFO"]))

    # the official harness JSONL (reader owned by `conform`; the regular-file hook is ours)
    harness = tmp_path / "m__mcq.jsonl"
    _fifo(harness)
    cases.append(
        (
            ["score", "--suite", "medvigil", "--release", rel, harness, "--n-resamples", "0"],
            2,
            ["m__mcq.jsonl"],
        )
    )  # conform: says "does not exist"

    # judge's answers file
    answers = tmp_path / "answers.json"
    _fifo(answers)
    cases.append((["judge", answers], 2, ["answers.json", "FIFO"]))

    before = tree_digest(rel)
    results_ = run_batch([argv for argv, _, _ in cases], tmp_path)
    for (argv, code, fragments), (got, err) in zip(cases, results_):
        assert got == code, f"{argv}: exit {got}, expected {code}\n{err[-2000:]}"
        assert "Traceback" not in err, f"{argv}:\n{err[-2000:]}"
        for fragment in fragments:
            assert fragment in err, f"{argv}: {fragment!r} not in\n{err[-2000:]}"
    assert tree_digest(rel) == before
    for out in ("b0", "b1", "mcb", "mcb2", "rep", "recon"):
        assert not (tmp_path / out).exists()


def test_oversized_inputs_are_refused_before_reading(tmp_path, mc_sample):
    log = write_log(tmp_path / "logs", "medqdeg")
    dataset = mc_sample / "data" / "dataset.json"
    medvigil_log = write_log(tmp_path / "medvigil_logs", "medvigil")
    cases = [
        ["score", "--suite", "medqdeg", log],
        ["score", "--suite", "mediconfusion", "--release", dataset, log],
        ["score", "--suite", "medvigil", medvigil_log],
    ]
    for (code, err), argv in zip(
        run_batch(cases, tmp_path, env={"MEDVIGIL_MAX_INPUT_BYTES": "300"}), cases
    ):
        assert code == 2 and "Traceback" not in err, err
        assert "input limit" in err and "MEDVIGIL_MAX_INPUT_BYTES" in err, (argv, err)


def test_open_regular_refuses_before_reading(tmp_path):
    import pytest

    from medvigil.errors import DataError
    from medvigil.files.input_files import read_bytes, read_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="FIFO"):
        read_bytes(fifo)  # returns at once: opened non-blocking, refused by fstat
    with pytest.raises(DataError, match="is a folder"):
        read_bytes(tmp_path)
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(DataError, match="100-byte input limit"):
        read_bytes(big, max_bytes=100)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nstill ok\n\xff\n")
    with pytest.raises(DataError, match=r"bad.txt, row 3: not valid UTF-8: byte 0xff .*\(line 3\)"):
        read_text(bad, "bad.txt")
