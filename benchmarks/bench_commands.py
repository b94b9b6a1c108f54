"""Time the commands a user runs, on files, as whole processes (GNU ``/usr/bin/time -v``).

Inputs (cached under ``--workdir``), per scale k (k = 1: 300 cases, 2,556 probes, 18 models):

* ``python3 authors_format_release.py OUT --scale k``: a release in the published layout
  (``data/medvigil_v1/*.csv``, no images) and 18 ``results/baselines/<model>__mcq.jsonl``
  files in the authors' harness shape, failed calls (error rows) included;
* 18 lmms-eval ``--log_samples`` runs of ``medvigil_mcq`` carrying the same answers: every
  line is a real line of a small lmms-eval 0.7.3 run of our task (``--lmms-runs``) with the
  per-probe record (and its scoring key, where the template run has one) replaced;
* 18 runs each of the ``medqdeg``, ``readiness``, ``cbd_quadrants`` and ``mediconfusion_*``
  tasks of comparable size: the real run's files repeated with renamed cases and per-model
  answers (for MediConfusion, its ``dataset.json`` too, the pairs renamed alike).

Commands timed (wall time, user+sys CPU, peak RSS, exit status):

* ``score-harness``: ``medvigil score --suite medvigil --harness-compatible`` (500 resamples)
  on the 18 result files;
* ``validate``: ``medvigil validate --no-images`` of the release;
* ``score-lmms``: the same score on the 18 lmms-eval logs;
* ``score-medqdeg``, ``score-readiness``, ``score-cbd``: ``medvigil score --suite <s>``;
* ``score-mediconfusion``: ``medvigil score --suite mediconfusion --release`` the scaled
  ``dataset.json`` on its 18 runs;
* ``report``: ``medvigil report`` over every score written above (five suites);
* ``authors``: with ``--authors-repo``, the authors' ``scripts/bench_aggregate.py``,
  ``analysis/recompute_mcs.py`` and ``analysis/bootstrap_mcs.py`` run from a temporary copy
  (their ``MODEL_FILES`` list set to the 18 models); their code is never stored here.

The generated release has no images (as the authors' harness keeps them apart), so
``validate`` runs with ``--metadata-only``: every CSV/JSON check, no image file looked at.

    python benchmarks/bench_commands.py --scales 1 10                       # the 300- and
    3,000-case tables python benchmarks/bench_commands.py --scales 1 10 100 --only score-harness
    validate   # scaling python benchmarks/bench_commands.py --scales 1 --authors-repo
    "$MEDVIGIL_AUTHORS_MIRROR"
"""

import argparse
import csv
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GNU_TIME = Path("/usr/bin/time")
DEFAULT_TOOL = (
    Path(__file__).resolve().parents[2] / "shared" / "tools" / "authors_format_release.py"
)  # shared/ beside the repo
COMMANDS = (
    "score-harness",
    "validate",
    "score-lmms",
    "score-medqdeg",
    "score-readiness",
    "score-cbd",
    "score-mediconfusion",
    "report",
    "authors",
)
STRESS = {
    "medqdeg": "medqdeg_L",
    "readiness": "readiness_",
    "cbd": "cbd_quadrants",
    "mediconfusion": "mediconfusion_",
}
OPTION_LETTERS = {
    "mediconfusion": "AB"
}  # a MediConfusion question has two options; the others up to five
PAIR_COPY = "-"  # MediConfusion pair ids allow letters, digits, '_' and '-' only
LETTERS = "ABCDE"
STAMP = "20260101_000000"
AUTHORS_SCRIPTS = (
    "scripts/bench_aggregate.py",
    "analysis/recompute_mcs.py",
    "analysis/bootstrap_mcs.py",
)


# -- timing ------------------------------------------------------------------------------


def require_gnu_time() -> None:
    if not (GNU_TIME.is_file() and os.access(GNU_TIME, os.X_OK)):
        sys.exit(f"error: {GNU_TIME} (GNU time) is missing; install it with `apt-get install time`")


