"""Illusion of Readiness: the robustness score R(m) over stress tests T1-T5.

Definition (Gu et al., seed 003, Appendix A "Robustness Score Computation"): for each
stress test ``T_i`` a fragility ``f_i(m)`` in [0, 1], ``r_i(m) = 1 - f_i(m)`` and

    R(m) = (1/5) sum_{i=1..5} r_i(m).

Accuracies are in percent, as in the paper:

* T1 modality sensitivity, weighted over benchmarks ``b`` (JAMA 1,141 and NEJM 743 items):
  ``f1 = sum_b n_b max(0, Acc_b^img - Acc_b^text) / (100 sum_b n_b)``.
* T2 modality necessity, visually-required items without image:
  ``f2 = max(0, Acc^text_vis-req - 20) / 80``; 20 % is chance with five options. We
  write it ``max(0, Acc - c) / (100 - c)`` with ``chance=c`` (default 20; from records,
  ``chance=None`` uses the mean of 100/K over the T2 items, K read from ``extra.options_shown``,
  which is 20 for five options).
* T3 format perturbation: ``f3 = max(0, Acc^text-orig - Acc^text-reord) / 100``.
* T4 distractor replacement, weights 0.5 / 0.3 / 0.2:
  ``f4 = 0.5 max(0, Acc^text-base - Acc^text-4R)/100 + 0.3 max(0, Acc^img-4R -
  Acc^img-base)/100 + 0.2 max(0, Acc^text-UNK - Acc^text-base-UNK)/100``. Note the
  second and third terms count a *gain* as fragility (the paper: "image-mode gain
  under distractor removal, and gains when inserting 'Unknown'"). ``text_base_unk``
  defaults to ``text_base`` (the paper's UNK baseline is the same text-only base).
* T5 visual substitution: ``f5 = max(0, Acc^orig - Acc^subst) / 100``.

Every function broadcasts over models (arrays). T6 (reasoning signal) is not part of
R(m); :func:`reasoning_audit` gives its automatic measures (CoT vs direct accuracy, answer
changes, tag compliance, thinking-answer agreement).

>>> f = fragilities(t1_img=[86.59, 80.89], t1_text=[82.91, 67.56], t1_n=[1141, 743],
...                 t2_text=37.71, t3_text_orig=37.71, t3_text_reord=32.00,
...                 t4_text_base=37.71, t4_text_4r=20.00, t4_img_base=66.28, t4_img_4r=90.86,
...                 t4_text_unk=42.86, t5_orig=83.33, t5_subst=51.67)  # GPT-5, Ext. Data Tables 2-6
>>> round(float(robustness_score(f)), 4)
0.8315
"""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from medvigil.scoring.letters import option_mentions

__all__ = [
    "DEFAULT_CHANCE",
    "READINESS_CONDITIONS",
    "STRESS_TESTS",
    "T4_WEIGHTS",
    "ModelRows",
    "fragilities",
    "fragility_t1",
    "fragility_t2",
    "fragility_t3",
    "fragility_t4",
    "fragility_t5",
    "model_scores",
    "parse_cot",
    "reasoning_audit",
    "robustness_score",
    "score_records",
]

STRESS_TESTS = ("T1", "T2", "T3", "T4", "T5")
T4_WEIGHTS = (0.5, 0.3, 0.2)
DEFAULT_CHANCE = 20.0  # percent; five options

