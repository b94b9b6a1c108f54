"""Class 1 (``--force`` must never destroy inputs) on every command that writes, and class 10
(SIGTERM cleans staging folders like SIGINT)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import PYTHON, leftovers, run_cli, write_log


@pytest.mark.parametrize("where", ["parent", "same", "inside", "symlink"])
def test_build_refuses_out_overlapping_the_release(capsys, release_copy, where):
    rel, _ = release_copy
    out = {"parent": rel.parent, "same": rel, "inside": rel / "built"}.get(where)
    if where == "symlink":
        out = rel.parent.parent / "link"
        out.symlink_to(rel.parent)
    run_cli(
        capsys,
        ["build", rel, "--out", out, "--force"],
        says=["field '--out'", "input RELEASE"],
        inputs=[rel.parent],
    )
    assert not (rel / "built").exists()


def test_build_refuses_out_overlapping_the_reconstruction(capsys, release_copy, tmp_path):
    rel, cred = release_copy
    run_cli(
        capsys,
        ["build", rel, "--reconstructed", cred, "--local-only", "--out", cred, "--force"],
        says=["field '--out'", "input --reconstructed"],
        inputs=[rel, cred],
    )


@pytest.mark.parametrize("where", ["source", "source_parent", "inside_source", "release_parent"])
def test_reconstruct_refuses_out_overlapping_its_inputs(capsys, release_copy, where):
    rel, cred = release_copy
    out = {
        "source": cred,
        "source_parent": cred.parent,
        "inside_source": cred / "recon",
        "release_parent": rel.parent,
    }[where]
    run_cli(
        capsys,
        ["reconstruct", rel, "--source", cred, "--out", out, "--force"],
        says=["field '--out'"],
        inputs=[rel, cred],
    )


@pytest.mark.parametrize("where", ["images", "dataset_parent", "sample_root", "inside_images"])
def test_mediconfusion_build_refuses_out_overlapping_its_inputs(capsys, mc_sample, tmp_path, where):
    import shutil

    sample = tmp_path / "mc"
    shutil.copytree(mc_sample, sample)
    dataset, images = sample / "data" / "dataset.json", sample / "roco"
    out = {
        "images": images,
        "dataset_parent": dataset.parent,
        "sample_root": sample,
        "inside_images": images / "x",
    }[where]
    run_cli(
        capsys,
        ["mediconfusion-build", dataset, "--images", images, "--out", out, "--force"],
        says=["field '--out'"],
        inputs=[sample],
    )


def test_mediconfusion_build_problems_out_never_replaces_an_input(capsys, mc_sample, tmp_path):
    import shutil

    sample = tmp_path / "mc"
    shutil.copytree(mc_sample, sample)
    dataset = sample / "data" / "dataset.json"
    run_cli(
        capsys,
        [
            "mediconfusion-build",
            dataset,
            "--images",
            sample / "roco",
            "--out",
            tmp_path / "out",
            "--problems-out",
            dataset,
        ],
        says=["field '--problems-out'", "input DATASET_JSON"],
        inputs=[sample],
        absent=[tmp_path / "out"],
    )


def test_score_json_never_replaces_or_lands_in_an_input(capsys, tmp_path):
    runs = tmp_path / "runs"
    log = write_log(runs, "medqdeg")
    run_cli(
        capsys,
        ["score", "--suite", "medqdeg", log, "--json", log],
        says=["field '--json'", "same path"],
        inputs=[runs],
    )
    run_cli(
        capsys,
        ["score", "--suite", "medqdeg", runs, "--json", runs / "scores.json"],
        says=["field '--json'", "lies inside"],
        inputs=[runs],
        absent=[runs / "scores.json"],
    )
    run_cli(
        capsys,
        ["score", "--suite", "medqdeg", runs, "--json", tmp_path / "ok.json"],
        code=0,
        inputs=[runs],
    )
    assert json.loads((tmp_path / "ok.json").read_text())["n_records"] == 4


def test_report_out_never_holds_its_inputs(capsys, tmp_path):
    runs = tmp_path / "runs"
    write_log(runs, "medqdeg")
    from medvigil.cli import main

    (tmp_path / "s").mkdir()
    assert (
        main(["score", "--suite", "medqdeg", str(runs), "--json", str(tmp_path / "s" / "deg.json")])
        == 0
    )
    scores = tmp_path / "s" / "deg.json"
    run_cli(
        capsys,
        ["report", scores, "--out", tmp_path / "s"],
        says=["field '--out'", "contains the input"],
        inputs=[tmp_path / "s"],
    )
    run_cli(
        capsys,
        ["report", scores, "--out", scores],
        says=["field '--out'", "same path"],
        inputs=[tmp_path / "s"],
    )


def test_demo_force_replaces_only_its_own_folder(capsys, tmp_path, monkeypatch):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    run_cli(
        capsys,
        ["demo", "--out", precious, "--force"],
        code=2,
        says=["not a folder written by `medvigil demo`"],
        inputs=[precious],
    )
    monkeypatch.chdir(precious)
    (precious / ".medvigil-demo").write_text("fake marker")
    run_cli(
        capsys,
        ["demo", "--out", precious, "--force"],
        says=["holds the current directory"],
        inputs=[precious],
    )


def test_sample_refuses_overlapping_or_current_folder(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    monkeypatch.chdir(folder)
    run_cli(
        capsys,
        ["sample", "--out", folder, "--force", "--cases", "5"],
        says=["current directory"],
        inputs=[folder],
    )
    run_cli(
        capsys,
        [
            "sample",
            "--out",
            tmp_path / "r",
            "--credentialed-out",
            tmp_path / "r" / "c",
            "--cases",
            "5",
        ],
        says=["field '--out'", "output --credentialed-out"],
        absent=[tmp_path / "r"],
    )


# ---------------------------------------------------------------- SIGTERM (class 10)


def _terminate_when_staging(
    cmd: list[str], parent, pattern: str, tmp_path
) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.Popen(
        [PYTHON, "-m", "medvigil", *map(str, cmd)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_default_signal_dispositions,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if any(pattern in p.name for p in parent.iterdir()):
            break
        time.sleep(0.02)
    assert proc.poll() is None, f"finished before its staging folder was seen: {proc.communicate()}"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def test_sigterm_removes_the_staging_folder_of_build(small_release, tmp_path):
    parent = tmp_path / "outs"
    parent.mkdir()
    done = _terminate_when_staging(
        ["build", small_release[0], "--out", parent / "built"], parent, ".staging-", tmp_path
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr and "terminated" in done.stderr
    assert list(parent.iterdir()) == []


def test_sigterm_removes_the_partial_folder_of_sample(tmp_path):
    parent = tmp_path / "outs"
    parent.mkdir()
    done = _terminate_when_staging(
        ["sample", "--out", parent / "rel", "--cases", "200"], parent, ".partial-", tmp_path
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr
    assert list(parent.iterdir()) == [] and not leftovers(parent)


def _sigterm_once_after(monkeypatch, call: str, marker: str) -> None:
    """``os.CALL`` (mkdir, open, rename, replace) sends this process SIGTERM right after its first
    call naming a path that contains ``marker``: the signal lands at that moment whatever the
    load."""
    real, fired = getattr(os, call), []

    def then_sigterm(*args, **kwargs):
        result = real(*args, **kwargs)
        if not fired and marker in " ".join(map(str, args)):
            fired.append(args)
            os.kill(os.getpid(), signal.SIGTERM)
        return result

    monkeypatch.setattr(os, call, then_sigterm)


@pytest.mark.parametrize("folder", ["rel", "cred"])
def test_sigterm_just_after_sample_makes_a_partial_folder_removes_it(
    capsys, monkeypatch, tmp_path, folder
):
    from medvigil.cli import main

    # the moment the test above hit about once in a dozen runs on a busy machine
    parent = tmp_path / "outs"
    _sigterm_once_after(monkeypatch, "mkdir", f".{folder}.partial-")
    assert (
        main(
            [
                "sample",
                "--out",
                str(parent / "rel"),
                "--credentialed-out",
                str(parent / "cred"),
                "--cases",
                "5",
            ]
        )
        == 143
    )
    assert list(parent.iterdir()) == []


def test_sigterm_between_the_two_moves_of_sample_waits_until_both_outputs_are_in(
    capsys, monkeypatch, tmp_path
):
    from medvigil.cli import main

    parent = tmp_path / "outs"
    _sigterm_once_after(monkeypatch, "rename", ".cred.partial-")
    assert (
        main(
            [
                "sample",
                "--out",
                str(parent / "rel"),
                "--credentialed-out",
                str(parent / "cred"),
                "--cases",
                "5",
            ]
        )
        == 143
    )
    assert (
        sorted(p.name for p in parent.iterdir()) == ["cred", "rel"]
        and (parent / "rel" / "RELEASE_DIGEST").is_file()
    )


@pytest.mark.parametrize(
    "call, marker, kept",
    [
        ("mkdir", ".out.staging-", "old.txt"),
        ("mkdir", ".out.old-", "new.txt"),
        ("replace", ".out.old-", "new.txt"),
    ],
)
def test_sigterm_just_after_a_staging_step_leaves_the_old_or_the_new_output_whole(
    monkeypatch, tmp_path, call, marker, kept
):
    from medvigil.cli import Terminated, _sigterm_as_exception
    from medvigil.files.atomic_output import mark, staged_folder

    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    mark(out, "build")
    _sigterm_once_after(monkeypatch, call, marker)
    with (
        pytest.raises(Terminated),
        _sigterm_as_exception(),
        staged_folder(out, inputs=(), replace=True, kind="build") as tmp,
    ):
        (tmp / "new.txt").write_text("new")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert sorted(p.name for p in out.iterdir()) == [".medvigil-build", kept]


def test_sigterm_just_after_write_text_atomic_makes_its_temporary_file_removes_it(
    monkeypatch, tmp_path
):
    from medvigil.cli import Terminated, _sigterm_as_exception
    from medvigil.files.atomic_output import write_text_atomic

    _sigterm_once_after(monkeypatch, "open", ".scores.json.")
    with pytest.raises(Terminated), _sigterm_as_exception():
        write_text_atomic(tmp_path / "scores.json", "{}", inputs=())
    assert list(tmp_path.iterdir()) == []


def test_sigterm_handler_is_restored_after_a_command(capsys, tmp_path):
    from medvigil.cli import main

    before = [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM)]
    main(["tasks-path"])
    assert [signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM)] == before
    assert sys.modules["medvigil.cli"].Terminated.__mro__[1] is BaseException


def test_judge_json_never_replaces_or_lands_in_its_input(capsys, tmp_path):
    folder = tmp_path / "answers"
    folder.mkdir()
    answers = folder / "a.json"
    answers.write_text(json.dumps({"samples": [{"question": "q", "answer": "a"}]}))
    run_cli(
        capsys,
        ["judge", answers, "--json", answers],
        says=["field '--json'", "overwrite"],
        inputs=[folder],
    )
    run_cli(
        capsys,
        ["judge", answers, "--json", tmp_path],
        says=["field '--json'", "contains the input ANSWERS"],
        inputs=[folder],
    )


_SIGTERM_PROBE = """
import os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from medvigil.cli import Terminated, _sigterm_as_exception

