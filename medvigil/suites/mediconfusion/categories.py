"""The nine MediConfusion categories and the per-image category count matrix.

Each image carries a list of categories (``category_1`` / ``category_2`` of the authors'
``dataset.json``); per-category scores (:mod:`medvigil.suites.mediconfusion.scoring`) are matrix
products with the matrix of :func:`category_matrix`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["CATEGORIES", "CATEGORY_SHORT_NAMES", "category_matrix"]

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
CATEGORY_SHORT_NAMES = {"Head and Neck": "Head & Neck", "Musculoskeletal": "Musculoskel.",
                        "Gastrointestinal": "Gastroint.", "Nuclear Medicine": "Nuclear Med."}


def category_matrix(categories: Sequence[Sequence[str]], names: Sequence[str]) -> np.ndarray:
    """(n, len(names)) matrix counting each name's occurrences in each item's list.

    Duplicates inside one list count twice, as in the authors' ``for c in cat_1`` loop.
    Raises ``ValueError`` for a category not in ``names``.
    """
    index = {name: j for j, name in enumerate(names)}
    rows: list[int] = []
    cols: list[int] = []
    for i, cats in enumerate(categories):
        if isinstance(cats, str):
            raise TypeError(f"categories[{i}] must be a list of strings, got a string {cats!r}")
        for cat in cats:
            if cat not in index:
                raise ValueError(f"categories[{i}] has unknown category {cat!r}; known: {', '.join(names)}")
            rows.append(i)
            cols.append(index[cat])
    out = np.zeros((len(categories), len(names)), dtype=np.int64)
    np.add.at(out, (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)), 1)
    return out
