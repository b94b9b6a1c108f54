"""Consistent-but-Dangerous's command-line options (``medvigil score`` / ``compare --suite cbd``),
declared for the commands (:class:`medvigil.cli_options.Option`)."""

from medvigil.cli_options import Option

COMPARE_METRICS = "default: ideal,fragile,dangerous,worst, also flip_rate"

SCORE = COMPARE = (
    Option(
        ("--cbd-invalid",),
        "invalid",
        {
            "choices": ("exclude", "as_answer"),
            "default": "exclude",
            "help": "samples with an unparsable answer are excluded (default) or the failure "
            "counts as an answer",
        },
    ),
)
