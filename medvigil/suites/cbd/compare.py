"""Paired comparison of Consistent-but-Dangerous models: the quadrant fractions (``medvigil
compare``).

The logs are found and read as ``medvigil score --suite cbd`` reads them (same files, the same
record checks). Per model, the generative arm's samples (one per case: the (image, q) answer,
its paraphrases and the text-only answer) are classified into the four quadrants of Sec. 3.1
(:func:`medvigil.suites.cbd.scoring.classify_codes`, ``invalid`` as for ``score``). Each case
contributes ``[evaluable, Ideal, Fragile, Dangerous, Worst]``; a fraction is a quadrant's count
over the evaluable samples (ratio of sums, so a resample of cases is scored like the whole), in
percent. The binary arm (``<model> [binary]``) is not compared.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from medvigil.records.suite_logs import find_samples, read_suite_records
from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES, UnitSums
from medvigil.suites.cbd.arm_scoring import arm_codes, arm_flags
from medvigil.suites.cbd.arms import ARMS, ORIGINAL_KIND, PARAPHRASE_KINDS
from medvigil.suites.cbd.logs import TASKS, without_repeated_arms
from medvigil.suites.cbd.records import check_records
from medvigil.suites.cbd.scoring import QUADRANTS, case_parts
from medvigil.suites.stress import check_metrics, compare_records

METRICS = (
    "ideal",
    "fragile",
    "dangerous",
    "worst",
    "flip_rate",
)  # flip rate = Fragile + Worst (Eq. 3)
DEFAULT_METRICS = ("ideal", "fragile", "dangerous", "worst")


def compare(
    files: list[str],
    *,
    release: None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    invalid: str = "exclude",
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = 0,
    p_value: str = "normal",
) -> dict[str, Any]:
    """Every pair of models' quadrant fractions (module docstring); ``metrics`` among
    :data:`METRICS`."""
    check_metrics("cbd", metrics, METRICS)
    kept, skipped = without_repeated_arms(find_samples(files, "cbd", TASKS))
    records = check_records(read_suite_records(kept, "cbd"))
    by_model: dict[str, list] = {}
    for r in records:
        if r["condition"] in ARMS.values():
            by_model.setdefault(str(r["model"]), []).append(r)
    if not by_model and records:
        raise ValueError(
            "no record of the generative arm (cbd_image + cbd_noimg, or "
            "cbd_quadrants); the binary arm (cbd_binary) is not compared"
        )
    result = compare_records(
        by_model,
        _key,
        lambda recs, model, whole: UnitSums(
            *case_quadrants(recs, model, invalid, whole), fractions
        ),
        metrics,
        n_resamples=n_resamples,
        seed=seed,
        p_value=p_value,
    )
    result["params"].update(invalid=invalid, unit="percentage points", arm="generative")
    return {
        "suite": "cbd",
        **result,
        "inputs": {
            "files": [str(p) for p in kept],
            "skipped_files": skipped,
            "n_records": len(records),
        },
    }


def _key(r) -> tuple:
    return str(r["case_id"]), r["condition"], r.get("probe_kind"), r["probe_id"]


def case_quadrants(
    records: list, model: str, invalid: str, complete: bool = True
) -> tuple[list[str], np.ndarray]:
    """Case ids and their ``(cases, 5)`` one-hot ``[evaluable, Ideal, Fragile, Dangerous, Worst]``;
    a case lacking a part is an error, as in ``score`` (``complete``), or, on records shared with
    another model, left out."""
    cases, ids = case_parts(
        records,
        model,
        original_kind=ORIGINAL_KIND,
        paraphrase_kinds=PARAPHRASE_KINDS,
        image_condition=ARMS["image"],
        text_only_condition=ARMS["noimg"],
        incomplete="error" if complete else "drop",
    )
    ids.sort()
    flags = arm_flags(arm_codes(cases, ids), invalid)
    sums = np.zeros((len(ids), 1 + len(QUADRANTS)))
    ev = flags["evaluable"]
    sums[:, 0] = ev
    sums[np.flatnonzero(ev), 1 + flags["quadrant"][ev].astype(np.int64)] = 1.0
    return ids, sums


def fractions(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Quadrant fractions and flip rate in percent from ``(..., 5)`` sums (NaN without an evaluable
    sample)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        share = 100.0 * sums[..., 1:] / sums[..., :1]
    out = {q.lower(): share[..., i] for i, q in enumerate(QUADRANTS)}
    out["flip_rate"] = share[..., 1] + share[..., 3]
    return out
