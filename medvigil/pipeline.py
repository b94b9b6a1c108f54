"""The end-to-end job on a release: validate, build, run lmms-eval per model, score, report.

lmms-eval runs in a subprocess (``python -m lmms_eval``) exactly as a user would run it,
with ``MEDVIGIL_DATA`` pointing at the build, so the core never imports lmms-eval. What each suite
adds (its tasks, the data they need, models it runs apart, how its logs are scored) is its
``demo.py``'s :class:`~medvigil.suites.demo_parts.DemoPart`, found through the registry.
"""

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.files.atomic_output import mark, refuse_unowned
from medvigil.files.json_text import dumps
from medvigil.files.output_guard import refuse_overlap
from medvigil.report.document import write_report
from medvigil.runs.lmms_quirks import SAMPLES_GLOB
from medvigil.runs.lmms_run import task_of
from medvigil.suites import registry
from medvigil.suites.demo_parts import DemoPart, DemoRun, ModelSpec
from medvigil.suites.medvigil.export.export import build
from medvigil.suites.medvigil.synthetic import generate_release
from medvigil.tasks import tasks_dir

BASELINES = (
    ModelSpec("constant", "letter=A"),
    ModelSpec("random", "seed=0"),
    ModelSpec("blind"),
    ModelSpec("grounded"),
)


@dataclass
class Progress:
    """Numbered progress lines on stderr with elapsed time."""

    total: int
    step: int = 0
    start: float = field(default_factory=time.monotonic)

    def __call__(self, message: str) -> None:
        self.step += 1
        print(
            f"[{self.step}/{self.total}] {message}  ({time.monotonic() - self.start:.0f} s)",
            file=sys.stderr,
            flush=True,
        )


def offline_env(data: Path, mediconfusion: Path | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        **({"MEDICONFUSION_DATA": str(mediconfusion)} if mediconfusion is not None else {}),
    }
    return env | {
        "MEDVIGIL_DATA": str(data),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }


def run_lmms_eval(
    spec: ModelSpec,
    tasks: Sequence[str],
    data: Path,
    out: Path,
    log: Path,
    repeats: int = 1,
    env: Mapping[str, str] | None = None,
) -> list[Path]:
    """Run lmms-eval once for ``spec`` (``env``: more environment variables, e.g. where a suite's
    own data is); return the samples files it wrote."""
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        spec.model,
        "--tasks",
        ",".join(tasks),
        "--include_path",
        str(tasks_dir()),
        "--output_path",
        str(out),
        "--log_samples",
        "--batch_size",
        "1",
        *(["--repeats", str(repeats)] if repeats > 1 else []),
        *(["--model_args", spec.args] if spec.args else []),
    ]
    with open(log, "w", encoding="utf-8") as fh:
        done = subprocess.run(
            cmd, env=offline_env(data) | dict(env or {}), stdout=fh, stderr=subprocess.STDOUT
        )
    samples = sorted(out.rglob(SAMPLES_GLOB))
    text = log.read_text(encoding="utf-8", errors="replace")
    if (
        done.returncode != 0 or "Error during evaluation" in text or not samples
    ):  # lmms-eval 0.7.3 logs that and exits 0
        tail = text.splitlines()[-15:]
        raise RuntimeError(
            f"lmms-eval failed for {spec.name} (exit {done.returncode}); log {log}:\n"
            + "\n".join(tail)
        )
    return samples


def run_demo(
    out: Path,
    *,
    cases: int = 40,
    seed: int = 0,
    models: Sequence[ModelSpec] = BASELINES,
    tasks: Sequence[str] | None = None,
    n_resamples: int = 500,
    stress: bool = True,
    own_models: Mapping[str, Sequence[ModelSpec]] | None = None,
    force: bool = False,
) -> Path:
    """Sample a synthetic release and run the whole audit on it; return the report folder.

    Every suite's part (:class:`~medvigil.suites.demo_parts.DemoPart`) is run; ``stress`` False
    keeps to the parts that are not stress tests (MedVIGIL's, ``tasks`` its tasks, default all of
    its demo's). ``own_models``: the models of a suite that runs its own (MedQ-Deg's, ``--repeats``
    5) instead of its part's. Each suite is scored as its own report section."""
    out = _fresh(Path(out), force)
    parts = {
        name: part
        for name, suite in registry.SUITES.items()
        if (part := suite.declared("DEMO", module="demo")) and (stress or not part.stress)
    }
    own = {
        name: tuple((own_models or {}).get(name, part.models))
        for name, part in parts.items()
        if part.models is not None
    }
    progress = Progress(total=4 + len(models) + sum(map(len, own.values())))
    release, built = out / "release", out / "build" / "medvigil"
    run = DemoRun(out, release, built, cases, seed, n_resamples, tasks, progress)
    env = _prepare(run, parts)
    samples = _baseline_runs(run, parts, models, env)
    for name, specs in own.items():
        _own_runs(run, name, parts[name], specs, env)
    progress(
        f"scoring the logs of {', '.join(parts)} ({n_resamples} bootstrap resamples where taken)"
    )
    result = {"suites": {name: _scored(run, name, part, samples) for name, part in parts.items()}}
    progress("writing the report")
    paths = write_report(
        result,
        out / "report",
        title="MedVIGIL trust report: synthetic release, sanity baselines",
        inputs=(),
    )
    return paths["html"].parent


