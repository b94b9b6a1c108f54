"""The L1 question templates (modality, region): they ask about the whole image, true by
construction."""

from collections.abc import Callable

import numpy as np

from medvigil.suites.medvigil.synthetic.question_types import QA, Asked, Authored
from medvigil.suites.medvigil.synthetic.wording import MODALITY_ANSWER, MODALITY_NP, REGION

_MODALITY_POOL = ("X-ray (plain radiograph)", "CT", "MRI", "Ultrasound", "PET")
_REGION_POOL = ("Chest", "Head", "Abdomen", "Pelvis", "Knee")


def _three_of(rng: np.random.Generator, pool: tuple, gold: str) -> tuple[str, ...]:
    """Three pool entries other than ``gold``, in pool order."""
    rest = [x for x in pool if x != gold]
    return tuple(rest[i] for i in sorted(rng.choice(len(rest), size=3, replace=False)))


def _ask_modality(a: Asked, rng: np.random.Generator) -> Authored:
    modality = a.modality
    view = "frontal" if a.anatomy == "chest" else "axial"
    gold = MODALITY_ANSWER[modality]
    distractors = _three_of(rng, _MODALITY_POOL, gold)
    cue = {
        "X-ray": "a projection image of the whole thorax with "
        "overlapping ribs, spine and mediastinum",
        "CT": "an axial slice with very bright bone and dark cerebrospinal fluid",
        "MRI": "an axial slice with dark cortical bone, bright scalp "
        "fat and bright cerebrospinal fluid (T2-weighted)",
    }[modality]
    return Authored(
        original=QA(
            f"What imaging modality was used to acquire this {view} image?", gold, distractors
        ),
        tcf_question=f"Which imaging technique produced this {view} image?",
        negation=QA(
            f"Is it true that this image was not acquired with {gold}?",
            f"No, it was acquired with {gold}",
            tuple(f"Yes, it was acquired with {d}" for d in distractors),
        ),
        sdrop_question="What imaging modality was used to acquire this image?",
        roi=(0.0, 0.0, 1.0, 1.0),
        rationale=f"The image is {cue}, which identifies it as {MODALITY_NP[modality]}.",
        differential=list(_MODALITY_POOL[:3]),
    )


def _ask_region(a: Asked, rng: np.random.Generator) -> Authored:
    anatomy = a.anatomy
    gold = REGION[anatomy]
    distractors = _three_of(rng, _REGION_POOL, gold)
    what = "frontal radiograph" if anatomy == "chest" else f"axial {a.modality} slice"
    return Authored(
        original=QA(f"What part of the body does this {what} show?", gold, distractors),
        tcf_question=f"Which body region is shown in this {what}?",
        negation=QA(
            f"Is it true that this {what} does not show the {gold.lower()}?",
            f"No, it shows the {gold.lower()}",
            tuple(f"Yes, it shows the {d.lower()}" for d in distractors),
        ),
        sdrop_question="What part of the body does this image show?",
        roi=a.phantom.body_box,
        rationale=f"The image shows the {gold.lower()}: "
        + (
            "both lungs, ribs, the mediastinum and the heart."
            if anatomy == "chest"
            else "the skull vault, both cerebral hemispheres and the lateral ventricles."
        ),
        differential=list(_REGION_POOL[:3]),
        # 'radiograph' alone makes 'chest' the likely answer; an axial slice could be anywhere
        text_only=anatomy == "chest",
    )


WHOLE_IMAGE: dict[str, Callable[[Asked, np.random.Generator], Authored]] = {
    "modality": _ask_modality,
    "region": _ask_region,
}