def timed(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None) -> dict:
    """Run ``cmd`` under ``/usr/bin/time -v``: wall s, user+sys s, peak RSS MB, exit status."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        proc = subprocess.run(
            [str(GNU_TIME), "-v", "-o", report.name, *cmd],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
        )
        fields = dict(
            line.strip().split(": ", 1) for line in report.read().splitlines() if ": " in line
        )
    wall = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall)))
    return {
        "wall_s": round(seconds, 3),
        "cpu_s": round(
            float(fields["User time (seconds)"]) + float(fields["System time (seconds)"]), 3
        ),
        "rss_mb": round(int(fields["Maximum resident set size (kbytes)"]) / 1024, 1),
        "exit": proc.returncode,
        "stderr_tail": proc.stderr.strip().splitlines()[-3:],
    }


# read a command's input files once before its runs (``--cold``: leave the page cache as it is)
WARM = True


def warm_inputs(cmd: list[str]) -> None:
    """Read once every file ``cmd`` names (and every file under a folder it names), so that its
    runs time the command, not the disk: the benchmark's inputs (10 GB at 3,000 cases) exceed the
    page cache, and the commands timed before evict the next one's files."""
    for i, arg in enumerate(cmd[1:], start=1):
        if arg.startswith("-") or cmd[i - 1] == "-m":
            continue  # an option, or the module run
        path = Path(arg)
        files = (
            [path]
            if path.is_file()
            else sorted(f for f in path.rglob("*") if f.is_file())
            if path.is_dir()
            else []
        )
        for file in files:
            with open(file, "rb") as handle:
                while handle.read(1 << 24):
                    pass


def best_of(cmd: list[str], repeat: int, **kw) -> dict:
    if WARM:
        warm_inputs(cmd)
    runs = [timed(cmd, **kw) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["wall_s"])
    return {**best, "wall_runs": [r["wall_s"] for r in runs]}


# -- inputs ------------------------------------------------------------------------------