#: Record conditions read by :func:`score_records` (names follow the probe-record
#: convention ``"default"`` = image + text, ``"noimg"`` = image removed).
READINESS_CONDITIONS = {
    "image": "default",  # T1 image+text, T3/T4 img-base, T5 original, T6 direct answer
    "text": "noimg",  # T1 text-only, T2, T3 text-orig, T4 text-base
    "text_reordered": "noimg:shuffled",  # T3
    "image_reordered": "default:shuffled",  # T3, Ext. Data Table 4 "Img+Txt (reord)"
    **{
        f"{mode}_{n}r": f"{cond}:distractors_{n}r"
        for n in (1, 2, 3, 4)
        for mode, cond in (("text", "noimg"), ("image", "default"))
    },  # T4 1R-4R (R(m) reads 4R)
    "text_unk": "noimg:unknown",  # T4 one distractor replaced by "Unknown", text only
    "image_unk": "default:unknown",  # T4 same, image + text (Ext. Data Table 5)
    "image_subst": "visual_substitution",  # T5
    "cot": "default:cot",  # T6 chain-of-thought prompt, image + text
}


def _pct(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 100):
        raise ValueError(f"{name} must be accuracies in percent, within [0, 100]; got {x!r}")
    return a


def _gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, a - b) / 100.0


def fragility_t1(acc_img: Any, acc_text: Any, n_items: Any) -> np.ndarray:
    """T1: item-weighted drop when the image is removed; benchmarks on the last axis."""
    img, text = _pct(acc_img, "acc_img"), _pct(acc_text, "acc_text")
    n = np.asarray(n_items, dtype=np.float64)
    if img.shape != text.shape or img.ndim == 0 or n.shape != img.shape[-1:]:
        raise ValueError(
            "acc_img and acc_text need the same shape (..., "
            "benchmarks) and n_items one count per benchmark"
        )
    if np.any(n < 0) or n.sum() <= 0:
        raise ValueError(f"n_items must be >= 0 with a positive total, got {n_items!r}")
    return (np.maximum(0.0, img - text) * n).sum(axis=-1) / (100.0 * n.sum())


def fragility_t2(acc_text_visreq: Any, chance: float = DEFAULT_CHANCE) -> np.ndarray:
    """T2: excess text-only accuracy above chance on visually-required items."""
    if not 0 <= chance < 100:
        raise ValueError(f"chance must be a percentage in [0, 100), got {chance!r}")
    a = _pct(acc_text_visreq, "acc_text_visreq")
    return np.maximum(0.0, a - chance) / (100.0 - chance)


def fragility_t3(text_orig: Any, text_reordered: Any) -> np.ndarray:
    """T3: text-only accuracy lost when the options are reordered."""
    return _gap(_pct(text_orig, "text_orig"), _pct(text_reordered, "text_reordered"))


def fragility_t4(
    text_base: Any,
    text_4r: Any,
    img_base: Any,
    img_4r: Any,
    text_unk: Any,
    text_base_unk: Any = None,
    weights: Sequence[float] = T4_WEIGHTS,
) -> np.ndarray:
    """T4: weighted text-only loss (base -> 4R), image gain (base -> 4R), text gain with UNK."""
    if len(weights) != 3 or any(w < 0 for w in weights):
        raise ValueError(f"weights must be three non-negative numbers, got {weights!r}")
    tb = _pct(text_base, "text_base")
    tbu = tb if text_base_unk is None else _pct(text_base_unk, "text_base_unk")
    w1, w2, w3 = weights
    return (
        w1 * _gap(tb, _pct(text_4r, "text_4r"))
        + w2 * _gap(_pct(img_4r, "img_4r"), _pct(img_base, "img_base"))
        + w3 * _gap(_pct(text_unk, "text_unk"), tbu)
    )


def fragility_t5(orig: Any, subst: Any) -> np.ndarray:
    """T5: accuracy lost when the image is replaced by one supporting a distractor."""
    return _gap(_pct(orig, "orig"), _pct(subst, "subst"))


