"""The MedQ-Deg, Readiness and CbD scoring options: one definition for `medvigil score` and
`medvigil compare`, so that both read a suite's logs under the same named rules."""

from __future__ import annotations

import argparse


def add_stress_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of the three stress suites, each in its group."""
    medqdeg = parser.add_argument_group("medqdeg options")
    medqdeg.add_argument("--accuracy-rule", choices=("trial_mean", "plurality"), default="trial_mean",
                         help="accuracy as the mean over the T trials (default) or of the plurality answer")
    medqdeg.add_argument("--invalid-policy", choices=("extra_bin", "drop"), default="extra_bin",
                         help="unparsable answers are an extra entropy bin (default) or dropped")
    medqdeg.add_argument("--all-invalid", choices=("zero", "exclude", "extra_bin"), default="zero",
                         help="a sample whose T trials are all invalid gets confidence 0 (default), is left out, "
                              "or gets what --invalid-policy gives (extra_bin: confidence 1)")
    readiness = parser.add_argument_group("readiness options")
    readiness.add_argument("--allow-partial", action="store_true",
                           help="average R(m) over the tests present (not the paper's R) instead of leaving it empty")
    cbd = parser.add_argument_group("cbd options")
    cbd.add_argument("--cbd-invalid", choices=("exclude", "as_answer"), default="exclude",
                     help="samples with an unparsable answer are excluded (default) or the failure counts as an answer")


def stress_options(args: argparse.Namespace) -> dict[str, dict]:
    """The parsed options of each stress suite, as its entry takes them."""
    return {
        "medqdeg": {"accuracy_rule": args.accuracy_rule, "invalid_policy": args.invalid_policy, "all_invalid": args.all_invalid},
        "readiness": {"allow_partial": args.allow_partial},
        "cbd": {"invalid": args.cbd_invalid},
    }
