"""``medvigil mediconfusion-build DATASET_JSON --images ROCO --out OUT``: Hub-ready MediConfusion
folder.

Reads the authors' ``dataset.json`` strictly, finds every image in your ROCO copy (all missing
or broken images are listed at once), and writes Parquet shards, a dataset card and a
Croissant file that mlcroissant validates cleanly. ROCO images are CC BY-NC-SA 4.0:
the output is for non-commercial use only.
"""

import argparse
import sys
from pathlib import Path

from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mediconfusion-build",
        description=__doc__.split("\n\n", 1)[1].strip().replace("``", ""),
        help="build a Hub-ready MediConfusion folder from dataset.json and a local ROCO copy",
    )
    parser.add_argument(
        "dataset_json",
        type=Path,
        metavar="DATASET_JSON",
        help="the authors' data/dataset.json (or dataset.csv)",
    )
    parser.add_argument(
        "--images",
        required=True,
        type=Path,
        metavar="ROCO",
        help="your ROCO copy: its data folder or the repository root holding data/",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="OUT",
        help="output folder (must not exist unless --force)",
    )
    parser.add_argument(
        "--checksums",
        type=Path,
        metavar="FILE",
        help="sha256sum-format list every image must match (e.g. a build's roco_sha256.txt)",
    )
    parser.add_argument(
        "--repo-id",
        metavar="ORG/NAME",
        help="Hub dataset repository the folder is meant for (card and Croissant URL)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it exists (only after the new build succeeded)",
    )
    parser.add_argument(
        "--problems-out",
        type=Path,
        metavar="FILE",
        help="when the inputs are rejected, write every problem "
        "(e.g. every missing image) to FILE, one per line",
    )
    declare(
        parser, inputs=("dataset_json", "images", "checksums"), outputs=("out", "problems_out")
    )  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.errors import DataError
    from medvigil.files.atomic_output import write_text_atomic
    from medvigil.suites.mediconfusion.export import build

    # (--problems-out, written on failure, was checked against the inputs and --out:
    # output_guard.declare)
    try:
        report = build(
            args.dataset_json,
            args.images,
            args.out,
            checksums_file=args.checksums,
            repo_id=args.repo_id,
            force=args.force,
        )
    except DataError as exc:
        if args.problems_out is not None:
            write_text_atomic(
                args.problems_out,
                "".join(f"{p}\n" for p in exc.problems),
                option="--problems-out",
                inputs=(args.dataset_json, args.images, args.checksums, args.out),
            )
            print(
                f"all {len(exc.problems)} problems written to {args.problems_out}", file=sys.stderr
            )
        raise
    print(report.format())
    if not report.synthetic:
        print("licence: ROCO images are CC BY-NC-SA 4.0 - non-commercial use only; annotations MIT")
    return 0
