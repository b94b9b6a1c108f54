"""Illusion of Readiness stress tests T1-T5 (Gu et al., seed 003) on MedVIGIL probes.

The lmms-eval task pack ``tasks/readiness`` asks one *arm* per task; this module holds
what the arms are, the seeded option perturbations, and R(m) from the per-probe records
of a run. No lmms-eval import here; the metric itself is :mod:`medvigil.scoring.readiness`.

Items (paper Sec. 2): the ``original`` probe of every case whose image is available (one
item per case, five options A-E with gold A and the safe action at E, so chance is 20 %,
Appendix A T2). Each arm is one record condition of
:data:`medvigil.scoring.readiness.READINESS_CONDITIONS`, so no probe is asked twice:

=====================  ========================  ==========================================
task                   condition                 items, perturbation (paper section)
=====================  ========================  ==========================================
readiness_img          default                   all items, image + text (T1, T4 img-base, T5 orig)
readiness_text         noimg                     all items, image removed (T1, T2, T3/T4 base)
readiness_text_reord   noimg:shuffled            visually required, options reordered (T3)
readiness_text_4r      noimg:distractors_4r      visually required, 4 distractors replaced (T4)
readiness_img_4r       default:distractors_4r    same options as text_4r, with the image (T4)
readiness_text_unk     noimg:unknown             visually required, one distractor -> "Unknown" (T4)
readiness_img_subst    visual_substitution       laterality-dependent cases, mirrored image (T5)
=====================  ========================  ==========================================

* "Visually required" (T2-T4, the paper's 175 NEJM items) = ``text_only_answerable`` false,
  which the synthetic generator sets by construction.
* Distractors are the four non-gold options (B-E, the safe option included): the paper's
  five-option items have four. 4R (T4 setup) replaces all four with option texts of *other
  cases* drawn by a seeded hash, never the gold text nor any text sharing a content word
  with the gold (so no replacement can be a rewording of it), then shuffles, as the paper
  says the gold's label "may shift due to shuffling". UNK replaces one seeded distractor
  with ``"Unknown"`` in place, so the UNK base is the unchanged text arm (the core default).
* T3 reorders with :func:`medvigil.option_order.shuffled_order` (salted per arm).
* T5 visual substitution: the ``lr_flip`` image of a laterality-dependent case is the
  original mirrored, so the lesion sits on the other patient side and the answer becomes
  the distractor ``gold_after_lr_flip`` (true by construction, ``medvigil.synthetic``);
  question and options are unchanged, as in the paper's T5 setup.

Records carry *displayed* letters (what the model saw); the permutation and replaced
texts are in ``extra``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.option_order import apply_order, displayed_letter, shuffled_order
from medvigil.release_format import LETTERS, SOURCE_LICENCES, source_label
from medvigil.scoring.readiness import READINESS_CONDITIONS, score_records

SEED = 0  # perturbation seed; recorded in every record's extra
UNKNOWN = "Unknown"  # T4 'Unknown' insertion (paper Sec. 2, Stress Test 4)
N_REPLACED = 4  # T4 "4R": all four distractors

__all__ = ["ARMS", "SEED", "SOURCES", "UNKNOWN", "Arm", "arm_accuracy", "arm_count", "arm_metrics", "arm_docs", "main", "readiness_from_records",
           "readiness_from_samples", "replace_distractors", "insert_unknown", "reorder"]


@dataclass(frozen=True)
class Arm:
    condition: str  # record condition (key of READINESS_CONDITIONS)
    scope: str  # "all" | "visreq" | "laterality"
    image: bool
    perturbation: str  # "none" | "reorder" | "4r" | "unknown" | "substitution"
    tests: tuple[str, ...]


ARMS: dict[str, Arm] = {
    "readiness_img": Arm(READINESS_CONDITIONS["image"], "all", True, "none", ("T1", "T4", "T5")),
    "readiness_text": Arm(READINESS_CONDITIONS["text"], "all", False, "none", ("T1", "T2", "T3", "T4")),
    "readiness_text_reord": Arm(READINESS_CONDITIONS["text_reordered"], "visreq", False, "reorder", ("T3",)),
    "readiness_text_4r": Arm(READINESS_CONDITIONS["text_4r"], "visreq", False, "4r", ("T4",)),
    "readiness_img_4r": Arm(READINESS_CONDITIONS["image_4r"], "visreq", True, "4r", ("T4",)),
    "readiness_text_unk": Arm(READINESS_CONDITIONS["text_unk"], "visreq", False, "unknown", ("T4",)),
    "readiness_img_subst": Arm(READINESS_CONDITIONS["image_subst"], "laterality", True, "substitution", ("T5",)),
}

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of in on at is it its as than and or with to by be".split())
_REQUIRED = ("probe_id", "case_id", "probe_kind", "options", "correct_letter")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _key(*parts: Any) -> bytes:
    return hashlib.sha256(":".join(map(str, parts)).encode("utf-8")).digest()


def _check_row(row: Mapping[str, Any]) -> None:
    for name in _REQUIRED:
        if name not in row or row[name] is None:
            raise ValueError(f"probe row {row.get('probe_id')!r}: missing field {name!r}")
    options = row["options"]
    if len(options) != len(LETTERS) or len({str(o).strip().lower() for o in options}) != len(LETTERS):
        raise ValueError(f"probe row {row['probe_id']!r}: field 'options' must hold {len(LETTERS)} distinct texts, got {options!r}")
    if row["correct_letter"] not in LETTERS:
        raise ValueError(f"probe row {row['probe_id']!r}: field 'correct_letter' must be one of A-E, got {row['correct_letter']!r}")


def _gold(row: Mapping[str, Any]) -> str:
    return row["options"][LETTERS.index(row["correct_letter"])]


def reorder(row: Mapping[str, Any], seed: int = SEED) -> dict[str, Any]:
    """T3: the same five options in a seeded order (salted so it differs from mcq_shuffled)."""
    _check_row(row)
    order = shuffled_order(f"{row['probe_id']}:reordered", seed)
    return {"options": list(apply_order(order, row["options"])),
            "correct_letter": displayed_letter(order, row["correct_letter"]), "permutation": order}


def replace_distractors(row: Mapping[str, Any], pool: Mapping[str, set[str]], seed: int = SEED) -> dict[str, Any]:
    """T4 4R: the gold plus four option texts of other cases, then a seeded shuffle.

    ``pool`` maps an option text to the case ids that use it. A candidate is eligible when
    another case uses it, it is none of this probe's options, and it shares no content word
    with the gold. Candidates are ranked by ``sha256(seed:4r:probe_id:text)``; the first
    four with pairwise distinct texts are taken.
    """
    _check_row(row)
    gold = _gold(row)
    taken = {str(o).strip().lower() for o in row["options"]}
    gold_words = _words(gold)
    eligible = [t for t, cases in pool.items()
                if cases - {row["case_id"]} and t.strip().lower() not in taken and not (_words(t) & gold_words)]
    eligible.sort(key=lambda t: _key(seed, "4r", row["probe_id"], t))
    picks: list[str] = []
    for text in eligible:
        if text.strip().lower() not in {p.strip().lower() for p in picks}:
            picks.append(text)
        if len(picks) == N_REPLACED:
            break
    if len(picks) < N_REPLACED:
        raise ValueError(f"probe row {row['probe_id']!r}: field 'options': only {len(picks)} replacement distractors "
                         f"available from other cases (need {N_REPLACED}); the build has too few cases")
    order = shuffled_order(f"{row['probe_id']}:distractors_4r", seed)
    framed = [gold, *picks]  # gold at A before the shuffle
    return {"options": list(apply_order(order, framed)), "correct_letter": displayed_letter(order, "A"),
            "permutation": order, "replaced": picks}


def insert_unknown(row: Mapping[str, Any], seed: int = SEED) -> dict[str, Any]:
    """T4 UNK: one seeded distractor becomes ``"Unknown"``; positions unchanged."""
    _check_row(row)
    if any(str(o).strip().lower() == UNKNOWN.lower() for o in row["options"]):
        raise ValueError(f"probe row {row['probe_id']!r}: field 'options' already holds {UNKNOWN!r}")
    distractors = [x for x in LETTERS if x != row["correct_letter"]]
    letter = min(distractors, key=lambda x: _key(seed, "unknown", row["probe_id"], x))
    options = list(row["options"])
    replaced = options[LETTERS.index(letter)]
    options[LETTERS.index(letter)] = UNKNOWN
    return {"options": options, "correct_letter": row["correct_letter"], "replaced": [replaced], "unknown_letter": letter}


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
    if scope == "visreq":
        if row.get("text_only_answerable") is None:
            raise ValueError(f"probe row {row.get('probe_id')!r}: field 'text_only_answerable' is required for T2-T4")
        return row["text_only_answerable"] is False
    if row.get("laterality_dependent") is None:
        raise ValueError(f"probe row {row.get('probe_id')!r}: field 'laterality_dependent' is required for T5")
    return bool(row["laterality_dependent"])


def arm_docs(arm: str, rows: Sequence[Mapping[str, Any]], seed: int = SEED) -> list[tuple[int, dict[str, Any]]]:
    """``(row index, overrides)`` for every row the arm asks, from rows of the ``mcq`` config.

    The overrides replace ``options``/``correct_letter`` and add ``condition`` and
    ``readiness`` (arm name, seed, permutation, replaced texts). Rows are the build's probe
    rows without images; withheld images are filtered by the caller.
    """
    if arm not in ARMS:
        raise ValueError(f"unknown readiness arm {arm!r}; available: {', '.join(ARMS)}")
    spec = ARMS[arm]
    originals = [(i, r) for i, r in enumerate(rows) if r.get("probe_kind") == "original"]
    out = []
    if spec.perturbation == "substitution":
        original_letter = {r["case_id"]: r["correct_letter"] for _, r in originals}
        for i, row in enumerate(rows):
            if row.get("probe_kind") != "lr_flip" or not _in_scope(row, spec.scope):
                continue
            _check_row(row)
            if row["case_id"] not in original_letter:
                raise ValueError(f"probe row {row['probe_id']!r}: field 'case_id' has no original probe to substitute")
            if row["correct_letter"] == original_letter[row["case_id"]]:
                raise ValueError(f"probe row {row['probe_id']!r}: field 'correct_letter' is unchanged by the mirrored image; "
                                 "a laterality-dependent case must change its answer")
            out.append((i, _overrides(arm, row, {}, seed)))
        return out
    pool = option_pool(r for _, r in originals) if spec.perturbation == "4r" else {}
    for i, row in originals:
        if not _in_scope(row, spec.scope):
            continue
        _check_row(row)
        if spec.perturbation == "reorder":
            change = reorder(row, seed)
        elif spec.perturbation == "4r":
            change = replace_distractors(row, pool, seed)
        elif spec.perturbation == "unknown":
            change = insert_unknown(row, seed)
        else:
            change = {}
        out.append((i, _overrides(arm, row, change, seed)))
    return out


def _overrides(arm: str, row: Mapping[str, Any], change: Mapping[str, Any], seed: int) -> dict[str, Any]:
    info = {"arm": arm, "seed": seed, **{k: v for k, v in change.items() if k not in ("options", "correct_letter")}}
    return {"options": list(change.get("options", row["options"])),
            "correct_letter": change.get("correct_letter", row["correct_letter"]),
            "condition": ARMS[arm].condition, "readiness": info}


# ---------------------------------------------------------------- scoring a run


#: T1 benchmarks (paper: JAMA, NEJM) are MedVIGIL's source datasets; slug -> source_dataset
SOURCES = {re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"): name for name in SOURCE_LICENCES}


def _subset(records: Iterable[Mapping[str, Any]], subset: str) -> list[Mapping[str, Any]]:
    if subset in SOURCES:
        return [r for r in records if source_label(r.get("source_dataset")) == SOURCES[subset]]
    if subset not in ("all", "visreq", "laterality"):
        raise ValueError(f"subset must be all, visreq, laterality or one of {', '.join(SOURCES)}; got {subset!r}")
    return [r for r in records if subset == "all"
            or (subset == "visreq" and r.get("text_only_answerable") is False)
            or (subset == "laterality" and (r.get("extra") or {}).get("laterality_dependent") is True)]


def arm_metrics(arm: str) -> tuple[str, ...]:
    """Metric names of an arm's task: accuracy of the arm, plus what the fragilities read
    from the two base arms (T1 per-benchmark accuracies and counts, T2/T4 visually
    required, T5 original on the laterality-dependent cases)."""
    if arm not in ARMS:
        raise ValueError(f"unknown readiness arm {arm!r}; available: {', '.join(ARMS)}")
    t1 = tuple(f"{p}_{s}" for s in SOURCES for p in ("acc", "n"))
    extra = {"readiness_img": ("acc_visreq", "acc_laterality", *t1), "readiness_text": ("acc_visreq", *t1)}
    return ("acc", *extra.get(arm, ()), "parse_failures")


def arm_count(records: Iterable[Mapping[str, Any]], subset: str = "all") -> float:
    """Number of records in ``subset`` (the T1 benchmark weight n_b for a source slug)."""
    return float(len(_subset(records, subset)))


def arm_accuracy(records: Iterable[Mapping[str, Any]], subset: str = "all") -> float:
    """Accuracy in percent (parse failures wrong) over ``subset``: all | visreq | laterality | a
    source slug (:data:`SOURCES`); NaN when the subset is empty."""
    rows = _subset(records, subset)
    if not rows:
        return float("nan")
    return 100.0 * sum(r.get("predicted_letter") == r["correct_letter"] for r in rows) / len(rows)


def readiness_from_records(records: Iterable[Mapping[str, Any]], **kwargs: Any) -> dict[str, dict[str, Any]]:
    """f1..f5 and R(m) per model from the records of all arms (see score_records).

    A probe answered twice in one condition (two runs' logs mixed) is an error.
    """
    records = list(records)
    seen: set[tuple] = set()
    for r in records:
        key = (r.get("model"), r.get("condition", "default"), r.get("probe_id"))
        if key in seen:
            raise ValueError(f"duplicate record: model {key[0]!r}, condition {key[1]!r}, field 'probe_id' {key[2]!r}; "
                             "pass the logs of one run per model")
        seen.add(key)
    return score_records(records, **kwargs)


def readiness_from_samples(paths: Iterable[str | Path], *, model: str | None = None, **kwargs: Any) -> dict[str, dict[str, Any]]:
    """R(m) from lmms-eval ``--log_samples`` files (or folders searched for them) of the readiness tasks."""
    from medvigil.adapters.lmms_eval import read_samples

    paths = [Path(p) for p in paths]
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(path.rglob("*_samples_readiness_*.jsonl"))
        elif path.is_file() and re.fullmatch(r".+_samples_readiness_\w+\.jsonl", path.name):
            files.append(path)
        else:
            raise ValueError(f"{path}: not a folder nor an lmms-eval samples file of a readiness task (*_samples_readiness_*.jsonl)")
    if not files:
        raise ValueError(f"no readiness samples files (*_samples_readiness_*.jsonl) under {list(map(str, paths))}")
    return readiness_from_records(read_samples(files, model=model), **kwargs)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m medvigil.readiness_tasks RUN_DIR...``: print f1..f5 and R(m) as JSON."""
    import argparse
    import json

    from medvigil.errors import DataError

    parser = argparse.ArgumentParser(prog="python -m medvigil.readiness_tasks", description=main.__doc__)
    parser.add_argument("paths", nargs="+", help="lmms-eval output folders or *_samples_readiness_*.jsonl files")
    args = parser.parse_args(argv)
    try:
        result = readiness_from_samples(args.paths)
    except (ValueError, DataError) as exc:
        parser.exit(2, f"error: {exc}\n")
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
