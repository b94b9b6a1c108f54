"""The end-to-end job on a release: validate, build, run lmms-eval per model, score, report.

lmms-eval runs in a subprocess (``python -m lmms_eval``) exactly as a user would run it,
with ``MEDVIGIL_DATA`` pointing at the build, so the core never imports lmms-eval.
"""

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.constants import SAFE_LETTER
from medvigil.files.atomic_output import mark, refuse_unowned
from medvigil.files.output_guard import refuse_overlap
from medvigil.report.document import write_report
from medvigil.runs.lmms_quirks import SAMPLES_GLOB
from medvigil.runs.lmms_run import task_of
from medvigil.suites.mediconfusion import export as mediconfusion_export
from medvigil.suites.mediconfusion.synthetic import write_sample
from medvigil.suites.medvigil.export.export import build
from medvigil.suites.medvigil.scoring.scoring import audit_to_json
from medvigil.suites.medvigil.synthetic import generate_release
from medvigil.suites.readiness.protocol import ARMS, arm_docs
from medvigil.suites.registry import score
from medvigil.tasks import tasks_dir

DEFAULT_TASKS = (
    "medvigil_mcq",
    "medvigil_mcq_shuffled",
    "medvigil_roi_decay",
    "medvigil_blur",
)  # blur includes noimg
STRESS_TASKS = (
    "readiness",
    "cbd_quadrants",
    "pressure",
)  # asked in each baseline's run beside the MedVIGIL tasks
COT_ARM = "readiness_cot"  # its own task, not in the readiness group
MEDICONFUSION_TASKS = ("mediconfusion",)  # the group: MC, GD, PS and FF modes on synthetic pairs
MEDQDEG_REPEATS = 5  # T trials per degraded probe (perceived confidence needs repeats)


@dataclass(frozen=True)
class ModelSpec:
    """An lmms-eval model and its ``--model_args`` (empty for none)."""

    model: str
    args: str = ""

    @property
    def name(self) -> str:
        return f"{self.model}({self.args})" if self.args else self.model

    @property
    def folder(self) -> str:
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in self.name)


BASELINES = (
    ModelSpec("constant", "letter=A"),
    ModelSpec("random", "seed=0"),
    ModelSpec("blind"),
    ModelSpec("grounded"),
)
# MedQ-Deg: the grounded reader sampling at temperature 1 against the deterministic text prior
MEDQDEG_MODELS = (ModelSpec("grounded", "temperature=1,seed=0"), ModelSpec("blind"))


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
    mediconfusion: Path | None = None,
) -> list[Path]:
    """Run lmms-eval once for ``spec``; return the samples files it wrote."""
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
            cmd, env=offline_env(data, mediconfusion), stdout=fh, stderr=subprocess.STDOUT
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


def _stress_tasks(built: Path, progress: Callable[[str], None]) -> tuple[str, ...]:
    """STRESS_TASKS, with the readiness group spelled out as the arms this build can ask: a small
    release may have no T5 donor image or too few distractors for 4R, and lmms-eval cannot run an
    empty arm. Each arm left out is said, with the reason."""
    import datasets

    rows = [
        {"safe_letter": SAFE_LETTER, **row}
        for row in datasets.load_dataset(str(built), "mcq", split="test")
        .remove_columns("image")
        .to_list()
    ]
    arms = []
    for arm in (a for a in ARMS if a != COT_ARM):
        try:
            asked = bool(arm_docs(arm, rows))
        except ValueError as exc:  # the arm's own message: which row and field, what is missing
            progress(f"readiness arm {arm} left out: {exc}")
            continue
        if asked:
            arms.append(arm)
        else:
            progress(f"readiness arm {arm} left out: no item of this build qualifies")
    if len(arms) == len(ARMS) - 1:
        return STRESS_TASKS
    return tuple(
        task for name in STRESS_TASKS for task in (arms if name == "readiness" else (name,))
    )


