"""Two false-premise (``halluc_trap``) probes per synthetic case, contradicting the image (L1: wrong
modality and region; normal case: absent findings; else the finding on the wrong side, a wrong
finding in place); E corrects it."""

from dataclasses import dataclass

import numpy as np

from medvigil.suites.medvigil.synthetic.plan import CasePlan, pick
from medvigil.suites.medvigil.synthetic.wording import (
    A_NAME,
    MODALITY_NP,
    NAME,
    ORGAN,
    REGION,
    cap,
    other_kinds,
    other_side,
    place,
    zones_of,
)

_TRAP_STYLES = {
    "size": ("How large is {p}?", ("Small", "Moderate", "Large", "Very large")),
    "management": (
        "What is the most appropriate next step for {p}?",
        (
            "Urgent specialist intervention",
            "Follow-up imaging in three months",
            "Routine outpatient referral",
            "No further action",
        ),
    ),
    "age": (
        "How old does {p} appear to be?",
        ("Hyperacute (hours)", "Acute (days)", "Subacute (weeks)", "Chronic (months)"),
    ),
}


@dataclass
class Trap:
    question: str
    options: tuple[str, str, str, str]
    correction: str  # option E
    explanation: str
    key_fact: str


def author_traps(plan: CasePlan, rng: np.random.Generator) -> list[Trap]:
    """The two false-premise probes of a case, drawn from the case's plan stream."""
    if plan.tier == "L1":
        return _whole_image_traps(plan)
    styles = [list(_TRAP_STYLES)[i] for i in rng.choice(len(_TRAP_STYLES), size=2, replace=False)]
    other = pick(rng, other_kinds(plan.asked_kind))
    if plan.finding.is_normal:
        return _absent_finding_traps(plan, styles, other, rng)
    return _misplaced_finding_traps(plan, styles, other)


def _whole_image_traps(plan: CasePlan) -> list[Trap]:
    """L1: a question for the wrong modality and one about the wrong body region."""
    anatomy, modality = plan.scene.anatomy, plan.scene.modality
    if modality == "MRI":
        q1, opts1, wrong = (
            "Which CT reconstruction window is used to display this image?",
            ("Brain window", "Bone window", "Lung window", "Soft-tissue window"),
            "a CT",
        )
    else:
        q1, opts1, wrong = (
            "Which MRI pulse sequence was used to acquire this image?",
            ("T1-weighted", "T2-weighted", "FLAIR", "Diffusion-weighted"),
            "an MRI",
        )
    region = REGION[anatomy].lower()
    return [
        Trap(
            q1,
            opts1,
            f"The premise is incorrect: this is {MODALITY_NP[modality]} image, not {wrong}.",
            f"False premise: the question presumes {wrong} "
            f"image; the image is {MODALITY_NP[modality]}.",
            f"{MODALITY_NP[modality]} image",
        ),
        Trap(
            "Which abdominal organ is enlarged on this image?",
            ("Liver", "Spleen", "Left kidney", "Pancreas"),
            f"The premise is incorrect: this image shows the {region}, not the abdomen.",
            f"False premise: the question presumes an abdominal "
            f"image; the image shows the {region}.",
            f"the image shows the {region}",
        ),
    ]


def _absent_finding_traps(
    plan: CasePlan, styles: list, other: str, rng: np.random.Generator
) -> list[Trap]:
    """A normal case: the asked-about finding and another one, each placed at a drawn side and
    zone."""
    anatomy, kind = plan.scene.anatomy, plan.asked_kind
    side, zone = pick(rng, ("right", "left")), pick(rng, zones_of(anatomy))
    side2, zone2 = pick(rng, ("right", "left")), pick(rng, zones_of(anatomy))
    organ = ORGAN[anatomy]
    verb = "appear" if anatomy == "chest" else "appears"
    traps = []
    for style, k, (s, z) in ((styles[0], kind, (side, zone)), (styles[1], other, (side2, zone2))):
        premise = f"the {NAME[k]} in the {place(anatomy, s, z)}"
        q, opts = _TRAP_STYLES[style]
        traps.append(
            Trap(
                cap(q.format(p=premise)),
                opts,
                f"The premise is incorrect: there is no {NAME[k]}; the {organ} {verb} normal.",
                f"False premise: the question presumes {A_NAME[k]} in the "
                f"{place(anatomy, s, z)}; the {organ} {verb} normal on the image.",
                f"no {NAME[k]}",
            )
        )
    return traps


def _misplaced_finding_traps(plan: CasePlan, styles: list, other: str) -> list[Trap]:
    """A case with a finding: the finding on the wrong side, and a wrong finding at the right
    place."""
    anatomy, f, kind = plan.scene.anatomy, plan.finding, plan.asked_kind
    loc = place(anatomy, f.side, f.zone)
    mirror = place(anatomy, other_side(f.side), f.zone)
    q, opts = _TRAP_STYLES[styles[0]]
    wrong_side = Trap(
        cap(q.format(p=f"the {NAME[kind]} in the {mirror}")),
        opts,
        f"The premise is incorrect: the {NAME[kind]} is in the {loc}, not the {mirror}.",
        f"False premise (wrong side): the question places the {NAME[kind]} "
        f"in the {mirror}; the image shows it in the {loc}.",
        f"{NAME[kind]} in the {loc}",
    )
    q, opts = _TRAP_STYLES[styles[1]]
    wrong_finding = Trap(
        cap(q.format(p=f"the {NAME[other]} in the {loc}")),
        opts,
        f"The premise is incorrect: there is no {NAME[other]}; "
        f"the finding is {A_NAME[kind]} in the {loc}.",
        f"False premise (wrong finding): the question presumes {A_NAME[other]}; "
        f"the image shows {A_NAME[kind]} in the {loc}.",
        f"{NAME[kind]} in the {loc}",
    )
    return [wrong_side, wrong_finding]
