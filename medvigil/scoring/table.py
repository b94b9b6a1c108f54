"""Columnar view of per-probe records (``schemas/probe_record.schema.json``).

A :class:`RecordTable` stores each categorical field as integer codes into a tuple of levels and
letters as small integers, so grouped statistics are ``np.bincount`` calls, not loops over records.

The three ``parse_status`` values (paper Appendix L):

* ``ok``: the response yielded a letter; ``correct`` is ``predicted == correct_letter``.
* ``parse_failure``: no letter after the retries. Never correct: a silent failure on a trap
  (no refusal letter was chosen) and wrong on every other probe.
* ``error``: the call itself failed (official harness ``status != "ok"``). The paper's semantics
  score it like a parse failure; ``harness_compatible`` scoring drops it from every denominator,
  as the official ``bench_aggregate.py`` keeps ``status == "ok"`` rows only
  (:meth:`RecordTable.scored_mask`).
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medvigil.constants import TIERS
from medvigil.errors import DataError, Problem
from medvigil.scoring.categorical import Categorical
from medvigil.scoring.record_columns import (
    MAX_PROBLEMS,
    STATUS_ERROR,
    STATUS_OK,
    checked_columns,
    flag,
)

__all__ = ["RecordTable"]

_MISSING = object()
_CATEGORICAL = (
    "suite",
    "model",
    "condition",
    "probe_kind",
    "risk_tier",
    "source_dataset",
    "modality",
    "text_only",
    "case",
)
REQUIRED_FIELDS = (
    "suite",
    "model",
    "probe_id",
    "case_id",
    "probe_kind",
    "correct_letter",
    "predicted_letter",
    "parse_status",
)


@dataclass(frozen=True)
class RecordTable:
    """Per-probe records as columns (one row per record).

    Attributes:
        suite, model, condition, probe_kind, risk_tier, source_dataset, modality,
        text_only, case, probe: :class:`Categorical` columns. ``risk_tier`` levels are
            always ``TIERS`` (L1..L5) in order; ``text_only`` levels are
            ``("false", "true")``; ``condition`` defaults to ``"default"``.
        gold, pred: int8 letter codes (0 = A); ``pred`` is -1 when no letter was chosen.
        status: int8, 0 ok / 1 parse_failure / 2 error.
    """

    suite: Categorical
    model: Categorical
    condition: Categorical
    probe_kind: Categorical
    risk_tier: Categorical
    source_dataset: Categorical
    modality: Categorical
    text_only: Categorical
    case: Categorical
    gold: np.ndarray
    pred: np.ndarray
    status: np.ndarray
    probe: Categorical | None = None
    correct: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.gold)
        for name in (*_CATEGORICAL, "pred", "status", "probe"):
            col = getattr(self, name)
            rows = (
                len(col.codes) if isinstance(col, Categorical) else n if col is None else len(col)
            )
            if rows != n:
                raise ValueError(f"column {name!r} has {rows} rows, expected {n}")
        if self.risk_tier.levels != TIERS:
            raise ValueError(f"risk_tier levels must be {TIERS}, got {self.risk_tier.levels}")
        if self.text_only.levels != ("false", "true"):
            raise ValueError(
                f"text_only levels must be ('false', 'true'), got {self.text_only.levels}"
            )
        object.__setattr__(
            self,
            "correct",
            (self.status == STATUS_OK) & (self.pred == self.gold) & (self.pred >= 0),
        )

    def __len__(self) -> int:
        return len(self.gold)

    def scored_mask(self, harness_compatible: bool = False) -> np.ndarray:
        """Rows that enter denominators: every row (paper; errors and parse failures are never
        correct), or, ``harness_compatible``, the rows whose call did not fail (the harness's
        ``status == "ok"``)."""
        if harness_compatible:
            return self.status != STATUS_ERROR
        return np.ones(len(self), dtype=bool)

    def select(self, mask: np.ndarray) -> "RecordTable":
        """Rows where ``mask`` is true (levels are kept, so codes stay comparable)."""
        idx = np.flatnonzero(mask)
        return RecordTable(
            **{name: getattr(self, name).take(idx) for name in _CATEGORICAL},
            gold=self.gold[idx],
            pred=self.pred[idx],
            status=self.status[idx],
            probe=None if self.probe is None else self.probe.take(idx),
        )

    @classmethod
    def from_records(
        cls, records: Iterable[Mapping[str, Any]], *, source: str = "<records>"
    ) -> "RecordTable":
        """Build a table from probe-record dicts, checking what scoring relies on.

        Required fields present, letters ``A``-``Z``, ``parse_status`` in the enum,
        ``predicted_letter`` non-null exactly when ``parse_status == "ok"``, tiers in L1..L5,
        ``text_only_answerable`` boolean, no duplicate ``(model, condition, probe_id)``. Every
        problem is raised in one :class:`~medvigil.errors.DataError` naming ``source``, the 1-based
        row and the field (full JSON-Schema validation is
        :func:`medvigil.records.schema_validation.check_records`).
        """
        records = records if isinstance(records, list) else list(records)
        problems: list[Problem] = []
        if not all(type(rec) is dict for rec in records):  # fast path; other mappings are fine too
            problems = [
                Problem(
                    file=source,
                    row=i + 1,
                    message=f"record must be an object, got {type(rec).__name__}",
                )
                for i, rec in enumerate(records)
                if not isinstance(rec, Mapping)
            ]
        if problems:
            raise DataError(problems)
        cols: dict[str, list] = {}
        for name in REQUIRED_FIELDS:
            col = [r.get(name, _MISSING) for r in records]
            missing = np.array([v is _MISSING for v in col]) if _MISSING in col else None
            if missing is not None:
                flag(problems, missing, source, name, "required field is missing")
                col = [None if v is _MISSING else v for v in col]
            cols[name] = col
        for name in (
            "condition",
            "risk_tier",
            "source_dataset",
            "modality",
            "text_only_answerable",
        ):
            cols[name] = [r.get(name) for r in records]
        if problems:
            raise DataError(problems)
        return cls.from_columns(**cols, source=source)

    @classmethod
    def from_columns(
        cls,
        *,
        model: Sequence[str] | str,
        case_id: Sequence[str],
        probe_kind: Sequence[str],
        correct_letter: Sequence[str],
        predicted_letter: Sequence[str | None],
        parse_status: Sequence[str] | None = None,
        probe_id: Sequence[str] | None = None,
        risk_tier: Sequence[str | None] | None = None,
        source_dataset: Sequence[str | None] | None = None,
        modality: Sequence[str | None] | None = None,
        text_only_answerable: Sequence[bool | None] | None = None,
        condition: Sequence[str | None] | str | None = None,
        suite: Sequence[str] | str,
        source: str = "<columns>",
    ) -> "RecordTable":
        """Build a table from equal-length columns (field names as in the record schema).

        A string for ``model``, ``condition`` or ``suite`` applies to every row. Without
        ``parse_status`` a row is ``"ok"`` when it has a letter, else ``"parse_failure"``; without
        ``probe_id`` every row is a distinct probe. Problems raise one
        :class:`~medvigil.errors.DataError`.
        """
        table = cls(
            **checked_columns(
                {
                    "suite": suite,
                    "model": model,
                    "case_id": case_id,
                    "probe_kind": probe_kind,
                    "condition": condition,
                    "risk_tier": risk_tier,
                    "source_dataset": source_dataset,
                    "modality": modality,
                    "text_only_answerable": text_only_answerable,
                    "correct_letter": correct_letter,
                    "predicted_letter": predicted_letter,
                    "parse_status": parse_status,
                    "probe_id": probe_id,
                },
                source,
            )
        )
        table.check_unique_probes(source)
        return table

    def check_unique_probes(self, source: str = "<records>") -> None:
        """Raise :class:`DataError` when a ``(model, condition, probe_id)`` occurs twice."""
        if self.probe is None or len(self) == 0:
            return
        n_probes = max(len(self.probe.levels), 1)
        key = (
            self.model.codes.astype(np.int64) * len(self.condition.levels) + self.condition.codes
        ) * n_probes + self.probe.codes
        space = len(self.model.levels) * len(self.condition.levels) * n_probes
        if space <= 4 * key.size and np.bincount(key, minlength=space).max() <= 1:
            # counted without sorting: no key twice (the sort below finds the rows of a duplicate)
            return
        order = np.argsort(key, kind="stable")
        sk = key[order]
        dup = np.flatnonzero(sk[1:] == sk[:-1])
        if dup.size:
            problems = []
            for j in dup[:MAX_PROBLEMS].tolist():
                row, first = int(order[j + 1]), int(order[j])
                problems.append(
                    Problem(
                        file=source,
                        row=row + 1,
                        field="probe_id",
                        message=(
                            f"duplicate probe {self.probe.levels[self.probe.codes[row]]!r} "
                            f"for model {self.model.levels[self.model.codes[row]]!r}, "
                            f"condition {self.condition.levels[self.condition.codes[row]]!r} "
                            f"(also at row {first + 1})"
                        ),
                    )
                )
            if dup.size > MAX_PROBLEMS:
                problems.append(
                    Problem(
                        file=source,
                        field="probe_id",
                        message=f"{dup.size - MAX_PROBLEMS} more duplicate row(s) not listed",
                    )
                )
            raise DataError(problems)