def generate(tool: Path, work: Path, scale: int) -> Path:
    out = work / f"authors_x{scale}"
    if not (out / "synthetic_release.json").is_file():
        subprocess.run(
            [sys.executable, str(tool), str(out), "--scale", str(scale)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return out


def result_files(gen: Path) -> list[Path]:
    return sorted((gen / "results" / "baselines").glob("*__mcq.jsonl"))


def _release_tables(release: Path) -> tuple[dict, dict]:
    with open(release / "manifest.csv", newline="", encoding="utf-8") as fh:
        cases = {r["case_id"]: r for r in csv.DictReader(fh)}
    with open(release / "probes_mcq.csv", newline="", encoding="utf-8") as fh:
        probes = {r["probe_id"]: r for r in csv.DictReader(fh)}
    return cases, probes


def real_runs(work: Path, given: Path | None) -> Path:
    """A folder of real lmms-eval runs of our tasks: ``--lmms-runs`` or a small ``medvigil
    demo``."""
    if given is not None:
        return given
    demo = work / "lmms_demo"
    if not (demo / "report").is_dir():
        print(
            f"running `medvigil demo --cases 8` once into {demo} "
            f"for real lmms-eval log lines (a few minutes)",
            file=sys.stderr,
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "medvigil",
                "demo",
                "--out",
                str(demo),
                "--cases",
                "8",
                "--tasks",
                "medvigil_mcq",
                "--n-resamples",
                "20",
                "--force",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return demo


def _template_files(runs: Path, task_prefix: str) -> list[Path]:
    """The samples files of one real run (the first model folder holding them)."""
    for folder in sorted({p.parent for p in runs.rglob(f"*_samples_{task_prefix}*.jsonl")}):
        return sorted(folder.glob(f"*_samples_{task_prefix}*.jsonl"))
    raise SystemExit(f"error: no lmms-eval samples files of {task_prefix}* under {runs}")


def _write_run(folder: Path, model: str, tasks: dict[str, list[str]]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{STAMP}_results.json").write_text(
        json.dumps({"config": {"model": model, "model_args": ""}}), encoding="utf-8"
    )
    paths = []
    for task, lines in tasks.items():
        path = folder / f"{STAMP}_samples_{task}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return paths


def _line(template: dict, record: dict, response: str | None) -> str:
    """A template sample line with ``record`` where the template has a record (every metric key in
    logs of the earlier task pack, the first one now), the record's scoring key where the template
    has a list under a metric key (an earlier task pack), and the template's value with the
    record's case under the other metric keys (``{"score", "case_id"}`` now)."""
    from medvigil.tasks.medvigil.utils import METRICS, scoring_key

    line = {
        k: record
        if isinstance(v, dict) and "probe_id" in v
        else list(scoring_key(record))
        if k in METRICS and isinstance(v, list)
        else {**v, "case_id": record["case_id"]}
        if k in METRICS and isinstance(v, dict) and "case_id" in v
        else v
        for k, v in template.items()
    }
    if isinstance(line.get("filtered_resps"), str):
        line["filtered_resps"] = response or ""
    line["target"] = record["correct_letter"]
    return json.dumps(line, ensure_ascii=False) + "\n"


def write_medvigil_logs(gen: Path, runs: Path, out: Path) -> list[Path]:
    """18 ``medvigil_mcq`` runs holding the answers of the 18 result files."""
    done = out / "done"
    files = result_files(gen)
    if done.is_file():
        return sorted(out.rglob("*_samples_medvigil_mcq.jsonl"))
    # the headline task's file (a demo's run folder also holds medvigil_mcq_noimg, _shuffled, ...)
    (template_path,) = [
        p
        for p in _template_files(runs, "medvigil_mcq")
        if p.name.endswith("_samples_medvigil_mcq.jsonl")
    ]
    template = json.loads(template_path.read_text(encoding="utf-8").splitlines()[0])
    key_record = template["mcs"]
    cases, _ = _release_tables(gen / "data" / "medvigil_v1")
    paths = []
    for f in files:
        model = f.name.removesuffix("__mcq.jsonl")
        lines = []
        with open(f, encoding="utf-8") as fh:
            for text in fh:
                row = json.loads(text)
                case = cases[row["case_id"]]
                status = row.get("status")
                letter = (row.get("model_letter") or "").strip() or None
                record = {
                    **key_record,
                    "model": "lmms-eval-run",
                    "probe_id": row["probe_id"],
                    "case_id": row["case_id"],
                    "probe_kind": row["probe_kind"],
                    "risk_tier": case["risk_tier"],
                    "source_dataset": case["source_dataset"],
                    "modality": case["modality"],
                    "text_only_answerable": case["text_only_answerable"] == "true",
                    "correct_letter": row.get("correct_letter") or "A",
                    "predicted_letter": letter if status == "ok" else None,
                    "parse_status": "error"
                    if status != "ok"
                    else ("ok" if letter else "parse_failure"),
                    "raw_response": row.get("model_answer", ""),
                }
                lines.append(_line(template, record, record["raw_response"]))
        paths += _write_run(out / model, model, {"medvigil_mcq": lines})
    done.touch()
    return paths


def write_stress_logs(
    suite: str, runs: Path, out: Path, n_models: int, target_lines: int, seed: int = 0
) -> list[Path]:
    """``n_models`` runs of ``suite``: the real run's files repeated (cases renamed) to about
    ``target_lines`` lines per model, each answer drawn per model (60% correct). MediConfusion's
    pairs are renamed in a copy of the real run's ``dataset.json`` too (``out/dataset.json``)."""
    done = out / "done"
    if done.is_file():
        return sorted(out.rglob("*_samples_*.jsonl"))
    templates = {}
    for path in _template_files(runs, STRESS[suite]):
        task = path.name.split("_samples_", 1)[1].removesuffix(".jsonl")
        templates[task] = [
            json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()
        ]
    per_copy = sum(len(v) for v in templates.values())
    copies = max(1, round(target_lines / per_copy))
    letters = OPTION_LETTERS.get(suite, LETTERS)
    pairs = suite == "mediconfusion"
    if pairs:
        _write_mediconfusion_release(runs, out / "dataset.json", copies)
    paths = []
    for m in range(n_models):
        rng = random.Random(seed * 1000 + m)
        model = f"synth-vlm-{m + 1:02d}"
        tasks: dict[str, list[str]] = {t: [] for t in templates}
        answers: dict[
            tuple, str
        ] = {}  # one answer per (copy, probe, arm condition) keeps pairs consistent
        for c in range(copies):
            for task, lines in templates.items():
                for template in lines:
                    record = next(v for v in template.values() if isinstance(v, dict))
                    new = json.loads(json.dumps(record))
                    new["case_id"] = (
                        f"{record['case_id']}{PAIR_COPY}{c}"
                        if pairs
                        else f"{record['case_id']}~{c}"
                    )
                    # a MediConfusion probe is "<pair>:<image>"
                    new["probe_id"] = (
                        new["case_id"] + record["probe_id"][len(record["case_id"]) :]
                        if pairs
                        else f"{record['probe_id']}~{c}"
                    )
                    if (
                        isinstance(new.get("extra"), dict) and "item_id" in new["extra"]
                    ):  # MedQ-Deg keys items by it
                        new["extra"]["item_id"] = f"{new['extra']['item_id']}~{c}"
                    key = (
                        c,
                        record["probe_id"],
                        task,
                        json.dumps(record.get("extra", {}), sort_keys=True),
                    )
                    letter = answers.setdefault(
                        key, record["correct_letter"] if rng.random() < 0.6 else rng.choice(letters)
                    )
                    extra = new.get("extra") or {}
                    if isinstance(extra.get("votes"), list):
                        votes = [
                            record["correct_letter"] if rng.random() < 0.6 else rng.choice(letters)
                            for _ in extra["votes"]
                        ]
                        extra["votes"] = votes
                        extra["responses"] = list(votes)
                        letter = Counter(votes).most_common(1)[0][0]
                    if new.get("parse_status") == "ok":
                        new["predicted_letter"] = letter
                        new["raw_response"] = letter
                    tasks[task].append(_line(template, new, letter))
        paths += _write_run(out / model, model, tasks)
    done.touch()
    return paths


def _write_mediconfusion_release(runs: Path, path: Path, copies: int) -> None:
    """The real run's ``dataset.json`` with every pair repeated ``copies`` times (ids
    ``<id>-<copy>``)."""
    (dataset,) = runs.rglob("mediconfusion/release/data/dataset.json")
    pairs = json.loads(dataset.read_text(encoding="utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {f"{pid}{PAIR_COPY}{c}": pair for c in range(copies) for pid, pair in pairs.items()},
            indent=4,
        ),
        encoding="utf-8",
    )


def authors_pipeline(repo: Path, gen: Path, work: Path, repeat: int) -> dict:
    """The authors' three scoring scripts, run from a temporary copy, timed one after another."""
    tmp = Path(tempfile.mkdtemp(prefix="authors_", dir=work))
    try:
        for rel in AUTHORS_SCRIPTS:
            text = subprocess.run(
                ["git", "-C", str(repo), "show", f"HEAD:{rel}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            if rel.endswith("bootstrap_mcs.py"):  # point its hard-coded model list at the 18 files
                models = ", ".join(f'"{f.name[:-11]}": "{f.name}"' for f in result_files(gen))
                text = re.sub(
                    r"MODEL_FILES = \{.*?\n\}", "MODEL_FILES = {" + models + "}", text, flags=re.S
                )
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text, encoding="utf-8")
        (tmp / "data").mkdir()
        (tmp / "data" / "medvigil_v1").symlink_to((gen / "data" / "medvigil_v1").resolve())
        (tmp / "results").mkdir()
        (tmp / "results" / "baselines").symlink_to((gen / "results" / "baselines").resolve())
        steps = {rel: best_of([sys.executable, rel], repeat, cwd=tmp) for rel in AUTHORS_SCRIPTS}
        return {
            "wall_s": round(sum(s["wall_s"] for s in steps.values()), 3),
            "cpu_s": round(sum(s["cpu_s"] for s in steps.values()), 3),
            "rss_mb": max(s["rss_mb"] for s in steps.values()),
            "exit": max(s["exit"] for s in steps.values()),
            "steps": steps,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- main --------------------------------------------------------------------------------


def bench_scale(args, scale: int) -> dict:
    work: Path = args.workdir
    gen = generate(args.tool, work, scale)
    release = gen / "data" / "medvigil_v1"
    files = result_files(gen)
    n_rows = sum(1 for f in files for _ in open(f, encoding="utf-8"))
    info = json.loads((gen / "synthetic_release.json").read_text(encoding="utf-8"))
    out = {
        "scale": scale,
        "cases": info["cases"],
        "probes": info["probes"],
        "models": len(files),
        "result_rows": n_rows,
        "result_mb": round(sum(f.stat().st_size for f in files) / 2**20, 1),
        "commands": {},
    }
    scores = work / f"scores_x{scale}"
    scores.mkdir(exist_ok=True)
    medvigil = [sys.executable, "-m", "medvigil"]
    want = set(args.only or COMMANDS)
    run = out["commands"]
    audit = ["--suite", "medvigil", "--harness-compatible", "--n-resamples", "500"]
    if "score-harness" in want:
        run["score-harness"] = best_of(
            [
                *medvigil,
                "score",
                *audit,
                "--release",
                str(release),
                *map(str, files),
                "--json",
                str(scores / "medvigil.json"),
            ],
            args.repeat,
        )
    if "validate" in want:
        run["validate"] = best_of(
            [*medvigil, "validate", "--metadata-only", str(release)], args.repeat
        )
    needs_runs = want & {
        "score-lmms",
        "score-medqdeg",
        "score-readiness",
        "score-cbd",
        "score-mediconfusion",
    }
    runs = real_runs(work, args.lmms_runs) if needs_runs else None
    if "score-lmms" in want:
        logs = write_medvigil_logs(gen, runs, work / f"lmms_medvigil_x{scale}")
        out["lmms_mb"] = round(sum(p.stat().st_size for p in logs) / 2**20, 1)
        run["score-lmms"] = best_of(
            [
                *medvigil,
                "score",
                *audit,
                "--release",
                str(release),
                *map(str, logs),
                "--json",
                str(scores / "medvigil_lmms.json"),
            ],
            args.repeat,
        )
    for suite in STRESS:
        if f"score-{suite}" in want:
            folder = work / f"lmms_{suite}_x{scale}"
            logs = write_stress_logs(suite, runs, folder, len(files), info["probes"])
            out[f"{suite}_lines"] = sum(1 for p in logs for _ in open(p, encoding="utf-8"))
            out[f"{suite}_mb"] = round(sum(p.stat().st_size for p in logs) / 2**20, 1)
            # MediConfusion takes its logs as files and the scaled pairs as its release; the others
            # a folder
            given = (
                ["--release", str(folder / "dataset.json"), *map(str, logs)]
                if suite == "mediconfusion"
                else [str(folder)]
            )
            run[f"score-{suite}"] = best_of(
                [
                    *medvigil,
                    "score",
                    "--suite",
                    suite,
                    *given,
                    "--json",
                    str(scores / f"{suite}.json"),
                ],
                args.repeat,
            )
    if "report" in want:
        inputs = [str(p) for p in sorted(scores.glob("*.json")) if p.name != "medvigil_lmms.json"]
        target = work / f"report_x{scale}"
        results = []
        if WARM:
            warm_inputs([*medvigil, "report", *inputs])
        for _ in range(args.repeat):
            shutil.rmtree(target, ignore_errors=True)
            results.append(timed([*medvigil, "report", *inputs, "--out", str(target)]))
        run["report"] = {
            **min(results, key=lambda r: r["wall_s"]),
            "wall_runs": [r["wall_s"] for r in results],
            "inputs": [Path(p).name for p in inputs],
        }
    if "authors" in want and args.authors_repo:
        run["authors"] = authors_pipeline(args.authors_repo, gen, work, args.repeat)
    return out


def cache_bytecode() -> None:
    """Compile the package's modules once, as an install or a first run leaves them (with
    ``PYTHONDONTWRITEBYTECODE`` set, as on these machines, every timed run would compile them
    again: about 0.1 s a command)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("medvigil")
    if spec is None or spec.origin is None:
        return
    folders = {Path(spec.origin).parent}
    for name in ("medvigil.builders", "medvigil.tasks", "medvigil.metrics", "medvigil.schemas"):
        sub = importlib.util.find_spec(name)
        if sub is not None and sub.origin is not None:
            folders.add(Path(sub.origin).parent)
    for folder in sorted(folders):
        compileall.compile_dir(str(folder), quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scales",
        type=int,
        nargs="+",
        default=[1, 10],
        help="multiples of 300 cases (default 1 10)",
    )
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "medvigil_bench_commands"
    )
    parser.add_argument("--tool", type=Path, default=DEFAULT_TOOL, help="authors_format_release.py")
    parser.add_argument(
        "--lmms-runs",
        type=Path,
        help="folder of real lmms-eval runs of our tasks (default: run a small demo once)",
    )
    parser.add_argument(
        "--authors-repo",
        type=Path,
        help="git dir of hq0709/MedVIGIL: also time the authors' scripts",
    )
    parser.add_argument("--only", nargs="+", choices=COMMANDS, help="time only these commands")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per command; the fastest is reported (default 3)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="do not compile medvigil's bytecode first (time imports that compile every module)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="do not read each command's input files once before its runs (default: warm them)",
    )
    args = parser.parse_args(argv)
    global WARM
    WARM = not args.cold
    require_gnu_time()
    if not args.tool.is_file():
        parser.error(f"--tool {args.tool} does not exist")
    args.workdir.mkdir(parents=True, exist_ok=True)
    if not args.no_bytecode:
        cache_bytecode()
    load = os.getloadavg()[0]
    rows = [bench_scale(args, k) for k in args.scales]
    result = {
        "load_avg_1min_at_start": round(load, 2),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "scales": rows,
    }
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
