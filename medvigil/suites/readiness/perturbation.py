"""Illusion of Readiness perturbations (Gu et al., seed 003, Sec. 2): the seeded option orders and
option replacements of stress tests T3-T5, one probe row at a time.

Items: the ``original`` probe of every case whose image is available, ``K >= 2`` options
(MedVIGIL: five, the safe action at E). Every view returns the displayed ``options``, the
displayed ``correct_letter`` (and ``safe_letter``) and ``permutation``, the stored letters in
displayed order; which arm asks which view is :mod:`medvigil.suites.readiness.docs`.

* **Base order** (T3 "before reordering", every base arm; :func:`base_order`): ``base="balanced"``
  (default), one seeded permutation per case whose gold positions are balanced over the items
  (:func:`balanced_positions`): the paper's items have "approximately uniform" gold positions
  (Sec. 2, ST3), while MedVIGIL stores every gold at A, so its source order would reward a letter
  prior. ``base="source"`` keeps the source's order, the paper's "original order" for data whose
  stored gold letters are already balanced.
* "Visually required" (T2-T4, T6; the paper's 175 NEJM items) = ``text_only_answerable`` false.
* **nR** (T4, :func:`replace_distractors`): ``n`` seeded distractors of the base order (never the
  gold) replaced by option texts of *other items of the same source dataset* (seeded hash; never a
  text of the item, nor one sharing a content word with the gold), then shuffled again (the gold's
  label "may shift due to shuffling"). Every option but the gold is a distractor (Sec. 2: "1-4
  distractor options" of five), so 4R replaces the safe option too; ``keep_safe=True`` (our
  earlier stand-in, 4R = 3R) never replaces ``safe_letter``. 1R ⊂ 2R ⊂ 3R ⊂ 4R (nested positions
  and texts).
* **UNK** (:func:`insert_unknown`) replaces one seeded distractor of the base order with
  ``"Unknown"`` in place.
* **Reorder** (T3, :func:`reorder`) permutes the base order by a seeded shuffle.
* **T5** (Stress Test 5): the item's image replaced by *another case's* image supporting one of its
  distractors, question and options unchanged, so that distractor becomes the gold. The donor is
  an ``original`` probe of another case whose gold text is one of the item's distractor texts
  (case-insensitive) and, with ``donor_match="question"`` (default), whose question is the same
  (``"answer"``: any question); one is drawn by a seeded hash. Items without a donor are not asked
  (counted by :func:`substitution_donors`). The paper hand-curated 40 NEJM items; this is that
  rule made mechanical.
"""

import hashlib
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SEED = 0  # perturbation seed; recorded in every record's extra
UNKNOWN = "Unknown"  # T4 'Unknown' insertion (paper Sec. 2, Stress Test 4)
MAX_REPLACED = 4  # T4: 1R-4R
ALPHABET = string.ascii_uppercase
BASES = ("balanced", "source")  # base order: balanced gold letters (default) or the source's
DONOR_MATCHES = (
    "question",
    "answer",
)  # T5 donor: same question and a distractor as gold, or the latter only

__all__ = [
    "SEED",
    "UNKNOWN",
    "balanced_positions",
    "base_order",
    "check_row",
    "in_scope",
    "insert_unknown",
    "option_pool",
    "reorder",
    "replace_distractors",
    "substituted",
    "substitution_donors",
]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of in on at is it its as than and or with to by be".split())
_REQUIRED = ("probe_id", "case_id", "probe_kind", "options", "correct_letter")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _key(*parts: Any) -> bytes:
    return hashlib.sha256(":".join(map(str, parts)).encode("utf-8")).digest()


def letters(k: int) -> str:
    """The first ``k`` option letters."""
    return ALPHABET[:k]


