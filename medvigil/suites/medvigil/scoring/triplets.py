"""Counterfactual triplets as multiple-choice probes (paper Appendix B.3, Eq. 7).

``triplets.csv`` has gold *answers* but no options: each arm reuses the case's ``original`` options,
the gold letter being the option equal in normalised text (``text``), else the one
:func:`.open_ended.gold_match` accepts (``matcher``). Otherwise the triplet stays unasked (never
patched), counted by reason and arm (:func:`release_triplet_report`).
"""

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.suites.medvigil.release.release_format import LETTERS
from medvigil.suites.medvigil.scoring.open_ended import gold_match

ARMS = (("triplet_anchor", "anchor"), ("triplet_tcf", "tcf"), ("triplet_vcf", "vcf"))
NO_ORIGINAL = "no original probe for the case (e.g. image withheld)"


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def match_option(gold: str, options: Sequence[str]) -> tuple[str | None, str]:
    """(letter, stage) of the option ``gold`` names; (None, why) when none or several do."""
    want = normalise(gold)
    if not want:
        return None, "empty gold"
    for stage, accepts in (
        ("text", lambda o: normalise(o) == want),
        ("matcher", lambda o: gold_match(gold, [o]) == "correct"),
    ):
        hits = [i for i, option in enumerate(options) if accepts(option)]
        if len(hits) == 1:
            return LETTERS[hits[0]], stage
        if len(hits) > 1:
            return None, "gold matches several options"
    return None, "gold not among the original options"


@dataclass
class TripletProbes:
    rows: list[dict] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> triplets skipped
    matched_by: Counter = field(default_factory=Counter)  # (stage) -> arms matched at that stage


def triplet_probes(triplets: Iterable[Mapping], originals: Mapping[str, Mapping]) -> TripletProbes:
    """Three MCQ rows per askable triplet (``case_id``, ``{anchor,tcf,vcf}_{question,gold}``);
    ``originals``: case id -> its ``original`` probe row (``options`` and columns carried over)."""
    out = TripletProbes()
    for t in triplets:
        original = originals.get(t["case_id"])
        if original is None:
            out.skipped[NO_ORIGINAL] += 1
            continue
        options = list(original["options"])
        found = {arm: match_option(t[f"{arm}_gold"], options) for _, arm in ARMS}
        failed = {arm: why for arm, (letter, why) in found.items() if letter is None}
        if failed:  # one reason per skipped triplet, naming the arms
            out.skipped[
                "; ".join(
                    f"{why} ({', '.join(a for a, w in failed.items() if w == why)})"
                    for why in sorted(set(failed.values()))
                )
            ] += 1
            continue
        out.matched_by.update(stage for _, stage in found.values())
        for kind, arm in ARMS:
            out.rows.append(
                {
                    **original,
                    "probe_id": f"{t['case_id']}-{kind}",
                    "probe_kind": kind,
                    "question": t[f"{arm}_question"],
                    "correct_letter": found[arm][0],
                }
            )
    return out


def release_triplet_report(release_root: str | Path) -> dict:
    """How the release's triplets map onto options: askable, matched by stage, unmatched by
    reason."""
    from medvigil.suites.medvigil.release.release_loading import load_release

    release = load_release(release_root, check=False)
    originals = {
        p.case_id: {"options": p.options} for p in release.probes_mcq if p.probe_kind == "original"
    }
    made = triplet_probes([t.__dict__ for t in release.triplets], originals)
    return {
        "n_triplets": len(release.triplets),
        "askable": len(made.rows) // len(ARMS),
        "matched_by": dict(made.matched_by),
        "unmatched": dict(made.skipped),
    }
