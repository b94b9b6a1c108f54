"""MediConfusion's command-line options (``medvigil score --suite mediconfusion``), declared for
the commands (:class:`medvigil.cli_options.Option`)."""

import argparse
import math

from medvigil.cli_options import Option


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"margin must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"margin must be a finite number >= 0, got {text!r}")
    return int(value) if value.is_integer() else value


RELEASE = "the authors' dataset.json (required)"

SCORE = (
    Option(
        ("--margin",),
        "margin",
        {
            "type": _margin,
            "default": 3,
            "help": "vote margin: an answer is the option whose votes exceed the other's by at "
            "least this (default 3)",
        },
    ),
    Option(
        ("--confusion-denominator",),
        "confusion_denominator",
        {
            "choices": ("both_valid", "all_pairs"),
            "default": "both_valid",
            "help": "confusion score over pairs with two valid answers (paper, default) or over "
            "all pairs",
        },
    ),
)
