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
from medvigil.schemas import load_schema

__all__ = [
    "PARSE_STATUSES",
    "STATUS_ERROR",
    "STATUS_OK",
    "STATUS_PARSE_FAILURE",
    "Categorical",
    "RecordTable",
    "factorize",
    "group_accuracy",
    "group_counts",
]

STATUS_OK, STATUS_PARSE_FAILURE, STATUS_ERROR = 0, 1, 2
PARSE_STATUSES = ("ok", "parse_failure", "error")
# the suites a record may name: listed once, in the record schema (tests/test_house_rules.py
# holds the suite registry to it)
SUITES = tuple(load_schema("probe_record")["properties"]["suite"]["enum"])
DEFAULT_CONDITION = "default"
NO_LETTER = -1  # predicted-letter code of a parse failure or an error
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
_MAX_PROBLEMS = 200  # rows listed per kind of problem; the number of further rows is reported


@dataclass(frozen=True)
class Categorical:
    """Integer codes into ``levels``; code ``-1`` means missing (``None``)."""

    codes: np.ndarray
    levels: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.codes.ndim != 1:
            raise ValueError(f"codes must be one-dimensional, got shape {self.codes.shape}")

    def code_of(self, level: str) -> int:
        """Code of ``level``, or -1 when the level does not occur."""
        try:
            return self.levels.index(level)
        except ValueError:
            return -1

    def take(self, index: np.ndarray) -> "Categorical":
        return Categorical(self.codes[index], self.levels)

    def used_codes(self) -> np.ndarray:
        """The distinct codes present (-1 when a value is missing), sorted: ``np.unique(codes)``,
        counted rather than sorted (a few times faster on large tables)."""
        present = (
            np.bincount(self.codes + 1, minlength=len(self.levels) + 1)
            if self.codes.size
            else np.zeros(0, np.int64)
        )
        return np.flatnonzero(present) - 1

    def values(self) -> list[str | None]:
        lv = self.levels
        return [None if c < 0 else lv[c] for c in self.codes.tolist()]


def factorize(
    values: Sequence[Any], order: Sequence[str] | None = None, *, sort: bool = True
) -> Categorical:
    """Encode ``values`` as :class:`Categorical` (``None`` -> -1).

    Levels are ``order`` first (when given, kept even if absent), then the remaining
    observed values sorted (``sort=True``) so that codes do not depend on row order.
    Runs one dict lookup per value (about 30 ms per million values). ``values`` may be a
    :class:`Categorical` already (a table's codes; its levels may repeat a value): the
    result is the same as for its values, without a Python object per row.
    """
    if isinstance(values, Categorical):
        return _recode(values, order, sort)
    observed = list(dict.fromkeys(values))  # distinct values in order of appearance
    lut = {v: i for i, v in enumerate(observed)}
    raw = np.fromiter(map(lut.__getitem__, values), dtype=np.int64, count=len(values))
    missing_code = lut.get(None)
    levels = _levels([v for v in observed if v is not None], order, sort)
    position = {v: i for i, v in enumerate(levels)}
    remap = np.array(
        [position[v] if v is not None else -1 for v in observed] or [0], dtype=np.int32
    )
    codes = remap[raw] if len(values) else np.zeros(0, dtype=np.int32)
    if missing_code is not None:
        codes[raw == missing_code] = -1
    return Categorical(codes.astype(np.int32, copy=False), levels)


def _recode(cat: Categorical, order: Sequence[str] | None, sort: bool) -> Categorical:
    """:func:`factorize` of ``cat``'s values, computed on its codes."""
    codes = cat.codes
    used = cat.used_codes()
    if not sort:  # codes in order of first appearance
        used = in_order_of_appearance(codes, used.size)
    levels = _levels(
        list(dict.fromkeys(cat.levels[c] for c in used.tolist() if c >= 0)), order, sort
    )
    position = {v: i for i, v in enumerate(levels)}
    lut = np.array(
        [position.get(v, -1) for v in cat.levels] + [-1], dtype=np.int32
    )  # last slot: -1 stays missing
    if lut.size - 1 == len(levels) and np.array_equal(lut[:-1], np.arange(len(levels))):
        return Categorical(codes.astype(np.int32, copy=False), levels)  # the same codes
    return Categorical(lut[codes] if len(codes) else np.zeros(0, dtype=np.int32), levels)


def in_order_of_appearance(codes: np.ndarray, n_distinct: int | None = None) -> np.ndarray:
    """The distinct values of the integer array ``codes`` in order of first appearance. Given
    their number (``n_distinct``), they are found in the shortest prefix (growing fourfold) that
    holds them all: the first rows of a table usually do (a model's file holds every probe), and
    sorting them costs a fraction of sorting every row."""
    size = 1024 if n_distinct is not None else codes.size
    while True:
        head = codes[:size]
        distinct, first = np.unique(head, return_index=True)
        if distinct.size == n_distinct or size >= codes.size:
            return distinct[np.argsort(first, kind="stable")]
        size *= 4


