"""Argument types and output rules shared by the subcommands: a bad value is an argparse usage error naming it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# bootstrap resamples a command accepts: a thousand times the papers' 500 (Appendix M), and the
# resample table (resamples x cases) stays within memory; 10**11 asked for terabytes
MAX_RESAMPLES = 500_000
MAX_SEED = 2**63 - 1  # seeds the random generators take (numpy's and C longs); larger ones were an OverflowError


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


def result_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The inputs of ``score`` / ``compare`` by option, checked against ``--json OUT`` before anything is read."""
    from medvigil.files.output_guard import refuse_overlap

    inputs = {**({"--release": args.release} if args.release else {}), **{f"FILE {f}": f for f in args.files}}
    if args.json and args.json != "-":
        refuse_overlap({"--json": args.json}, inputs)  # nothing is written next to an input
    return inputs


def emit(text: str, table: str, json_out: str | None, inputs) -> int:
    """``--json -``: ``text`` alone on stdout. Else ``table`` on stdout, after ``text`` was written to
    ``--json OUT`` atomically (only once every input was read: bad input leaves no partial output)."""
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
