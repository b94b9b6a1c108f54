"""Paired comparison of Illusion-of-Readiness models: R(m) and the per-test robustness (``medvigil
compare``).

The logs are found and read as ``medvigil score --suite readiness`` reads them. R(m) is not a
function of per-case sums (T3-T5 compare each perturbed arm with its base *on the perturbed
arm's items*, T1 weights benchmarks by their items), so a resample is scored by the suite's own
:func:`medvigil.suites.readiness.scoring.model_scores` on the records of the drawn cases, a case
drawn twice contributing its records twice (as two cases). Values are ``100 R`` and ``100 r_i``
(``r_i = 1 - f_i``) for T1-T5; chain-of-thought records (T6) are not part of R and are left out. A
resample where a test has no record (R undefined) is left out of the interval and p-value.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from medvigil.records.suite_logs import find_samples, read_suite_records
from medvigil.scoring.paired import DEFAULT_COMPARE_RESAMPLES
from medvigil.suites.readiness.fragility import STRESS_TESTS
from medvigil.suites.readiness.records import TASKS
from medvigil.suites.readiness.scoring import (
    READINESS_CONDITIONS,
    ModelRows,
    model_rows,
    model_scores,
)
from medvigil.suites.stress import check_metrics, compare_records

METRICS = ("r", *(f"r_{t.lower()}" for t in STRESS_TESTS))
DEFAULT_METRICS = ("r",)


def compare(
    files: list[str],
    *,
    release: None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    allow_partial: bool = False,
    n_resamples: int = DEFAULT_COMPARE_RESAMPLES,
    seed: int = 0,
    p_value: str = "normal",
) -> dict[str, Any]:
    """Every pair of models' R(m) (and ``r_t1`` .. ``r_t5``); ``allow_partial`` as for ``score``."""
    check_metrics("readiness", metrics, METRICS)
    records = read_suite_records(find_samples(files, "readiness", TASKS), "readiness")
    by_model: dict[str, list] = {}
    for r in records:
        if r.get("condition", "default") != READINESS_CONDITIONS["cot"]:
            by_model.setdefault(str(r["model"]), []).append(r)
    result = compare_records(
        by_model,
        _key,
        lambda recs, model, whole: CaseReplay.of(recs, allow_partial),
        metrics,
        n_resamples=n_resamples,
        seed=seed,
        p_value=p_value,
    )
    result["params"].update(
        allow_partial=allow_partial, unit="R x 100 (and r_i x 100)", t6="left out (not part of R)"
    )
    return {
        "suite": "readiness",
        **result,
        "inputs": {"files": [str(f) for f in files], "n_records": len(records)},
    }


def _key(r: Mapping[str, Any]) -> tuple:
    return str(r["case_id"]), r.get("condition", "default"), r["probe_id"]


@dataclass(frozen=True)
class CaseReplay:
    """One model's records as :class:`~medvigil.suites.readiness.scoring.ModelRows`, scored whole
    or on resampled cases (:class:`medvigil.scoring.paired.PairedScores`)."""

    units: list[str]
    rows: ModelRows
    order: (
        np.ndarray
    )  # the records grouped by case: case c's records are order[start[c]:start[c] + size[c]]
    start: np.ndarray
    size: np.ndarray
    allow_partial: bool

    @classmethod
    def of(cls, records: list, allow_partial: bool) -> "CaseReplay":
        rows = model_rows(records)
        order = np.argsort(rows.case, kind="stable")
        size = np.bincount(rows.case, minlength=rows.n_cases)
        cases = list(dict.fromkeys(str(r["case_id"]) for r in records))  # model_rows' case codes
        return cls(cases, rows, order, np.cumsum(size) - size, size, allow_partial)

    def point(self) -> Mapping[str, float]:
        return self._metrics(self.rows)

    def resampled(
        self, at: np.ndarray, draws: np.ndarray, counts: np.ndarray
    ) -> Mapping[str, np.ndarray]:
        out = {m: np.full(draws.shape[0], np.nan) for m in METRICS}
        for b, drawn in enumerate(at[draws]):
            drawn = drawn[drawn >= 0]
            sizes = self.size[drawn]
            # each drawn case's records, the draw's position as their case
            within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            idx = self.order[np.repeat(self.start[drawn], sizes) + within]
            rows = replace(
                self.rows,
                condition=self.rows.condition[idx],
                source=self.rows.source[idx],
                case=np.repeat(np.arange(drawn.size), sizes),
                n_cases=int(drawn.size),
                correct=self.rows.correct[idx],
                visreq=self.rows.visreq[idx],
                n_shown=self.rows.n_shown[idx],
            )
            for metric, value in self._metrics(rows).items():
                out[metric][b] = value
        return out

    def _metrics(self, rows: ModelRows) -> dict[str, float]:
        scores = model_scores(rows, None, allow_partial=self.allow_partial)
        out = {"r": np.nan if scores["R"] is None else 100.0 * scores["R"]}
        for test, value in scores["robustness"].items():
            out[f"r_{test.lower()}"] = np.nan if value is None else 100.0 * value
        return out
