"""Issue 42, class "hangs and memory": ``compare`` stays within stated bounds (at most
MAX_COMPARED_MODELS models, MAX_RESAMPLED_VALUES resampled values, --resamples as ``score``'s)
and refuses beyond them with a message, never a MemoryError; each bound has a control."""

import pytest
from conftest import run_cli, run_limited, write_log

from medvigil.scoring.paired import MAX_COMPARED_MODELS


def _runs(folder, n):
    for i in range(n):
        write_log(folder / f"m{i:04d}", "medqdeg", model=f"model{i:04d}")
    return folder


def test_compare_of_a_thousand_models_is_refused_within_memory(tmp_path):
    runs = _runs(tmp_path / "runs", 1000)
    done = run_limited(
        ["compare", "--suite", "medqdeg", runs, "--resamples", "10"],
        memory_bytes=2 << 30,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert f"1,000 models to compare; one comparison takes at most {MAX_COMPARED_MODELS}" in (
        done.stderr
    )


def test_compare_at_the_model_bound_runs(capsys, tmp_path):
    runs = _runs(tmp_path / "runs", MAX_COMPARED_MODELS)  # control: the bound itself
    out, _ = run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", runs, "--resamples", "10", "--metrics", "drop_l12"],
        code=0,
    )
    assert out.count("model0000") >= MAX_COMPARED_MODELS - 1


def test_compare_resamples_are_bounded(capsys, tmp_path, monkeypatch):
    from medvigil.scoring import paired

    runs = _runs(tmp_path / "runs", 2)
    with pytest.raises(SystemExit):  # argparse: a usage error, exit 2
        run_cli(capsys, ["compare", "--suite", "medqdeg", runs, "--resamples", str(10**9)])
    assert "expected an integer in 1..500000" in capsys.readouterr().err
    monkeypatch.setattr(paired, "MAX_RESAMPLED_VALUES", 100)  # 20 x 2 models x 3 metrics = 120
    run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", runs, "--resamples", "20"],
        says=["field '--resamples'", "120 resampled values"],
    )
    run_cli(capsys, ["compare", "--suite", "medqdeg", runs, "--resamples", "10"], code=0)


def test_memory_running_out_anyway_is_one_line_not_a_traceback(capsys, tmp_path, monkeypatch):
    from medvigil.suites import registry

    runs = _runs(tmp_path / "runs", 2)

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(registry, "compare", exhausted)
    run_cli(
        capsys,
        ["compare", "--suite", "medqdeg", runs],
        says=["error: out of memory in `medvigil compare`"],
        inputs=[runs],
    )
    monkeypatch.undo()
    run_cli(capsys, ["compare", "--suite", "medqdeg", runs, "--resamples", "10"], code=0)


@pytest.mark.parametrize("command", ["score", "compare"])
def test_the_files_of_one_command_are_bounded_in_total(capsys, tmp_path, monkeypatch, command):
    """Each file under the per-file limit, all of them together over four times it: refused with
    the bound named (before the reader holds them all); the files alone: scored (control)."""
    from medvigil.files.input_files import TOTAL_FACTOR

    runs = _runs(tmp_path / "runs", 6)
    sizes = sorted(p.stat().st_size for p in runs.rglob("*.json*"))
    args = [command, "--suite", "medqdeg", runs] + (["--resamples", "10"] * (command == "compare"))
    monkeypatch.setenv("MEDVIGIL_MAX_INPUT_BYTES", str(sizes[-1]))  # every file fits alone
    assert sum(sizes) > TOTAL_FACTOR * sizes[-1]
    run_cli(capsys, args, says=["more than its", "-byte bound", "MEDVIGIL_MAX_INPUT_BYTES"])
    monkeypatch.setenv("MEDVIGIL_MAX_INPUT_BYTES", str(sum(sizes)))
    run_cli(capsys, args, code=0)


def test_a_bad_limit_leaves_no_command_recording(capsys, tmp_path, monkeypatch):
    """A bad MEDVIGIL_MAX_INPUT_BYTES stops the command before it records its reads: nothing of
    that command stays recorded for the next call in the same process."""
    from medvigil.files.input_files import paths_read

    runs = _runs(tmp_path / "runs", 1)
    monkeypatch.setenv("MEDVIGIL_MAX_INPUT_BYTES", "lots")
    run_cli(capsys, ["score", "--suite", "medqdeg", runs], says=["whole number of bytes"])
    assert paths_read() == frozenset()
