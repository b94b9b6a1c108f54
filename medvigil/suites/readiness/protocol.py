"""Illusion of Readiness stress tests T1-T6 (Gu et al., seed 003) on multiple-choice items.

The lmms-eval task pack ``tasks/readiness`` asks one *arm* per task; this module holds the arms, the
seeded option perturbations, and R(m) from a run's records (the metric itself is
:mod:`medvigil.suites.readiness.scoring`). Items (Sec. 2): the ``original`` probe of every case
whose image is available, ``K >= 2`` options (MedVIGIL: five, the safe action at E). Each arm is one
record condition of :data:`medvigil.suites.readiness.scoring.READINESS_CONDITIONS`:

=========================  ========================  ======================================
task                       condition                 items, perturbation (paper section)
=========================  ========================  ======================================
readiness_img              default                   all, image + text, original order (T1, T3-T5
base) readiness_text             noimg                     all, image removed, original order (T1-T4
base) readiness_{text,img}_reord noimg|default:shuffled    visually required, options reordered (T3)
readiness_{text,img}_{n}r  ...:distractors_{n}r      visually required, n = 1..4 distractors
replaced (T4) readiness_{text,img}_unk   ...:unknown               visually required, one distractor
-> "Unknown" (T4) readiness_img_subst        visual_substitution       visually required with a
donor, another case's image (T5) readiness_cot              default:cot               visually
required, image + text, CoT prompt (T6) =========================  ========================
======================================

* **Prompts** (Appendix E, "Multiple Choice Prompt" and "... with CoT"), verbatim, the one user turn
  after the image, no system message (:func:`mc_prompt`); a line break inside a sentence of the
  code blocks is the page's wrap (a space), one between sentences is kept.
* **Base order** (T3 "before reordering", every base arm; :func:`base_order`): ``base="balanced"``
  (default), one seeded permutation per case whose gold positions are balanced over the items
  (:func:`balanced_positions`): the paper's items have "approximately uniform" gold positions
  (Sec. 2, ST3), while MedVIGIL stores every gold at A, so its source order would reward a letter
  prior. ``base="source"`` keeps the source's order, the paper's "original order" for data whose
  stored gold letters are already balanced (the task pack: ``READINESS_BASE=source``,
  :func:`base_setting`; every record's ``extra.base`` says which).
* "Visually required" (T2-T4, T6; the paper's 175 NEJM items) = ``text_only_answerable`` false.
* **nR** (T4): ``n`` seeded distractors of the base order (never the gold) replaced by option texts
  of *other items of the same source dataset* (seeded hash; never a text of the item, nor one
  sharing a content word with the gold), then shuffled again (the gold's label "may shift due to
  shuffling"). Every option but the gold is a distractor (Sec. 2: "1-4 distractor options" of
  five), so 4R replaces the safe option too; ``keep_safe=True`` (our earlier stand-in, 4R = 3R)
  never replaces ``safe_letter``. 1R ⊂ 2R ⊂ 3R ⊂ 4R (nested positions and texts).
* **UNK** replaces one seeded distractor of the base order with ``"Unknown"`` in place.
* **Reorder** (T3) permutes the base order by a seeded shuffle.
* **T5** (Stress Test 5): the item's image replaced by *another case's* image supporting one of its
  distractors, question and options unchanged, so that distractor becomes the gold. The donor is
  an ``original`` probe of another case whose gold text is one of the item's distractor texts
  (case-insensitive) and, with ``donor_match="question"`` (default), whose question is the same
  (``"answer"``: any question); one is drawn by a seeded hash. Items without a donor are not asked
  (counted by :func:`substitution_donors`). The paper hand-curated 40 NEJM items; this is that
  rule made mechanical.
* **T6** asks the CoT prompt on the image + text items
  (:func:`medvigil.suites.readiness.scoring.reasoning_audit` compares it with the base arm).

Records carry *displayed* letters (what the model saw); the permutation and replaced texts are in
``extra``.
"""

import hashlib
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.records.lmms_eval_logs import read_samples
from medvigil.records.suite_logs import find_samples
from medvigil.suites.medvigil.release.release_format import SOURCE_LICENCES, source_label
from medvigil.suites.readiness.scoring import READINESS_CONDITIONS, score_records

SEED = 0  # perturbation seed; recorded in every record's extra
UNKNOWN = "Unknown"  # T4 'Unknown' insertion (paper Sec. 2, Stress Test 4)
MAX_REPLACED = 4  # T4: 1R-4R
ALPHABET = string.ascii_uppercase
# Appendix E "Multiple Choice Prompt" / "Multiple Choice Prompt with CoT", verbatim (see mc_prompt).
MC_PREAMBLE = (
    "You are a helpful medical assistant that answers multiple choice questions about "
    "the provided image. The following is a multiple choice question (with answers)."
)
MC_INSTRUCTION = "Please only answer with the index and content of the option."
COT_INSTRUCTION = (
    "Let us think step by step, enclosing the thought process within <thinking> "
    "and </thinking>.\nProvide answer with the index and content of the "
    "option, and place it within <answer> and </answer>."
)
BASES = ("balanced", "source")  # base order: balanced gold letters (default) or the source's
DONOR_MATCHES = (
    "question",
    "answer",
)  # T5 donor: same question and a distractor as gold, or the latter only