def _fresh(out: Path, force: bool) -> Path:
    """``out`` made empty and marked as a demo's (an earlier demo's output replaced with
    ``force``)."""
    import shutil

    if out.exists():
        if not force:
            raise FileExistsError(f"{out} exists; pass --force to replace it")
        refuse_overlap({"--out": out}, (), replace=True)  # never the root, home or current folder
        refuse_unowned(out, "demo")  # only an earlier demo output (a file or a link never is)
        shutil.rmtree(out)
    out.mkdir(parents=True)
    mark(out, "demo")
    return out


def _prepare(run: DemoRun, parts: Mapping[str, DemoPart]) -> dict[str, str]:
    """The synthetic release, its build (validated first: a DataError lists every problem) and
    each part's own data; lmms-eval's environment variables for the latter."""
    run.progress(
        f"sampling a {run.cases}-case synthetic release (seed {run.seed}) into {run.release}"
    )
    generate_release(run.release, cases=run.cases, seed=run.seed)
    made = "".join(f"; {p.prepared.format(cases=run.cases)}" for p in parts.values() if p.prepared)
    run.progress(
        f"validating the release and building the Hub-ready dataset into {run.built}{made}"
    )
    build(run.release, run.built)
    env: dict[str, str] = {}
    for part in parts.values():
        env |= part.prepare(run) if part.prepare else {}
    return env


def _baseline_runs(
    run: DemoRun, parts: Mapping[str, DemoPart], models: Sequence[ModelSpec], env: dict
) -> list[Path]:
    """One lmms-eval run per baseline (``runs/<model>/``) of every part's tasks that are asked
    there; the samples files written."""
    asked = tuple(t for part in parts.values() if part.models is None for t in part.tasks(run))
    samples: list[Path] = []
    for spec in models:
        run.progress(f"lmms-eval --model {spec.model} {spec.args} on {len(asked)} task(s)")
        folder = run.out / "runs" / spec.folder
        folder.mkdir(parents=True)
        samples += run_lmms_eval(spec, asked, run.built, folder, folder / "lmms_eval.log", env=env)
    return samples


def _own_runs(
    run: DemoRun, name: str, part: DemoPart, specs: Sequence[ModelSpec], env: dict
) -> None:
    """The lmms-eval runs of a part that runs its own models (``runs_<suite>/<model>/``)."""
    tasks = part.tasks(run)
    for spec in specs:
        run.progress(
            f"lmms-eval --model {spec.model} {spec.args} on {', '.join(tasks)} "
            f"(--repeats {part.repeats})"
        )
        folder = run.out / f"runs_{name}" / spec.folder
        folder.mkdir(parents=True)
        log = folder / "lmms_eval.log"
        run_lmms_eval(spec, tasks, run.built, folder, log, repeats=part.repeats, env=env)


def _scored(run: DemoRun, name: str, part: DemoPart, samples: Sequence[Path]) -> dict:
    """Suite ``name``'s logs scored as ``medvigil score --json`` writes them (strict JSON): the
    samples files of its tasks, or its runs folder."""
    if part.files:
        files = [str(p) for p in samples if (task_of(p) or "").startswith(f"{name}_")]
    else:
        files = [str(run.out / ("runs" if part.models is None else f"runs_{name}"))]
    release = part.release(run) if part.release else None
    options = {"n_resamples": run.n_resamples} if part.resampled else {}
    return json.loads(dumps(registry.score(name, files, release=release, **options)))