def _levels(observed: list[Any], order: Sequence[str] | None, sort: bool) -> tuple[str, ...]:
    """:func:`factorize`'s levels of the distinct non-missing ``observed`` values (in order of
    appearance)."""
    bad = [v for v in observed if not isinstance(v, str)]
    if bad:
        raise TypeError(f"categorical values must be strings or None, got {bad[0]!r}")
    levels: list[str] = list(order) if order is not None else []
    known = set(levels)
    extra = [v for v in observed if v not in known]
    return tuple(levels + (sorted(extra) if sort else extra))


def group_counts(group: np.ndarray, n_groups: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-group sum of ``weights`` (count when ``None``); rows with group -1 are ignored."""
    keep = group >= 0
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[keep]
    return np.bincount(group[keep], weights=w, minlength=n_groups).astype(np.float64)


def group_accuracy(
    correct: np.ndarray, scored: np.ndarray, group: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy in percent per integer-coded group, ``100 * correct / scored``: the exact-match rate
    ``Pr_j[l̂_j = l*_j]`` of MedVIGIL Eq. 6 (and every suite's per-group accuracy).

    Rows not ``scored`` or in group -1 are ignored. Returns ``(accuracy, n_correct, n_scored)``;
    accuracy is NaN for a group with no scored row.
    """
    g = np.where(scored, group, -1)
    n = group_counts(g, n_groups)
    c = group_counts(g, n_groups, correct)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n > 0, 100.0 * c / np.where(n > 0, n, 1.0), np.nan)
    return acc, c, n


def _flag(problems: list[Problem], mask: np.ndarray, source: str, field: str, message: str) -> None:
    """One problem per row where ``mask`` holds (1-based), at most ``_MAX_PROBLEMS``, then a count
    of the rest."""
    rows = np.flatnonzero(mask)
    for row in rows[:_MAX_PROBLEMS].tolist():
        problems.append(Problem(file=source, row=row + 1, field=field, message=message))
    if rows.size > _MAX_PROBLEMS:
        problems.append(
            Problem(
                file=source,
                field=field,
                message=f"{message}: {rows.size - _MAX_PROBLEMS} more row(s) not listed",
            )
        )