__all__ = [
    "ARMS",
    "SEED",
    "SOURCES",
    "UNKNOWN",
    "Arm",
    "arm_accuracy",
    "arm_count",
    "arm_metrics",
    "arm_docs",
    "balanced_positions",
    "base_order",
    "base_setting",
    "mc_prompt",
    "readiness_from_records",
    "readiness_from_samples",
    "replace_distractors",
    "insert_unknown",
    "reorder",
    "substitution_donors",
]


@dataclass(frozen=True)
class Arm:
    condition: str  # record condition (key of READINESS_CONDITIONS)
    scope: str  # "all" | "visreq"
    image: bool
    perturbation: str  # "none" | "reorder" | "replace" | "unknown" | "substitution" | "cot"
    tests: tuple[str, ...]
    n_replaced: int = 0


def _arms() -> dict[str, Arm]:
    c = READINESS_CONDITIONS
    arms = {
        "readiness_img": Arm(c["image"], "all", True, "none", ("T1", "T3", "T4", "T5", "T6")),
        "readiness_text": Arm(c["text"], "all", False, "none", ("T1", "T2", "T3", "T4")),
        "readiness_text_reord": Arm(c["text_reordered"], "visreq", False, "reorder", ("T3",)),
        "readiness_img_reord": Arm(c["image_reordered"], "visreq", True, "reorder", ("T3",)),
    }
    for n in range(1, MAX_REPLACED + 1):
        arms[f"readiness_text_{n}r"] = Arm(c[f"text_{n}r"], "visreq", False, "replace", ("T4",), n)
        arms[f"readiness_img_{n}r"] = Arm(c[f"image_{n}r"], "visreq", True, "replace", ("T4",), n)
    arms["readiness_text_unk"] = Arm(c["text_unk"], "visreq", False, "unknown", ("T4",))
    arms["readiness_img_unk"] = Arm(c["image_unk"], "visreq", True, "unknown", ("T4",))
    arms["readiness_img_subst"] = Arm(c["image_subst"], "visreq", True, "substitution", ("T5",))
    arms["readiness_cot"] = Arm(c["cot"], "visreq", True, "cot", ("T6",))
    return arms


ARMS: dict[str, Arm] = _arms()

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


def _check_row(row: Mapping[str, Any]) -> None:
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


def mc_prompt(question: str, options: Sequence[str], *, cot: bool = False) -> str:
    """The paper's multiple-choice prompt (Appendix E), with the CoT instruction when ``cot``.

    >>> print(mc_prompt("Which side?", ["Left", "Right"]))
    You are a helpful medical assistant that answers multiple choice questions about the provided image. The following is a multiple choice question (with answers).
    Question: Which side?
    Options:
    A. Left
    B. Right
    Please only answer with the index and content of the option.
    """  # noqa: E501
    lines = [MC_PREAMBLE, f"Question: {str(question).strip()}", "Options:"]
    lines += [f"{ALPHABET[i]}. {str(text).strip()}" for i, text in enumerate(options)]
    return "\n".join([*lines, COT_INSTRUCTION if cot else MC_INSTRUCTION])


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


BASE_ENV = "READINESS_BASE"


def base_setting(env: Mapping[str, str] | None = None) -> str:
    """The task pack's base order, ``READINESS_BASE``: ``balanced`` (default) or ``source``
    (:data:`BASES`).

    >>> base_setting({}), base_setting({"READINESS_BASE": "source"})
    ('balanced', 'source')
    """
    import os

    value = ((os.environ if env is None else env).get(BASE_ENV) or "balanced").strip()
    if value not in BASES:
        raise ValueError(f"{BASE_ENV} must be one of {', '.join(BASES)}, got {value!r}")
    return value


def base_order(
    row: Mapping[str, Any], seed: int = SEED, base: str = "balanced", gold_at: int | None = None
) -> dict[str, Any]:
    """The base arms' view (``permutation`` = stored letters in displayed order), module docstring:
    ``base="balanced"``, the gold shown at position ``gold_at`` (:func:`balanced_positions`) and the
    other options in the seeded order ``sha256(seed:case_id:base:i)`` of the case; or
    ``"source"``."""
    _check_row(row)
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
    gold_words = _words(base["options"][ALPHABET.index(base["correct_letter"])])
    positions = sorted(
        _replaceable(base, keep_safe), key=lambda x: _key(seed, "nr", row["case_id"], x)
    )
    n_used = min(n, len(positions))
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
        if len(picks) == n_used:
            break
    if len(picks) < n_used:
        raise ValueError(
            f"probe row {row['probe_id']!r}: field 'options': only {len(picks)} replacement "
            f"distractors available from other items of source {row.get('source_dataset')!r} "
            f"(need {n_used}); the build has too few items of that source"
        )
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


