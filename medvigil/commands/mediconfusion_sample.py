"""``medvigil mediconfusion-sample --out DIR``: write synthetic MediConfusion pairs in the authors'
layout."""

import argparse
from pathlib import Path

from medvigil.cli_options import int_range
from medvigil.files.output_guard import declare


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from medvigil.suites.mediconfusion.synthetic import DEFAULT_PAIRS

    parser = subparsers.add_parser(
        "mediconfusion-sample",
        help="write synthetic MediConfusion pairs (dataset.json "
        "+ a stand-in ROCO folder of phantoms)",
        description="Write DIR/data/dataset.json (and dataset.csv) in the MediConfusion "
        "authors' layout and DIR/roco/<split>/radiology/images/ROCO_9NNNN.jpg "
        "phantom images standing in for a ROCO copy. Every file is marked "
        "synthetic; the same --seed gives the same bytes.",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="output folder (must not exist or be empty)",
    )
    parser.add_argument(
        "--pairs",
        type=int_range(1, 9000),
        default=DEFAULT_PAIRS,
        help=f"number of pairs (default {DEFAULT_PAIRS}; even = balanced A/B)",
    )
    parser.add_argument(
        "--seed", type=int_range(0, 2**63 - 1), default=0, help="random seed (default 0)"
    )
    declare(parser, inputs=(), outputs=("out",))  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.suites.mediconfusion.synthetic import write_sample

    samples = write_sample(args.out, n_pairs=args.pairs, seed=args.seed)
    firsts = [s.pair.im_1_correct for s in samples]
    print(
        f"wrote {len(samples)} synthetic pairs ({firsts.count('A')} AB / {firsts.count('B')} "
        f"BA) to {args.out}\nnext: medvigil mediconfusion-build "
        f"{args.out / 'data' / 'dataset.json'} --images {args.out / 'roco'} --out BUILT"
    )
    return 0