class Dropped:
    def __del__(self):
        os.kill(os.getpid(), signal.{signal})
        sum(range(10000))  # the handler runs here, where an exception would be ignored

try:
    with _sigterm_as_exception():
        {trigger}
        time.sleep(2)
        print("ran on")
except Terminated:
    print("terminated")
except KeyboardInterrupt:
    print("interrupted")
"""


def _default_signal_dispositions() -> None:
    """In the child, before exec: SIGINT and SIGTERM at their defaults, whatever this process
    inherited (a job run in the background by a non-interactive shell ignores SIGINT, and Python
    keeps an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("name, said", [("SIGTERM", "terminated"), ("SIGINT", "interrupted")])
@pytest.mark.parametrize("trigger", ["Dropped()", "import self_signalling"])
def test_a_signal_during_an_import_or_a_finaliser_still_stops_the_command(
    tmp_path, trigger, name, said
):
    # an exception raised by the handler inside __del__ (or inside a C extension's module
    # initialisation, as numpy.random's) is lost: the CLI raises it again once that is over
    (tmp_path / "self_signalling.py").write_text(
        f"import os, signal\nos.kill(os.getpid(), signal.{name})\nx = sum(range(100000))\n"
    )
    probe = _SIGTERM_PROBE.replace("{trigger}", trigger).replace("{signal}", name)
    done = subprocess.run(
        [PYTHON, "-c", probe, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_default_signal_dispositions,
    )
    assert done.stdout.strip() == said, done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr


def test_sigterm_handler_defers_only_inside_imports_and_finalisers():
    from types import SimpleNamespace

    from medvigil import cli

    def frame(filename, name="f", back=None):
        return SimpleNamespace(
            f_code=SimpleNamespace(co_filename=filename, co_name=name), f_back=back
        )

    plain = frame("/work/app.py", back=frame("<frozen runpy>"))
    assert not cli._inside_import(plain)
    assert cli._inside_import(
        frame("<frozen abc>", back=frame("<frozen importlib._bootstrap>", back=plain))
    )
    assert cli._inside_import(frame("/work/app.py", "__del__", back=plain))
    with pytest.raises(cli.Terminated):
        cli._raise_terminated(signal.SIGTERM, plain)
    previous = signal.getsignal(signal.SIGALRM)
    try:
        assert cli._raise_terminated(signal.SIGTERM, frame("/work/app.py", "__del__")) is None
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # raised again from a timer
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- round 2 (issue 29): every
# declared input guarded


def test_reconstruct_refuses_out_holding_its_pointers_csv(capsys, release_copy, tmp_path):
    import shutil

    rel, cred = release_copy
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    pointers = elsewhere / "pointers.csv"
    shutil.copy(rel / "reconstruction" / "cxr_pointers.csv", pointers)
    run_cli(
        capsys,
        [
            "reconstruct",
            rel,
            "--source",
            cred,
            "--out",
            elsewhere,
            "--force",
            "--pointers",
            pointers,
        ],
        says=["field '--out'", "input --pointers"],
        inputs=[elsewhere, rel, cred],
    )
    # control: the same pointers with an output elsewhere still reconstruct
    run_cli(
        capsys,
        ["reconstruct", rel, "--source", cred, "--out", tmp_path / "recon", "--pointers", pointers],
        code=0,
        inputs=[elsewhere, rel, cred],
    )
    assert any((tmp_path / "recon" / "images").iterdir())


def test_demo_force_never_deletes_a_file(capsys, tmp_path):
    precious = tmp_path / "thesis.tex"
    precious.write_text("years of work")
    run_cli(
        capsys,
        ["demo", "--out", precious, "--force"],
        says=["not a folder written by `medvigil demo`"],
        inputs=[precious],
    )
    link = tmp_path / "link"
    link.symlink_to(precious)
    run_cli(
        capsys,
        ["demo", "--out", link, "--force"],
        says=["not a folder written by `medvigil demo`"],
        inputs=[precious, link],
    )


# Arguments that are not paths, per command: every other argument must be declared an input or an
# output (medvigil.files.output_guard.declare), so a new path option cannot escape the guard
# unnoticed.
NOT_PATHS = {
    "sample": {"cases", "seed", "jobs", "force", "quiet"},
    "validate": {"json", "max_pixels", "images", "metadata_only"},
    "build": {
        "configs",
        "seed",
        "variant_source",
        "max_shard_bytes",
        "repo",
        "force",
        "json",
        "local_only",
        "skip_invalid_rows",
    },
    "publish": {"repo", "private", "dry_run", "message"},
    "reconstruct": {"force"},
    "score": {
        "suite",
        "allow_empty",
        "margin",
        "confusion_denominator",
        "n_resamples",
        "seed",
        "condition",
        "accuracy_rule",
        "invalid_policy",
        "all_invalid",
        "allow_partial",
        "cbd_invalid",
        "harness_compatible",
        "text_only",
        "weights",
        "open_judge",
        "label",  # PATH=NAME names one of the FILEs, already an input
        "skip_invalid_rows",
        "vlmevalkit",  # a flag: the FILEs are the prediction files
    },
    "compare": {
        "suite",
        "metrics",
        "resamples",
        "seed",
        "p_value",
        "allow_empty",
        "harness_compatible",
        "condition",
        "skip_invalid_rows",
        "accuracy_rule",
        "invalid_policy",
        "all_invalid",
        "allow_partial",
        "cbd_invalid",
    },
    "report": {"title"},
    "judge": {
        "llm",
        "llm_model",
        "llm_timeout",
        "llm_attempts",
        "llm_deadline",
        "judge",
        "cross_validate",  # a flag: the table is printed
    },
    "serve-baseline": {"port", "seconds"},
    "tasks-path": {"suite"},
    "demo": {"cases", "seed", "tasks", "n_resamples", "no_stress", "force"},
    "mediconfusion-sample": {"pairs", "seed"},
    "mediconfusion-build": {"repo_id", "force"},
    "medqdeg-build": {"repo_id", "force"},
}


def test_every_argument_of_every_command_is_declared_or_not_a_path():
    from medvigil.cli import COMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS)
    for name, parser in sub.choices.items():
        defaults = parser._defaults
        declared = set(defaults.get("guard_inputs", ())) | set(defaults.get("guard_outputs", ()))
        dests = {a.dest for a in parser._actions if a.dest != "help"}
        undeclared = dests - declared - NOT_PATHS[name]
        assert not undeclared, (
            f"{name}: declare {undeclared} as inputs/outputs or list them in NOT_PATHS"
        )


@pytest.mark.parametrize("kind", ["file", "dangling_link"])
def test_force_never_replaces_a_file_with_an_output_folder(capsys, small_release, tmp_path, kind):
    rel, cred = small_release
    target = tmp_path / "notes.txt"
    if kind == "file":
        target.write_text("years of work")
    else:
        target.symlink_to(tmp_path / "nowhere")
    run_cli(
        capsys,
        ["build", rel, "--out", target, "--force", "--config", "mcq"],
        says=["is not a folder"],
        inputs=[target],
    )
    run_cli(
        capsys,
        ["reconstruct", rel, "--source", cred, "--out", target, "--force"],
        says=["is not a folder"],
        inputs=[target],
    )
    assert leftovers(tmp_path) == []


# ------------------------------------------- files a command reads but no argument names (issue 42)


def test_score_and_compare_never_overwrite_the_results_file_they_read(capsys, tmp_path):
    """``<stamp>_results.json`` is found beside the samples file given, never named on the command
    line: every file a command read guards its outputs (medvigil.files.input_files.paths_read)."""
    log_a = write_log(tmp_path / "a", "medqdeg", model="grounded")
    log_b = write_log(tmp_path / "b", "medqdeg", model="blind")
    results = tmp_path / "a" / "20260101_000000_results.json"
    run_cli(
        capsys,
        ["score", "--suite", "medqdeg", log_a, "--json", results],
        says=["field '--json'", "which this command read"],
        inputs=[tmp_path / "a"],
    )
    run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", log_a, log_b, "--json", results],
        says=["field '--json'", "which this command read"],
        inputs=[tmp_path / "a", tmp_path / "b"],
    )
    # control: the same commands write a fresh file, and the run still scores afterwards
    run_cli(capsys, ["score", "--suite", "medqdeg", log_a, "--json", tmp_path / "s.json"], code=0)
    run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", log_a, log_b, "--json", tmp_path / "c.json"],
        code=0,
    )
    assert json.loads((tmp_path / "c.json").read_text())["pairs"]


