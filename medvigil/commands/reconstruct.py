"""``medvigil reconstruct RELEASE --source DIR --out DIR2``: re-derive credentialed images.

For every pointer in ``RELEASE/reconstruction/*pointers*.csv`` the source file under DIR
(your own licensed MIMIC-CXR or CheXpert copy) is checked (inside DIR, present, expected
SHA-256), decoded (DICOM: VOI LUT / window, MONOCHROME1 inversion, 8-bit) and written in
the published form to ``DIR2/images/`` and ``DIR2/images_perturbed/``. Every missing or
mismatching file is listed at once. DIR2 holds credentialed images: local use only.
The published release ships no pointer file: give the pointers with ``--pointers CSV``
(``case_id, source_path, sha256``); a case with no pointer anywhere is an error here.

Exit status: 0 done, 2 bad input (every problem printed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("reconstruct", description=__doc__.split("\n\n", 1)[0].replace("``", ""),
                                   help="re-derive withheld credentialed case images from your licensed copy (local use only)")
    parser.add_argument("release", metavar="RELEASE", type=Path, help="release folder (published MedVIGIL layout)")
    parser.add_argument("--source", required=True, type=Path, metavar="DIR", help="root of your licensed source copy")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR2", help="output folder for the re-derived images")
    parser.add_argument("--force", action="store_true", help="replace DIR2 if it exists")
    parser.add_argument("--pointers", type=Path, metavar="CSV",
                        help="pointer list (case_id, source_path, sha256) for a release without reconstruction/*pointers*.csv")
    parser.set_defaults(func=run)
    declare(parser, inputs=('release', 'source', 'pointers'), outputs=('out',))  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    import sys

    from medvigil.reconstruct.derive import reconstruct

    try:
        report = reconstruct(args.release, args.source, args.out, force=args.force, pointers_file=args.pointers)
    except ValueError as exc:
        if type(exc) is not ValueError:  # DataError: the CLI prints every problem
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.format())
    return 0
