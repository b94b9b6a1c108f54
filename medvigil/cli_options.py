"""Command-line options as data: the argument types the commands share (a bad value is an argparse
usage error naming it) and :class:`Option`, how a suite declares an option of its scoring or
comparison (``medvigil/suites/<suite>/options.py``) for the commands to offer."""

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# bootstrap resamples a command accepts: a thousand times the papers' 500 (Appendix M), and the
# resample table (resamples x cases) stays within memory; 10**11 asked for terabytes
MAX_RESAMPLES = 500_000
# seeds the random generators take (numpy's and C longs); larger ones were an OverflowError
MAX_SEED = 2**63 - 1


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


@dataclass(frozen=True)
class Option:
    """One option of a suite's ``score`` or ``compare``: its ``flags`` and argparse keywords
    (``kwargs``; None: the command's own option, whose value the suite takes too), handed to the
    suite's entry as ``key``. ``when_set``: handed over only when given (a flag); ``elsewhere``:
    given with another suite, an error that starts with this sentence."""

    flags: tuple[str, ...]
    key: str
    kwargs: Mapping[str, Any] | None = None
    when_set: bool = False
    elsewhere: str | None = None

    @property
    def dest(self) -> str:
        """The attribute argparse stores the value in."""
        return self.flags[0].lstrip("-").replace("-", "_")