def test_reads_are_recorded_only_while_a_command_runs(tmp_path):
    from medvigil.files.input_files import paths_read, read_text, recording_reads

    (tmp_path / "x.txt").write_text("x")
    read_text(tmp_path / "x.txt")
    assert paths_read() == frozenset()  # a library caller records nothing
    with recording_reads():
        read_text(tmp_path / "x.txt")
        assert paths_read() == {os.path.realpath(tmp_path / "x.txt")}
    assert paths_read() == frozenset()


def test_force_replaces_only_a_folder_the_same_command_wrote(
    capsys, release_copy, mc_sample, tmp_path
):
    """Issue 42: build, reconstruct, sample and mediconfusion-build --force replaced any non-empty
    folder; each replaces only its own earlier output (the marker .medvigil-<command>), as demo
    does."""
    rel, cred = release_copy
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    dataset, images = mc_sample / "data" / "dataset.json", mc_sample / "roco"
    commands = {
        "build": ["build", rel, "--config", "mcq"],
        "reconstruct": ["reconstruct", rel, "--source", cred],
        "sample": ["sample", "--cases", "5"],
        "mediconfusion-build": ["mediconfusion-build", dataset, "--images", images],
    }
    for kind, argv in commands.items():
        run_cli(
            capsys,
            [*argv, "--out", precious, "--force"],
            says=[f"not a folder written by `medvigil {kind}`"],
            inputs=[precious],
        )
        assert leftovers(tmp_path) == []
    # control: each replaces its own earlier output (and not another command's)
    for kind, argv in commands.items():
        out = tmp_path / kind
        run_cli(capsys, [*argv, "--out", out], code=0)
        assert (out / f".medvigil-{kind}").is_file()
        run_cli(capsys, [*argv, "--out", out, "--force"], code=0)
    run_cli(
        capsys,
        [*commands["build"], "--out", tmp_path / "reconstruct", "--force"],
        says=["not a folder written by `medvigil build`"],
        inputs=[tmp_path / "reconstruct"],
    )
