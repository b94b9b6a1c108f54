"""What the MedVIGIL ``evaluate`` modules share: citation, inputs, and :class:`AuditMetric` over
:func:`score_columns`. ``evaluate.load`` takes a module's first Metric class, so ``metrics/``
modules subclass this one, not the base; ``_compute`` keeps explicit parameters (evaluate forbids
``**kwargs``). Only they import this, so scoring never needs ``evaluate``.
"""

from collections.abc import Mapping
from typing import Any

import evaluate

from medvigil import citations
from medvigil.scoring.bootstrap import DEFAULT_SEED
from medvigil.suites.medvigil.release.release_format import DEFAULT_TIER_WEIGHTS
from medvigil.suites.medvigil.scoring.probe_columns import score_columns

MEDVIGIL_URLS = ["https://arxiv.org/abs/2605.07919", "https://github.com/hq0709/MedVIGIL"]
# one string per probe: the predicted and gold letters, probe kind, case id, risk tier
PER_PROBE_COLUMNS = ("predictions", "references", "probe_kind", "case_id", "risk_tier")


class AuditMetric(evaluate.Metric):
    """Subclasses set ``DESCRIPTION``, ``KWARGS_DESCRIPTION``, ``KEYS`` (returned; ``None``: all)
    and ``CI_KEYS`` (``<key>_ci_low`` / ``_ci_high`` added when ``n_resamples`` > 0)."""

    DESCRIPTION = KWARGS_DESCRIPTION = ""
    KEYS: tuple[str, ...] | None = None
    CI_KEYS: tuple[str, ...] = ()

    def _info(self):
        import datasets

        return evaluate.MetricInfo(
            description=self.DESCRIPTION,
            citation=citations.MEDVIGIL + "\n",
            inputs_description=self.KWARGS_DESCRIPTION,
            features=datasets.Features(
                {name: datasets.Value("string") for name in PER_PROBE_COLUMNS}
            ),
            reference_urls=MEDVIGIL_URLS,
        )

    def select(self, scores: Mapping[str, Any], n_resamples: int) -> dict[str, Any]:
        if self.KEYS is None:
            return dict(scores)
        ci = (
            tuple(f"{k}_ci_{end}" for k in self.CI_KEYS for end in ("low", "high"))
            if n_resamples
            else ()
        )
        return {k: scores[k] for k in self.KEYS + ci}

    def _compute(
        self,
        predictions,
        references,
        probe_kind,
        case_id,
        risk_tier,
        weights=DEFAULT_TIER_WEIGHTS,
        normalise=None,
        harness_compatible=False,
        n_resamples=0,
        seed=DEFAULT_SEED,
    ):
        scores = score_columns(
            predictions,
            references,
            probe_kind,
            case_id,
            risk_tier,
            weights=weights,
            normalise=normalise,
            harness_compatible=harness_compatible,
            n_resamples=n_resamples,
            seed=seed,
        )
        return self.select(scores, n_resamples)
