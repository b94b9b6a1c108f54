"""Illusion of Readiness: R(m) per model from a run's probe records (Gu et al., seed 003,
Appendix A), with the accuracies behind each fragility.

Items are ``case_id``s; accuracy (percent) is over a condition's records, a parse failure wrong.
Each stress test reads the conditions of :data:`READINESS_CONDITIONS` (one per arm of
:mod:`medvigil.suites.readiness.docs`) and gives its fragility by
:mod:`medvigil.suites.readiness.fragility`; T6 is :mod:`medvigil.suites.readiness.reasoning`.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from medvigil.suites.readiness.fragility import (
    STRESS_TESTS,
    T4_WEIGHTS,
    fragility_t1,
    fragility_t2,
    fragility_t3,
    fragility_t4,
    fragility_t5,
    robustness_score,
)
from medvigil.suites.readiness.reasoning import reasoning_audit

__all__ = ["READINESS_CONDITIONS", "ModelRows", "model_rows", "model_scores", "score_records"]

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


def model_rows(recs: list[Mapping[str, Any]]) -> ModelRows:
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
            model_rows(recs),
            audit,
            conditions=conditions,
            chance=chance,
            t4_weights=t4_weights,
            allow_partial=allow_partial,
        )
    return out


@dataclass(frozen=True)
class _Arms:
    """One model's records picked by arm: masks over the records and accuracies of masks."""

    rows: ModelRows
    conditions: Mapping[str, str]  # arm name -> record condition
    level: Mapping[str, int]  # record condition -> its code in ``rows.condition``

    def pick(self, name: str, within: np.ndarray | None = None) -> np.ndarray:
        """The records of arm ``name`` (of the cases in ``within``, a mask over the cases)."""
        mask = self.rows.condition == self.level.get(self.conditions[name], -1)
        return mask if within is None else mask & within[self.rows.case]

    def ids(self, mask: np.ndarray) -> np.ndarray:
        return _ids(self.rows, mask)

    def accuracy(self, mask: np.ndarray) -> float:
        n = int(mask.sum())
        return 100.0 * int(self.rows.correct[mask].sum()) / n if n else float("nan")


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
    arms = _Arms(
        rows,
        {**READINESS_CONDITIONS, **conditions},
        {name: i for i, name in enumerate(rows.conditions)},
    )
    visreq_ids = _ids(rows, rows.visreq)
    scope = visreq_ids if visreq_ids.any() else np.ones(rows.n_cases, dtype=bool)
    acc: dict[str, Any] = {}
    f: dict[str, float | None] = dict.fromkeys(STRESS_TESTS)
    _t1(arms, acc, f)
    _t2(arms, visreq_ids, chance, acc, f)
    _t3(arms, scope, acc, f)
    _t4_variants(arms, scope, acc)
    _t4(arms, scope, t4_weights, acc, f)
    _t5(arms, acc, f)
    cot = arms.pick("cot")
    if cot.any():
        if cot_audit is None:
            raise ValueError("chain-of-thought records need their dicts for T6 (reasoning_audit)")
        acc["T6"] = cot_audit(arms.pick("image", arms.ids(cot)), cot)
    return _summary(acc, f, allow_partial)


def _t1(arms: _Arms, acc: dict[str, Any], f: dict[str, float | None]) -> None:
    """T1: image vs text-only accuracy per benchmark present in both arms."""
    rows = arms.rows
    img, text = arms.pick("image"), arms.pick("text")
    bench = {name: i for i, name in enumerate(rows.sources)}
    benches = sorted(
        {rows.sources[i] for i in np.unique(rows.source[img])}
        & {rows.sources[i] for i in np.unique(rows.source[text])}
    )
    if not benches:
        return
    a_img = [arms.accuracy(img & (rows.source == bench[b])) for b in benches]
    a_txt = [arms.accuracy(text & (rows.source == bench[b])) for b in benches]
    n_b = [int((img & (rows.source == bench[b])).sum()) for b in benches]
    acc["T1"] = {
        b: {"image": ai, "text": at, "n": n} for b, ai, at, n in zip(benches, a_img, a_txt, n_b)
    }
    f["T1"] = float(fragility_t1(a_img, a_txt, n_b))