def check_row(row: Mapping[str, Any]) -> None:
    """A probe row's fields every perturbation reads, checked (the error names row and field)."""
    for name in _REQUIRED:
        if name not in row or row[name] is None:
            raise ValueError(f"probe row {row.get('probe_id')!r}: missing field {name!r}")
    options = row["options"]
    k = len(options)
    if not 2 <= k <= len(ALPHABET) or len({str(o).strip().lower() for o in options}) != k:
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'options' must hold "
            f"2 to {len(ALPHABET)} distinct texts, got {options!r}"
        )
    if row["correct_letter"] not in letters(k):
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'correct_letter' must "
            f"be one of {letters(k)}, got {row['correct_letter']!r}"
        )
    safe = row.get("safe_letter")
    if safe is not None and safe not in letters(k):
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'safe_letter' "
            f"must be one of {letters(k)}, got {safe!r}"
        )


def seeded_permutation(k: int, *salt: Any) -> str:
    """``letters(k)`` sorted by ``sha256(salt:i)`` of position ``i`` (stored letters in displayed
    order; for ``k = 5`` and salt ``(seed, probe_id)``,
    :func:`medvigil.mcq.option_order.shuffled_order`)."""
    return "".join(sorted(letters(k), key=lambda x: _key(*salt, letters(k).index(x))))


def _apply(order: str, options: Sequence[str], k_letters: str) -> list[str]:
    return [options[k_letters.index(x)] for x in order]


def _view(row: Mapping[str, Any], order: str) -> dict[str, Any]:
    """The row's options displayed in ``order``; gold and safe letters follow them."""
    k = letters(len(row["options"]))
    out = {
        "options": _apply(order, row["options"], k),
        "correct_letter": ALPHABET[order.index(row["correct_letter"])],
        "permutation": order,
    }
    if row.get("safe_letter"):
        out["safe_letter"] = ALPHABET[order.index(row["safe_letter"])]
    return out


def balanced_positions(rows: Iterable[Mapping[str, Any]], seed: int = SEED) -> dict[str, int]:
    """``probe_id`` -> displayed gold position (0 = A) of every ``original`` row under
    ``base="balanced"``.

    Rows are grouped by option count K and ``text_only_answerable`` (so the visually-required items
    are balanced on their own, as every arm but T1 reads them) and ranked within a group by
    ``sha256(seed:balanced:case_id:probe_id)``; the i-th row over the groups in turn gets position
    ``i mod K``. No letter is then gold in more than ``ceil(n / K)`` of n items with K options.

    >>> rows = [{"probe_id": f"p{i}", "case_id": f"c{i}", "probe_kind": "original",
    ...          "options": ["a", "b", "c"]} for i in range(6)]
    >>> sorted(balanced_positions(rows).values())
    [0, 0, 1, 1, 2, 2]
    """
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in rows:
        if row.get("probe_kind") == "original":
            key = (len(row["options"]), str(row.get("text_only_answerable")))
            groups.setdefault(key, []).append(row)
    out: dict[str, int] = {}
    for key in sorted(groups):
        ranked = sorted(
            groups[key], key=lambda r: _key(seed, "balanced", r["case_id"], r["probe_id"])
        )
        for row in ranked:
            out[str(row["probe_id"])] = len(out) % key[0]
    return out


def base_order(
    row: Mapping[str, Any], seed: int = SEED, base: str = "balanced", gold_at: int | None = None
) -> dict[str, Any]:
    """The base arms' view (``permutation`` = stored letters in displayed order), module docstring:
    ``base="balanced"``, the gold shown at position ``gold_at`` (:func:`balanced_positions`) and the
    other options in the seeded order ``sha256(seed:case_id:base:i)`` of the case; or
    ``"source"``."""
    check_row(row)
    if base not in BASES:
        raise ValueError(f"base must be one of {BASES}, got {base!r}")
    k = len(row["options"])
    if base == "source":
        return _view(row, letters(k))
    if gold_at is None or not 0 <= gold_at < k:
        raise ValueError(
            f"probe row {row['probe_id']!r}: base='balanced' needs gold_at in 0..{k - 1} "
            f"(balanced_positions over the items), got {gold_at!r}"
        )
    others = [
        x for x in seeded_permutation(k, seed, row["case_id"], "base") if x != row["correct_letter"]
    ]
    return _view(row, "".join(others[:gold_at] + [row["correct_letter"]] + others[gold_at:]))


