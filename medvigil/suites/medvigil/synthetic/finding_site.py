"""Where the asked-about finding is (drawn for a normal case) and the texts every finding template
shares: its rationale and differential diagnosis."""

import numpy as np

from medvigil.suites.medvigil.synthetic.phantom_scene import BRIGHT
from medvigil.suites.medvigil.synthetic.plan import pick
from medvigil.suites.medvigil.synthetic.question_types import Asked, Site
from medvigil.suites.medvigil.synthetic.wording import (
    HALF,
    NAME,
    TITLE,
    appearance_phrase,
    cap,
    other_side,
    place,
    zones_of,
)

DIFFERENTIAL = {
    "nodule": ["granuloma", "primary lung carcinoma", "pulmonary metastasis", "hamartoma"],
    "consolidation": [
        "bacterial pneumonia",
        "aspiration",
        "pulmonary haemorrhage",
        "organising pneumonia",
    ],
    "effusion": [
        "transudative effusion",
        "parapneumonic effusion",
        "haemothorax",
        "malignant effusion",
    ],
    "pneumothorax": [
        "primary spontaneous pneumothorax",
        "traumatic pneumothorax",
        "skin fold",
        "bulla",
    ],
    "haemorrhage": [
        "hypertensive haemorrhage",
        "amyloid angiopathy",
        "haemorrhagic metastasis",
        "contusion",
    ],
    "infarct": ["acute ischaemic stroke", "cerebritis", "low-grade glioma", "demyelination"],
    "mass": ["glioblastoma", "metastasis", "cerebral abscess", "lymphoma"],
}


def finding_site(a: Asked, rng: np.random.Generator) -> Site:
    """The finding's side and zone (drawn for a normal case) and the texts every finding template
    shares."""
    f, anatomy, kind = a.plan.finding, a.anatomy, a.kind
    bright = BRIGHT[(a.modality, kind)]
    if f.is_normal:
        side, zone = pick(rng, ("right", "left")), pick(rng, zones_of(anatomy))
    else:
        side, zone = f.side, f.zone
    loc = place(anatomy, side, zone)
    look = appearance_phrase(a.modality, bright, anatomy).lower()
    rationale = (
        f"{TITLE[kind]} in the {loc}: a region {look} (the patient's {side} "
        f"is on the image {'left' if side == 'right' else 'right'} by radiological "
        f"convention); the contralateral side is normal."
        if not f.is_normal
        else f"No {NAME[kind]}: both {HALF[anatomy]}s appear normal and symmetric."
    )
    differential = (
        DIFFERENTIAL[kind]
        if not f.is_normal
        else [f"normal {a.study}", f"subtle {NAME[kind]}", f"early {NAME[a.other]}"]
    )
    return Site(
        side,
        zone,
        loc,
        place(anatomy, other_side(side), zone),
        bright,
        rationale,
        differential,
        cap(side) + " side",
        cap(other_side(side)) + " side",
    )
