"""Argument types and output rules shared by the subcommands: a bad value is an argparse usage error
naming it."""

import argparse
import sys
from pathlib import Path

# bootstrap resamples a command accepts: a thousand times the papers' 500 (Appendix M), and the
# resample table (resamples x cases) stays within memory; 10**11 asked for terabytes
MAX_RESAMPLES = 500_000
MAX_SEED = (
    2**63 - 1
)  # seeds the random generators take (numpy's and C longs); larger ones were an OverflowError


def int_range(low: int, high: int | None = None):
    """An ``int`` argument type accepting ``low <= value`` (``<= high`` when given)."""
    bound = f">= {low}" if high is None else f"in {low}..{high}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {bound}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected an integer {bound}, got {value}")
        return value

    return parse


def add_stress_options(parser: argparse.ArgumentParser) -> None:
    """The options of the three stress suites, each in its group: one definition for `score` and
    `compare`, so that both read a suite's logs under the same named rules."""
    medqdeg = parser.add_argument_group("medqdeg options")
    medqdeg.add_argument(
        "--accuracy-rule",
        choices=("trial_mean", "plurality"),
        default="trial_mean",
        help="accuracy as the mean over the T trials (default) or of the plurality answer",
    )
    medqdeg.add_argument(
        "--invalid-policy",
        choices=("extra_bin", "drop"),
        default="extra_bin",
        help="unparsable answers are an extra entropy bin (default) or dropped",
    )
    medqdeg.add_argument(
        "--all-invalid",
        choices=("zero", "exclude", "extra_bin"),
        default="zero",
        help="a sample whose T trials are all invalid gets confidence 0 (default), is left out, "
        "or gets what --invalid-policy gives (extra_bin: confidence 1)",
    )
    readiness = parser.add_argument_group("readiness options")
    readiness.add_argument(
        "--allow-partial",
        action="store_true",
        help="average R(m) over the tests present (not the paper's R) instead of leaving it empty",
    )
    cbd = parser.add_argument_group("cbd options")
    cbd.add_argument(
        "--cbd-invalid",
        choices=("exclude", "as_answer"),
        default="exclude",
        help="samples with an unparsable answer are excluded "
        "(default) or the failure counts as an answer",
    )


def stress_options(args: argparse.Namespace) -> dict[str, dict]:
    """The parsed options of each stress suite that has some, as its entry takes them."""
    return {
        "medqdeg": {
            "accuracy_rule": args.accuracy_rule,
            "invalid_policy": args.invalid_policy,
            "all_invalid": args.all_invalid,
        },
        "readiness": {"allow_partial": args.allow_partial},
        "cbd": {"invalid": args.cbd_invalid},
    }


def result_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The inputs of ``score`` / ``compare`` by option (``--json OUT`` was checked against them
    before the command ran, :func:`medvigil.files.output_guard.refuse_declared`; it is again before
    it is written)."""
    return {
        **({"--release": args.release} if args.release else {}),
        **{f"FILE {f}": f for f in args.files},
    }


def emit(text: str, table: str, json_out: str | None, inputs) -> int:
    """``--json -``: ``text`` alone on stdout. Else ``table`` on stdout, after ``text`` was written
    to ``--json OUT`` atomically (only once every input was read: bad input leaves no partial
    output)."""
    from medvigil.files.atomic_output import write_text_atomic

    if json_out == "-":
        sys.stdout.write(text)
        return 0
    if json_out:
        write_text_atomic(Path(json_out), text, inputs=inputs, option="--json")
    print(table)
    if json_out:
        print(f"\nJSON written to {json_out}")
    return 0
