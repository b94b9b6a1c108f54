"""Categorical columns: integer codes into a tuple of levels, so grouped statistics are
``np.bincount`` calls, not loops over records (:class:`Categorical`, :func:`factorize`,
:func:`group_accuracy`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


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
