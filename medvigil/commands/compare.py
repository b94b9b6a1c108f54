"""``medvigil compare``: every pair of models, per metric, with a paired case-clustered bootstrap.

The FILEs are read as ``medvigil score`` reads them. For every pair ``(a, b)`` of models and each
metric: ``delta = b - a`` on the probes both answered, its 95% interval from resamples of the cases
drawn jointly for both, a two-sided p and the Holm-adjusted p over all pairs x metrics
(:mod:`medvigil.scoring.paired`; each suite's ``compare.py`` says how its metrics are resampled).

JSON: ``{"suite", "params", "models", "pairs": [{"a", "b", "metric", "delta", "ci95": [lo, hi],
"p", "p_holm", "n_probes", "n_cases"}, ...], "warnings", "inputs"}``; ``medvigil report`` draws it.
"""

import argparse
import sys

from medvigil.cli_options import MAX_RESAMPLES, int_range
from medvigil.commands.arg_types import (
    add_suite_options,
    emit,
    release_help,
    result_inputs,
    suite_options,
)
from medvigil.files.json_text import finite, json_text
from medvigil.files.output_guard import declare
from medvigil.suites import registry

COMPARE_SUITES = tuple(name for name, suite in registry.SUITES.items() if suite.compare)


def _metric_list(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated metric names, got {text!r}")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a metric is named twice in {text!r}")
    return names


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES, P_VALUE_METHODS

    parser = subparsers.add_parser(
        "compare",
        description=__doc__.split("\n\n")[0],
        help="compare every pair of models: delta, paired case-clustered "
        "bootstrap CI, p and Holm-adjusted p",
    )
    parser.add_argument(
        "--suite", required=True, choices=COMPARE_SUITES, help="which suite the FILEs belong to"
    )
    parser.add_argument("--release", metavar="PATH", help=release_help("compare"))
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="result files, as `medvigil score` takes them"
    )
    parser.add_argument(
        "--metrics",
        type=_metric_list,
        metavar="M1,M2,...",
        help="metrics to compare ("
        + "; ".join(
            f"{name} {suite.declared('COMPARE_METRICS')}"
            for name, suite in registry.SUITES.items()
            if suite.compare and suite.declared("COMPARE_METRICS")
        )
        + ")",
    )
    parser.add_argument(
        "--resamples",
        type=int_range(1, MAX_RESAMPLES),
        default=DEFAULT_COMPARE_RESAMPLES,
        help=f"bootstrap resamples of the cases (default {DEFAULT_COMPARE_RESAMPLES})",
    )
    parser.add_argument(
        "--seed", type=int, default=20260505, help="bootstrap seed (default 20260505, Appendix M's)"
    )
    parser.add_argument(
        "--p-value",
        choices=P_VALUE_METHODS,
        default="normal",
        help="two-sided p: normal (bootstrap standard error, Wald; default) or percentile "
        "(share of resampled deltas on either side of 0, never below 2/(B+1))",
    )
    parser.add_argument("--json", metavar="OUT", help="write JSON to OUT ('-' = stdout, no table)")
    add_suite_options(parser, "compare")  # each suite's own, in its group
    declare(
        parser, inputs=("release", "files"), outputs=("json",)
    )  # the output guard checks these (medvigil.cli)


def _options(args: argparse.Namespace) -> dict:
    """The options of ``args.suite``'s comparison: its own and the resampling every suite takes."""
    common = {
        "n_resamples": args.resamples,
        "seed": args.seed,
        "p_value": args.p_value,
        **({"metrics": args.metrics} if args.metrics else {}),
    }
    return suite_options(args, "compare") | common


def run(args: argparse.Namespace) -> int:
    from medvigil.errors import DataError

    inputs = result_inputs(args)
    try:
        result = finite(
            registry.compare(args.suite, args.files, release=args.release, **_options(args))
        )
    except DataError:
        raise  # reported by medvigil.cli with one line per problem, exit 2
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for warning in result.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    return emit(json_text(result) + "\n", format_pairs(result), args.json, inputs)


def format_pairs(result: dict) -> str:
    """One line per pair and metric: delta = b - a, its 95% CI, p, Holm-adjusted p and the shared
    probes."""

    def num(x, fmt="{:+.2f}"):
        return "—" if x is None else fmt.format(x)

    params = result.get("params", {})
    lines = [
        f"Paired case-clustered bootstrap: {params.get('n_resamples')} resamples, "
        f"seed {params.get('seed')}, {params.get('p_value')} p-values, Holm "
        f"over {len(result['pairs'])} comparisons; delta = b - a",
        f"{'a':<24} {'b':<24} {'metric':<8} {'delta':>8} {'95% CI':>18} "
        f"{'p':>9} {'p_holm':>9} {'probes':>7}",
    ]
    for row in result["pairs"]:
        lo, hi = row["ci95"]
        mark = " *" if row["p_holm"] is not None and row["p_holm"] < 0.05 else ""
        lines.append(
            f"{row['a']:<24} {row['b']:<24} {row['metric']:<8} {num(row['delta']):>8} "
            f"{'[' + num(lo) + ', ' + num(hi) + ']':>18} {num(row['p'], '{:.2g}'):>9} "
            f"{num(row['p_holm'], '{:.2g}'):>9} {row['n_probes']:>7}{mark}"
        )
    lines.append("* Holm-adjusted p < 0.05")
    return "\n".join(lines)
