"""The L2-L5 question templates: each asks about the case's finding (side, location, zone,
presence, kind, size, appearance, urgency), true by construction."""

from collections.abc import Callable

import numpy as np

from medvigil.suites.medvigil.synthetic.phantom_scene import BRIGHT, HEAD_ZONES
from medvigil.suites.medvigil.synthetic.plan import pick
from medvigil.suites.medvigil.synthetic.question_types import QA, Asked, Authored, Site
from medvigil.suites.medvigil.synthetic.wording import (
    A_NAME,
    NAME,
    ORGAN,
    PLURAL,
    TISSUE,
    TITLE,
    appearance_phrase,
    cap,
    other_side,
    place,
    zone_word,
    zones_of,
)


def _yes_no_distractors(gold: str, other: str) -> tuple[str, str, str]:
    """Three false options for a presence question whose gold is Yes/No (single unilateral
    lesion)."""
    return (
        "No" if gold == "Yes" else "Yes",
        "Yes, on both sides",
        f"No, but {A_NAME[other]} is present",
    )


def _ask_side(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    k_name, study, organ = NAME[a.kind], a.study, ORGAN[a.anatomy]
    return Authored(
        original=QA(
            f"On which side of the patient is the {k_name} on this {study}?",
            s.side_title,
            (s.other_side_title, "Both sides", "Midline"),
        ),
        tcf_question=f"Which side of the patient's {organ} contains the {k_name}?",
        negation=QA(
            f"Which side of the patient's {organ} is free of the {k_name}?",
            s.other_side_title,
            (s.side_title, "Neither side", "Both sides"),
        ),
        sdrop_question=f"On which side of the patient is the abnormality on this {study}?",
        lat_dependent=True,
        gold_after_flip=s.other_side_title,
        vcf=(
            f"Hypothetically, if the {k_name} were on the patient's {other_side(s.side)} "
            f"side instead, on which side of the patient would it be?",
            s.other_side_title,
        ),
    )


def _ask_location(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    anatomy, k_name, loc, mirror = a.anatomy, NAME[a.kind], s.loc, s.mirror
    other_zone = pick(rng, [z for z in zones_of(anatomy) if z != s.zone])
    same_side_other = place(anatomy, s.side, other_zone)
    other_other = place(anatomy, other_side(s.side), other_zone)
    where = "zone of the lungs" if anatomy == "chest" else "lobe of the brain"
    distractors = (cap(mirror), cap(same_side_other), cap(other_other))
    return Authored(
        original=QA(f"In which {where} is the {k_name} located?", cap(loc), distractors),
        tcf_question=f"Where on this {a.study} is the {k_name} located?",
        negation=QA(
            f"Is the {k_name} located outside the {loc}?",
            f"No, it is in the {loc}",
            tuple(f"Yes, it is in the {d.lower()}" for d in distractors),
        ),
        sdrop_question=f"In which {where} is the abnormality located?",
        lat_dependent=True,
        gold_after_flip=cap(mirror),
        vcf=(
            f"Hypothetically, if the {k_name} were in the {mirror} "
            f"instead, in which {where} would it be located?",
            cap(mirror),
        ),
    )


def _ask_zone(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    anatomy, k_name, zone = a.anatomy, NAME[a.kind], s.zone
    gold = cap(zone_word(anatomy, zone))
    if anatomy == "chest":
        other_zone = "lower" if zone == "upper" else "upper"
        distractors = (
            cap(zone_word(anatomy, other_zone)),
            "Middle zone",
            "Both upper and lower zones",
        )
        negated = (
            f"Yes, it is in the {other_zone} zone",
            "Yes, it is in the middle zone",
            "Yes, it spans both the upper and lower zones",
        )
        q = f"Is the {k_name} in the upper or the lower zone of the lung?"
        tcf = f"Which lung zone does the {k_name} occupy?"
        sdrop = "Is the abnormality in the upper or the lower zone of the lung?"
    else:
        rest = [z for z in HEAD_ZONES if z != zone]
        other_zone = pick(rng, rest)
        distractors = tuple(cap(zone_word(anatomy, z)) for z in rest) + ("Cerebellum",)
        negated = tuple(f"Yes, it is in the {d.lower()}" for d in distractors)
        q = f"Which lobe of the brain contains the {k_name}?"
        tcf = f"In which cerebral lobe is the {k_name}?"
        sdrop = "Which lobe of the brain contains the abnormality?"
    zone_np = zone_word(anatomy, zone)
    return Authored(
        original=QA(q, gold, distractors),
        tcf_question=tcf,
        negation=QA(
            f"Is the {k_name} outside the {zone_np}?", f"No, it is in the {zone_np}", negated
        ),
        sdrop_question=sdrop,
        vcf=(
            f"Hypothetically, if the {k_name} were in the {zone_word(anatomy, other_zone)} "
            f"instead, where would it be?",
            cap(zone_word(anatomy, other_zone)),
        ),
    )


def _ask_presence(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    f, kind, study = a.plan.finding, a.kind, a.study
    k_name, k_a = NAME[kind], A_NAME[kind]
    zone_pl = f"{s.zone} zones" if a.anatomy == "chest" else f"{s.zone} lobes"
    evidence = "evidence of " if a.plan.tier == "L5" else ""
    gold = "No" if f.is_normal else "Yes"
    inv = "Yes" if f.is_normal else "No"
    if f.is_normal:
        vcf = (
            f"Hypothetically, if {k_a} were present in the {s.loc}, "
            f"would there be {k_a} in the {zone_pl} on this {study}?",
            "Yes",
        )
    else:
        vcf = (
            f"Hypothetically, if no {k_name} were present, would there be {k_a} in the {zone_pl} "
            f"on this {study}?",
            "No",
        )
    return Authored(
        original=QA(
            f"Is there {evidence}{k_a} in the {zone_pl} on this {study}?",
            gold,
            _yes_no_distractors(gold, a.other),
        ),
        tcf_question=f"Does this {study} show {k_a} in the {zone_pl}?",
        negation=QA(
            f"Are the {zone_pl} on this {study} free of any {k_name}?",
            inv,
            (
                "No" if inv == "Yes" else "Yes",
                f"No, there are {PLURAL[kind]} on both sides",
                f"Yes, but {A_NAME[a.other]} is present",
            ),
        ),
        sdrop_question=f"Is there {evidence}{k_a} on this {study}?",
        roi=a.phantom.organ_box if f.is_normal else None,
        vcf=vcf,
    )


def _ask_presence_side(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    kind, study, loc = a.kind, a.study, s.loc
    k_name, k_a = NAME[kind], A_NAME[kind]
    evidence = "evidence of " if a.plan.tier == "L5" else ""
    return Authored(
        original=QA(
            f"Is there {evidence}{k_a} in the {loc} on this {study}?",
            "Yes",
            _yes_no_distractors("Yes", a.other),
        ),
        tcf_question=f"Does this {study} show {k_a} in the {loc}?",
        negation=QA(
            f"Is the {loc} on this {study} free of any {k_name}?",
            "No",
            (
                "Yes",
                f"No, there are {PLURAL[kind]} on both sides",
                f"Yes, but {A_NAME[a.other]} is present",
            ),
        ),
        sdrop_question=f"Is there {evidence}{k_a} on the {s.side} side on this {study}?",
        lat_dependent=True,
        gold_after_flip="No",
        vcf=(
            f"Hypothetically, if the {k_name} were in the {s.mirror} "
            f"instead, would there be {k_a} in the {loc}?",
            "No",
        ),
    )


def _ask_kind(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    others, study, k_a = a.others, a.study, A_NAME[a.kind]
    pool = [TITLE[k] for k in others] + (["Hydrocephalus"] if a.anatomy == "head" else [])
    return Authored(
        original=QA(
            f"What is the most likely finding in the {ORGAN[a.anatomy]} on this {study}?",
            TITLE[a.kind],
            tuple(pool[:3]),
        ),
        tcf_question=f"Which abnormality is shown on this {study}?",
        negation=QA(
            f"Is the main finding on this {study} something other than {k_a}?",
            f"No, it is {k_a}",
            tuple(f"Yes, it is {A_NAME[k]}" for k in others[:2])
            + (
                (f"Yes, it is {A_NAME[others[2]]}",)
                if len(others) > 2
                else ("Yes, it is hydrocephalus",)
            ),
        ),
        sdrop_question=f"What is the most likely finding on this {study}?",
        vcf=(
            f"Hypothetically, if the abnormality were {A_NAME[a.other]} "
            f"rather than {k_a}, what would be the most likely finding?",
            TITLE[a.other],
        ),
    )


def _ask_size(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    size, k_name, study = a.plan.finding.size, NAME[a.kind], a.study
    gold = cap(size)
    other_size = "Large" if size == "small" else "Small"
    distractors = (other_size, "Moderate", f"Very large, filling most of the {ORGAN[a.anatomy]}")
    return Authored(
        original=QA(f"How large is the {k_name} on this {study}?", gold, distractors),
        tcf_question=f"What is the size of the {k_name} on this {study}?",
        negation=QA(
            f"Is it false that the {k_name} is {size}?",
            f"No, it is {size}",
            tuple(f"Yes, it is {d[:1].lower() + d[1:]}" for d in distractors),
        ),
        sdrop_question=f"How large is the abnormality on this {study}?",
        vcf=(
            f"Hypothetically, if the {k_name} were {other_size.lower()} "
            f"instead, how large would it be?",
            other_size,
        ),
    )


def _ask_appearance(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    anatomy, modality, bright, k_name = a.anatomy, a.modality, s.bright, NAME[a.kind]
    tissue = TISSUE[anatomy]
    gold = appearance_phrase(modality, bright, anatomy)
    opposite = appearance_phrase(modality, not bright, anatomy)
    same = f"The same brightness as the surrounding {tissue}"
    bands = "Alternating bright and dark bands"
    opp_kind = pick(rng, [k for k in a.others if BRIGHT[(modality, k)] != bright])
    what = {
        "X-ray": "chest radiograph",
        "CT": "non-contrast head CT",
        "MRI": "T2-weighted brain MRI",
    }[modality]
    return Authored(
        original=QA(
            f"Compared with the surrounding {tissue}, how does the {k_name} appear on this {what}?",
            gold,
            (opposite, same, bands),
        ),
        tcf_question=f"How does the {k_name} look relative to the "
        f"surrounding {tissue} on this {what}?",
        negation=QA(
            f"Is it false that the {k_name} appears {'brighter' if bright else 'darker'} than the "
            f"surrounding {tissue}?",
            f"No, it appears {'brighter' if bright else 'darker'}",
            (
                f"Yes, it appears {'darker' if bright else 'brighter'}",
                "Yes, it appears the same",
                "Yes, it appears as alternating bands",
            ),
        ),
        sdrop_question=f"Compared with the surrounding {tissue}, how does the abnormality appear?",
        text_only=True,  # the named finding and modality give the appearance away
        vcf=(
            f"Hypothetically, if the lesion were {A_NAME[opp_kind]} rather than "
            f"{A_NAME[a.kind]}, how would it appear compared with the surrounding {tissue}?",
            opposite,
        ),
    )


def _ask_urgent(a: Asked, s: Site, rng: np.random.Generator) -> Authored:
    k_name, study, side = NAME[a.kind], a.study, s.side
    gold = f"{cap(side)}-sided {k_name}"
    flipped = f"{cap(other_side(side))}-sided {k_name}"
    return Authored(
        original=QA(
            f"What is the most urgent finding on this {study}?",
            gold,
            (flipped, f"{cap(side)}-sided {NAME[a.other]}", "No acute abnormality"),
        ),
        tcf_question=f"Which finding on this {study} needs the most urgent attention?",
        negation=QA(
            f"Which side of the patient's {ORGAN[a.anatomy]} is free of the urgent finding?",
            s.other_side_title,
            (s.side_title, "Neither side", "Both sides"),
        ),
        sdrop_question=f"What is the main finding on this {study}?",
        lat_dependent=True,
        gold_after_flip=flipped,
        vcf=(
            f"Hypothetically, if the {k_name} were on the patient's {other_side(side)} "
            f"side instead, what would be the most urgent finding?",
            flipped,
        ),
    )


FINDING: dict[str, Callable[[Asked, Site, np.random.Generator], Authored]] = {
    "side": _ask_side,
    "location": _ask_location,
    "zone": _ask_zone,
    "presence": _ask_presence,
    "presence_side": _ask_presence_side,
    "kind": _ask_kind,
    "size": _ask_size,
    "appearance": _ask_appearance,
    "urgent": _ask_urgent,
}
