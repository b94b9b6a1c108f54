"""Wording shared by synthetic question, trap and probe authoring; sides are the patient's (right =
image left)."""

from medvigil.suites.medvigil.synthetic.phantom_scene import (
    CHEST_KINDS,
    CHEST_ZONES,
    HEAD_KINDS,
    HEAD_ZONES,
)

# finding kind -> (name, with its article, plural)
_NAMES = {
    "nodule": ("pulmonary nodule", "a pulmonary nodule", "pulmonary nodules"),
    "consolidation": ("consolidation", "an area of consolidation", "areas of consolidation"),
    "effusion": ("pleural effusion", "a pleural effusion", "pleural effusions"),
    "pneumothorax": ("pneumothorax", "a pneumothorax", "pneumothoraces"),
    "haemorrhage": (
        "intracranial haemorrhage",
        "an intracranial haemorrhage",
        "intracranial haemorrhages",
    ),
    "infarct": ("infarct", "an infarct", "infarcts"),
    "mass": ("intracranial mass", "an intracranial mass", "intracranial masses"),
}
NAME = {kind: names[0] for kind, names in _NAMES.items()}
A_NAME = {kind: names[1] for kind, names in _NAMES.items()}
PLURAL = {kind: names[2] for kind, names in _NAMES.items()}
TITLE = {k: v[0].upper() + v[1:] for k, v in NAME.items()}
STUDY = {"X-ray": "chest radiograph", "CT": "head CT", "MRI": "brain MRI"}
MODALITY_ANSWER = {"X-ray": "X-ray (plain radiograph)", "CT": "CT", "MRI": "MRI"}
MODALITY_NP = {"X-ray": "a plain radiograph (X-ray)", "CT": "a CT", "MRI": "an MRI"}
REGION = {"chest": "Chest", "head": "Head"}
ORGAN = {"chest": "lungs", "head": "brain"}
HALF = {"chest": "lung", "head": "hemisphere"}
TISSUE = {"chest": "lung", "head": "brain"}

_APPEARANCE_WORDS = {
    "X-ray": ("more opaque", "more lucent"),
    "CT": ("hyperdense", "hypodense"),
    "MRI": ("hyperintense", "hypointense"),
}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def other_side(side: str) -> str:
    return "left" if side == "right" else "right"


def zone_word(anatomy: str, zone: str) -> str:
    return f"{zone} zone" if anatomy == "chest" else f"{zone} lobe"


def place(anatomy: str, side: str, zone: str) -> str:
    """``right upper zone`` (chest) or ``left frontal lobe`` (head)."""
    return f"{side} {zone_word(anatomy, zone)}"


def zones_of(anatomy: str) -> tuple:
    return CHEST_ZONES if anatomy == "chest" else HEAD_ZONES


def other_kinds(kind: str) -> list:
    kinds = CHEST_KINDS if kind in CHEST_KINDS else HEAD_KINDS
    return [k for k in kinds if k != kind]


def appearance_phrase(modality: str, bright: bool, anatomy: str) -> str:
    word = _APPEARANCE_WORDS[modality][0 if bright else 1]
    return f"{'Brighter' if bright else 'Darker'} ({word}) than the surrounding {TISSUE[anatomy]}"


def answer_variants(answer: str) -> list:
    """The gold plus simple equivalent wordings for relaxed open-ended scoring."""
    extra = {
        "Yes": ["Present", "Yes, it is present"],
        "No": ["Absent", "No, it is not present"],
        "Right side": ["Right", "The patient's right"],
        "Left side": ["Left", "The patient's left"],
        "CT": ["Computed tomography", "CT scan"],
        "MRI": ["Magnetic resonance imaging", "MR"],
        "X-ray (plain radiograph)": ["X-ray", "Radiograph"],
    }
    return [answer] + extra.get(answer, [])