def fragilities(
    *,
    t1_img: Any,
    t1_text: Any,
    t1_n: Any,
    t2_text: Any,
    t3_text_orig: Any,
    t3_text_reord: Any,
    t4_text_base: Any,
    t4_text_4r: Any,
    t4_img_base: Any,
    t4_img_4r: Any,
    t4_text_unk: Any,
    t5_orig: Any,
    t5_subst: Any,
    t4_text_base_unk: Any = None,
    chance: float = DEFAULT_CHANCE,
    t4_weights: Sequence[float] = T4_WEIGHTS,
) -> np.ndarray:
    """``(f1, ..., f5)`` stacked on the last axis (shape (..., 5))."""
    return np.stack(
        np.broadcast_arrays(
            fragility_t1(t1_img, t1_text, t1_n),
            fragility_t2(t2_text, chance),
            fragility_t3(t3_text_orig, t3_text_reord),
            fragility_t4(
                t4_text_base,
                t4_text_4r,
                t4_img_base,
                t4_img_4r,
                t4_text_unk,
                t4_text_base_unk,
                t4_weights,
            ),
            fragility_t5(t5_orig, t5_subst),
        ),
        axis=-1,
    )


def robustness_score(fragility: Any) -> np.ndarray:
    """``R = mean_i (1 - f_i)`` over the last axis (the five tests)."""
    f = np.asarray(fragility, dtype=np.float64)
    if f.shape[-1:] != (5,):
        raise ValueError(
            f"fragility must have the five tests on the last axis, got shape {f.shape}"
        )
    if np.any((f < 0) | (f > 1)):
        raise ValueError("fragilities must lie in [0, 1]")
    return (1.0 - f).mean(axis=-1)


# -- from probe records ----------------------------------------------------------------


@dataclass
class ModelRows:
    """One model's records as arrays, in record order."""

    conditions: list[str]  # distinct conditions; ``condition`` holds codes into them
    condition: np.ndarray
    sources: list[
        str
    ]  # distinct ``str(source_dataset)`` (benchmarks); ``source`` holds codes into them
    source: np.ndarray
    case: np.ndarray  # an index below n_cases
    n_cases: int
    correct: np.ndarray  # predicted_letter == correct_letter (a parse failure is wrong)
    visreq: np.ndarray  # text_only_answerable is False
    n_shown: (
        np.ndarray
    )  # len(extra.options_shown), 5 without; NaN where not a list (an error for a T2 item)


def _codes(values: Iterable[Any]) -> tuple[list, np.ndarray]:
    """The distinct ``values`` in order of first appearance and each value's index among them."""
    seen: dict[Any, int] = {}
    codes = [seen.setdefault(v, len(seen)) for v in values]
    return list(seen), np.array(codes, dtype=np.int64)


def _rows_of(recs: list[Mapping[str, Any]]) -> ModelRows:
    """The :class:`ModelRows` of one model's record dicts."""
    conditions, condition = _codes(r.get("condition", "default") for r in recs)
    sources, source = _codes(str(r.get("source_dataset")) for r in recs)
    cases, case = _codes(str(r["case_id"]) for r in recs)
    return ModelRows(
        conditions,
        condition,
        sources,
        source,
        case,
        len(cases),
        np.array([r.get("predicted_letter") == r["correct_letter"] for r in recs], dtype=bool),
        np.array([r.get("text_only_answerable") is False for r in recs], dtype=bool),
        np.array([_n_shown(r) for r in recs], dtype=np.float64),
    )


