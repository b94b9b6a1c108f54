"""Build throughput and peak memory of ``medvigil build`` as the release grows.

For each size N (synthetic releases, seed 0):

* **build**: ``medvigil.suites.medvigil.export.export.build`` in a fresh subprocess (validation,
  rendering, Parquet writing, card, Croissant); we report wall time, the distinct images it produced
  (case images + rendered variants), the image cells it embedded (every row of every config), and
  the subprocess's peak resident memory (``ru_maxrss``) next to its resident memory right after the
  imports, so the growth due to the build itself shows.
* **floor**: a plain loop over the same distinct images (the release's ``images/`` and
  ``images_perturbed/`` files, which our renders reproduce byte for byte): decode ->
  ``to_published`` (RGB, 1024 px longest side, Lanczos) -> ``encode_jpeg`` (q92), also in
  a fresh subprocess. Its images/s is what pure image work costs on this machine.

Peak memory should stay flat as N grows: rows are streamed from the builder to the
Parquet writer a row group at a time (whole cases, at least 64 rows) and at most a handful of
images are cached.

Usage::

    python benchmarks/bench_build.py                        # N = 40 300 1000 3000, config mcq
    python benchmarks/bench_build.py --cases 40 300 --configs mcq mcq_circular cases
    python benchmarks/bench_build.py --workdir /data/bench --keep

Releases are generated once into ``--workdir`` (default: a temporary folder) and reused
when ``--keep`` left them there. Output: a Markdown table on stdout (and ``--json``).
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_BUILD_CHILD = r"""
import json, resource, sys, time
import datasets, mlcroissant, pyarrow  # imported first: their memory is not the build's
from medvigil.suites.medvigil.export.export import build
from medvigil.suites.medvigil.validate.validate import validate_release
after_imports = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
release, out, configs = sys.argv[1], sys.argv[2], tuple(sys.argv[3].split(","))
start = time.perf_counter()
report = build(release, out, configs=configs)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
embedded = sum(
    n
    for statuses in report.images.values()
    for s, n in statuses.items()
    if s in ("embedded", "local_reconstruction")
)
print(json.dumps({"seconds": seconds, "rss_after_imports_kb": after_imports, "peak_rss_kb": peak,
                  "embedded": embedded, "rows": report.rows,
                  "bytes": sum(s.size for s in report.shards)}))
"""

_FLOOR_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from medvigil.images import imaging
root = Path(sys.argv[1])
files = sorted([*(root / "images").glob("*"), *(root / "images_perturbed").glob("*")])
start = time.perf_counter()
for path in files:
    imaging.encode_jpeg(imaging.to_published(imaging.safe_open_image(path)))
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "images": len(files),
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _child(code: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _release(workdir: Path, cases: int) -> Path:
    from medvigil.suites.medvigil.synthetic import generate_release

    root = workdir / f"release-{cases}"
    if not (root / "RELEASE_DIGEST").is_file():
        generate_release(root, cases=cases, seed=0, force=True)
    return root


def run(cases: list[int], configs: list[str], workdir: Path, keep: bool) -> list[dict]:
    rows = []
    for n in cases:
        release = _release(workdir, n)
        out = workdir / f"build-{n}"
        shutil.rmtree(out, ignore_errors=True)
        build = _child(_BUILD_CHILD, str(release), str(out), ",".join(configs))
        floor = _child(_FLOOR_CHILD, str(release))
        distinct = floor["images"]  # case images + variants = what the build renders
        rows.append(
            {
                "cases": n,
                "configs": configs,
                "distinct_images": distinct,
                "embedded_images": build["embedded"],
                "build_s": round(build["seconds"], 2),
                "build_distinct_img_per_s": round(distinct / build["seconds"], 1),
                "build_embedded_img_per_s": round(build["embedded"] / build["seconds"], 1),
                "floor_s": round(floor["seconds"], 2),
                "floor_img_per_s": round(distinct / floor["seconds"], 1),
                "rss_after_imports_mb": round(build["rss_after_imports_kb"] / 1024, 1),
                "peak_rss_mb": round(build["peak_rss_kb"] / 1024, 1),
                "output_mb": round(build["bytes"] / 2**20, 1),
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        if not keep:
            shutil.rmtree(out, ignore_errors=True)
    return rows


def table(rows: list[dict]) -> str:
    head = (
        "| cases | configs | distinct images | embedded | build s | build distinct img/s | build "
        "embedded img/s | floor img/s | RSS after imports MB | peak RSS MB | output MB |\n"
        + "|---" * 11
        + "|"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"| {r['cases']} | {', '.join(r['configs'])} | {r['distinct_images']} | "
            f"{r['embedded_images']} | {r['build_s']} | {r['build_distinct_img_per_s']} "
            f"| {r['build_embedded_img_per_s']} | {r['floor_img_per_s']} | "
            f"{r['rss_after_imports_mb']} | {r['peak_rss_mb']} | {r['output_mb']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[40, 300, 1000, 3000])
    parser.add_argument("--configs", nargs="+", default=["mcq"])
    parser.add_argument(
        "--workdir", type=Path, default=None, help="where releases and builds go (default: temp)"
    )
    parser.add_argument("--keep", action="store_true", help="keep releases and builds in --workdir")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="medvigil-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        started = time.time()
        rows = run(args.cases, args.configs, workdir, args.keep)
        print(table(rows))
        print(f"\n(total {time.time() - started:.0f} s, python {sys.version.split()[0]})")
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