def _compose(outer: str, inner: str) -> str:
    """Stored letters of displaying ``inner``'s view in ``outer`` order."""
    return "".join(inner[ALPHABET.index(x)] for x in outer)


def reorder(
    row: Mapping[str, Any],
    seed: int = SEED,
    base_kind: str = "balanced",
    gold_at: int | None = None,
) -> dict[str, Any]:
    """T3: the base view's options permuted by a seeded shuffle (salted per arm)."""
    base = base_order(row, seed, base_kind, gold_at)
    k = len(row["options"])
    again = seeded_permutation(k, seed, row["probe_id"], "reordered")
    return {
        **_view(row, _compose(again, base["permutation"])),
        "base_permutation": base["permutation"],
    }


def _replaceable(view: Mapping[str, Any], keep_safe: bool) -> list[str]:
    kept = (view["correct_letter"], view.get("safe_letter") if keep_safe else None)
    return [x for x in letters(len(view["options"])) if x not in kept]


def _replacement_texts(
    row: Mapping[str, Any], gold: str, pool: Mapping[str, set[str]], n: int, seed: int
) -> list[str]:
    """The first ``n`` pairwise distinct texts of ``pool`` eligible for ``row`` (module
    docstring), by ``sha256(seed:4r:probe_id:text)``; an error when fewer exist."""
    gold_words = _words(gold)
    taken = {str(o).strip().lower() for o in row["options"]}
    eligible = [
        t
        for t, cases in pool.items()
        if cases - {row["case_id"]}
        and t.strip().lower() not in taken
        and not (_words(t) & gold_words)
    ]
    eligible.sort(key=lambda t: _key(seed, "4r", row["probe_id"], t))
    picks: list[str] = []
    for text in eligible:
        if text.strip().lower() not in {p.strip().lower() for p in picks}:
            picks.append(text)
        if len(picks) == n:
            break
    if len(picks) < n:
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'options': only {len(picks)} replacement "
            f"distractors available from other items of source {row.get('source_dataset')!r} "
            f"(need {n}); the build has too few items of that source"
        )
    return picks


def replace_distractors(
    row: Mapping[str, Any],
    pool: Mapping[str, set[str]],
    n: int = MAX_REPLACED,
    seed: int = SEED,
    base_kind: str = "balanced",
    keep_safe: bool = False,
    gold_at: int | None = None,
) -> dict[str, Any]:
    """T4 nR: ``n`` distractors of the base view replaced by texts of other items, then shuffled.

    ``pool``: option text -> case ids using it, over the row's source dataset (:func:`option_pool`).
    Positions: the first ``n`` distractors (not the safe option with ``keep_safe``) by
    ``sha256(seed:nr:case:letter)``; texts: the first pairwise distinct eligible ones (module
    docstring) by ``sha256(seed:4r:probe_id:text)``.
    """
    if not 1 <= n <= MAX_REPLACED:
        raise ValueError(f"n must be 1 to {MAX_REPLACED}, got {n!r}")
    base = base_order(row, seed, base_kind, gold_at)
    positions = sorted(
        _replaceable(base, keep_safe), key=lambda x: _key(seed, "nr", row["case_id"], x)
    )
    n_used = min(n, len(positions))
    gold = base["options"][ALPHABET.index(base["correct_letter"])]
    picks = _replacement_texts(row, gold, pool, n_used, seed)
    framed = list(base["options"])
    for letter, text in zip(positions[:n_used], picks):
        framed[ALPHABET.index(letter)] = text
    k = len(framed)
    order = seeded_permutation(k, seed, row["probe_id"], f"distractors_{n}r")
    out = {
        "options": _apply(order, framed, letters(k)),
        "correct_letter": ALPHABET[order.index(base["correct_letter"])],
        "permutation": _compose(order, base["permutation"]),
        "replaced": picks,
        "replaced_texts": [base["options"][ALPHABET.index(x)] for x in positions[:n_used]],
        "n_replaced": n_used,
    }
    if base.get("safe_letter"):
        out["safe_letter"] = ALPHABET[order.index(base["safe_letter"])]
    return out


