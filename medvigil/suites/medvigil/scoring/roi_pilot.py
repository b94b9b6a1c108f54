"""The case sample of the ROI-decay pilot (MedVIGIL Appendix K) and its modal-vote record.

Paper: "80 stratified cases (16 per CRT tier, sampled at random with seed 20260506) that have a
well-defined ROI bounding box", drawn as the authors' ``scripts/bench_visual_token_ablation.py``
(:func:`select_pilot_cases`); 5 samples per (model, case, step) at T = 0.7, scored by modal letter
(:func:`modal_record`).
"""

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from medvigil.records.probe_record import correctness
from medvigil.suites.medvigil.release.release_format import TIERS
from medvigil.suites.medvigil.scoring.roi_decay import modal_letter

PILOT_SEED = 20260506
PILOT_PER_TIER = 16
PILOT_SAMPLES = 5
PILOT_TEMPERATURE = 0.7
_CREDENTIALED = frozenset({"CXR", "MIMIC-CXR", "MIMIC_CXR", "CHEXPERT"})


def is_credentialed(source: Any) -> bool:
    """A credentialed chest-X-ray source (the authors' ``cxr``; MIMIC-CXR, CheXpert spelled out)."""
    return str(source or "").strip().upper() in _CREDENTIALED


def _readable_box(box: Any) -> bool:
    if isinstance(box, str):
        try:
            box = json.loads(box)
        except ValueError:
            return False
    return (
        isinstance(box, (list, tuple))
        and len(box) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)
    )


def select_pilot_cases(
    cases: Iterable[Mapping[str, Any]], *, per_tier: int = PILOT_PER_TIER, seed: int = PILOT_SEED
) -> list[str]:
    """Pilot case ids in the authors' order: skip credentialed chest X-rays and cases without a
    four-number ``roi_bbox`` (list or JSON), bucket by tier in manifest order; with one
    ``random.Random(seed)`` shuffle L1..L5 in turn and keep each bucket's first ``per_tier``.

    >>> rows = [{"case_id": f"c{i}", "risk_tier": "L1", "source_dataset": "VQA-RAD",
    ...          "roi_bbox": [0, 0, 1, 1]} for i in range(4)]
    >>> select_pilot_cases(rows, per_tier=2) == select_pilot_cases(rows, per_tier=2)
    True
    >>> select_pilot_cases(rows + [{"case_id": "x", "risk_tier": "L2", "source_dataset": "cxr",
    ...                             "roi_bbox": [0, 0, 1, 1]}])
    ... # doctest: +ELLIPSIS
    ['c...', 'c...', 'c...', 'c...']
    """
    if per_tier < 1:
        raise ValueError(f"per_tier must be >= 1, got {per_tier}")
    buckets: dict[str, list[str]] = {}
    seen: set[str] = set()
    for case in cases:
        cid = str(case["case_id"])
        if cid in seen:
            raise ValueError(f"case {cid!r} listed twice; give one row per case in manifest order")
        seen.add(cid)
        if is_credentialed(case.get("source_dataset")) or not _readable_box(case.get("roi_bbox")):
            continue
        buckets.setdefault(str(case.get("risk_tier")), []).append(cid)
    rng = random.Random(seed)
    picked: list[str] = []
    for tier in TIERS:
        bucket = list(buckets.get(tier, []))
        rng.shuffle(bucket)
        picked += bucket[:per_tier]
    return picked


def modal_record(
    record: dict[str, Any], responses: Sequence[str], letters: Sequence[str | None]
) -> dict[str, Any]:
    """``record`` (one sample's probe record) rewritten as the modal vote of all samples."""
    letter, share = modal_letter(letters)
    out = dict(record)
    out.update(
        predicted_letter=letter or None,
        parse_status="ok" if letter else "parse_failure",
        raw_response=json.dumps(list(responses), ensure_ascii=False),
    )
    if "score" in record:  # a task record's per-doc score follows its letter
        out["score"] = correctness(out["predicted_letter"], record["correct_letter"])
    out["extra"] = {
        **(record.get("extra") or {}),
        "samples": [x or "" for x in letters],
        "modal_share": share,
        "protocol": "appendix_k_modal_vote",
    }
    return out
