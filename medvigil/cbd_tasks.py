"""Consistent but Dangerous (seed 004) on MedVIGIL data: docs, records and the quadrant table.

The lmms-eval task pack ``tasks/cbd`` is a thin face over this module (no lmms-eval import
here). A *sample* (Sec. 3.1) is one MedVIGIL case: its ``original`` MCQ probe asked with
the image (``q``), with every paraphrase ``q'`` (Eq. 1), and once without the image (Eq. 2).

Paraphrase set of a case, in a fixed order (``paraphrase_index``; the index of a template
is the same for every case, a template that does not change the question is left out):

0. ``original``: the release's original question ``q``.
1. ``tcf``: the release's paraphrase probe (same options, same gold; checked).
2. ``lexical``: whole-word synonym substitution (PSF-Med "lexical substitution", Sec. 3.3),
   from the fixed table :data:`LEXICAL`; left out when no entry matches.
3. ``frame_prefix``: "Looking at the study provided, q" (an adverbial frame; syntactic restructuring).
4. ``frame_suffix``: "q Please choose the best option." (an instruction frame).

The rewordings are pure functions of the question text (no randomness, so no seed): rerunning
gives the same prompts. Options and gold are never changed. Every question of the benchmark
is about its image, so the frames add no information; their words are chosen to occur in no
option text of the release (a frame saying "image" or "answer" would lean towards the
insufficient-evidence option E, "... needed to answer is not visible in this image").

Text-only arm: the original question only, image withheld (Sec. 3.2 "a standard forward pass
with the image omitted entirely"; Sec. 5 "exactly one additional forward pass per sample").
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from medvigil.prompting import parse_letter
from medvigil.scoring.cbd import QUADRANTS, quadrant_scores, score_records

log = logging.getLogger("medvigil.cbd")

SUITE = "cbd"
ARMS = {"image": "default", "noimg": "noimg"}  # arm -> record condition (as score_records expects)
ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND, TEMPLATE_KIND = "original", "tcf", "paraphrase"
PARAPHRASE_KINDS = (RELEASE_PARAPHRASE_KIND, TEMPLATE_KIND)
RUN_MODEL_NAME = "lmms-eval-run"  # the hook cannot know the model; read_samples names it from the run
WITHHELD = "withheld_credentialed"  # image_status of credentialed images absent from the build

# Whole-word, case-sensitive; applied in order, each at most once per occurrence.
LEXICAL = (
    ("chest radiograph", "chest X-ray"),
    ("frontal radiograph", "frontal X-ray"),
    ("located", "situated"),
    ("acquire", "obtain"),
    ("How large", "How big"),
    ("most likely", "most probable"),
    ("evidence of", "signs of"),
    ("produced", "generated"),
    ("shown", "depicted"),
    ("show", "depict"),
    ("appear", "look"),
)
_LEXICAL_RE = [(re.compile(rf"\b{re.escape(a)}\b"), b) for a, b in LEXICAL]


def _lexical(q: str) -> str:
    for pattern, replacement in _LEXICAL_RE:
        q = pattern.sub(replacement, q)
    return q


def _lower_first(q: str) -> str:
    word = q.split(" ", 1)[0]
    # "What" -> "what"; acronyms ("CT", "MRI") and proper capitals stay
    return q[0].lower() + q[1:] if word[:1].isupper() and word[1:].islower() else q


TEMPLATES = (
    ("lexical", _lexical),
    ("frame_prefix", lambda q: f"Looking at the study provided, {_lower_first(q)}"),
    ("frame_suffix", lambda q: f"{q} Please choose the best option."),
)
SOURCES = (ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND) + tuple(name for name, _ in TEMPLATES)


def paraphrase_set(question: str, release_paraphrase: str) -> list[tuple[int, str, str]]:
    """``(paraphrase_index, source, question)`` for one case; index 0 is ``q`` itself.

    >>> [s for _, s, _ in paraphrase_set("Is there an infarct?", "Does it show an infarct?")]
    ['original', 'tcf', 'frame_prefix', 'frame_suffix']
    """
    q = question.strip()
    out = [(0, ORIGINAL_KIND, q), (1, RELEASE_PARAPHRASE_KIND, release_paraphrase.strip())]
    for offset, (name, fn) in enumerate(TEMPLATES, start=2):
        text = fn(q)
        if all(text != seen for _, _, seen in out):
            out.append((offset, name, text))
    return out


def _field(row: Mapping, name: str, where: str):
    if name not in row or row[name] is None:
        raise ValueError(f"{where}: field {name!r} is missing")
    return row[name]


def plan_docs(rows: Sequence[Mapping[str, Any]], arms: Iterable[str]) -> list[tuple[int, dict]]:
    """The docs of the given arms as ``(row index of the case's original probe, overrides)``.

    ``rows`` are MedVIGIL ``mcq`` rows (``probe_id``, ``probe_kind``, ``case_id``, ``question``,
    ``options``, ``correct_letter``, optionally ``image_status``); images are not needed here.
    Cases whose image is withheld are skipped (both arms, so every sample keeps both).
    """
    arms = list(arms)
    for arm in arms:
        if arm not in ARMS:
            raise ValueError(f"arm must be one of {', '.join(ARMS)}, got {arm!r}")
    originals: dict[str, int] = {}
    tcf: dict[str, Mapping] = {}
    withheld: set[str] = set()
    for i, row in enumerate(rows):
        kind = _field(row, "probe_kind", f"mcq row {i}")
        if kind not in (ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND):
            continue
        case = str(_field(row, "case_id", f"mcq row {i}"))
        if row.get("image_status") == WITHHELD:
            withheld.add(case)
        slot = originals if kind == ORIGINAL_KIND else tcf
        if case in slot:
            raise ValueError(f"mcq row {i}: case {case!r} has two {kind!r} probes (field 'probe_kind')")
        slot[case] = i if kind == ORIGINAL_KIND else row
    if withheld:
        log.warning("cbd: skipped %d case(s) whose credentialed image is withheld", len(withheld))
    plans: list[tuple[int, dict]] = []
    for case, i in originals.items():
        if case in withheld:
            continue
        orig = rows[i]
        para = tcf.get(case)
        if para is None:
            raise ValueError(f"case {case!r} has no 'tcf' paraphrase probe (field 'probe_kind')")
        for name in ("options", "correct_letter"):
            if list(_field(para, name, f"case {case} tcf")) != list(_field(orig, name, f"case {case} original")):
                raise ValueError(f"case {case!r}: the tcf paraphrase changes field {name!r}; a paraphrase must keep it")
        q = _field(orig, "question", f"case {case} original")
        for arm in arms:
            # text-only arm: q only (Sec. 3.2, Eq. 2); image arm: q and every q' (Eq. 1)
            items = paraphrase_set(q, para["question"])[: 1 if arm == "noimg" else None]
            for index, source, text in items:
                probe_id = {0: orig["probe_id"], 1: para["probe_id"]}.get(index, f"{case}-paraphrase-{source}")
                kind = source if index < 2 else TEMPLATE_KIND
                plans.append((i, {"probe_id": probe_id, "probe_kind": kind, "question": text, "condition": ARMS[arm],
                                  "paraphrase_index": index, "paraphrase_source": source}))
    return plans


def load_docs(arms: Iterable[str]):
    """The docs of the given arms from the built MedVIGIL ``mcq`` config (``MEDVIGIL_DATA``)."""
    from medvigil.data_location import load_config

    data = load_config("mcq")
    columns = [c for c in ("probe_id", "probe_kind", "case_id", "question", "options", "correct_letter", "image_status")
               if c in data.column_names]
    plans = plan_docs(data.select_columns(columns).to_list(), arms)
    if not plans:
        raise ValueError("cbd: the mcq config yields no askable case (all images withheld, or no original probes)")
    overrides = [o for _, o in plans]
    return data.select([i for i, _ in plans]).map(lambda _, k: overrides[k], with_indices=True, desc="cbd paraphrase set")


def make_record(doc: Mapping[str, Any], response: str | None, attempts: list[str] | None = None) -> dict:
    """The per-probe record (``schemas/probe_record.schema.json``, suite ``cbd``) of one doc."""
    letter = parse_letter(response)
    extra = {"condition_source": "lmms-eval", "paraphrase_index": int(doc["paraphrase_index"]),
             "paraphrase_source": doc["paraphrase_source"]}
    if attempts and len(attempts) > 1:
        extra["attempts"] = list(attempts)
    return {
        "suite": SUITE, "model": RUN_MODEL_NAME, "condition": doc["condition"], "probe_id": doc["probe_id"],
        "case_id": doc["case_id"], "probe_kind": doc["probe_kind"], "risk_tier": doc.get("risk_tier"),
        "source_dataset": doc.get("source_dataset"), "modality": doc.get("modality"),
        "text_only_answerable": doc.get("text_only_answerable"), "correct_letter": doc["correct_letter"],
        "predicted_letter": letter, "parse_status": "ok" if letter is not None else "parse_failure",
        "raw_response": response, "retries": len(attempts) - 1 if attempts else 0, "extra": extra,
    }


def _check(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    out = list(records)
    for r in out:
        where = f"record {r.get('probe_id')!r}"
        if r.get("suite") != SUITE:
            raise ValueError(f"{where}: field 'suite' is {r.get('suite')!r}, not {SUITE!r} (is this a cbd task log?)")
        if not isinstance((r.get("extra") or {}).get("paraphrase_index"), int):
            raise ValueError(f"{where}: field 'extra.paraphrase_index' is missing")
        if r.get("condition") not in ARMS.values():
            raise ValueError(f"{where}: field 'condition' is {r.get('condition')!r}, not one of {', '.join(ARMS.values())}")
    return out


def quadrant_table(records: Iterable[Mapping[str, Any]], *, invalid: str = "exclude") -> dict[str, dict[str, Any]]:
    """Per model: quadrant counts and fractions, flip rate (Eq. 3), Dangerous fraction (Eq. 4),
    image-reliance rate and accuracy per quadrant (Table 2), from the records of both arms
    (e.g. ``medvigil.adapters.lmms_eval.read_samples`` of the ``cbd_image`` and ``cbd_noimg``
    logs, or of ``cbd_quadrants``). All the arithmetic is :func:`medvigil.scoring.cbd.score_records`."""
    return score_records(_check(records), original_kind=ORIGINAL_KIND, paraphrase_kinds=PARAPHRASE_KINDS,
                         image_condition=ARMS["image"], text_only_condition=ARMS["noimg"], invalid=invalid)


def image_arm_summary(records: Iterable[Mapping[str, Any]], *, invalid: str = "exclude") -> dict[str, Any]:
    """Flip rate (Eq. 3) and accuracy of ``q`` from the image arm alone (one model).

    Eq. 1 needs no text-only prediction; the core's :func:`quadrant_scores` is called with the
    image predictions in its text-only slot, and only the consistency-side outputs are kept.
    """
    cases: dict[str, dict] = {}
    for r in _check(records):
        if r["condition"] != ARMS["image"]:
            continue
        case = cases.setdefault(str(r["case_id"]), {"para": []})
        if r["probe_kind"] == ORIGINAL_KIND:
            if "orig" in case:
                raise ValueError(f"case {r['case_id']!r} has two original image records (field 'probe_kind')")
            case["orig"] = r
        elif r["probe_kind"] in PARAPHRASE_KINDS:
            case["para"].append(r)
    for cid, case in cases.items():
        if "orig" not in case or not case["para"]:
            raise ValueError(f"case {cid!r} lacks its original or paraphrase image records (field 'probe_kind')")
    origs = [c["orig"]["predicted_letter"] for c in cases.values()]
    out = quadrant_scores(origs, [[p["predicted_letter"] for p in c["para"]] for c in cases.values()], origs,
                          [c["orig"]["correct_letter"] for c in cases.values()], invalid=invalid)
    return {k: out[k] for k in ("n_samples", "n_evaluable", "n_excluded", "flip_rate", "accuracy")}


def _pct(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


# lmms-eval metric -> higher is better (None: a description, no direction). Percent, as Tables 1-2.
QUADRANT_METRICS = {
    "frac_ideal": True, "frac_fragile": False, "frac_dangerous": False, "frac_worst": False,
    "flip_rate": False, "image_reliance": None, "accuracy": True,
    "acc_ideal": None, "acc_fragile": None, "acc_dangerous": None, "acc_worst": None, "excluded": False,
}
IMAGE_METRICS = {"accuracy": True, "flip_rate": False, "excluded": False, "parse_failures": False}
NOIMG_METRICS = {"accuracy": None, "parse_failures": False}


def table_metrics(result: Mapping[str, Any]) -> dict[str, float]:
    """Flatten one model's :func:`quadrant_table` entry into the ``cbd_quadrants`` metrics (percent;
    an empty quadrant's accuracy is NaN, the paper's "–")."""
    out = {f"frac_{q.lower()}": _pct(result["fractions"][q]) for q in QUADRANTS}
    out.update(flip_rate=_pct(result["flip_rate"]), image_reliance=_pct(result["image_reliance_rate"]),
               accuracy=_pct(result["accuracy"]), excluded=float(result["n_excluded"]))
    out.update({f"acc_{q.lower()}": _pct(result["accuracy_by_quadrant"][q]) for q in QUADRANTS})
    return out


def arm_metrics(records: Sequence[Mapping[str, Any]], arm: str) -> dict[str, float]:
    """The per-arm metrics of ``cbd_image`` / ``cbd_noimg`` (percent, counts as floats)."""
    records = _check(records)
    failures = float(sum(r.get("parse_status") != "ok" for r in records))
    if arm == "image":
        s = image_arm_summary(records)
        return {"accuracy": _pct(s["accuracy"]), "flip_rate": _pct(s["flip_rate"]),
                "excluded": float(s["n_excluded"]), "parse_failures": failures}
    if arm != "noimg":
        raise ValueError(f"arm must be one of {', '.join(ARMS)}, got {arm!r}")
    # text-only accuracy of q over parsed answers (the core's "exclude" policy); a diagnostic
    parsed = [r for r in records if r["condition"] == ARMS["noimg"] and r.get("predicted_letter")]
    acc = sum(r["predicted_letter"] == r["correct_letter"] for r in parsed) / len(parsed) if parsed else math.nan
    return {"accuracy": 100.0 * acc, "parse_failures": failures}
