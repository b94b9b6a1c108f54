"""``medvigil reconstruct RELEASE --source DIR --out DIR2``: re-derive credentialed images.

For every pointer (``RELEASE/reconstruction/*pointers*.csv``, or ``--pointers CSV`` as the published
release ships none) the source file under DIR, your licensed copy, is checked, decoded and written
in the published form under DIR2 (:mod:`medvigil.reconstruct.derive`). DIR2 holds credentialed
images: local use only.

Exit status: 0 done, 2 bad input (every problem printed).
"""

import argparse
from pathlib import Path

from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reconstruct",
        description=__doc__.split("\n\n", 1)[0].replace("``", ""),
        help="re-derive withheld credentialed case images from your licensed copy (local use only)",
    )
    parser.add_argument(
        "release", metavar="RELEASE", type=Path, help="release folder (published MedVIGIL layout)"
    )
    parser.add_argument(
        "--source",
        required=True,
        type=Path,
        metavar="DIR",
        help="root of your licensed source copy",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR2",
        help="output folder for the re-derived images",
    )
    parser.add_argument("--force", action="store_true", help="replace DIR2 if it exists")
    parser.add_argument(
        "--pointers",
        type=Path,
        metavar="CSV",
        help="pointer list (case_id, source_path, sha256) for "
        "a release without reconstruction/*pointers*.csv",
    )
    declare(
        parser, inputs=("release", "source", "pointers"), outputs=("out",)
    )  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.reconstruct.derive import reconstruct

    print(
        reconstruct(
            args.release, args.source, args.out, force=args.force, pointers_file=args.pointers
        ).format()
    )
    return 0