def _n_shown(record: Mapping[str, Any]) -> float:
    shown = (record.get("extra") or {}).get("options_shown") or "ABCDE"
    try:
        return float(len(shown))
    except TypeError:
        return float("nan")


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    conditions: Mapping[str, str] = READINESS_CONDITIONS,
    chance: float | None = None,
    t4_weights: Sequence[float] = T4_WEIGHTS,
    allow_partial: bool = False,
) -> dict[str, dict[str, Any]]:
    """R(m) per model from ``readiness`` probe records.

    Items are ``case_id``s; accuracy (percent) is over a condition's records, a parse failure wrong.
    T1: per ``source_dataset``, image vs text-only, weighted by the image+text items. T2: text-only
    accuracy on the visually-required items against ``chance``. T3-T5: each perturbed condition
    against its base *on the same items*, within the visually-required items when any are flagged
    (the paper's 175 NEJM items). A test whose conditions are absent gives ``None``; ``R`` is then
    ``None`` unless ``allow_partial`` (the mean over the tests present, ``partial`` true; not the
    paper's R).
    """
    by_model: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        if r.get("suite") != "readiness":
            raise ValueError(
                f"record {r.get('probe_id')!r} has suite {r.get('suite')!r}, not 'readiness'"
            )
        by_model.setdefault(str(r["model"]), []).append(r)
    out = {}
    for model, recs in by_model.items():

        def audit(direct: np.ndarray, cot: np.ndarray, recs=recs) -> dict[str, Any]:
            return reasoning_audit(
                [recs[i] for i in np.flatnonzero(direct)], [recs[i] for i in np.flatnonzero(cot)]
            )

        out[model] = model_scores(
            _rows_of(recs),
            audit,
            conditions=conditions,
            chance=chance,
            t4_weights=t4_weights,
            allow_partial=allow_partial,
        )
    return out


