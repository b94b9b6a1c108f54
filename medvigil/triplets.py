"""Counterfactual triplets as multiple-choice probes (paper Appendix B.3, Eq. 7).

``triplets.csv`` gives the anchor, T-CF and V-CF questions with their gold *answers* but
no options. To ask them in the MCQ form, each arm reuses the five options of the case's
``original`` probe (the anchor is the original probe) and its correct letter is the option
whose text equals the arm's gold (case- and whitespace-insensitive). A triplet whose V-CF
gold is not among those options cannot be asked without inventing an option, so it is
skipped and counted, never patched. Probe kinds are ``triplet_anchor``, ``triplet_tcf``
and ``triplet_vcf`` (the names :mod:`medvigil.scoring` reads for TR-coh).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from medvigil.release_format import LETTERS

ARMS = (("triplet_anchor", "anchor"), ("triplet_tcf", "tcf"), ("triplet_vcf", "vcf"))


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split()).rstrip(".")


@dataclass
class TripletProbes:
    rows: list[dict] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def triplet_probes(triplets: Iterable[Mapping], originals: Mapping[str, Mapping]) -> TripletProbes:
    """Three MCQ rows per triplet.

    Args:
        triplets: rows with ``case_id`` and ``{anchor,tcf,vcf}_{question,gold}``.
        originals: case id -> that case's ``original`` probe row (``options`` and any
            columns to carry over, e.g. ``image``, ``risk_tier``).
    """
    out = TripletProbes()
    for t in triplets:
        original = originals.get(t["case_id"])
        if original is None:
            out.skip("no original probe for the case (e.g. image withheld)")
            continue
        options = list(original["options"])
        index = {_norm(text): LETTERS[i] for i, text in enumerate(options)}
        letters = {arm: index.get(_norm(t[f"{arm}_gold"])) for _, arm in ARMS}
        if None in letters.values():
            missing = ", ".join(arm for arm, letter in letters.items() if letter is None)
            out.skip(f"gold not among the original options ({missing})")
            continue
        for kind, arm in ARMS:
            row = dict(original)
            row.update(
                probe_id=f"{t['case_id']}-{kind}",
                probe_kind=kind,
                question=t[f"{arm}_question"],
                correct_letter=letters[arm],
            )
            out.rows.append(row)
    return out
