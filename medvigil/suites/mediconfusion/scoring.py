"""MediConfusion scoring: set accuracy, individual accuracy, confusion, invalid answers.

MediConfusion (Sepehri et al., NeurIPS 2024 workshop, seed 001) asks one two-option
question about two images whose correct answers differ. Definitions (paper Sec. 3.1,
Fig. 2, Table 1) and the counting of the authors' scoring code (``create_score_table``
and ``print_score`` in their ``utils/answering.py``), which the per-sample result files
follow:

* **Answer of an image** (authors' vote rule): the option whose vote count (``A`` and
  ``B`` in the result files; 10 for a parsed letter, or the 1-10 GPT-4 similarity
  scores in free-form mode, Appendix A.4) exceeds every other option's by at least
  ``margin`` (default 3); otherwise the answer is *invalid*. The ``full_answer`` text
  is never re-parsed.
* **Set score** of a pair: 1 iff both images are answered correctly. Set accuracy =
  set score / pairs.
* **Individual score**: one per correctly answered image. Individual accuracy =
  individual score / (2 x pairs).
* **Confused** pair: both answers valid and equal. Confusion score = confused pairs /
  denominator, where the paper says "out of all pairs (we exclude pairs where the
  model generated invalid answers or failed to answer)" and the authors' code divides
  by the pairs whose two answers are both valid (their ``valids`` block). That is the
  default, ``confusion_denominator="both_valid"``; ``"all_pairs"`` divides by every
  pair. Table 1 needs the first: BLIP-2 MC 92.19 % = 118/128 and Med-Flamingo MC
  98.75 % = 158/160 are not k/176 for any integer k.
* **Invalid**: images whose answer is invalid (counted per image).
* **Per category**: each image carries a list of categories (``category_1`` /
  ``category_2`` of ``dataset.json``). A pair-level event (set, confused, both-valid)
  adds one to every category occurrence of *both* images (a category listed on both
  images counts twice); an image-level event (individual, invalid) adds one to every
  category of *that* image. A category's accuracy denominator is its number of
  occurrences over the images scored (Table 3: e.g. 73 vascular images, GPT-4o
  25/73 = 34.25 % set and 49/73 = 67.12 % individual); its confusion denominator is
  its occurrences over the both-valid pairs.
* **Best over modes** (Table 1 "Best"): each model's best set and best individual
  accuracy over the evaluation techniques (MC, GD, PS, FF), each maximised on its own.
* **Random guessing** (Table 1): each of two independent 50/50 answers is right with
  probability 1/2, so individual accuracy 50 % and set accuracy 1/4 = 25 %.

Everything is vectorised over pairs: category membership is an (n_pairs x n_categories)
count matrix and every block is one matrix product.

>>> s = score_pairs(["A", "A", None], ["B", "A", "B"], ["A", "A", "B"], ["B", "B", "A"])
>>> s.totals["set_score"], s.totals["individual_score"], s.totals["confused"], s.totals["invalid"]
(1, 3, 1, 1)
>>> round(s.confusion, 4), s.totals["valids"]   # 1 confused of 2 pairs with two valid answers
(0.5, 2)
>>> vote_answers([[10, 0], [6, 4], [0, 3]]).tolist()   # A by 10; 2 < margin; B by 3
[0, -1, 1]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "CATEGORIES",
    "CATEGORY_SHORT_NAMES",
    "CONFUSION_DENOMINATORS",
    "DEFAULT_MARGIN",
    "MODE_LABELS",
    "OPTION_LETTERS",
    "RANDOM_INDIVIDUAL_ACCURACY",
    "RANDOM_SET_ACCURACY",
    "SCORE_BLOCKS",
    "MediConfusionScore",
    "best_over_modes",
    "category_matrix",
    "decode_letters",
    "encode_letters",
    "score_pairs",
    "score_records",
    "score_records_by_run",
    "score_rows",
    "vote_answers",
]

#: The two answer options of every MediConfusion question.
OPTION_LETTERS = ("A", "B")
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
#: Blocks of the authors' score tables. ``valids`` = pairs with both answers valid;
#: ``valid_pairs`` = pairs with both answers valid and not confused (the authors'
#: name; the denominator of their printed "Precision").
SCORE_BLOCKS = ("set_score", "individual_score", "confused", "invalid", "valids", "valid_pairs")
#: The authors' vote margin ``tr`` (paper Appendix A.4: "If the gap ... is at least 3").
DEFAULT_MARGIN = 3
CONFUSION_DENOMINATORS = ("both_valid", "all_pairs")
#: Random-guessing baselines of Table 1 (as fractions): 25.00 % set, 50.00 % individual.
RANDOM_SET_ACCURACY = 0.25
RANDOM_INDIVIDUAL_ACCURACY = 0.5
#: The authors' mode names (result-file suffixes) and the paper's abbreviations; the
#: ``*_medvigil`` modes are medvigil 0.1's prompts (tasks ``mediconfusion_<mode>_medvigil``).
MODE_LABELS = {"mc": "MC", "greedy": "GD", "prefix": "PS", "gpt4": "FF"}
MODE_LABELS |= {f"{mode}_medvigil": f"{label} (medvigil)" for mode, label in MODE_LABELS.items()}

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INVALID = -1


def encode_letters(letters: Iterable[Any], *, name: str = "letters") -> np.ndarray:
    """Map option letters to codes 0..25 (``A`` = 0); ``None`` or ``""`` (invalid) -> -1.

    Raises ``TypeError`` for a non-string entry and ``ValueError`` for a string that is
    not one upper-case letter, naming the argument and the first bad position.

    >>> encode_letters(["A", "", None, "C"]).tolist()
    [0, -1, -1, 2]
    """
    values = list(letters)
    if not values:
        return np.empty(0, dtype=np.int8)
    for i, value in enumerate(values):  # types first: np.array(..., str) would accept anything
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name}[{i}] must be a letter string or None, got {type(value).__name__}")
    strings = np.array(["" if v is None else v for v in values], dtype=str)
    uniq, inverse = np.unique(strings, return_inverse=True)  # validate each distinct value once
    codes = np.empty(len(uniq), dtype=np.int8)
    for j, value in enumerate(uniq.tolist()):
        if value == "":
            codes[j] = INVALID
        elif len(value) == 1 and value in _ALPHABET:
            codes[j] = ord(value) - 65
        else:
            i = int(np.flatnonzero(inverse == j)[0])
            raise ValueError(f"{name}[{i}] must be one upper-case letter A-Z or empty/None, got {values[i]!r}")
    return codes[inverse.reshape(-1)]


def decode_letters(codes: Iterable[int]) -> list[str | None]:
    """Inverse of :func:`encode_letters` (``-1`` -> ``None``)."""
    return [None if int(c) < 0 else _ALPHABET[int(c)] for c in codes]


def vote_answers(votes: Any, margin: float = DEFAULT_MARGIN) -> np.ndarray:
    """Apply the authors' vote rule to an (n, K) array of per-option votes or scores.

    The answer is the column whose value exceeds every other column's by at least
    ``margin``; otherwise -1 (invalid). For K = 2 this is the authors' ``check_answer``:
    ``A`` if ``a >= b + margin``, ``B`` if ``b >= a + margin``; with ``margin = 0`` a tie
    goes to the first option, as in their code.
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)):
        raise TypeError(f"margin must be a number, got {type(margin).__name__}")
    if not math.isfinite(float(margin)) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    arr = np.asarray(votes, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"votes must have shape (n, K) with K >= 2, got {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError("votes must be finite numbers")
    top = np.argmax(arr, axis=1)
    ordered = np.sort(arr, axis=1)
    gap = ordered[:, -1] - ordered[:, -2]
    return np.where(gap >= margin, top, INVALID).astype(np.int8)


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


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else float("nan")


def _nan_to_none(value: float) -> float | None:
    return None if isinstance(value, float) and math.isnan(value) else value


@dataclass(frozen=True)
class MediConfusionScore:
    """Scores of one run (one model, one mode) over the pairs given.

    ``per_pair[block]`` is an (n_pairs, n_categories + 1) integer array whose last
    column is the ``total``; the authors' per-pair ``score`` blocks in the same shape.
    ``totals`` and ``per_category`` are their column sums.
    """

    pair_ids: tuple[str, ...]
    categories: tuple[str, ...]
    per_pair: Mapping[str, np.ndarray] = field(repr=False)
    category_images: Mapping[str, int] = field(repr=False)
    confusion_denominator: str = "both_valid"

    # -- counts ---------------------------------------------------------------------
    @property
    def n_pairs(self) -> int:
        return len(self.pair_ids)

    @property
    def totals(self) -> dict[str, int]:
        return {block: int(arr[:, -1].sum()) for block, arr in self.per_pair.items()}

    @property
    def per_category(self) -> dict[str, dict[str, int]]:
        sums = {block: arr[:, :-1].sum(axis=0) for block, arr in self.per_pair.items()}
        return {cat: {block: int(sums[block][j]) for block in sums} for j, cat in enumerate(self.categories)}

    def blocks(self, names: Sequence[str] = SCORE_BLOCKS) -> dict[str, dict[str, int]]:
        """Totals in the authors' score-file shape: ``{block: {category: n, ..., "total": n}}``."""
        out = {}
        for block in names:
            sums = self.per_pair[block].sum(axis=0)
            entry = {cat: int(sums[j]) for j, cat in enumerate(self.categories)}
            entry["total"] = int(sums[-1])
            out[block] = entry
        return out

    def pair_block(self, pair_id: str, names: Sequence[str] = SCORE_BLOCKS) -> dict[str, dict[str, int]]:
        """One pair's blocks in the authors' per-pair ``score`` shape."""
        i = self.pair_ids.index(pair_id)
        out = {}
        for block in names:
            row = self.per_pair[block][i]
            entry = {cat: int(row[j]) for j, cat in enumerate(self.categories)}
            entry["total"] = int(row[-1])
            out[block] = entry
        return out

    # -- rates ----------------------------------------------------------------------
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
        per_category = {}
        for cat, counts in self.per_category.items():
            per_category[cat] = {
                "images": int(self.category_images[cat]),
                "set_correct": counts["set_score"],
                "individual_correct": counts["individual_score"],
                "confused": counts["confused"],
                "invalid": counts["invalid"],
                "both_valid": counts["valids"],
                **{k: _nan_to_none(v) for k, v in rates[cat].items()},
            }
        return {
            "n_pairs": self.n_pairs,
            "n_images": 2 * self.n_pairs,
            "set_correct": t["set_score"],
            "individual_correct": t["individual_score"],
            "confused": t["confused"],
            "invalid": t["invalid"],
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
    """Score MediConfusion pairs.

    Args:
        pred1, pred2: the answer to image 1 / image 2 of each pair: letters with
            ``None`` or ``""`` for an invalid answer, or integer codes (``A`` = 0,
            invalid = -1) as returned by :func:`vote_answers`.
        gold1, gold2: the correct letters (``im_1_correct`` / ``im_2_correct``).
        categories1, categories2: per pair, the list of categories of image 1 / 2.
            Omitted: no per-category breakdown.
        pair_ids: identifiers, default ``"0"``, ``"1"``, ...
        category_names: category columns; default :data:`CATEGORIES` when every
            category given is one of them, else the sorted categories seen.
        confusion_denominator: ``"both_valid"`` (paper and authors' code) or
            ``"all_pairs"``.
    """
    if confusion_denominator not in CONFUSION_DENOMINATORS:
        raise ValueError(
            f"confusion_denominator must be one of {', '.join(CONFUSION_DENOMINATORS)}, got {confusion_denominator!r}"
        )
    p1, p2 = _as_codes(pred1, "pred1"), _as_codes(pred2, "pred2")
    g1, g2 = _as_codes(gold1, "gold1"), _as_codes(gold2, "gold2")
    n = len(p1)
    if not (len(p2) == len(g1) == len(g2) == n):
        raise ValueError(f"pred1, pred2, gold1, gold2 must have one entry per pair; got {len(p1)}, {len(p2)}, {len(g1)}, {len(g2)}")
    if np.any(g1 < 0) or np.any(g2 < 0):
        raise ValueError("gold1 and gold2 must be letters, not empty/None")
    if pair_ids is None:
        ids = tuple(str(i) for i in range(n))
    else:
        ids = tuple(str(p) for p in pair_ids)
        if len(ids) != n:
            raise ValueError(f"pair_ids has {len(ids)} entries for {n} pairs")
        if len(set(ids)) != n:
            raise ValueError("pair_ids must be unique")
    if (categories1 is None) != (categories2 is None):
        raise ValueError("give both categories1 and categories2, or neither")
    if categories1 is None:
        categories1 = categories2 = [()] * n
    if len(categories1) != n or len(categories2) != n:
        raise ValueError("categories1 and categories2 must have one entry per pair")
    if category_names is None:
        seen = {c for cats in (*categories1, *categories2) for c in cats}
        category_names = CATEGORIES if seen <= set(CATEGORIES) else tuple(sorted(seen))
    names = tuple(category_names)
    m1 = category_matrix(categories1, names)
    m2 = category_matrix(categories2, names)
    both = m1 + m2

    valid1, valid2 = p1 >= 0, p2 >= 0
    correct1 = (p1 == g1).astype(np.int64)  # invalid (-1) never equals a letter
    correct2 = (p2 == g2).astype(np.int64)
    invalid1, invalid2 = (~valid1).astype(np.int64), (~valid2).astype(np.int64)
    set_ok = correct1 * correct2
    valids = (valid1 & valid2).astype(np.int64)
    confused = valids * (p1 == p2)
    valid_pairs = valids * (1 - confused)

    def pair_level(x: np.ndarray) -> np.ndarray:
        return np.column_stack([both * x[:, None], x]) if n else np.zeros((0, len(names) + 1), np.int64)

    def image_level(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        if not n:
            return np.zeros((0, len(names) + 1), np.int64)
        return np.column_stack([m1 * x1[:, None] + m2 * x2[:, None], x1 + x2])

    per_pair = {
        "set_score": pair_level(set_ok),
        "individual_score": image_level(correct1, correct2),
        "confused": pair_level(confused),
        "invalid": image_level(invalid1, invalid2),
        "valids": pair_level(valids),
        "valid_pairs": pair_level(valid_pairs),
    }
    images = both.sum(axis=0)
    return MediConfusionScore(
        pair_ids=ids,
        categories=names,
        per_pair=per_pair,
        category_images={cat: int(images[j]) for j, cat in enumerate(names)},
        confusion_denominator=confusion_denominator,
    )


def score_rows(
    predictions: Sequence[Any],
    references: Sequence[Any],
    pair_ids: Sequence[Any],
    categories: Sequence[Sequence[str]] | None = None,
    *,
    category_names: Sequence[str] | None = None,
    confusion_denominator: str = "both_valid",
) -> MediConfusionScore:
    """Score one row per image: the first row of a pair id is image 1, the second image 2.

    Every pair id must occur exactly twice. ``categories`` (optional) is each image's
    list of categories. Pairs are scored in order of first appearance.

    >>> s = score_rows(["A", "A", "B", ""], ["A", "B", "B", "A"], ["p1", "p1", "p2", "p2"])
    >>> s.totals["set_score"], s.totals["invalid"], s.pair_ids
    (0, 1, ('p1', 'p2'))
    """
    ids = np.asarray([str(p) for p in pair_ids], dtype=object)
    n = ids.shape[0]
    if len(predictions) != n or len(references) != n or (categories is not None and len(categories) != n):
        raise ValueError("predictions, references, pair_ids (and categories) must have the same length")
    uniq, first, inverse, counts = np.unique(ids.astype(str), return_index=True, return_inverse=True, return_counts=True)
    if np.any(counts != 2):
        bad = uniq[np.flatnonzero(counts != 2)[0]]
        raise ValueError(f"every pair id must have exactly two rows (image 1, image 2); {bad!r} has {int(counts[uniq == bad][0])}")
    order = np.argsort(inverse, kind="stable")  # rows grouped by pair, file order kept within a pair
    im1, im2 = order[0::2], order[1::2]
    pair_order = np.argsort(first[inverse[im1]], kind="stable")  # pairs in order of first appearance
    im1, im2 = im1[pair_order], im2[pair_order]
    pred = encode_letters(predictions, name="predictions")
    gold = encode_letters(references, name="references")
    cats1 = cats2 = None
    if categories is not None:
        cats1 = [list(categories[i]) for i in im1]
        cats2 = [list(categories[i]) for i in im2]
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


def _image_of(record: Mapping[str, Any]) -> str:
    extra = record.get("extra") or {}
    image = extra.get("image")
    if image is None:
        probe_id = str(record.get("probe_id", ""))
        image = probe_id.rsplit(":", 1)[-1] if ":" in probe_id else None
    if image not in ("im1", "im2"):
        raise ValueError(
            f"record {record.get('probe_id')!r}: cannot tell which image of the pair it is "
            "(need extra.image or a probe_id ending in ':im1' / ':im2')"
        )
    return image


def pair_slots(records: Iterable[Mapping[str, Any]]) -> tuple[dict[str, dict[str, Mapping[str, Any]]], list[str]]:
    """``({pair: {"im1": record, "im2": record}}, problems)`` of one run's records: a record
    whose image cannot be told, two records for one image, a pair lacking an image."""
    by_pair: dict[str, dict[str, Mapping[str, Any]]] = {}
    problems: list[str] = []
    for record in records:
        try:
            image = _image_of(record)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        slot = by_pair.setdefault(str(record["case_id"]), {})
        if image in slot:
            problems.append(f"pair {record['case_id']!r} has two records for {image}")
        slot[image] = record
    incomplete = [pid for pid, slot in by_pair.items() if len(slot) != 2]
    if incomplete:
        problems.append(f"{len(incomplete)} pair(s) lack one image record, e.g. {incomplete[0]!r}")
    return by_pair, problems


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    confusion_denominator: str = "both_valid",
    category_names: Sequence[str] | None = None,
) -> MediConfusionScore:
    """Score probe records of one run (one model, one condition) of the MediConfusion suite.

    Each pair (``case_id``) must have exactly one record per image (``extra.image`` or a
    ``probe_id`` ending ``:im1`` / ``:im2``); the image's categories are read from
    ``extra.categories`` (a list). ``predicted_letter`` ``None`` is an invalid answer.
    Pairs are scored in order of first appearance.
    """
    records = list(records)
    runs = {(r.get("model"), r.get("condition", "default")) for r in records}
    if len(runs) > 1:
        raise ValueError(f"records mix {len(runs)} runs (model, condition): {sorted(runs, key=str)}; use score_records_by_run")
    for record in records:
        if record.get("suite") != "mediconfusion":
            raise ValueError(f"record {record.get('probe_id')!r} has suite {record.get('suite')!r}, not 'mediconfusion'")
    by_pair, problems = pair_slots(records)
    if problems:
        raise ValueError(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)")
    ids = list(by_pair)
    im1 = [by_pair[p]["im1"] for p in ids]
    im2 = [by_pair[p]["im2"] for p in ids]

    def cats(rec: Mapping[str, Any]) -> list[str]:
        value = (rec.get("extra") or {}).get("categories")
        if value is None:
            return [] if rec.get("category") is None else [rec["category"]]
        return list(value)

    return score_pairs(
        [r.get("predicted_letter") for r in im1],
        [r.get("predicted_letter") for r in im2],
        [r["correct_letter"] for r in im1],
        [r["correct_letter"] for r in im2],
        [cats(r) for r in im1],
        [cats(r) for r in im2],
        pair_ids=ids,
        category_names=category_names,
        confusion_denominator=confusion_denominator,
    )


def score_records_by_run(
    records: Iterable[Mapping[str, Any]], **kwargs: Any
) -> dict[tuple[str, str], MediConfusionScore]:
    """Split records by (model, condition) and score each run with :func:`score_records`."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault((record.get("model"), record.get("condition", "default")), []).append(record)
    return {key: score_records(recs, **kwargs) for key, recs in groups.items()}


def _metrics_of(value: Any) -> Mapping[str, Any]:
    if isinstance(value, MediConfusionScore):
        return value.to_dict()
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"expected a MediConfusionScore or a mapping of metrics, got {type(value).__name__}")


def best_over_modes(results: Mapping[str, Any]) -> dict[str, Any]:
    """Each mode's accuracies and the best over modes (Table 1 "Best", Table 3).

    ``results`` maps a mode name (``mc``, ``greedy``, ``prefix``, ``gpt4`` or any label)
    to a :class:`MediConfusionScore` or a mapping with ``set_accuracy`` and
    ``individual_accuracy`` (and optionally ``confusion`` and ``per_category``). The
    best set accuracy and the best individual accuracy are maximised separately, as in
    Table 1 (InstructBLIP: best set from MC, best individual from GD); per category
    likewise (Table 3: "the best set and individual accuracies ... across all
    evaluation techniques"). Ties go to the first mode in ``results`` order; modes
    with an undefined (None/NaN) value are skipped.
    """
    if not results:
        raise ValueError("results must name at least one mode")
    metrics = {mode: _metrics_of(v) for mode, v in results.items()}

    def best(get) -> tuple[float | None, str | None]:
        best_value, best_mode = None, None
        for mode, m in metrics.items():
            value = get(m)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            if best_value is None or value > best_value:
                best_value, best_mode = float(value), mode
        return best_value, best_mode

    out: dict[str, Any] = {
        "modes": {
            mode: {k: m.get(k) for k in ("set_accuracy", "individual_accuracy", "confusion") if k in m}
            for mode, m in metrics.items()
        }
    }
    out["best_set_accuracy"], out["best_set_mode"] = best(lambda m: m.get("set_accuracy"))
    out["best_individual_accuracy"], out["best_individual_mode"] = best(lambda m: m.get("individual_accuracy"))
    cats = [c for m in metrics.values() for c in (m.get("per_category") or {})]
    if cats:
        per = {}
        for cat in dict.fromkeys(cats):
            s, s_mode = best(lambda m, cat=cat: ((m.get("per_category") or {}).get(cat) or {}).get("set_accuracy"))
            i, i_mode = best(lambda m, cat=cat: ((m.get("per_category") or {}).get(cat) or {}).get("individual_accuracy"))
            per[cat] = {"best_set_accuracy": s, "best_set_mode": s_mode, "best_individual_accuracy": i, "best_individual_mode": i_mode}
        out["per_category"] = per
    return out
