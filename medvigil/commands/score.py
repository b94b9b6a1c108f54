"""``medvigil score``: score model outputs and print a table or write JSON.

What ``--release`` and the FILEs are, per suite: README "Using it" and the options' help. Each suite
is reached through :mod:`medvigil.suites.registry`; bad input exits 2 with an ``error:`` line per
problem.
"""

import argparse
import sys

from medvigil.commands.arg_types import (
    add_suite_options,
    emit,
    release_help,
    result_inputs,
    suite_options,
)
from medvigil.files.json_text import json_text
from medvigil.files.output_guard import declare
from medvigil.runs.labels import labelled
from medvigil.suites import registry


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score model outputs (MediConfusion result files or MedVIGIL harness outputs)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument(
        "--suite",
        required=True,
        choices=tuple(registry.SUITES),
        help="which suite the FILEs belong to",
    )
    parser.add_argument("--release", metavar="PATH", help=release_help("score"))
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="result files to score (lmms-eval run folders too)",
    )
    parser.add_argument(
        "--label",
        "--name",
        action="append",
        default=[],
        metavar="[PATH=]NAME",
        help="name the model of lmms-eval runs: NAME for every run, or PATH=NAME for "
        "the samples file or run folder PATH (repeat for several runs; default: "
        "the weights named by the run's pretrained= or model= argument, else model(args)); "
        "two runs of one model are refused unless named apart",
    )
    parser.add_argument("--json", metavar="OUT", help="write JSON to OUT ('-' = stdout, no table)")
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept empty input: a result file without rows is a warning, and no "
        "record to score at all exits 0 (default: both are errors, exit 2)",
    )
    add_suite_options(parser, "score")  # each suite's own, in its group
    declare(
        parser, inputs=("release", "files"), outputs=("json",)
    )  # the output guard checks these (medvigil.cli)


def run(args: argparse.Namespace) -> int:
    from medvigil.errors import DataError, Problem

    suite = registry.get(args.suite)
    if (args.release is None and suite.release == "required") or (
        args.release is not None and suite.release == "unused"
    ):
        need = "needs" if suite.release == "required" else "does not take"
        print(f"error: --suite {args.suite} {need} --release", file=sys.stderr)
        return 2
    inputs = result_inputs(args)
    try:
        with labelled(args.label):
            result = registry.score(
                args.suite, args.files, release=args.release, **suite_options(args, "score")
            )
        table = suite.entry.format_table(result)
        if "partial" in result:  # lmms-eval --limit: first line of the table, also on stderr
            table = f"{result['partial']['statement']}\n\n{table}"
            print(f"note: {result['partial']['statement']}", file=sys.stderr)
        for warning in (result.get("generation") or {}).get("warnings", []):
            print(f"warning: {warning}", file=sys.stderr)
    except DataError:
        raise  # reported by medvigil.cli with one line per problem, exit 2
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if suite.entry.n_scored(result) == 0 and not args.allow_empty:
        raise DataError(
            Problem(
                ", ".join(args.files),
                "no record to score in the input file(s) (empty or only skipped "
                "lines); pass --allow-empty to accept an empty result",
            )
        )
    return emit(json_text(result) + "\n", table, args.json, inputs)
