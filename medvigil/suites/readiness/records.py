"""Illusion of Readiness records: the arms' per-task metrics, and R(m) from a run's records or its
lmms-eval ``--log_samples`` files (the metric itself is :mod:`medvigil.suites.readiness.scoring`).
"""

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.records.lmms_eval_logs import read_samples
from medvigil.records.suite_logs import find_samples
from medvigil.suites.medvigil.release.release_format import SOURCE_LICENCES, source_label
from medvigil.suites.readiness.docs import arm_spec
from medvigil.suites.readiness.scoring import score_records

__all__ = [
    "SOURCES",
    "TASKS",
    "arm_accuracy",
    "arm_count",
    "arm_metrics",
    "readiness_from_records",
    "readiness_from_samples",
]

TASKS = r"readiness_\w+"  # the task names whose logs the suite reads
#: T1 benchmarks (paper: JAMA, NEJM) are MedVIGIL's source datasets; slug -> source_dataset
SOURCES = {re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"): name for name in SOURCE_LICENCES}


def _subset(records: Iterable[Mapping[str, Any]], subset: str) -> list[Mapping[str, Any]]:
    if subset in SOURCES:
        return [r for r in records if source_label(r.get("source_dataset")) == SOURCES[subset]]
    if subset not in ("all", "visreq", "t5"):
        raise ValueError(
            f"subset must be all, visreq, t5 or one of {', '.join(SOURCES)}; got {subset!r}"
        )
    return [
        r
        for r in records
        if subset == "all"
        or (subset == "visreq" and r.get("text_only_answerable") is False)
        or (subset == "t5" and (r.get("extra") or {}).get("t5_item") is True)
    ]


def arm_metrics(arm: str) -> tuple[str, ...]:
    """Metric names of an arm's task: its accuracy, plus what the fragilities read from the two base
    arms (T1 per-benchmark accuracies and counts, T2/T4 visually required, T5 original on the
    substituted items)."""
    arm_spec(arm)
    t1 = tuple(f"{p}_{s}" for s in SOURCES for p in ("acc", "n"))
    extra = {"readiness_img": ("acc_visreq", "acc_t5", *t1), "readiness_text": ("acc_visreq", *t1)}
    return ("acc", *extra.get(arm, ()), "parse_failures")


def arm_count(records: Iterable[Mapping[str, Any]], subset: str = "all") -> float:
    """Number of records in ``subset`` (the T1 benchmark weight n_b for a source slug)."""
    return float(len(_subset(records, subset)))


def arm_accuracy(records: Iterable[Mapping[str, Any]], subset: str = "all") -> float:
    """Accuracy in percent (parse failures wrong) over ``subset``: all | visreq | t5 | a
    source slug (:data:`SOURCES`); NaN when the subset is empty."""
    rows = _subset(records, subset)
    if not rows:
        return float("nan")
    return 100.0 * sum(r.get("predicted_letter") == r["correct_letter"] for r in rows) / len(rows)


def readiness_from_records(
    records: Iterable[Mapping[str, Any]], **kwargs: Any
) -> dict[str, dict[str, Any]]:
    """f1..f5 and R(m) per model from the records of all arms (:func:`score_records`); a probe
    answered twice in one condition (two runs' logs mixed) is an error."""
    records = list(records)
    seen: set[tuple] = set()
    for r in records:
        key = (r.get("model"), r.get("condition", "default"), r.get("probe_id"))
        if key in seen:
            raise ValueError(
                f"duplicate record: model {key[0]!r}, condition {key[1]!r}, field "
                f"'probe_id' {key[2]!r}; pass the logs of one run per model"
            )
        seen.add(key)
    return score_records(records, **kwargs)


def readiness_from_samples(
    paths: Iterable[str | Path], *, model: str | None = None, **kwargs: Any
) -> dict[str, dict[str, Any]]:
    """R(m) from lmms-eval ``--log_samples`` files (or folders searched for them) of the readiness
    tasks."""
    return readiness_from_records(
        read_samples(find_samples(paths, "readiness", TASKS), model=model), **kwargs
    )