def run_demo(
    out: Path,
    *,
    cases: int = 40,
    seed: int = 0,
    models: Sequence[ModelSpec] = BASELINES,
    tasks: Sequence[str] = DEFAULT_TASKS,
    n_resamples: int = 500,
    stress: bool = True,
    medqdeg_models: Sequence[ModelSpec] = MEDQDEG_MODELS,
    force: bool = False,
) -> Path:
    """Sample a synthetic release and run the whole audit on it; return the report folder.

    ``stress`` adds the Readiness and CbD tasks to every model's run, the four MediConfusion modes
    on synthetic pairs (as many as cases) and MedQ-Deg runs of ``medqdeg_models`` (``--repeats``
    :data:`MEDQDEG_REPEATS`), each scored as its own report section.
    """
    import json
    import shutil

    out = Path(out)
    if out.exists():
        if not force:
            raise FileExistsError(f"{out} exists; pass --force to replace it")
        refuse_overlap({"--out": out}, (), replace=True)  # never the root, home or current folder
        refuse_unowned(out, "demo")  # only an earlier demo output (a file or a link never is)
        shutil.rmtree(out)
    out.mkdir(parents=True)
    mark(out, "demo")
    deg_models = tuple(medqdeg_models) if stress else ()
    progress = Progress(total=4 + len(models) + len(deg_models))
    release, built, runs = out / "release", out / "build" / "medvigil", out / "runs"
    progress(f"sampling a {cases}-case synthetic release (seed {seed}) into {release}")
    generate_release(release, cases=cases, seed=seed)
    progress(
        f"validating the release and building the Hub-ready dataset into {built}"
        + (f"; {cases} synthetic MediConfusion pairs" if stress else "")
    )
    build(release, built)  # validates first: raises DataError listing every problem
    mc_release, mc_built = out / "mediconfusion" / "release", out / "mediconfusion" / "build"
    if stress:
        write_sample(mc_release, n_pairs=cases, seed=seed)
        mediconfusion_export.build(
            mc_release / "data" / "dataset.json", mc_release / "roco", mc_built
        )
    run_tasks = tuple(tasks) + (
        _stress_tasks(built, progress) + MEDICONFUSION_TASKS if stress else ()
    )
    samples: list[Path] = []
    for spec in models:
        progress(f"lmms-eval --model {spec.model} {spec.args} on {len(run_tasks)} task(s)")
        folder = runs / spec.folder
        folder.mkdir(parents=True)
        samples += run_lmms_eval(
            spec,
            run_tasks,
            built,
            folder,
            folder / "lmms_eval.log",
            mediconfusion=mc_built if stress else None,
        )
    for spec in deg_models:
        progress(
            f"lmms-eval --model {spec.model} {spec.args} on "
            f"medqdeg (L0-L2, --repeats {MEDQDEG_REPEATS})"
        )
        folder = out / "runs_medqdeg" / spec.folder
        folder.mkdir(parents=True)
        run_lmms_eval(
            spec, ("medqdeg",), built, folder, folder / "lmms_eval.log", repeats=MEDQDEG_REPEATS
        )
    medvigil_logs = [p for p in samples if (task_of(p) or "").startswith("medvigil_")]
    progress(
        f"scoring {len(medvigil_logs)} MedVIGIL log file(s) with "
        f"{n_resamples} case-clustered bootstrap resamples"
        + ("; MediConfusion, Readiness, CbD, pressure and MedQ-Deg logs" if stress else "")
    )
    # the same scoring as `medvigil score`: audit, clinician Doctors row, triplet matching counts
    audit = json.loads(
        audit_to_json(
            score("medvigil", medvigil_logs, release=str(release), n_resamples=n_resamples)
        )
    )
    (out / "scores.json").write_text(json.dumps(audit), encoding="utf-8")
    result = {"suites": {"medvigil": audit}}
    if stress:
        result["suites"] |= {
            suite: json.loads(audit_to_json(score(suite, [where])))
            for suite, where in (
                ("readiness", runs),
                ("cbd", runs),
                ("pressure", runs),
                ("medqdeg", out / "runs_medqdeg"),
            )
        }
        mc_logs = [str(p) for p in samples if (task_of(p) or "").startswith("mediconfusion_")]
        result["suites"]["mediconfusion"] = score(
            "mediconfusion", mc_logs, release=str(mc_release / "data" / "dataset.json")
        )
    progress("writing the report")
    paths = write_report(
        result,
        out / "report",
        title="MedVIGIL trust report: synthetic release, sanity baselines",
        inputs=(),
    )
    return paths["html"].parent
