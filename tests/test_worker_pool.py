"""Worker processes of the bulk readers (:mod:`medvigil.files.worker_pool`): the same results as
in-process, in order; a task that raises leaves its item to the caller; the workers end quietly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_log_columns import _log, _records, _same, lean_line

from medvigil.errors import DataError
from medvigil.files.worker_pool import ENV, in_workers, worker_count
from medvigil.suites.medvigil.log_table import read_log_columns

ROOT = Path(__file__).resolve().parents[1]


def _square_or_fail(x: int) -> int:
    if x == 3:
        raise ValueError("no")
    return x * x


@pytest.mark.parametrize("workers", ["1", "2", "3"])
def test_results_in_order_and_none_where_a_task_raised(monkeypatch, workers):
    monkeypatch.setenv(ENV, workers)
    parent = os.getpid()
    with in_workers(lambda x: (_square_or_fail(x), os.getpid() != parent), range(7)) as results:
        got = list(results)
    assert [g and g[0] for g in got] == [0, 1, 4, None, 16, 25, 36]
    assert any(g and g[1] for g in got) == (workers != "1")  # forked workers did the work


@pytest.mark.parametrize("imports", [(), ("colorsys",)])
def test_the_modules_named_are_imported_before_the_fork(imports):
    """What a task names in ``imports`` the workers inherit: none of them imports it on its first
    item (a fresh interpreter, where nothing else imported the module)."""
    code = (
        "import sys; from medvigil.files.worker_pool import in_workers\n"
        f"with in_workers(lambda i: 'colorsys' in sys.modules, range(4), imports={imports!r}) as found:\n"
        "    print(list(found), 'colorsys' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, ENV: "2"})
    assert proc.returncode == 0, proc.stderr[-500:]
    expected = bool(imports)
    assert proc.stdout.split() == [f"[{expected},", f"{expected},", f"{expected},", f"{expected}]", str(expected)]


def test_closures_are_inherited_not_pickled(monkeypatch):
    monkeypatch.setenv(ENV, "2")
    unpicklable = {"lock": __import__("threading").Lock(), "k": 10}
    with in_workers(lambda x: x + unpicklable["k"], [1, 2, 3]) as results:
        assert list(results) == [11, 12, 13]


def test_no_temporary_folder_means_in_process(monkeypatch):
    import tempfile

    def refused(*args, **kwargs):
        raise PermissionError("read-only TMPDIR")

    monkeypatch.setenv(ENV, "2")
    monkeypatch.setattr(tempfile, "TemporaryDirectory", refused)
    parent = os.getpid()
    with in_workers(lambda x: (x, os.getpid()), [1, 2]) as results:
        assert list(results) == [(1, parent), (2, parent)]


def test_worker_count(monkeypatch):
    monkeypatch.setenv(ENV, "8")
    assert worker_count(3) == 3 and worker_count(0) == 1
    monkeypatch.delenv(ENV)
    assert 1 <= worker_count(100) <= (os.cpu_count() or 1)
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(ENV, bad)
        with pytest.raises(DataError, match=ENV):
            worker_count(4)


def test_logs_read_by_workers_give_the_in_process_table(tmp_path, monkeypatch):
    paths = [_log(tmp_path / f"run{i}", [lean_line(dict(r, predicted_letter="ABCDE"[(j + i) % 5]))
                                         for j, r in enumerate(_records(24))], model_args=f"letter={i}") for i in range(4)]
    monkeypatch.setenv(ENV, "1")
    alone = read_log_columns(paths)
    monkeypatch.setenv(ENV, "2")
    ran = []
    together = read_log_columns(paths, meanwhile=lambda: ran.append(True))
    assert ran == [True]
    _same(together.table, alone.table)


def test_score_with_workers_ends_quietly(tmp_path):
    """The workers inherit the CLI's SIGTERM handler with the fork; stopping them prints nothing."""
    paths = [_log(tmp_path / f"run{i}", [lean_line(r) for r in _records(16)], model_args=f"letter={i}") for i in range(3)]
    env = {**os.environ, ENV: "2"}
    done = subprocess.run([sys.executable, "-m", "medvigil", "score", "--suite", "medvigil", *map(str, paths),
                           "--json", str(tmp_path / "s.json")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Terminated" not in done.stderr
    assert json.loads((tmp_path / "s.json").read_text())["inputs"]["n_records"] == 48


def test_a_worker_stopped_before_it_ran_still_ends():
    """A worker is forked with SIGTERM blocked (_sigterm_held) and lets it in once it has taken the
    default action (_quiet_worker), so a SIGTERM sent before then ends it. (Without the block the
    CLI's handler, inherited with the fork, caught it: raised in the worker, or dropped by CPython
    with the signals pending at the fork, when the pool then waited for the worker for ever.)"""
    from medvigil.cli import _sigterm_as_exception
    from medvigil.files.worker_pool import _quiet_worker, _sigterm_held

    with _sigterm_as_exception(), _sigterm_held():
        pid = os.fork()
        if pid == 0:  # the worker, stopped before it starts
            try:
                time.sleep(0.5)
                _quiet_worker()
                time.sleep(5)
            finally:
                os._exit(0)
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM


def _score(files: list[Path], release: Path, out: Path, workers: str) -> subprocess.CompletedProcess:
    env = {**os.environ, ENV: workers}
    return subprocess.run([sys.executable, "-m", "medvigil", "score", "--suite", "medvigil", "--release", str(release),
                           *map(str, files), "--harness-compatible", "--n-resamples", "20", "--json", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT)


def test_harness_files_scored_by_workers_as_in_process(tmp_path):
    """The authors' result files (18 models, error rows included): the same score JSON with workers
    parsing them beside the release's validation as read in one process; a file the workers
    cannot take (a bad row, a FIFO) gives the same problems either way."""
    from shared_paths import AUTHORS_TOOL

    if not AUTHORS_TOOL.is_file():
        pytest.skip(f"{AUTHORS_TOOL} is not on this machine")
    root = tmp_path / "authors"
    subprocess.run([sys.executable, str(AUTHORS_TOOL), str(root), "--cases", "60", "--models", "6"], check=True, capture_output=True)
    release, files = root / "data/medvigil_v1", sorted((root / "results/baselines").glob("*__mcq.jsonl"))
    outs = {w: tmp_path / f"scores_{w}.json" for w in ("1", "2")}
    for workers, out in outs.items():
        done = _score(files, release, out, workers)
        assert done.returncode == 0, done.stderr
    assert outs["1"].read_bytes() == outs["2"].read_bytes()

    lines = files[3].read_text().splitlines(keepends=True)
    lines[4] = lines[4].replace('"probe_kind": "', '"probe_kind": 7, "x": "', 1)
    files[3].write_text("".join(lines))
    fifo = files[0].with_name("fifo__mcq.jsonl")
    os.mkfifo(fifo)
    for inputs, named in ((files, files[3].name), ([*files, fifo], fifo.name)):
        stderr = {}
        for workers in ("1", "2"):
            done = _score(inputs, release, tmp_path / "bad.json", workers)
            assert done.returncode == 2
            stderr[workers] = done.stderr
        assert stderr["1"] == stderr["2"] and named in stderr["1"]


def test_log_problems_are_the_same_with_workers(tmp_path, monkeypatch):
    records = _records(8)
    bad = [lean_line(r) for r in records]
    bad[2] = bad[2].replace('"retries": 0', '"retries": -1', 1)
    paths = [_log(tmp_path / "a", [lean_line(r) for r in records]), _log(tmp_path / "b", bad, model_args="letter=B"),
             _log(tmp_path / "c", [lean_line(r) for r in records], model_args="letter=C")]
    problems = {}
    for workers in ("1", "2"):
        monkeypatch.setenv(ENV, workers)
        with pytest.raises(DataError) as err:
            read_log_columns(paths)
        problems[workers] = [str(p) for p in err.value.problems]
    assert problems["1"] == problems["2"] and "retries" in problems["1"][0]


def test_which_problems_come_first_when_the_release_loads_beside_the_reading(tmp_path, monkeypatch):
    """The release loads while workers read: with logs only, the logs' problems come first (they
    need no release), else the release's, as when they were read one after the other."""
    from medvigil.suites.medvigil.entry import score

    monkeypatch.setenv(ENV, "2")
    not_a_release = tmp_path / "broken"
    not_a_release.mkdir()
    (not_a_release / "manifest.csv").write_text("x\n1\n")
    good = [_log(tmp_path / f"run{i}", [lean_line(r) for r in _records(8)], model_args=f"letter={i}") for i in range(2)]
    bad = [_log(tmp_path / "bad", [lean_line(dict(r, retries=-1)) for r in _records(8)], model_args="letter=X"), *good]
    with pytest.raises(DataError, match="manifest.csv"):
        score([str(p) for p in good], release=str(not_a_release))
    with pytest.raises(DataError, match="retries"):
        score([str(p) for p in bad], release=str(not_a_release))


def test_progress_is_counted_on_a_terminal_only(monkeypatch, capsys):
    from medvigil.files import worker_pool

    monkeypatch.setenv(ENV, "2")
    monkeypatch.setattr(worker_pool, "_on_terminal", lambda: True)
    with in_workers(lambda x: x * 2, range(5), progress="doubling", unit="number") as results:
        assert list(results) == [0, 2, 4, 6, 8]
    err = capsys.readouterr().err  # a bar counting to 5, cleared at the end
    assert "doubling" in err and "/5" in err and "number" in err
    with in_workers(lambda x: x, range(5), progress="stopped early") as results:
        assert next(results) == 0  # the caller leaves: the bar is closed with the workers
    assert "stopped early" in capsys.readouterr().err
    monkeypatch.setattr(worker_pool, "_on_terminal", lambda: False)
    with in_workers(lambda x: x, range(5), progress="not a terminal") as results:
        assert list(results) == list(range(5))
    assert capsys.readouterr().err == ""


def test_progress_reaches_a_real_terminal(tmp_path):
    import pty

    code = ("from medvigil.files.worker_pool import in_workers\n"
            "with in_workers(lambda x: x + 1, range(4), progress='counting up') as results:\n"
            "    print(list(results))\n")
    import fcntl
    import select
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a new terminal has no size
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=follower, text=True, timeout=120,
                          env={**os.environ, ENV: "2"})
    seen = b""
    while select.select([leader], [], [], 0.5)[0]:  # what the command wrote to the terminal
        seen += os.read(leader, 4096)
    os.close(follower)
    os.close(leader)
    assert proc.returncode == 0 and proc.stdout.strip() == "[1, 2, 3, 4]"
    assert b"counting up" in seen
