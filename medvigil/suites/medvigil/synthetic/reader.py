"""The simulated construction-blind reader behind the synthetic release's
``clinician_baseline.csv``: a correct letter per MCQ probe with the probability of its kind and
tier, and the per-kind, per-tier rates of those answers."""

from collections import Counter

import numpy as np

from medvigil.suites.medvigil.release import release_format as rf

# Probability of a correct letter per (probe kind, tier), calibrated to the independent radiologist
# R4 of the paper (Appendix G, Table 10); for halluc_trap it is 1 - SFR.
READER_P_CORRECT = {
    "original": (1.000, 0.968, 0.958, 0.907, 0.892),
    "tcf": (1.000, 0.935, 0.941, 0.860, 0.811),
    "halluc_trap": (1.000, 0.952, 0.941, 0.895, 0.878),
    "negation": (0.962, 0.913, 0.921, 0.813, 0.857),
    "specificity_drop": (0.974, 0.882, 0.922, 0.875, 0.850),
    "knowledge_only": (0.985, 0.931, 0.946, 0.902, 0.857),
    "lr_flip": (0.958, 0.903, 0.924, 0.860, 0.811),
    "roi_only": (1.000, 0.950, 0.925, 0.881, 0.875),
    "roi_masked": (1.000, 0.950, 0.888, 0.809, 0.800),
}


def reader_answers(mcq_rows: list[dict], tier: str, rng: np.random.Generator) -> list[bool]:
    """Whether the reader answers each MCQ probe of a case of ``tier`` correctly, in row order."""
    tier_i = rf.TIERS.index(tier)
    return [float(rng.random()) < READER_P_CORRECT[row["probe_kind"]][tier_i] for row in mcq_rows]


class ReaderTally:
    """The reader's answers counted per (probe kind, tier)."""

    def __init__(self) -> None:
        self._n: Counter = Counter()
        self._correct: Counter = Counter()

    def add(self, kind: str, tier: str, correct: bool) -> None:
        self._n[(kind, tier)] += 1
        self._correct[(kind, tier)] += int(correct)

    def rows(self) -> list[dict]:
        """The ``clinician_baseline.csv`` rows: accuracy (halluc_trap: SFR) per kind and tier, then
        over all tiers; kinds and tiers the release lacks are left out."""
        out = []
        for kind in rf.PROBE_KINDS:
            for tier in rf.TIERS + ("ALL",):
                tiers = rf.TIERS if tier == "ALL" else (tier,)
                count = sum(self._n[(kind, t)] for t in tiers)
                correct = sum(self._correct[(kind, t)] for t in tiers)
                if count == 0:
                    continue
                rate = (count - correct) / count if kind == "halluc_trap" else correct / count
                out.append(
                    {
                        "probe_kind": kind,
                        "risk_tier": tier,
                        "acc_or_sfr_pct": f"{100 * rate:.1f}",
                        "n_probes": count,
                        "n_correct": correct,
                    }
                )
        return out