def _t2(
    arms: _Arms,
    visreq_ids: np.ndarray,
    chance: float | None,
    acc: dict[str, Any],
    f: dict[str, float | None],
) -> None:
    """T2: text-only accuracy on the visually-required items against chance."""
    t2_rows = arms.pick("text", visreq_ids)
    if not t2_rows.any():
        return
    shown = arms.rows.n_shown[t2_rows]
    if np.isnan(shown).any():
        raise ValueError(
            "extra.options_shown of a visually-required text-only record must be a list of options"
        )
    c2 = chance if chance is not None else float(np.mean((100.0 / shown).tolist()))
    acc["T2"] = {
        "text_visually_required": arms.accuracy(t2_rows),
        "n": int(t2_rows.sum()),
        "chance": c2,
    }
    f["T2"] = float(fragility_t2(acc["T2"]["text_visually_required"], c2))


def _t3(arms: _Arms, scope: np.ndarray, acc: dict[str, Any], f: dict[str, float | None]) -> None:
    """T3: text-only accuracy reordered vs its base on the same items; the image columns of Ext.
    Data Table 4 beside it (not in f3)."""
    reord = arms.pick("text_reordered", scope)
    if reord.any():
        base = arms.pick("text", arms.ids(reord))
        acc["T3"] = {
            "text_orig": arms.accuracy(base),
            "text_reordered": arms.accuracy(reord),
            "n": int(reord.sum()),
        }
        if base.any():
            f["T3"] = float(fragility_t3(acc["T3"]["text_orig"], acc["T3"]["text_reordered"]))
    img_reord = arms.pick("image_reordered", scope)
    if img_reord.any():
        acc.setdefault("T3", {}).update(
            image_orig=arms.accuracy(arms.pick("image", arms.ids(img_reord))),
            image_reordered=arms.accuracy(img_reord),
            n_image=int(img_reord.sum()),
        )


def _t4_variants(arms: _Arms, scope: np.ndarray, acc: dict[str, Any]) -> None:
    """Ext. Data Table 5: each UNK / nR variant against its base on the same items."""
    table5 = {}
    for mode, base_name in (("text", "text"), ("image", "image")):
        for variant in ("unk", "1r", "2r", "3r", "4r"):
            variant_rows = arms.pick(f"{mode}_{variant}", scope)
            if variant_rows.any():
                table5[f"{mode}_{variant}"] = {
                    "base": arms.accuracy(arms.pick(base_name, arms.ids(variant_rows))),
                    "accuracy": arms.accuracy(variant_rows),
                    "n": int(variant_rows.sum()),
                }
    if table5:
        acc["T4_variants"] = table5


def _t4(
    arms: _Arms,
    scope: np.ndarray,
    t4_weights: Sequence[float],
    acc: dict[str, Any],
    f: dict[str, float | None],
) -> None:
    """T4: text 4R, image 4R and text UNK, each against its base on the same items."""
    t4r, i4r = arms.pick("text_4r", scope), arms.pick("image_4r", scope)
    tunk = arms.pick("text_unk", scope)
    if not (t4r.any() and i4r.any() and tunk.any()):
        return
    tb, ib = arms.pick("text", arms.ids(t4r)), arms.pick("image", arms.ids(i4r))
    tbu = arms.pick("text", arms.ids(tunk))
    a = acc["T4"] = {
        "text_base": arms.accuracy(tb),
        "text_4r": arms.accuracy(t4r),
        "image_base": arms.accuracy(ib),
        "image_4r": arms.accuracy(i4r),
        "text_base_unk": arms.accuracy(tbu),
        "text_unk": arms.accuracy(tunk),
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


def _t5(arms: _Arms, acc: dict[str, Any], f: dict[str, float | None]) -> None:
    """T5: the substituted arm against the image arm on the same items."""
    subst = arms.pick("image_subst")
    if not subst.any():
        return
    orig = arms.pick("image", arms.ids(subst))
    acc["T5"] = {
        "original": arms.accuracy(orig),
        "substituted": arms.accuracy(subst),
        "n": int(subst.sum()),
    }
    if orig.any():
        f["T5"] = float(fragility_t5(acc["T5"]["original"], acc["T5"]["substituted"]))


def _summary(
    acc: dict[str, Any], f: dict[str, float | None], allow_partial: bool
) -> dict[str, Any]:
    """R(m) from the fragilities (the mean over the tests present with ``allow_partial``)."""
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