def _in_scope(row: Mapping[str, Any], scope: str) -> bool:
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
        _check_row(r)
        by_gold.setdefault(_norm(r["options"][ALPHABET.index(r["correct_letter"])]), []).append(i)
    donors, missing = {}, 0
    for i, row in originals:
        if not _in_scope(row, "visreq"):
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


def _substituted(
    row: Mapping[str, Any],
    donor: Mapping[str, Any],
    seed: int,
    base_kind: str,
    gold_at: int | None,
) -> dict[str, Any]:
    """The base view of ``row`` whose gold is now the distractor the donor's image supports."""
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


def arm_docs(
    arm: str,
    rows: Sequence[Mapping[str, Any]],
    seed: int = SEED,
    *,
    base: str = "balanced",
    keep_safe: bool = False,
    donor_match: str = "question",
) -> list[tuple[int, dict[str, Any]]]:
    """``(row index, overrides)`` for every row the arm asks.

    Rows need ``probe_id``, ``case_id``, ``probe_kind``, ``options`` (K >= 2), ``correct_letter``
    and, as the arm needs, ``text_only_answerable``, ``question`` (T5), ``source_dataset``,
    ``safe_letter``. The overrides replace ``options``/``correct_letter`` and add ``condition`` and
    ``readiness`` (arm, seed, permutation, replaced texts; T5: ``substituted_by`` and ``donor_row``,
    whose image the doc shows). ``base``, ``keep_safe``, ``donor_match``: the module docstring's
    variants (defaults: the paper's, with the base order's gold letters balanced over all the
    ``original`` rows given).
    """
    spec = _arm(arm)
    originals = [(i, r) for i, r in enumerate(rows) if r.get("probe_kind") == "original"]
    for _, row in originals:
        _check_row(row)
    gold_at = balanced_positions(rows, seed) if base == "balanced" else {}

    def change_of(i: int, row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        return _change(spec, row, seed, base, keep_safe, gold_at.get(str(row["probe_id"])), **extra)

    if spec.perturbation == "substitution":
        donors, _ = substitution_donors(rows, seed, donor_match)
        return [
            (
                i,
                _overrides(
                    arm,
                    rows[i],
                    {**change_of(i, rows[i], donor=rows[j]), "donor_row": j},
                    seed,
                    base,
                ),
            )
            for i, j in donors.items()
        ]
    pools: dict[Any, dict[str, set[str]]] = {}
    if spec.perturbation == "replace":
        for source in {r.get("source_dataset") for _, r in originals}:
            pools[source] = option_pool(
                r for _, r in originals if r.get("source_dataset") == source
            )
    t5_items = (
        set(substitution_donors(rows, seed, donor_match)[0]) if arm == "readiness_img" else set()
    )
    out = []
    for i, row in originals:
        if not _in_scope(row, spec.scope):
            continue
        change = change_of(i, row, pool=pools.get(row.get("source_dataset")))
        if arm == "readiness_img":  # T5's original accuracy is read on the items T5 asks
            change = {**change, "t5_item": i in t5_items}
        out.append((i, _overrides(arm, row, change, seed, base)))
    return out


def _change(
    spec: Arm,
    row: Mapping[str, Any],
    seed: int,
    base: str,
    keep_safe: bool,
    gold_at: int | None,
    *,
    pool: Mapping[str, set[str]] | None = None,
    donor: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One row's view under the arm's perturbation (:func:`arm_docs`)."""
    if spec.perturbation == "substitution":
        return _substituted(row, donor, seed, base, gold_at)
    if spec.perturbation == "reorder":
        return reorder(row, seed, base, gold_at)
    if spec.perturbation == "replace":
        return replace_distractors(row, pool or {}, spec.n_replaced, seed, base, keep_safe, gold_at)
    if spec.perturbation == "unknown":
        return insert_unknown(row, seed, base, keep_safe, gold_at)
    return base_order(row, seed, base, gold_at)


def _arm(arm: str) -> Arm:
    if arm not in ARMS:
        raise ValueError(f"unknown readiness arm {arm!r}; available: {', '.join(ARMS)}")
    return ARMS[arm]


def _overrides(
    arm: str, row: Mapping[str, Any], change: Mapping[str, Any], seed: int, base: str
) -> dict[str, Any]:
    info = {
        "arm": arm,
        "seed": seed,
        "base": base,
        **{k: v for k, v in change.items() if k not in ("options", "correct_letter")},
    }
    return {
        "options": list(change["options"]),
        "correct_letter": change["correct_letter"],
        "condition": ARMS[arm].condition,
        "readiness": info,
    }


# ---------------------------------------------------------------- scoring a run


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
    _arm(arm)
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
        read_samples(find_samples(paths, "readiness", r"readiness_\w+"), model=model), **kwargs
    )