def insert_unknown(
    row: Mapping[str, Any],
    seed: int = SEED,
    base_kind: str = "balanced",
    keep_safe: bool = False,
    gold_at: int | None = None,
) -> dict[str, Any]:
    """T4 UNK: one seeded distractor of the base view becomes ``"Unknown"`` in place."""
    base = base_order(row, seed, base_kind, gold_at)
    if any(str(o).strip().lower() == UNKNOWN.lower() for o in row["options"]):
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'options' already holds {UNKNOWN!r}"
        )
    choices = _replaceable(base, keep_safe)
    if not choices:
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'options' has no "
            f"distractor to replace (only gold and safe option)"
        )
    letter = min(choices, key=lambda x: _key(seed, "unknown", row["probe_id"], x))
    options = list(base["options"])
    replaced = options[ALPHABET.index(letter)]
    options[ALPHABET.index(letter)] = UNKNOWN
    return {**base, "options": options, "replaced": [replaced], "unknown_letter": letter}


def option_pool(rows: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Option text -> case ids using it, over the given probe rows."""
    pool: dict[str, set[str]] = {}
    for row in rows:
        for text in row["options"]:
            pool.setdefault(str(text), set()).add(str(row["case_id"]))
    return pool


def in_scope(row: Mapping[str, Any], scope: str) -> bool:
    """Whether an arm of ``scope`` (``"all"`` or ``"visreq"``) asks ``row``."""
    if scope == "all":
        return True
    if row.get("text_only_answerable") is None:
        raise ValueError(
            f"probe row {row.get('probe_id')!r}: field 'text_only_answerable' is required for T2-T6"
        )
    return row["text_only_answerable"] is False


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


def substitution_donors(
    rows: Sequence[Mapping[str, Any]], seed: int = SEED, donor_match: str = "question"
) -> tuple[dict[int, int], int]:
    """T5: for each visually-required ``original`` row that has one, the index of its donor row
    (module docstring), and the number of visually-required items left without a donor."""
    if donor_match not in DONOR_MATCHES:
        raise ValueError(f"donor_match must be one of {DONOR_MATCHES}, got {donor_match!r}")
    originals = [(i, r) for i, r in enumerate(rows) if r.get("probe_kind") == "original"]
    by_gold: dict[str, list[int]] = {}
    for i, r in originals:
        check_row(r)
        by_gold.setdefault(_norm(r["options"][ALPHABET.index(r["correct_letter"])]), []).append(i)
    donors, missing = {}, 0
    for i, row in originals:
        if not in_scope(row, "visreq"):
            continue
        gold = ALPHABET.index(row["correct_letter"])
        found = [
            j
            for k, text in enumerate(row["options"])
            if k != gold
            for j in by_gold.get(_norm(text), ())
            if rows[j]["case_id"] != row["case_id"]
            and (
                donor_match == "answer"
                or _norm(rows[j].get("question", "")) == _norm(row.get("question", ""))
            )
        ]
        if found:
            donors[i] = min(
                found, key=lambda j: _key(seed, "subst", row["probe_id"], rows[j]["case_id"])
            )
        else:
            missing += 1
    return donors, missing


def substituted(
    row: Mapping[str, Any],
    donor: Mapping[str, Any],
    seed: int,
    base_kind: str,
    gold_at: int | None,
) -> dict[str, Any]:
    """T5: the base view of ``row`` whose gold is now the distractor the donor's image supports."""
    base = base_order(row, seed, base_kind, gold_at)
    supported = _norm(donor["options"][ALPHABET.index(donor["correct_letter"])])
    letter = next(ALPHABET[k] for k, text in enumerate(base["options"]) if _norm(text) == supported)
    return {
        **base,
        "correct_letter": letter,
        "original_letter": base["correct_letter"],
        "substituted_by": {
            "case_id": donor["case_id"],
            "probe_id": donor["probe_id"],
            "image_file": donor.get("image_file"),
        },
    }
