"""``medvigil sample``: write a procedurally generated synthetic release and print its digest."""

import argparse
import os
import sys

from medvigil.cli_options import int_range
from medvigil.files.output_guard import declare


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "sample",
        help="write a synthetic release (phantom images) in the published MedVIGIL layout",
        description="Write a procedurally generated synthetic MedVIGIL release "
        "(not clinical data) and print its SHA-256 release digest. "
        "Same --seed and --cases give byte-identical files.",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="release directory to create")
    p.add_argument(
        "--cases", type=int_range(1), default=40, metavar="N", help="number of cases (default 40)"
    )
    p.add_argument(
        "--seed", type=int_range(0), default=0, metavar="S", help="random seed >= 0 (default 0)"
    )
    p.add_argument(
        "--credentialed-out",
        metavar="DIR",
        default=None,
        help="also write the withheld CXR source files here "
        "(paths as in reconstruction/cxr_pointers.csv)",
    )
    p.add_argument(
        "--jobs",
        type=int_range(0),
        default=1,
        metavar="J",
        help="worker processes for drawing and encoding (0 = "
        "one per CPU; default 1); output is identical",
    )
    p.add_argument(
        "--force", action="store_true", help="replace a non-empty --out (and --credentialed-out)"
    )
    p.add_argument("--quiet", action="store_true", help="print only the digest")
    declare(
        p, inputs=(), outputs=("out", "credentialed_out")
    )  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.suites.medvigil.synthetic import (
        generate_release,
    )  # imported here: keeps `medvigil --help` fast

    step = args.cases // 10 if args.cases >= 500 else 0  # a line per tenth of a large release

    def progress(done: int, n: int) -> None:
        if done % step == 0 or done == n:
            print(
                f"medvigil sample: {done}/{n} cases ({100 * done // n}%)",
                file=sys.stderr,
                flush=True,
            )

    summary = generate_release(
        args.out,
        cases=args.cases,
        seed=args.seed,
        force=args.force,
        credentialed_out=args.credentialed_out,
        progress=progress if step else None,
        jobs=args.jobs or (os.cpu_count() or 1),
    )
    print(summary.digest if args.quiet else summary.format())
    return 0