def model_scores(
    rows: ModelRows,
    cot_audit: Callable[[np.ndarray, np.ndarray], dict[str, Any]] | None,
    *,
    conditions: Mapping[str, str] = READINESS_CONDITIONS,
    chance: float | None = None,
    t4_weights: Sequence[float] = T4_WEIGHTS,
    allow_partial: bool = False,
) -> dict[str, Any]:
    """:func:`score_records` of one model's :class:`ModelRows`; ``cot_audit(direct, cot)`` gives T6
    from the masks of the base and CoT records (:func:`reasoning_audit`; None: no CoT records)."""
    c = {**READINESS_CONDITIONS, **conditions}
    level = {name: i for i, name in enumerate(rows.conditions)}
    cond = rows.condition
    everywhere = np.ones(rows.n_cases, dtype=bool)
    visreq_ids = _ids(rows, rows.visreq)

    def pick(name: str, within: np.ndarray | None = None) -> np.ndarray:
        mask = cond == level.get(c[name], -1)
        return mask if within is None else mask & within[rows.case]

    def ids(mask: np.ndarray) -> np.ndarray:
        return _ids(rows, mask)

    def accuracy(mask: np.ndarray) -> float:
        n = int(mask.sum())
        return 100.0 * int(rows.correct[mask].sum()) / n if n else float("nan")

    scope = visreq_ids if visreq_ids.any() else everywhere
    acc: dict[str, Any] = {}
    f: dict[str, float | None] = dict.fromkeys(STRESS_TESTS)

    img, text = pick("image"), pick("text")
    bench = {name: i for i, name in enumerate(rows.sources)}
    benches = sorted(
        {rows.sources[i] for i in np.unique(rows.source[img])}
        & {rows.sources[i] for i in np.unique(rows.source[text])}
    )
    if benches:
        a_img = [accuracy(img & (rows.source == bench[b])) for b in benches]
        a_txt = [accuracy(text & (rows.source == bench[b])) for b in benches]
        n_b = [int((img & (rows.source == bench[b])).sum()) for b in benches]
        acc["T1"] = {
            b: {"image": ai, "text": at, "n": n} for b, ai, at, n in zip(benches, a_img, a_txt, n_b)
        }
        f["T1"] = float(fragility_t1(a_img, a_txt, n_b))
    t2_rows = pick("text", visreq_ids)
    if t2_rows.any():
        shown = rows.n_shown[t2_rows]
        if np.isnan(shown).any():
            raise ValueError(
                "extra.options_shown of a visually-required "
                "text-only record must be a list of options"
            )
        c2 = chance if chance is not None else float(np.mean((100.0 / shown).tolist()))
        acc["T2"] = {
            "text_visually_required": accuracy(t2_rows),
            "n": int(t2_rows.sum()),
            "chance": c2,
        }
        f["T2"] = float(fragility_t2(acc["T2"]["text_visually_required"], c2))
    reord = pick("text_reordered", scope)
    if reord.any():
        base = pick("text", ids(reord))
        acc["T3"] = {
            "text_orig": accuracy(base),
            "text_reordered": accuracy(reord),
            "n": int(reord.sum()),
        }
        if base.any():
            f["T3"] = float(fragility_t3(acc["T3"]["text_orig"], acc["T3"]["text_reordered"]))
    img_reord = pick("image_reordered", scope)
    if img_reord.any():  # Ext. Data Table 4 image columns (not in f3)
        acc.setdefault("T3", {}).update(
            image_orig=accuracy(pick("image", ids(img_reord))),
            image_reordered=accuracy(img_reord),
            n_image=int(img_reord.sum()),
        )
    table5 = {}  # Ext. Data Table 5: each variant against its base on the same items
    for mode, base_name in (("text", "text"), ("image", "image")):
        for variant in ("unk", "1r", "2r", "3r", "4r"):
            variant_rows = pick(f"{mode}_{variant}", scope)
            if variant_rows.any():
                table5[f"{mode}_{variant}"] = {
                    "base": accuracy(pick(base_name, ids(variant_rows))),
                    "accuracy": accuracy(variant_rows),
                    "n": int(variant_rows.sum()),
                }
    if table5:
        acc["T4_variants"] = table5
    t4r, i4r, tunk = pick("text_4r", scope), pick("image_4r", scope), pick("text_unk", scope)
    if t4r.any() and i4r.any() and tunk.any():
        tb, ib, tbu = pick("text", ids(t4r)), pick("image", ids(i4r)), pick("text", ids(tunk))
        a = acc["T4"] = {
            "text_base": accuracy(tb),
            "text_4r": accuracy(t4r),
            "image_base": accuracy(ib),
            "image_4r": accuracy(i4r),
            "text_base_unk": accuracy(tbu),
            "text_unk": accuracy(tunk),
        }
        if tb.any() and ib.any() and tbu.any():
            f["T4"] = float(
                fragility_t4(
                    a["text_base"],
                    a["text_4r"],
                    a["image_base"],
                    a["image_4r"],
                    a["text_unk"],
                    a["text_base_unk"],
                    t4_weights,
                )
            )
    subst = pick("image_subst")
    if subst.any():
        orig = pick("image", ids(subst))
        acc["T5"] = {
            "original": accuracy(orig),
            "substituted": accuracy(subst),
            "n": int(subst.sum()),
        }
        if orig.any():
            f["T5"] = float(fragility_t5(acc["T5"]["original"], acc["T5"]["substituted"]))
    cot = pick("cot")
    if cot.any():
        if cot_audit is None:
            raise ValueError("chain-of-thought records need their dicts for T6 (reasoning_audit)")
        acc["T6"] = cot_audit(pick("image", ids(cot)), cot)
    present = [v for v in f.values() if v is not None]
    missing = [t for t, v in f.items() if v is None]
    if not missing:
        R: float | None = float(robustness_score(np.array([f[t] for t in STRESS_TESTS])))
    elif allow_partial and present:
        R = float(np.mean([1.0 - v for v in present]))
    else:
        R = None
    return {
        "accuracies": acc,
        "fragility": f,
        "robustness": {t: (None if v is None else 1.0 - v) for t, v in f.items()},
        "R": R,
        "missing_tests": missing,
        "partial": bool(missing) and R is not None,
    }


def _ids(rows: ModelRows, mask: np.ndarray) -> np.ndarray:
    """The cases (a mask over them) of the records in ``mask``."""
    out = np.zeros(rows.n_cases, dtype=bool)
    out[rows.case[mask]] = True
    return out


# -- T6: reasoning signal ------------------------------------------------------------------

_TAG = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.S | re.I) for name in ("thinking", "answer")
}
_NAMED_LETTER = re.compile(
    r"(?:\(|\b(?:option|answer|choice)\s+)([A-Z])\b|(?<![A-Za-z0-9])([A-Z])(?:[.:)]|$)(?!\w)", re.M
)


