"""Shared fixtures of the robustness corpus (issue 15): small inputs of every kind, built once,
and :func:`run_cli`, which runs one command in-process and checks the contract every bad
input must meet: the expected exit code, a message naming file (and row/field where there
is one), no traceback, inputs byte-identical afterwards and no partial output or staging
folder left behind."""

import contextlib
import hashlib
import io
import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def tree_digest(path: Path) -> str:
    """SHA-256 over every file (name + bytes) under ``path`` (or of the file itself); symlinks by
    target."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_symlink():
        h.update(b"link:" + os.readlink(path).encode())
        return h.hexdigest()
    if path.is_file():
        h.update(path.read_bytes())
        return h.hexdigest()
    for p in sorted(path.rglob("*")):
        h.update(p.relative_to(path).as_posix().encode() + b"\0")
        if p.is_symlink():
            h.update(b"link:" + os.readlink(p).encode())
        elif p.is_file():
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def leftovers(folder: Path) -> list[str]:
    """Staging/partial/temporary siblings a writer could leave in ``folder``."""
    if not folder.is_dir():
        return []
    return sorted(
        p.name
        for p in folder.iterdir()
        if p.name.startswith(".")
        and any(t in p.name for t in (".staging-", ".partial-", ".old-", ".tmp"))
    )


def run_cli(
    capsys,
    argv: list[str],
    *,
    code: int = 2,
    says: Iterable[str] = (),
    inputs: Iterable[Path] = (),
    absent: Iterable[Path] = (),
) -> tuple[str, str]:
    """Run ``medvigil ARGV`` in-process and check the bad-input contract (see the module doc)."""
    from medvigil.cli import main

    inputs = [Path(p) for p in inputs]
    before = {p: tree_digest(p) for p in inputs}
    capsys.readouterr()
    got = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}, expected {code}\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}"
    assert "Traceback" not in err and "Traceback" not in out
    for fragment in says:
        assert fragment in err, f"{fragment!r} not in stderr:\n{err[-3000:]}"
    for p in inputs:
        assert p.exists() or p.is_symlink(), f"input {p} was deleted"
        assert tree_digest(p) == before[p], f"input {p} was modified"
    for p in map(Path, absent):
        assert not p.exists(), f"partial output {p} was left behind"
        assert not leftovers(p.parent), f"staging leftovers in {p.parent}: {leftovers(p.parent)}"
    return out, err


def run_limited(
    argv: list[str],
    *,
    memory_bytes: int = 3 << 30,
    timeout: float = 60,
    cwd: Path | None = None,
    env: dict | None = None,
) -> subprocess.CompletedProcess:
    """``python -m medvigil ARGV`` in a subprocess under an address-space limit and a timeout."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **(env or {})}
    return subprocess.run(
        [PYTHON, "-m", "medvigil", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
        cwd=cwd,
        env=full_env,
    )


# ---------------------------------------------------------------- inputs built once


@pytest.fixture(scope="session")
def small_release(tmp_path_factory) -> tuple[Path, Path]:
    """(release, credentialed source folder): an 8-case synthetic release with credentialed CXR
    cases."""
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("rb_release")
    generate_release(base / "release", cases=8, seed=3, credentialed_out=base / "credentialed")
    return base / "release", base / "credentialed"


@pytest.fixture()
def release_copy(small_release, tmp_path) -> tuple[Path, Path]:
    """A private copy (release, credentialed) under ``tmp_path/inputs`` a test may attack."""
    import shutil

    rel, cred = small_release
    base = tmp_path / "inputs"
    shutil.copytree(rel, base / "release", symlinks=True)
    shutil.copytree(cred, base / "credentialed", symlinks=True)
    return base / "release", base / "credentialed"


@pytest.fixture(scope="session")
def small_build(small_release, tmp_path_factory) -> Path:
    from medvigil.suites.medvigil.export.export import build

    out = tmp_path_factory.mktemp("rb_build") / "built"
    build(small_release[0], out, configs=("mcq",), repo_id="org/x")  # publish --repo org/x
    return out


@pytest.fixture(scope="session")
def mc_sample(tmp_path_factory) -> Path:
    """A synthetic MediConfusion sample (data/dataset.json + roco/ images), 4 pairs."""
    from medvigil.suites.mediconfusion.synthetic import write_sample

    out = tmp_path_factory.mktemp("rb_mc") / "sample"
    write_sample(out, n_pairs=4, seed=0)
    return out


# ---------------------------------------------------------------- lmms-eval logs in the shape our
# tasks write

BASE = {
    "model": "lmms_eval_model",
    "case_id": "c1",
    "probe_kind": "original",
    "risk_tier": "L1",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "text_only_answerable": False,
    "category": None,
    "correct_letter": "A",
    "raw_response": "A",
    "retries": 0,
}


def suite_records(suite: str, n: int = 4) -> list[dict]:
    """Schema-valid per-probe records of ``suite`` as the task hooks write them."""
    out = []
    for i in range(n):
        letter = "AB"[i % 2]
        r = {
            **BASE,
            "suite": suite,
            "probe_id": f"p{i}",
            "case_id": f"c{i}",
            "predicted_letter": letter,
            "parse_status": "ok",
        }
        if suite == "medqdeg":
            r.update(
                condition="L0",
                extra={
                    "degradation": "clean",
                    "severity": 0,
                    "votes": [letter, "A", None],
                    "n_options": 4,
                    "trials": 3,
                },
            )
        elif suite == "cbd":
            r.update(
                condition="default" if i < n // 2 else "noimg",
                case_id="c0",
                probe_id=f"p{i % (n // 2)}",
                probe_kind="original" if i % (n // 2) == 0 else "tcf",
                extra={"paraphrase_index": i % (n // 2), "paraphrase_source": "release"},
            )
        elif suite == "readiness":
            r.update(
                condition="default", source_dataset="NEJM", extra={"laterality_dependent": False}
            )
        elif suite == "mediconfusion":
            r.update(
                condition="mc",
                probe_kind="mediconfusion",
                extra={"votes": {"A": 3, "B": 0}, "margin": 3},
            )
        out.append(r)
    return out


TASK_OF = {
    "medqdeg": "medqdeg_L0",
    "cbd": "cbd_quadrants",
    "readiness": "readiness_img",
    "mediconfusion": "mediconfusion_mc",
    "medvigil": "medvigil_mcq",
}


def write_log(
    folder: Path,
    suite: str,
    records: list[dict] | None = None,
    *,
    lines: list[str] | None = None,
    model: str = "grounded",
    stamp: str = "20260101_000000",
) -> Path:
    """``<stamp>_samples_<task>.jsonl`` (one sample per line, the record under each metric key)
    and ``<stamp>_results.json`` (``config.model``) as lmms-eval writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    task = TASK_OF[suite]
    if lines is None:
        records = suite_records(suite) if records is None else records
        lines = [
            json.dumps({"doc_id": i, "target": r["correct_letter"], "acc": r, "mcs": r})
            for i, r in enumerate(records)
        ]
    path = folder / f"{stamp}_samples_{task}.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (folder / f"{stamp}_results.json").write_text(
        json.dumps({"config": {"model": model, "model_args": ""}}), encoding="utf-8"
    )
    return path


@contextlib.contextmanager
def quiet():
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def mc_results(dataset_json: Path, *, votes=(10, 0)) -> dict:
    """An authors'-format ``Results/<model>_<mode>.json`` answering every pair of
    ``dataset_json``."""
    pairs = json.loads(Path(dataset_json).read_text(encoding="utf-8"))
    a, b = votes
    return {
        pid: {
            "answer": {
                "im1": {"A": a, "B": b, "full_answer": "A"},
                "im2": {"A": a, "B": b, "full_answer": "A"},
            }
        }
        for pid in pairs
        if not pid.startswith("_")
    }


_BATCH = r"""
import contextlib, io, json, sys
from medvigil.cli import main
out = []
for argv in json.load(open(sys.argv[1])):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            import traceback
            traceback.print_exc(file=err)
            code = "exception"
    out.append([code, err.getvalue()])
print(json.dumps(out))
"""


def run_batch(
    cases: list[list[str]],
    tmp_path: Path,
    *,
    memory_bytes: int = 3 << 30,
    timeout: float = 120,
    env: dict | None = None,
) -> list[tuple[int, str]]:
    """Run many ``medvigil`` command lines in ONE subprocess under a memory limit and a timeout
    (a regression reading /dev/zero or waiting on a FIFO then fails instead of eating the machine).
    Returns (exit code, stdout + stderr) per command line."""
    argv_file = tmp_path / "batch.json"
    argv_file.write_text(json.dumps([[str(a) for a in argv] for argv in cases]))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **(env or {})}
    done = subprocess.run(
        [PYTHON, "-c", _BATCH, str(argv_file)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
        env=full_env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [tuple(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]