def _letters(
    values: Sequence[Any], field_name: str, source: str, allow_none: bool, problems: list[Problem]
) -> tuple[np.ndarray, np.ndarray]:
    """Letter column -> (int8 codes, given mask); NO_LETTER for None; invalid cells become
    problems."""
    try:
        cat = factorize(values, sort=False)
    except TypeError:  # non-string cells: report them as their repr below
        cat = factorize(
            [v if isinstance(v, str) or v is None else repr(v) for v in values], sort=False
        )
    lut = np.full(len(cat.levels) + 1, NO_LETTER, dtype=np.int8)  # last slot: missing (-1)
    for i, lv in enumerate(cat.levels):
        if isinstance(lv, str) and len(lv) == 1 and "A" <= lv <= "Z":
            lut[i] = ord(lv) - 65
        else:
            _flag(
                problems, cat.codes == i, source, field_name, f"must be one letter A-Z, got {lv!r}"
            )
    if not allow_none:
        _flag(problems, cat.codes < 0, source, field_name, "must be one letter A-Z, got None")
    return lut[cat.codes], cat.codes >= 0


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
                _flag(problems, missing, source, name, "required field is missing")
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
        n = len(case_id.codes) if isinstance(case_id, Categorical) else len(case_id)
        problems: list[Problem] = []

        def column(values, name):
            if values is None:
                return [None] * n
            if isinstance(values, str):
                return [values] * n
            if not isinstance(
                values, (Categorical, list)
            ):  # a Categorical is already coded (a table's column)
                values = list(values)
            rows = len(values.codes) if isinstance(values, Categorical) else len(values)
            if rows != n:
                raise ValueError(f"column {name!r} has {rows} rows, expected {n}")
            return values

        cols = {
            "suite": suite,
            "model": model,
            "case_id": case_id,
            "probe_kind": probe_kind,
            "condition": condition,
            "risk_tier": risk_tier,
            "source_dataset": source_dataset,
            "modality": modality,
        }
        cols = {
            name: Categorical(np.zeros(n, dtype=np.int32), (given,))
            if isinstance(given, str)
            else column(given, name)
            for name, given in cols.items()
        }  # one value for every row: coded without a list of n
        cats: dict[str, Categorical] = {}
        for name, values in cols.items():
            order = TIERS if name == "risk_tier" else None
            try:
                cat = factorize(values, order=order)
            except TypeError:
                cat = factorize(
                    [v if isinstance(v, str) or v is None else repr(v) for v in values], order=order
                )
                for i, v in enumerate(values):
                    if not (isinstance(v, str) or v is None):
                        problems.append(
                            Problem(
                                file=source,
                                row=i + 1,
                                field=name,
                                message=f"must be a string, got {v!r}",
                            )
                        )
            cats[name] = cat
        for name in ("suite", "model", "case_id", "probe_kind"):
            cat = cats[name]
            _flag(problems, cat.codes < 0, source, name, "must be a non-empty string, got None")
            if "" in cat.levels:
                _flag(
                    problems,
                    cat.codes == cat.levels.index(""),
                    source,
                    name,
                    "must be a non-empty string",
                )
        for i, lv in enumerate(cats["suite"].levels):
            if lv not in SUITES:
                _flag(
                    problems,
                    cats["suite"].codes == i,
                    source,
                    "suite",
                    f"unknown suite {lv!r}; expected one of {', '.join(SUITES)}",
                )
        tier = cats["risk_tier"]
        if tier.levels != TIERS:
            for i, lv in enumerate(tier.levels[len(TIERS) :], start=len(TIERS)):
                _flag(
                    problems,
                    tier.codes == i,
                    source,
                    "risk_tier",
                    f"must be one of {', '.join(TIERS)} or null, got {lv!r}",
                )
            tier = Categorical(
                np.where(tier.codes >= len(TIERS), -1, tier.codes).astype(np.int32), TIERS
            )
        cond = cats["condition"]
        if cond.codes.size and (cond.codes < 0).any():
            levels = (
                cond.levels
                if "default" in cond.levels
                else tuple(sorted(cond.levels + (DEFAULT_CONDITION,)))
            )
            remap = np.array(
                [levels.index(lv) for lv in cond.levels] + [levels.index(DEFAULT_CONDITION)],
                dtype=np.int32,
            )
            cond = Categorical(remap[cond.codes], levels)

        text_only = _text_only_column(
            column(text_only_answerable, "text_only_answerable"), source, problems
        )
        gold, _ = _letters(
            column(correct_letter, "correct_letter"), "correct_letter", source, False, problems
        )
        pred, has_letter = _letters(
            column(predicted_letter, "predicted_letter"), "predicted_letter", source, True, problems
        )
        if parse_status is None:
            status = np.where(pred >= 0, STATUS_OK, STATUS_PARSE_FAILURE).astype(np.int8)
        else:
            st = factorize(column(parse_status, "parse_status"), sort=False)
            lut = np.full(len(st.levels) + 1, STATUS_ERROR, dtype=np.int8)
            for i, lv in enumerate(st.levels):
                if lv in PARSE_STATUSES:
                    lut[i] = PARSE_STATUSES.index(lv)
                else:
                    _flag(
                        problems,
                        st.codes == i,
                        source,
                        "parse_status",
                        f"must be one of {', '.join(PARSE_STATUSES)}, got {lv!r}",
                    )
            _flag(
                problems,
                st.codes < 0,
                source,
                "parse_status",
                f"must be one of {', '.join(PARSE_STATUSES)}, got None",
            )
            status = lut[st.codes]
            valid_status = np.isin(
                st.codes, [i for i, lv in enumerate(st.levels) if lv in PARSE_STATUSES]
            )
            # a letter exactly when the response parsed: anything else is ambiguous to score
            _flag(
                problems,
                (status == STATUS_OK) & ~has_letter,
                source,
                "predicted_letter",
                "is null but parse_status is 'ok'",
            )
            for code in (STATUS_PARSE_FAILURE, STATUS_ERROR):
                mask = valid_status & (status == code) & has_letter
                _flag(
                    problems,
                    mask,
                    source,
                    "predicted_letter",
                    f"must be null when parse_status is {PARSE_STATUSES[code]!r}",
                )

        probe = None
        if probe_id is not None:
            probe = factorize(column(probe_id, "probe_id"), sort=False)
            _flag(
                problems,
                probe.codes < 0,
                source,
                "probe_id",
                "must be a non-empty string, got None",
            )
        if problems:
            raise DataError(problems)
        table = cls(
            suite=cats["suite"],
            model=cats["model"],
            condition=cond,
            probe_kind=cats["probe_kind"],
            risk_tier=tier,
            source_dataset=cats["source_dataset"],
            modality=cats["modality"],
            text_only=text_only,
            case=cats["case_id"],
            gold=gold,
            pred=pred,
            status=status,
            probe=probe,
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
            for j in dup[:_MAX_PROBLEMS].tolist():
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
            if dup.size > _MAX_PROBLEMS:
                problems.append(
                    Problem(
                        file=source,
                        field="probe_id",
                        message=f"{dup.size - _MAX_PROBLEMS} more duplicate row(s) not listed",
                    )
                )
            raise DataError(problems)


def _text_only_column(
    values: list | Categorical, source: str, problems: list[Problem]
) -> Categorical:
    if isinstance(values, Categorical) and values.levels == ("false", "true"):
        return values
    codes = np.full(len(values), -1, dtype=np.int32)
    lut = {True: 1, False: 0, None: -1}
    try:
        codes = np.fromiter(map(lut.__getitem__, values), dtype=np.int32, count=len(values))
    except (KeyError, TypeError):
        for i, v in enumerate(values):
            if v is True or v is False or v is None:
                codes[i] = lut[v]
            else:
                problems.append(
                    Problem(
                        file=source,
                        row=i + 1,
                        field="text_only_answerable",
                        message=f"must be true, false or null, got {v!r}",
                    )
                )
    return Categorical(codes, ("false", "true"))