def _mentions(text: str, options: Sequence[str]) -> list[tuple[int, str]]:
    """(end position, letter) of every option named in ``text``: a label ("B.", "(B)", "option B")
    or its text."""
    found = []
    for m in _NAMED_LETTER.finditer(text):
        letter = m.group(1) or m.group(2)
        if ord(letter) - 65 < len(options):
            found.append((m.end(), letter))
    found += [(end, letter) for _, end, letter in option_mentions(text, options)]
    return sorted(found)


def parse_cot(response: str, options: Sequence[str]) -> dict[str, Any]:
    """A chain-of-thought answer (Appendix E: ``<thinking>``, ``<answer>``): the first option named
    in ``<answer>`` (without it, the last one in the response), whether both tags are present, and
    the last option the thinking names (``None`` if none)."""
    text = response or ""
    think, answer = (_TAG[n].search(text) for n in ("thinking", "answer"))
    if answer:
        named = _mentions(answer.group(1), options)
        letter = named[0][1] if named else None
    else:
        named = _mentions(text, options)
        letter = named[-1][1] if named else None
    concluded = _mentions(think.group(1), options) if think else []
    return {
        "answer": letter,
        "well_formed": bool(think and answer),
        "thinking_conclusion": concluded[-1][1] if concluded else None,
    }


def _chosen_text(r: Mapping[str, Any]) -> str | None:
    shown = (r.get("extra") or {}).get("options_shown")
    letter = r.get("predicted_letter")
    if letter is None or not shown or ord(letter) - 65 >= len(shown):
        return letter
    return str(shown[ord(letter) - 65])


def reasoning_audit(
    direct: Sequence[Mapping[str, Any]], cot: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """T6 (Sec. 2, Stress Test 6), the measures that need no clinician:

    * ``direct`` / ``cot`` accuracy (%) on the same items and ``cot - direct`` (pp): "does
      explicitly requesting step-by-step reasoning enhance performance";
    * ``answer_change``: share (%) of items whose chosen option (by text) differs between the
      two prompts, split into ``right_to_wrong`` and ``wrong_to_right`` counts;
    * ``well_formed``: share (%) of CoT responses with both tags;
    * ``reasoning_answer_agreement``: among CoT responses whose thinking concludes with an
      option, the share (%) whose final answer is that option (the audit's "alignment with
      final answers", automated; factuality and visual grounding need a manual audit).
    """
    by_case = {str(r["case_id"]): r for r in direct}
    pairs = [(by_case[str(r["case_id"])], r) for r in cot if str(r["case_id"]) in by_case]
    n = len(pairs)
    right = [
        (
            d.get("predicted_letter") == d["correct_letter"],
            c.get("predicted_letter") == c["correct_letter"],
        )
        for d, c in pairs
    ]
    changed = sum(_chosen_text(d) != _chosen_text(c) for d, c in pairs)
    audits = [(c.get("extra") or {}).get("cot") or {} for c in cot]
    concluded = [a for a in audits if a.get("thinking_conclusion") is not None]
    pct = lambda k, m: 100.0 * k / m if m else float("nan")
    acc_direct, acc_cot = pct(sum(a for a, _ in right), n), pct(sum(b for _, b in right), n)
    return {
        "n": n,
        "direct": acc_direct,
        "cot": acc_cot,
        "cot_minus_direct": acc_cot - acc_direct,
        "answer_change": pct(changed, n),
        "right_to_wrong": sum(a and not b for a, b in right),
        "wrong_to_right": sum(b and not a for a, b in right),
        "well_formed": pct(sum(bool(a.get("well_formed")) for a in audits), len(audits)),
        "reasoning_answer_agreement": pct(
            sum(a["thinking_conclusion"] == a.get("answer") for a in concluded), len(concluded)
        ),
        "n_concluded": len(concluded),
        "n_unpaired": len(cot) - n,
    }
