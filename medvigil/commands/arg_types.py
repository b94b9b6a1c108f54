"""Argument types shared by the subcommands: a bad value is an argparse usage error naming it."""

from __future__ import annotations

import argparse

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
