"""``medvigil validate DIR [--json]``: integrity check of a release folder.

``--metadata-only`` checks the CSV and JSON files and never looks at image files (only a
credentialed image that is present is still an error): for the metadata of the published
release without its images, or result scoring. Reconstruction pointers are never demanded.
"""

import argparse
import json
import sys
from pathlib import Path

from medvigil.constants import (
    DEFAULT_MAX_PIXELS,
)  # not image_checks: Pillow is loaded only to decode
from medvigil.errors import Problem
from medvigil.files.output_guard import declare

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        description=__doc__.split("\n\n", 1)[0].replace("``", ""),
        help="check a release folder (schemas, ids, letter conventions, images, splits, digest)",
        epilog="Exit status: 0 valid (warnings allowed), 1 invalid, 2 unusable input.",
    )
    parser.add_argument(
        "root", metavar="DIR", type=Path, help="release folder (published MedVIGIL layout)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON object {ok, counts, problems} instead"
    )
    parser.add_argument(
        "--no-images",
        dest="images",
        action="store_false",
        help="do not decode images (existence, path safety "
        "and the credentialed rule are still checked)",
    )
    parser.add_argument(
        "--metadata-only",
        action="store_true",
        help="check the CSV/JSON files only; image files are not "
        "looked at (a credentialed image present is still an error)",
    )
    parser.add_argument(
        "--max-pixels",
        type=int,
        default=DEFAULT_MAX_PIXELS,
        help=f"largest accepted declared image size in pixels (default {DEFAULT_MAX_PIXELS:,})",
    )
    declare(parser, inputs=("root",), outputs=())  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.suites.medvigil.validate.validate import validate_release

    if args.max_pixels <= 0:
        print(f"error: --max-pixels must be positive, got {args.max_pixels}", file=sys.stderr)
        return EXIT_UNUSABLE
    root: Path = args.root
    if not root.is_dir():
        message = f"release folder {str(root)!r} " + (
            "does not exist" if not root.exists() else "is not a folder"
        )
        if args.json:
            problems = [Problem(str(root), message).to_dict()]
            print(
                json.dumps(
                    {"ok": False, "root": str(root), "counts": {}, "problems": problems}, indent=2
                )
            )
        else:
            print(f"error: {message}", file=sys.stderr)
        return EXIT_UNUSABLE
    scope = "metadata" if args.metadata_only else "full"
    report = validate_release(root, images=args.images, max_pixels=args.max_pixels, scope=scope)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(report.format())
    return EXIT_UNUSABLE if report.unusable else EXIT_OK if report.ok else EXIT_INVALID
