"""Per model and arm, what the quadrant table does not hold: case-clustered bootstrap CIs of flip
rate and Dangerous fraction (Sec. 3.4), flip rate per paraphrase phenomenon and quadrants per
ground-truth label or finding (Sec. 4.1), and the binary arm's checks
(:mod:`medvigil.suites.cbd.binary_checks`)."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.suites.cbd.arm_scoring import arm_codes, arm_flags
from medvigil.suites.cbd.arms import BINARY_FORMS, ORIGINAL_KIND, PARAPHRASE_KINDS
from medvigil.suites.cbd.binary_checks import binary_by_quadrant, kl_check
from medvigil.suites.cbd.scoring import (
    QUADRANTS,
    bootstrap_rates,
    case_parts,
    flag_scores,
    flip_rate_by_phenomenon,
)


def sample_details(
    records: Sequence[Mapping[str, Any]],
    image: str,
    text: str,
    *,
    invalid: str = "exclude",
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """For one model and arm: case-clustered bootstrap CIs of flip rate and Dangerous fraction, flip
    rate per phenomenon, quadrants by ground-truth label and ``extra.finding`` when present; binary
    arm: p(yes) per quadrant (Table 3), one example per quadrant, and the null-image and image-swap
    checks."""
    cases, ids = case_parts(
        records,
        str(records[0]["model"]) if records else "",
        original_kind=ORIGINAL_KIND,
        paraphrase_kinds=PARAPHRASE_KINDS,
        image_condition=image,
        text_only_condition=text,
        incomplete="drop",
    )
    ids.sort()
    codes = arm_codes(cases, ids)
    quad = arm_flags(codes, invalid)["quadrant"]
    out: dict[str, Any] = {"ci": bootstrap_rates(quad, ids, n_resamples=n_resamples, seed=seed)}
    para_sample = np.repeat(np.arange(len(ids)), codes["lengths"])
    out["flip_rate_by_phenomenon"] = flip_rate_by_phenomenon(
        quad, codes["orig"], para_sample, codes["para"], codes["phenomena"]
    )
    out.update(_by_group(cases, ids, codes, invalid))
    arms = next((a for a in BINARY_FORMS.values() if a["image"] == image), None)
    if arms is None:
        return out
    out["binary_by_quadrant"] = binary_by_quadrant(cases, ids, quad, arms)
    out["kl_check"] = kl_check(
        [cases[c]["orig"]["extra"]["p_yes"] for c in ids],
        [cases[c]["text"]["extra"]["p_yes"] for c in ids],
        [QUADRANTS[q] if q >= 0 else None for q in quad],
    )
    return out


def _by_group(
    cases: Mapping[str, Mapping[str, Any]],
    ids: Sequence[str],
    codes: Mapping[str, Any],
    invalid: str,
) -> dict[str, dict[str, Any]]:
    """``by_label`` / ``by_finding``: the quadrant scores of the samples per value of the original
    record's ``extra.label`` / ``extra.finding`` (left out when no sample has one)."""
    out = {}
    for name in ("label", "finding"):
        by: dict[str, list[int]] = {}
        for k, c in enumerate(ids):
            value = (cases[c]["orig"].get("extra") or {}).get(name)
            if value is not None:
                by.setdefault(str(value), []).append(k)
        if any((cases[c]["orig"].get("extra") or {}).get(name) for c in ids):
            out[f"by_{name}"] = {
                g: flag_scores(
                    arm_flags(codes, invalid, np.asarray(ks)),
                    invalid,
                    codes["orig"][ks],
                    codes["gold"][ks],
                )
                for g, ks in sorted(by.items())
            }
    return out
