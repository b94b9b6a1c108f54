"""Readiness's command-line options (``medvigil score`` / ``compare --suite readiness``), declared
for the commands (:class:`medvigil.cli_options.Option`)."""

from medvigil.cli_options import Option

COMPARE_METRICS = "default: r, also r_t1..r_t5"

SCORE = COMPARE = (
    Option(
        ("--allow-partial",),
        "allow_partial",
        {
            "action": "store_true",
            "help": "average R(m) over the tests present (not the paper's R) instead of leaving it "
            "empty",
        },
    ),
)
