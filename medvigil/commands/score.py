"""``medvigil score``: score model outputs and print a table or write JSON.

What ``--release`` and the FILEs are, per suite: README "Using it" and the options' help. Each suite
is reached through :mod:`medvigil.suites.registry`; bad input exits 2 with an ``error:`` line per
problem.
"""

import argparse
import math
import sys

from medvigil.commands.arg_types import (
    MAX_RESAMPLES,
    MAX_SEED,
    add_stress_options,
    emit,
    int_range,
    result_inputs,
    stress_options,
)
from medvigil.constants import DEFAULT_TIER_WEIGHTS, TIERS
from medvigil.files.json_text import json_text
from medvigil.files.output_guard import declare
from medvigil.runs.labels import labelled
from medvigil.suites import registry
from medvigil.suites.medvigil.scoring.open_ended import JUDGES


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"margin must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"margin must be a finite number >= 0, got {text!r}")
    return int(value) if value.is_integer() else value


def _names(text: str) -> tuple[str, ...]:
    """``--text-only A,B``: model names."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated model names, got {text!r}")
    return names


def _tier_weights(text: str) -> tuple[float, ...]:
    """``--weights 1,2,3,5,8``: the SFR_w weights of tiers L1..L5 (Eq. 3)."""
    parts = text.split(",")
    try:
        weights = tuple(float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"weights must be {len(TIERS)} comma-separated numbers (L1..L5), got {text!r}"
        ) from None
    if (
        len(weights) != len(TIERS)
        or not all(math.isfinite(w) and w >= 0 for w in weights)
        or not any(weights)
    ):
        raise argparse.ArgumentTypeError(
            f"weights must be {len(TIERS)} finite numbers >= 0, not all zero (L1..L5), got {text!r}"
        )
    return weights


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
    parser.add_argument(
        "--release",
        metavar="PATH",
        help="mediconfusion: the authors' dataset.json (required); medvigil: a release "
        "folder, a built dataset folder or a Hub repo id (optional: lmms-eval records "
        "carry tier and source; harness files without it have no tiers, so no SFR_w, "
        "and take gold letters from their rows) (other suites: not used)",
    )
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
    parser.add_argument(
        "--margin",
        type=_margin,
        default=3,
        help="mediconfusion vote margin: an answer is the option whose "
        "votes exceed the other's by at least this (default 3)",
    )
    parser.add_argument(
        "--confusion-denominator",
        choices=("both_valid", "all_pairs"),
        default="both_valid",
        help="mediconfusion confusion score over pairs with two "
        "valid answers (paper, default) or over all pairs",
    )
    medvigil = parser.add_argument_group("medvigil audit options")
    medvigil.add_argument(
        "--n-resamples",
        type=int_range(0, MAX_RESAMPLES),
        default=500,
        help="case-clustered bootstrap resamples (0 = none; paper: 500)",
    )
    medvigil.add_argument(
        "--seed",
        type=int_range(0, MAX_SEED),
        default=20260505,
        help="bootstrap seed (paper Appendix M: 20260505)",
    )
    medvigil.add_argument(
        "--harness-compatible",
        action="store_true",
        help="reproduce the official harness scripts where they differ from the paper, bootstrap "
        "included: the models take bootstrap_mcs.py's random stream in the order of their "
        "FILEs, so give them in its MODEL_FILES order (see metrics/mcs/README.md)",
    )
    medvigil.add_argument(
        "--weights",
        type=_tier_weights,
        default=DEFAULT_TIER_WEIGHTS,
        metavar="W1,...,W5",
        help="SFR_w weights of risk tiers L1..L5 (paper Eq. 3: "
        + ",".join(f"{w:g}" for w in DEFAULT_TIER_WEIGHTS)
        + ")",
    )
    medvigil.add_argument(
        "--open-judge",
        choices=JUDGES,
        default=None,
        help="judge of the authors' __open.jsonl answers (default: authors-rule with "
        "--harness-compatible, as their numbers were made; else grammar)",
    )
    medvigil.add_argument(
        "--condition",
        default="default",
        help="condition scored as the headline audit (default: default)",
    )
    medvigil.add_argument(
        "--text-only",
        type=_names,
        default=(),
        metavar="NAME[,NAME]",
        help="models that saw no image (text-only baselines): left out of Table 17, the MCS "
        "sensitivity ranking of vision-capable models; models whose lmms-eval logs show no image "
        "sent on an image probe are left out too. The output names each and why",
    )
    medvigil.add_argument(
        "--skip-invalid-rows",
        action="store_true",
        help="leave out result rows that fail their checks (counted per model "
        "as invalid_row, listed as warnings), and release rows of manifest.csv "
        "/ probes_mcq.csv with errors, instead of stopping",
    )
    add_stress_options(parser)
    parser.add_argument(
        "--vlmevalkit",
        action="store_true",
        help="medqdeg: the FILEs are VLMEvalKit MedQ-DEG-Bench prediction files "
        "(<model>_MedQDEGBench_<split>.xlsx/.tsv/.csv; one stem in several folders = "
        "repeated trials)",
    )
    declare(
        parser, inputs=("release", "files"), outputs=("json",)
    )  # the output guard checks these (medvigil.cli)


def suite_options(args: argparse.Namespace) -> dict:
    """The command-line options that belong to ``args.suite``'s scoring."""
    return {
        "medvigil": {
            "n_resamples": args.n_resamples,
            "seed": args.seed,
            "harness_compatible": args.harness_compatible,
            "weights": args.weights,
            "open_judge": args.open_judge,
            "condition": args.condition,
            "skip_invalid_rows": args.skip_invalid_rows,
            "allow_empty": args.allow_empty,
            "text_only": args.text_only,
        },
        "mediconfusion": {
            "margin": args.margin,
            "confusion_denominator": args.confusion_denominator,
        },
        **stress_options(args),
    }.get(args.suite, {}) | _vlmevalkit(args)


def _vlmevalkit(args: argparse.Namespace) -> dict:
    if args.vlmevalkit and args.suite != "medqdeg":
        raise ValueError(
            "--vlmevalkit reads MedQ-DEG-Bench prediction files: use it with --suite medqdeg"
        )
    return {"vlmevalkit": True} if args.vlmevalkit else {}


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
                args.suite, args.files, release=args.release, **suite_options(args)
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
