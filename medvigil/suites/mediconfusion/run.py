"""One MediConfusion run (one model, one mode) as read from result files: its probe records, the
release pairs it lacks, and its scores."""

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from medvigil.suites.mediconfusion.categories import category_columns
from medvigil.suites.mediconfusion.record_scoring import score_records
from medvigil.suites.mediconfusion.release import IMAGE_KEYS, Release
from medvigil.suites.mediconfusion.scoring import MediConfusionScore, score_pairs

__all__ = ["MediConfusionRun", "category_names"]


@dataclass(frozen=True)
class MediConfusionRun:
    """One result file converted to records, plus what is needed to audit it."""

    path: str
    model: str
    mode: str
    margin: float
    records: tuple[dict, ...] = field(repr=False)
    pair_ids: tuple[str, ...]
    missing_pairs: tuple[str, ...]
    category_names: tuple[str, ...]
    official_pair_scores: Mapping[str, dict] = field(repr=False, default_factory=dict)
    files: tuple[str, ...] = ()  # the files holding the records (``path`` joins them)
    # score_pairs' inputs (pair_inputs), when the reader has the records' pairs already
    pairs: Mapping[str, list] | None = field(repr=False, default=None)

    @property
    def n_pairs(self) -> int:
        return len(self.pair_ids)

    def score(self, *, confusion_denominator: str = "both_valid") -> MediConfusionScore:
        """Score the run's records (pairs in file order)."""
        if self.pairs is not None:
            return score_pairs(
                **self.pairs,
                confusion_denominator=confusion_denominator,
                category_names=self.category_names,
            )
        return score_records(
            self.records,
            confusion_denominator=confusion_denominator,
            category_names=self.category_names,
        )

    def official_totals(self) -> dict[str, dict[str, int]]:
        """Sum of the authors' per-pair ``score`` blocks over the pairs of this file."""
        out: dict[str, Counter] = {}
        for blocks in self.official_pair_scores.values():
            for block, counts in blocks.items():
                out.setdefault(block, Counter()).update(counts)
        return {block: dict(counts) for block, counts in out.items()}


def category_names(release: Release) -> tuple[str, ...]:
    """The category columns of a release's runs: :func:`category_columns` of its categories."""
    return category_columns(
        c for p in release.pairs.values() for key in IMAGE_KEYS for c in p.categories(key)
    )
