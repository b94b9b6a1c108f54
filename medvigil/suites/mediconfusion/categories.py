"""The nine MediConfusion categories, the category columns of a score and the per-image category
count matrix that per-category scores (:mod:`medvigil.suites.mediconfusion.scoring`) multiply
with."""

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

__all__ = ["CATEGORIES", "CATEGORY_SHORT_NAMES", "category_columns", "category_matrix"]

#: The nine categories, in the order of the authors' score files.
CATEGORIES = (
    "Cerebral",
    "Vascular",
    "Head and Neck",
    "Spinal",
    "Musculoskeletal",
    "Cardiac",
    "Gastrointestinal",
    "Pulmonary",
    "Nuclear Medicine",
)
#: The paper's column names in Table 3.
CATEGORY_SHORT_NAMES = {
    "Head and Neck": "Head & Neck",
    "Musculoskeletal": "Musculoskel.",
    "Gastrointestinal": "Gastroint.",
    "Nuclear Medicine": "Nuclear Med.",
}


def category_columns(seen: Iterable[str]) -> tuple[str, ...]:
    """The category columns of a score: :data:`CATEGORIES` (the authors' order) when every category
    seen is one of them, else the sorted categories seen."""
    seen = set(seen)
    return CATEGORIES if seen <= set(CATEGORIES) else tuple(sorted(seen))


def category_matrix(categories: Sequence[Sequence[str]], names: Sequence[str]) -> np.ndarray:
    """(n, len(names)) matrix counting each name's occurrences in each item's list.

    Duplicates inside one list count twice, as in the authors' ``for c in cat_1`` loop.
    Raises ``ValueError`` for a category not in ``names``.
    """
    index = {name: j for j, name in enumerate(names)}
    n = len(categories)
    out = np.zeros((n, len(names)), dtype=np.int64)
    if set(map(type, categories)) <= {list, tuple}:
        flat = list(chain.from_iterable(categories))
        try:  # every category known: one lookup each, counted in one call
            cols = np.fromiter(map(index.__getitem__, flat), dtype=np.intp, count=len(flat))
        except (KeyError, TypeError):
            cols = None  # the loop below names the first bad entry
        if cols is not None:
            rows = np.repeat(
                np.arange(n, dtype=np.intp),
                np.fromiter(map(len, categories), dtype=np.intp, count=n),
            )
            np.add.at(out, (rows, cols), 1)
            return out
    for i, cats in enumerate(categories):
        if isinstance(cats, str):
            raise TypeError(f"categories[{i}] must be a list of strings, got a string {cats!r}")
        for cat in cats:
            if cat not in index:
                raise ValueError(
                    f"categories[{i}] has unknown category {cat!r}; known: {', '.join(names)}"
                )
            out[i, index[cat]] += 1
    return out
