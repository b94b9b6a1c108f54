"""``medvigil build RELEASE --out OUT``: validate a release and write a Hub-ready folder.

Credentialed images (MIMIC-CXR / CheXpert) go only into a ``--reconstructed DIR --local-only``
build, which ``medvigil publish`` refuses. Validation warnings do not stop a build.

Exit status: 0 built, 2 bad input (the release does not validate, OUT exists, ...).
"""

import argparse
import json
import sys
from pathlib import Path

from medvigil.cli_options import MAX_SEED, int_range
from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from medvigil.hub.parquet_shards import DEFAULT_MAX_SHARD_BYTES

    parser = subparsers.add_parser(
        "build",
        description=__doc__.split("\n\n", 1)[0].replace("``", ""),
        help="validate a release and write a Hub-ready dataset folder (Parquet, card, Croissant)",
    )
    parser.add_argument(
        "release", metavar="RELEASE", type=Path, help="release folder (published MedVIGIL layout)"
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="output folder (must not exist unless --force)"
    )
    parser.add_argument(
        "--reconstructed",
        type=Path,
        metavar="DIR",
        help="output of `medvigil reconstruct`: embed credentialed images (needs --local-only)",
    )
    parser.add_argument(
        "--local-only",
        action="store_true",
        help="mark the build as local-only (credentialed images inside); publish refuses it",
    )
    parser.add_argument(
        "--config",
        action="append",
        dest="configs",
        metavar="NAME",
        help="build only this config (repeatable)",
    )
    parser.add_argument(
        "--seed",
        type=int_range(0, MAX_SEED),
        default=0,
        help="seed of the mcq_shuffled permutations (default 0)",
    )
    parser.add_argument(
        "--variant-source",
        choices=("render", "shipped"),
        default="render",
        help="image-side variants: render from case image + ROI "
        "(default) or embed images_perturbed/ as shipped",
    )
    parser.add_argument(
        "--max-shard-bytes",
        type=int_range(1),
        default=DEFAULT_MAX_SHARD_BYTES,
        help=f"close a Parquet shard once its payload passes this "
        f"many bytes (default {DEFAULT_MAX_SHARD_BYTES:,})",
    )
    _add_output_options(parser)
    declare(
        parser, inputs=("release", "reconstructed"), outputs=("out",)
    )  # the output guard checks these (medvigil.cli)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What the build is for and how it is written: ``--repo``, ``--force``, ``--json``,
    ``--skip-invalid-rows``."""
    parser.add_argument(
        "--repo",
        metavar="ORG/NAME",
        help="Hub repository the build is meant for (card and Croissant URL)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it exists (after the new build succeeded)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print build_info as JSON instead of the summary"
    )
    parser.add_argument(
        "--skip-invalid-rows",
        action="store_true",
        help="leave out probes whose rows have errors (listed "
        "and counted) instead of refusing the release",
    )


def run(args: argparse.Namespace) -> int:
    from medvigil.suites.medvigil.export.export import build

    report = build(
        args.release,
        args.out,
        reconstructed=args.reconstructed,
        local_only=args.local_only,
        configs=tuple(args.configs) if args.configs else None,
        shuffle_seed=args.seed,
        variant_source=args.variant_source,
        max_shard_bytes=args.max_shard_bytes,
        repo_id=args.repo,
        force=args.force,
        skip_invalid_rows=args.skip_invalid_rows,
    )
    for problem in getattr(report, "left_out_problems", []):
        print(f"warning: probe left out: {problem}", file=sys.stderr)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.format())
    return 0
