"""MediConfusion scoring: set accuracy, individual accuracy, confusion, invalid answers.

Definitions (Sepehri et al., NeurIPS 2024 workshop, Sec. 3.1, Fig. 2, Table 1), counted as the
authors' ``create_score_table`` / ``print_score`` (``utils/answering.py``) do:

* **Set score** of a pair: 1 iff both images are answered correctly (set accuracy: / pairs);
  **individual score**: one per correct image (/ 2 x pairs); **invalid**: images with no answer by
  the vote margin.
* **Confused** pair: both answers valid and equal, divided as the authors' code does by the pairs
  with two valid answers (``confusion_denominator="both_valid"``, default; ``"all_pairs"``: every
  pair). Table 1 needs it: BLIP-2 MC 92.19 % = 118/128 and Med-Flamingo MC 98.75 % = 158/160 are not
  k/176.
* **Per category**: a pair-level event (set, confused, both-valid) adds one to every category
  occurrence of *both* images (a category on both images counts twice); an image-level event
  (individual, invalid) to every category of *that* image. A category's accuracy denominator is its
  occurrences over the images scored (Table 3: e.g. 73 vascular images, GPT-4o 25/73 = 34.25 % set
  and 49/73 = 67.12 % individual); its confusion denominator its occurrences over the both-valid
  pairs.
* **Random guessing** (Table 1): 50 % individual, 25 % set.

>>> s = score_pairs(["A", "A", None], ["B", "A", "B"], ["A", "A", "B"], ["B", "B", "A"])
>>> s.totals["set_score"], s.totals["individual_score"], s.totals["confused"], s.totals["invalid"]
(1, 3, 1, 1)
>>> round(s.confusion, 4), s.totals["valids"]   # 1 confused of 2 pairs with two valid answers
(0.5, 2)
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medvigil.scoring.letters import encode_letters
from medvigil.suites.mediconfusion.categories import category_columns, category_matrix

__all__ = [
    "CONFUSION_DENOMINATORS",
    "RANDOM_INDIVIDUAL_ACCURACY",
    "RANDOM_SET_ACCURACY",
    "SCORE_BLOCKS",
    "MediConfusionScore",
    "score_pairs",
    "score_rows",
]

#: Blocks of the authors' score tables. ``valids`` = pairs with both answers valid;
#: ``valid_pairs`` = pairs with both answers valid and not confused (the authors'
#: name; the denominator of their printed "Precision").
SCORE_BLOCKS = ("set_score", "individual_score", "confused", "invalid", "valids", "valid_pairs")
CONFUSION_DENOMINATORS = ("both_valid", "all_pairs")
#: Random-guessing baselines of Table 1 (as fractions): 25.00 % set, 50.00 % individual.
RANDOM_SET_ACCURACY = 0.25
RANDOM_INDIVIDUAL_ACCURACY = 0.5
# (key in to_dict, score block)
_COUNT_KEYS = (
    ("set_correct", "set_score"),
    ("individual_correct", "individual_score"),
    ("confused", "confused"),
    ("invalid", "invalid"),
)


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else float("nan")


def _nan_to_none(value: float) -> float | None:
    return None if isinstance(value, float) and math.isnan(value) else value


@dataclass(frozen=True)
class MediConfusionScore:
    """Scores of one run (one model, one mode): ``per_pair[block]`` is an (n_pairs, n_categories +
    1) integer array (the authors' per-pair ``score`` blocks) whose last column is the ``total``;
    ``totals`` and ``per_category`` sum it."""

    pair_ids: tuple[str, ...]
    categories: tuple[str, ...]
    per_pair: Mapping[str, np.ndarray] = field(repr=False)
    category_images: Mapping[str, int] = field(repr=False)
    confusion_denominator: str = "both_valid"

    @property
    def n_pairs(self) -> int:
        return len(self.pair_ids)

    @property
    def totals(self) -> dict[str, int]:
        return {block: int(arr[:, -1].sum()) for block, arr in self.per_pair.items()}

    @property
    def per_category(self) -> dict[str, dict[str, int]]:
        sums = {block: arr[:, :-1].sum(axis=0) for block, arr in self.per_pair.items()}
        return {
            cat: {block: int(sums[block][j]) for block in sums}
            for j, cat in enumerate(self.categories)
        }

    def _named(self, row: np.ndarray) -> dict[str, int]:
        return dict(zip((*self.categories, "total"), map(int, row)))

    def blocks(self, names: Sequence[str] = SCORE_BLOCKS) -> dict[str, dict[str, int]]:
        """Totals in the authors' score-file shape: ``{block: {category: n, ..., "total": n}}``."""
        return {block: self._named(self.per_pair[block].sum(axis=0)) for block in names}

    def pair_block(
        self, pair_id: str, names: Sequence[str] = SCORE_BLOCKS
    ) -> dict[str, dict[str, int]]:
        """One pair's blocks in the authors' per-pair ``score`` shape."""
        i = self.pair_ids.index(pair_id)
        return {block: self._named(self.per_pair[block][i]) for block in names}

    @property
    def set_accuracy(self) -> float:
        return _ratio(self.totals["set_score"], self.n_pairs)

    @property
    def individual_accuracy(self) -> float:
        return _ratio(self.totals["individual_score"], 2 * self.n_pairs)

    @property
    def confusion(self) -> float:
        t = self.totals
        den = t["valids"] if self.confusion_denominator == "both_valid" else self.n_pairs
        return _ratio(t["confused"], den)

    @property
    def invalid_rate(self) -> float:
        return _ratio(self.totals["invalid"], 2 * self.n_pairs)

    @property
    def precision(self) -> float:
        """Set score / pairs with two valid, different answers (the authors' "Precision")."""
        t = self.totals
        return _ratio(t["set_score"], t["valid_pairs"])

    def category_rates(self) -> dict[str, dict[str, float]]:
        out = {}
        for cat, counts in self.per_category.items():
            images = self.category_images[cat]
            den = counts["valids"] if self.confusion_denominator == "both_valid" else images
            out[cat] = {
                "set_accuracy": _ratio(counts["set_score"], images),
                "individual_accuracy": _ratio(counts["individual_score"], images),
                "confusion": _ratio(counts["confused"], den),
                "invalid_rate": _ratio(counts["invalid"], images),
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable summary (rates are fractions in [0, 1]; undefined -> None)."""
        t = self.totals
        rates = self.category_rates()
        per_category = {
            cat: {
                "images": int(self.category_images[cat]),
                **{key: counts[block] for key, block in _COUNT_KEYS},
                "both_valid": counts["valids"],
                **{k: _nan_to_none(v) for k, v in rates[cat].items()},
            }
            for cat, counts in self.per_category.items()
        }
        return {
            "n_pairs": self.n_pairs,
            "n_images": 2 * self.n_pairs,
            **{key: t[block] for key, block in _COUNT_KEYS},
            "both_valid_pairs": t["valids"],
            "set_accuracy": _nan_to_none(self.set_accuracy),
            "individual_accuracy": _nan_to_none(self.individual_accuracy),
            "confusion": _nan_to_none(self.confusion),
            "confusion_denominator": self.confusion_denominator,
            "invalid_rate": _nan_to_none(self.invalid_rate),
            "precision": _nan_to_none(self.precision),
            "per_category": per_category,
        }


def _as_codes(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(np.int8)
    return encode_letters(values, name=name)


def _checked_codes(
    pred1: Any, pred2: Any, gold1: Any, gold2: Any, pair_ids: Sequence[str] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """``(p1, p2, g1, g2, pair ids)``: the answers and gold letters as codes, one per pair, and the
    pair ids (default ``"0"``, ``"1"``, ...), unique."""
    p1, p2 = _as_codes(pred1, "pred1"), _as_codes(pred2, "pred2")
    g1, g2 = _as_codes(gold1, "gold1"), _as_codes(gold2, "gold2")
    n = len(p1)
    if not (len(p2) == len(g1) == len(g2) == n):
        raise ValueError(
            f"pred1, pred2, gold1, gold2 must have one entry per pair; "
            f"got {len(p1)}, {len(p2)}, {len(g1)}, {len(g2)}"
        )
    if np.any(g1 < 0) or np.any(g2 < 0):
        raise ValueError("gold1 and gold2 must be letters, not empty/None")
    ids = tuple(map(str, range(n) if pair_ids is None else pair_ids))
    if len(ids) != n:
        raise ValueError(f"pair_ids has {len(ids)} entries for {n} pairs")
    if len(set(ids)) != n:
        raise ValueError("pair_ids must be unique")
    return p1, p2, g1, g2, ids


def _per_pair_blocks(
    p1: np.ndarray, p2: np.ndarray, g1: np.ndarray, g2: np.ndarray, m1: np.ndarray, m2: np.ndarray
) -> dict[str, np.ndarray]:
    """Each score block per pair (see the module docstring): the category columns (``m1``, ``m2``:
    each image's category counts) and the total."""
    valid1, valid2 = p1 >= 0, p2 >= 0
    correct1, correct2 = (
        (p1 == g1).astype(np.int64),
        (p2 == g2).astype(np.int64),
    )  # invalid (-1) never equals a letter
    invalid1, invalid2 = (~valid1).astype(np.int64), (~valid2).astype(np.int64)
    set_ok = correct1 * correct2
    valids = (valid1 & valid2).astype(np.int64)
    confused = valids * (p1 == p2)
    valid_pairs = valids * (1 - confused)
    both = m1 + m2

    def pair_level(x: np.ndarray) -> np.ndarray:
        return np.column_stack([both * x[:, None], x])

    def image_level(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return np.column_stack([m1 * x1[:, None] + m2 * x2[:, None], x1 + x2])

    return {
        "set_score": pair_level(set_ok),
        "individual_score": image_level(correct1, correct2),
        "confused": pair_level(confused),
        "invalid": image_level(invalid1, invalid2),
        "valids": pair_level(valids),
        "valid_pairs": pair_level(valid_pairs),
    }


def score_pairs(
    pred1: Any,
    pred2: Any,
    gold1: Any,
    gold2: Any,
    categories1: Sequence[Sequence[str]] | None = None,
    categories2: Sequence[Sequence[str]] | None = None,
    *,
    pair_ids: Sequence[str] | None = None,
    category_names: Sequence[str] | None = None,
    confusion_denominator: str = "both_valid",
) -> MediConfusionScore:
    """Score MediConfusion pairs. ``pred1``/``pred2``: each pair's answer to image 1 / 2, letters
    (``None`` or ``""``: invalid) or :func:`vote_answers` codes; ``gold1``/``gold2``: the correct
    letters; ``pair_ids``: default ``"0"``, ``"1"``, ...; ``category_names``: default
    :func:`category_columns` of the categories given.
    """
    if confusion_denominator not in CONFUSION_DENOMINATORS:
        raise ValueError(
            f"confusion_denominator must be one of {', '.join(CONFUSION_DENOMINATORS)}, "
            f"got {confusion_denominator!r}"
        )
    p1, p2, g1, g2, ids = _checked_codes(pred1, pred2, gold1, gold2, pair_ids)
    n = len(ids)
    if (categories1 is None) != (categories2 is None):
        raise ValueError("give both categories1 and categories2, or neither")
    if categories1 is None:
        categories1 = categories2 = [()] * n
    if len(categories1) != n or len(categories2) != n:
        raise ValueError("categories1 and categories2 must have one entry per pair")
    if category_names is None:
        category_names = category_columns(c for cats in (*categories1, *categories2) for c in cats)
    names = tuple(category_names)
    m1, m2 = category_matrix(categories1, names), category_matrix(categories2, names)
    images = (m1 + m2).sum(axis=0)
    return MediConfusionScore(
        pair_ids=ids,
        categories=names,
        per_pair=_per_pair_blocks(p1, p2, g1, g2, m1, m2),
        confusion_denominator=confusion_denominator,
        category_images={cat: int(images[j]) for j, cat in enumerate(names)},
    )


def _pair_rows(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of image 1 and image 2 of each pair id (which must occur exactly twice; the first
    row is image 1), pairs in order of first appearance."""
    uniq, first, inverse, counts = np.unique(
        ids.astype(str), return_index=True, return_inverse=True, return_counts=True
    )
    if np.any(counts != 2):
        bad = uniq[np.flatnonzero(counts != 2)[0]]
        raise ValueError(
            f"every pair id must have exactly two rows (image 1, "
            f"image 2); {bad!r} has {int(counts[uniq == bad][0])}"
        )
    order = np.argsort(
        inverse, kind="stable"
    )  # rows grouped by pair, file order kept within a pair
    im1, im2 = order[0::2], order[1::2]
    pair_order = np.argsort(
        first[inverse[im1]], kind="stable"
    )  # pairs in order of first appearance
    return im1[pair_order], im2[pair_order]


def score_rows(
    predictions: Sequence[Any],
    references: Sequence[Any],
    pair_ids: Sequence[Any],
    categories: Sequence[Sequence[str]] | None = None,
    *,
    category_names: Sequence[str] | None = None,
    confusion_denominator: str = "both_valid",
) -> MediConfusionScore:
    """Score one row per image: the first row of a pair id (which must occur exactly twice) is image
    1, the second image 2; ``categories`` (optional): each image's categories. Pairs are scored in
    order of first appearance.

    >>> s = score_rows(["A", "A", "B", ""], ["A", "B", "B", "A"], ["p1", "p1", "p2", "p2"])
    >>> s.totals["set_score"], s.totals["invalid"], s.pair_ids
    (0, 1, ('p1', 'p2'))
    """
    ids = np.asarray([str(p) for p in pair_ids], dtype=object)
    n = ids.shape[0]
    if (
        len(predictions) != n
        or len(references) != n
        or (categories is not None and len(categories) != n)
    ):
        raise ValueError(
            "predictions, references, pair_ids (and categories) must have the same length"
        )
    im1, im2 = _pair_rows(ids)
    pred = encode_letters(predictions, name="predictions")
    gold = encode_letters(references, name="references")
    cats1, cats2 = (
        (None, None)
        if categories is None
        else ([list(categories[i]) for i in im] for im in (im1, im2))
    )
    return score_pairs(
        pred[im1],
        pred[im2],
        gold[im1],
        gold[im2],
        cats1,
        cats2,
        pair_ids=[str(ids[i]) for i in im1],
        category_names=category_names,
        confusion_denominator=confusion_denominator,
    )
