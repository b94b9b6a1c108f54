"""Size, time and peak memory of ``medvigil build`` as a whole process (``/usr/bin/time -v``).

For one synthetic release (seed 0, ``--cases N``) it runs ``python -m medvigil build REL --out
OUT`` ``--repeat`` times and reports, per run, wall time, CPU time (user + system) and peak
resident memory of the whole process, and, once, the bytes of every config's Parquet shards
next to the release's own bytes (issue #31: all six configs together at most 5x the release).

``--baseline-src DIR`` also runs the build of another checkout (``git archive <commit> | tar -x
-C DIR``, plus its compiled extensions if it has any; its modules come first on ``PYTHONPATH``),
alternating with the current code run by run, so both see the same machine load.

Usage::

    python benchmarks/bench_hub_size.py --cases 300 --repeat 3 --workdir /tmp/bench-size \\
        [--baseline-src /tmp/medvigil-before]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TIME = "/usr/bin/time"


def _release(workdir: Path, cases: int) -> Path:
    from medvigil.suites.medvigil.synthetic import generate_release

    root = workdir / f"release-{cases}"
    if not (root / "RELEASE_DIGEST").is_file():
        generate_release(root, cases=cases, seed=0, force=True)
    return root


def _folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def _importable(src: Path, workdir: Path) -> Path:
    """A folder that imports ``src``'s ``medvigil`` as installed: the package with the folders
    ``setup.cfg`` maps into it (``medvigil.cards = cards`` ...) linked in place."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(src / "setup.cfg")
    mapped = dict(
        line.split("=") for line in cfg["options"]["package_dir"].split("\n") if "=" in line
    )
    package = workdir / "baseline-path" / "medvigil"
    shutil.rmtree(package.parent, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (src / "medvigil").iterdir():
        (package / entry.name).symlink_to(entry)
    for name, folder in mapped.items():
        name, folder = name.strip(), folder.strip()
        if name.startswith("medvigil."):
            (package / name.split(".", 1)[1]).symlink_to(src / folder)
    return package.parent


def _timed_build(release: Path, out: Path, src: Path | None) -> dict:
    """One ``medvigil build`` under ``/usr/bin/time -v``: wall s, CPU s, peak RSS MB, bytes per
    config."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    cmd = [
        TIME,
        "-v",
        sys.executable,
        "-m",
        "medvigil",
        "build",
        str(release),
        "--out",
        str(out),
        "--json",
    ]
    # python -m puts the working folder first on sys.path: run the baseline from its own folder
    done = subprocess.run(
        cmd, capture_output=True, text=True, env=env, cwd=src or None, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"build failed:\n{done.stderr[-4000:]}")

    def field(label: str) -> str:
        return re.search(rf"^\s*{re.escape(label)}: (.+)$", done.stderr, re.M).group(1)

    minutes, _, seconds = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").rpartition(":")
    wall = float(seconds) + 60 * sum(
        int(p) * 60**i for i, p in enumerate(reversed(minutes.split(":"))) if p
    )
    info = json.loads(done.stdout)
    per_config: dict[str, int] = {}
    for shard in info["shards"]:
        per_config[shard["config"]] = per_config.get(shard["config"], 0) + shard["size"]
    result = {
        "wall_s": round(wall, 2),
        "cpu_s": round(
            float(field("User time (seconds)")) + float(field("System time (seconds)")), 2
        ),
        "peak_rss_mb": round(int(field("Maximum resident set size (kbytes)")) / 1024, 1),
        "bytes": per_config,
        "build_digest": info["build_digest"],
    }
    shutil.rmtree(out, ignore_errors=True)
    return result


def run(cases: int, repeat: int, workdir: Path, baseline_src: Path | None) -> dict:
    release = _release(workdir, cases)
    sides = {
        "current": None,
        **({"baseline": _importable(baseline_src, workdir)} if baseline_src else {}),
    }
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    for i in range(repeat):
        for name, src in sides.items():
            runs[name].append(_timed_build(release, workdir / f"build-{name}", src))
            print(f"run {i + 1} {name}: {json.dumps(runs[name][-1])}", file=sys.stderr, flush=True)
    return {"cases": cases, "release_bytes": _folder_bytes(release), "runs": runs}


def table(result: dict) -> str:
    release = result["release_bytes"]
    lines = [
        f"{result['cases']} cases, release {release / 1e6:,.1f} MB",
        "",
        "| code | wall s (runs) | CPU s (runs) | peak RSS "
        "MB (runs) | output MB | output / release |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in result["runs"].items():
        total = sum(runs[0]["bytes"].values())
        lines.append(
            f"| {name} | {' / '.join(str(r['wall_s']) for r in runs)} | "
            f"{' / '.join(str(r['cpu_s']) for r in runs)} | "
            f"{' / '.join(str(r['peak_rss_mb']) for r in runs)} | {total / 1e6:,.1f} | "
            f"{total / release:.2f}x |"
        )
    configs = list(next(iter(result["runs"].values()))[0]["bytes"])
    lines += [
        "",
        "| code | " + " | ".join(f"`{c}` MB" for c in configs) + " |",
        "|---" * (len(configs) + 1) + "|",
    ]
    for name, runs in result["runs"].items():
        lines.append(
            f"| {name} | "
            + " | ".join(f"{runs[0]['bytes'].get(c, 0) / 1e6:,.1f}" for c in configs)
            + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="where the release and builds go (default: temp)"
    )
    parser.add_argument(
        "--baseline-src", type=Path, default=None, help="checkout of the code to compare against"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="also write the result as JSON here"
    )
    args = parser.parse_args(argv)
    if not Path(TIME).is_file():
        parser.error(f"{TIME} is needed (GNU time: apt-get install time)")
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="bench-hub-size-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    result = run(args.cases, args.repeat, workdir, args.baseline_src)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
