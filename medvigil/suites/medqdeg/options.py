"""MedQ-Deg's command-line options (``medvigil score`` / ``compare --suite medqdeg``), declared for
the commands (:class:`medvigil.cli_options.Option`)."""

from medvigil.cli_options import Option

COMPARE_METRICS = "default: drop_l12,drop_l1,drop_l2, also accuracy_l0"

COMPARE = (
    Option(
        ("--accuracy-rule",),
        "accuracy_rule",
        {
            "choices": ("trial_mean", "plurality"),
            "default": "trial_mean",
            "help": "accuracy as the mean over the T trials (default) or of the plurality answer",
        },
    ),
    Option(
        ("--invalid-policy",),
        "invalid_policy",
        {
            "choices": ("extra_bin", "drop"),
            "default": "extra_bin",
            "help": "unparsable answers are an extra entropy bin (default) or dropped",
        },
    ),
    Option(
        ("--all-invalid",),
        "all_invalid",
        {
            "choices": ("zero", "exclude", "extra_bin"),
            "default": "zero",
            "help": "a sample whose T trials are all invalid gets confidence 0 (default), is left "
            "out, or gets what --invalid-policy gives (extra_bin: confidence 1)",
        },
    ),
)
SCORE = COMPARE + (
    Option(
        ("--vlmevalkit",),
        "vlmevalkit",
        {
            "action": "store_true",
            "help": "the FILEs are VLMEvalKit MedQ-DEG-Bench prediction files "
            "(<model>_MedQDEGBench_<split>.xlsx/.tsv/.csv; one stem in several folders = "
            "repeated trials)",
        },
        when_set=True,
        elsewhere="--vlmevalkit reads MedQ-DEG-Bench prediction files",
    ),
)
