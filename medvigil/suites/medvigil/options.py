"""The MedVIGIL audit's command-line options (``medvigil score`` / ``compare --suite medvigil``),
declared for the commands (:class:`medvigil.cli_options.Option`)."""

import argparse
import math

from medvigil.cli_options import MAX_RESAMPLES, MAX_SEED, Option, int_range
from medvigil.constants import DEFAULT_TIER_WEIGHTS, TIERS
from medvigil.suites.medvigil.scoring.open_ended import JUDGES


def _names(text: str) -> tuple[str, ...]:
    """``--text-only A,B``: model names."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated model names, got {text!r}")
    return names


def _tier_weights(text: str) -> tuple[float, ...]:
    """``--weights 1,2,3,5,8``: the SFR_w weights of tiers L1..L5 (Eq. 3)."""
    parts = text.split(",")
    try:
        weights = tuple(float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"weights must be {len(TIERS)} comma-separated numbers (L1..L5), got {text!r}"
        ) from None
    if (
        len(weights) != len(TIERS)
        or not all(math.isfinite(w) and w >= 0 for w in weights)
        or not any(weights)
    ):
        raise argparse.ArgumentTypeError(
            f"weights must be {len(TIERS)} finite numbers >= 0, not all zero (L1..L5), got {text!r}"
        )
    return weights


RELEASE = (
    "a release folder, a built dataset folder or a Hub repo id (optional: lmms-eval records "
    "carry tier and source; harness files without it have no tiers, so no SFR_w, and take gold "
    "letters from their rows)"
)
COMPARE_METRICS = "default: mcs,cap,safe,ground,sfr_w,vgr, any key of the audit's metrics"
TITLES = {
    "score": "medvigil audit options",
    "compare": "medvigil options (as for `medvigil score`)",
}

SCORE = (
    Option(
        ("--n-resamples",),
        "n_resamples",
        {
            "type": int_range(0, MAX_RESAMPLES),
            "default": 500,
            "help": "case-clustered bootstrap resamples (0 = none; paper: 500)",
        },
    ),
    Option(
        ("--seed",),
        "seed",
        {
            "type": int_range(0, MAX_SEED),
            "default": 20260505,
            "help": "bootstrap seed (paper Appendix M: 20260505)",
        },
    ),
    Option(
        ("--harness-compatible",),
        "harness_compatible",
        {
            "action": "store_true",
            "help": "reproduce the official harness scripts where they differ from the paper, "
            "bootstrap included: the models take bootstrap_mcs.py's random stream in the order of "
            "their FILEs, so give them in its MODEL_FILES order (see metrics/mcs/README.md)",
        },
    ),
    Option(
        ("--weights",),
        "weights",
        {
            "type": _tier_weights,
            "default": DEFAULT_TIER_WEIGHTS,
            "metavar": "W1,...,W5",
            "help": "SFR_w weights of risk tiers L1..L5 (paper Eq. 3: "
            + ",".join(f"{w:g}" for w in DEFAULT_TIER_WEIGHTS)
            + ")",
        },
    ),
    Option(
        ("--open-judge",),
        "open_judge",
        {
            "choices": JUDGES,
            "default": None,
            "help": "judge of the authors' __open.jsonl answers (default: authors-rule with "
            "--harness-compatible, as their numbers were made; else grammar)",
        },
    ),
    Option(
        ("--condition",),
        "condition",
        {"default": "default", "help": "condition scored as the headline audit (default: default)"},
    ),
    Option(
        ("--text-only",),
        "text_only",
        {
            "type": _names,
            "default": (),
            "metavar": "NAME[,NAME]",
            "help": "models that saw no image (text-only baselines): left out of Table 17, the MCS "
            "sensitivity ranking of vision-capable models; models whose lmms-eval logs show no "
            "image sent on an image probe are left out too. The output names each and why",
        },
    ),
    Option(
        ("--skip-invalid-rows",),
        "skip_invalid_rows",
        {
            "action": "store_true",
            "help": "leave out result rows that fail their checks (counted per model as "
            "invalid_row, listed as warnings), and release rows of manifest.csv / probes_mcq.csv "
            "with errors, instead of stopping",
        },
    ),
    Option(("--allow-empty",), "allow_empty"),  # `medvigil score`'s own option
)

COMPARE = (
    Option(
        ("--harness-compatible",),
        "harness_compatible",
        {
            "action": "store_true",
            "help": "the official harness's counting rules (error rows dropped, ...); the "
            "resampling stays paired",
        },
    ),
    Option(
        ("--condition",),
        "condition",
        {"default": "default", "help": "condition compared (default: default)"},
    ),
    Option(
        ("--skip-invalid-rows",),
        "skip_invalid_rows",
        {
            "action": "store_true",
            "help": "leave out result rows that fail their checks (counted and listed as warnings)",
        },
    ),
    Option(
        ("--allow-empty",),
        "allow_empty",
        {"action": "store_true", "help": "an empty result file is a warning, not an error"},
    ),
)
