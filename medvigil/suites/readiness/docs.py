"""Illusion of Readiness docs (Gu et al., seed 003): the arms T1-T6, their prompt and the docs each
arm asks of the ``original`` probe rows.

The lmms-eval task pack ``tasks/readiness`` asks one *arm* per task; each arm is one record
condition of :data:`medvigil.suites.readiness.scoring.READINESS_CONDITIONS` and one perturbation
of :mod:`medvigil.suites.readiness.perturbation`:

============================  =========================  ===========================================
task                          condition                  items, perturbation (paper section)
============================  =========================  ===========================================
readiness_img                 default                    all, image + text, base order (T1, T3-T5)
readiness_text                noimg                      all, image removed, base order (T1-T4)
readiness_{text,img}_reord    noimg|default:shuffled     visually required, options reordered (T3)
readiness_{text,img}_{n}r     ...:distractors_{n}r       visually required, n = 1..4 distractors
                                                         replaced (T4)
readiness_{text,img}_unk      ...:unknown                visually required, one distractor ->
                                                         "Unknown" (T4)
readiness_img_subst           visual_substitution        visually required with a donor, another
                                                         case's image (T5)
readiness_cot                 default:cot                visually required, image + text, CoT
                                                         prompt (T6)
============================  =========================  ===========================================

* **Prompts** (Appendix E, "Multiple Choice Prompt" and "... with CoT"), verbatim, the one user turn
  after the image, no system message (:func:`mc_prompt`); a line break inside a sentence of the
  code blocks is the page's wrap (a space), one between sentences is kept.
* **Base order**: ``balanced`` (default) or ``source`` (the task pack: ``READINESS_BASE``,
  :func:`base_setting`; every record's ``extra.base`` says which).
* **T6** asks the CoT prompt on the image + text items
  (:func:`medvigil.suites.readiness.reasoning.reasoning_audit` compares it with the base arm).

Records carry *displayed* letters (what the model saw); the permutation and replaced texts are in
``extra``.
"""

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from medvigil.suites.readiness.perturbation import (
    ALPHABET,
    BASES,
    MAX_REPLACED,
    SEED,
    balanced_positions,
    base_order,
    check_row,
    in_scope,
    insert_unknown,
    option_pool,
    reorder,
    replace_distractors,
    substituted,
    substitution_donors,
)
from medvigil.suites.readiness.scoring import READINESS_CONDITIONS

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
BASE_ENV = "READINESS_BASE"

__all__ = ["ARMS", "Arm", "arm_docs", "arm_spec", "base_setting", "mc_prompt"]


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


def arm_spec(arm: str) -> Arm:
    """The :class:`Arm` of a task name; an error naming the available ones."""
    if arm not in ARMS:
        raise ValueError(f"unknown readiness arm {arm!r}; available: {', '.join(ARMS)}")
    return ARMS[arm]


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


def base_setting(env: Mapping[str, str] | None = None) -> str:
    """The task pack's base order, ``READINESS_BASE``: ``balanced`` (default) or ``source``
    (:data:`medvigil.suites.readiness.perturbation.BASES`).

    >>> base_setting({}), base_setting({"READINESS_BASE": "source"})
    ('balanced', 'source')
    """
    value = ((os.environ if env is None else env).get(BASE_ENV) or "balanced").strip()
    if value not in BASES:
        raise ValueError(f"{BASE_ENV} must be one of {', '.join(BASES)}, got {value!r}")
    return value


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
    whose image the doc shows). ``base``, ``keep_safe``, ``donor_match``: the variants of
    :mod:`medvigil.suites.readiness.perturbation` (defaults: the paper's, with the base order's gold
    letters balanced over all the ``original`` rows given).
    """
    spec = arm_spec(arm)
    originals = [(i, r) for i, r in enumerate(rows) if r.get("probe_kind") == "original"]
    for _, row in originals:
        check_row(row)
    gold_at = balanced_positions(rows, seed) if base == "balanced" else {}

    def change_of(row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        return _change(spec, row, seed, base, keep_safe, gold_at.get(str(row["probe_id"])), **extra)

    if spec.perturbation == "substitution":
        donors, _ = substitution_donors(rows, seed, donor_match)
        return [
            (
                i,
                _overrides(
                    arm, rows[i], {**change_of(rows[i], donor=rows[j]), "donor_row": j}, seed, base
                ),
            )
            for i, j in donors.items()
        ]
    pools = _pools(originals) if spec.perturbation == "replace" else {}
    t5_items = (
        set(substitution_donors(rows, seed, donor_match)[0]) if arm == "readiness_img" else set()
    )
    out = []
    for i, row in originals:
        if not in_scope(row, spec.scope):
            continue
        change = change_of(row, pool=pools.get(row.get("source_dataset")))
        if arm == "readiness_img":  # T5's original accuracy is read on the items T5 asks
            change = {**change, "t5_item": i in t5_items}
        out.append((i, _overrides(arm, row, change, seed, base)))
    return out


def _pools(originals: Sequence[tuple[int, Mapping[str, Any]]]) -> dict[Any, dict[str, set[str]]]:
    """The T4 replacement pool of every source dataset (:func:`option_pool`)."""
    return {
        source: option_pool(r for _, r in originals if r.get("source_dataset") == source)
        for source in {r.get("source_dataset") for _, r in originals}
    }


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
        return substituted(row, donor, seed, base, gold_at)
    if spec.perturbation == "reorder":
        return reorder(row, seed, base, gold_at)
    if spec.perturbation == "replace":
        return replace_distractors(row, pool or {}, spec.n_replaced, seed, base, keep_safe, gold_at)
    if spec.perturbation == "unknown":
        return insert_unknown(row, seed, base, keep_safe, gold_at)
    return base_order(row, seed, base, gold_at)


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
