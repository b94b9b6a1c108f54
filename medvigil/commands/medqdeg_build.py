"""``medvigil medqdeg-build TSV [TSV ...] --out OUT``: Hub-ready MedQ-DEG-Bench folder.

Reads the authors' TSVs (MedQ-Robust-{good,simulate}-{dev,test}.tsv, VLMEvalKit's format) strictly,
one config per TSV, and writes Parquet shards, a dataset card and a Croissant file that mlcroissant
validates cleanly. A malformed file is refused with every problem named (file, row, index, field)
and nothing is written.
"""

import argparse
from pathlib import Path

from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "medqdeg-build",
        description=__doc__.split("\n\n", 1)[1].strip(),
        help="build a Hub-ready MedQ-DEG-Bench folder from the authors' TSVs",
    )
    parser.add_argument("tsvs", nargs="+", type=Path, metavar="TSV", help="the TSV files")
    parser.add_argument(
        "--out", required=True, type=Path, metavar="OUT", help="output folder (new unless --force)"
    )
    parser.add_argument(
        "--repo-id",
        metavar="ORG/NAME",
        help="Hub dataset repository the folder is meant for (card and Croissant URL)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace OUT when an earlier medqdeg-build wrote "
        "it (only after the new build succeeded)",
    )
    declare(parser, inputs=("tsvs",), outputs=("out",))  # checked by the output guard


def run(args: argparse.Namespace) -> int:
    from medvigil.suites.medqdeg.bench_export import build

    report = build(args.tsvs, args.out, repo_id=args.repo_id, force=args.force)
    print(report.format())
    return 0
