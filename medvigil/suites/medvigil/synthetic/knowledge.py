"""The image-independent parts of a synthetic case: the ``knowledge_only`` probe and the grounding
file's vignette."""

import numpy as np

from medvigil.suites.medvigil.synthetic.plan import CasePlan, pick

CONTEXT = {
    "nodule": "{age}-year-old {sex}, former smoker with a chronic cough.",
    "consolidation": "{age}-year-old {sex} with fever, productive cough and crackles.",
    "effusion": "{age}-year-old {sex} with progressive breathlessness.",
    "pneumothorax": "{age}-year-old {sex} with sudden pleuritic chest pain and dyspnoea.",
    "haemorrhage": "{age}-year-old {sex} with sudden severe headache and reduced consciousness.",
    "infarct": "{age}-year-old {sex} with acute unilateral weakness and speech disturbance.",
    "mass": "{age}-year-old {sex} with new seizures and morning headaches.",
    "normal-chest": "{age}-year-old {sex}, pre-operative chest imaging; no respiratory symptoms.",
    "normal-head": "{age}-year-old {sex} with a mild headache; neurological examination normal.",
}

# Knowledge-only questions: answerable from clinical knowledge alone (gold first).
KNOWLEDGE = {
    "nodule": [
        (
            "Above what diameter is a focal round lung opacity "
            "usually called a mass rather than a nodule?",
            "3 cm",
            "5 mm",
            "1 cm",
            "10 cm",
        ),
        (
            "Which pattern of calcification in a pulmonary "
            "nodule most strongly suggests a benign lesion?",
            "Popcorn calcification",
            "Eccentric stippled calcification",
            "No calcification",
            "Spiculated margin",
        ),
    ],
    "consolidation": [
        (
            "What is the name of the sign where air-filled "
            "bronchi are visible within consolidated lung?",
            "Air bronchogram",
            "Deep sulcus sign",
            "Meniscus sign",
            "Kerley B lines",
        ),
        (
            "Which organism is the most common cause of community-acquired "
            "lobar pneumonia in adults?",
            "Streptococcus pneumoniae",
            "Pneumocystis jirovecii",
            "Mycobacterium avium",
            "Aspergillus fumigatus",
        ),
    ],
    "effusion": [
        (
            "On an upright chest radiograph, what shape does the upper "
            "border of a free pleural effusion usually take?",
            "A meniscus that rises laterally",
            "A straight horizontal line",
            "A convex bulge towards the hilum",
            "A vertical line parallel to the chest wall",
        ),
        (
            "Which criteria are used to distinguish an exudative "
            "from a transudative pleural effusion?",
            "Light's criteria",
            "Wells criteria",
            "Glasgow criteria",
            "Fleischner criteria",
        ),
    ],
    "pneumothorax": [
        (
            "What is the immediate treatment of a tension pneumothorax?",
            "Needle decompression",
            "Intravenous antibiotics",
            "Diuretic therapy",
            "Anticoagulation",
        ),
        (
            "Which finding defines a pneumothorax on an upright chest radiograph?",
            "A visceral pleural line with no lung markings beyond it",
            "Air bronchograms",
            "Kerley B lines",
            "A fluid meniscus at the costophrenic angle",
        ),
    ],
    "haemorrhage": [
        (
            "What is the first-line imaging test for suspected acute intracranial haemorrhage?",
            "Non-contrast CT of the head",
            "Plain skull radiograph",
            "Cranial ultrasound",
            "FDG-PET",
        ),
        (
            "How does acute blood appear on a non-contrast head CT?",
            "Hyperdense (brighter than brain)",
            "Hypodense (darker than brain)",
            "Isodense to cerebrospinal fluid",
            "Invisible until contrast is given",
        ),
    ],
    "infarct": [
        (
            "Which MRI sequence is most sensitive to acute ischaemic infarction?",
            "Diffusion-weighted imaging",
            "T1-weighted imaging",
            "Susceptibility-weighted imaging",
            "Proton-density imaging",
        ),
        (
            "Within what time window from onset is intravenous thrombolysis "
            "usually offered for acute ischaemic stroke?",
            "4.5 hours",
            "24 hours",
            "72 hours",
            "7 days",
        ),
    ],
    "mass": [
        (
            "Which contrast agent is used to assess enhancement of a brain mass on MRI?",
            "Gadolinium-based contrast",
            "Barium sulphate",
            "Oral iodinated contrast",
            "Technetium-99m",
        ),
        (
            "What is the most common malignant intra-axial brain tumour in adults overall?",
            "Brain metastasis",
            "Medulloblastoma",
            "Pilocytic astrocytoma",
            "Craniopharyngioma",
        ),
    ],
    "X-ray": [
        (
            "Which imaging modality produces a single projection image using ionising radiation?",
            "Plain radiography (X-ray)",
            "Magnetic resonance imaging",
            "Ultrasound",
            "Positron emission tomography",
        ),
    ],
    "CT": [
        (
            "What is the attenuation of water on CT in Hounsfield units?",
            "0 HU",
            "-1000 HU",
            "+1000 HU",
            "-100 HU",
        ),
    ],
    "MRI": [
        (
            "Which physical phenomenon produces the MRI signal?",
            "Nuclear magnetic resonance of hydrogen nuclei",
            "Attenuation of X-rays",
            "Reflection of sound waves",
            "Annihilation of positrons",
        ),
    ],
}


def knowledge_question(plan: CasePlan, rng: np.random.Generator) -> tuple:
    """``(question, gold, three distractors)`` about the case's modality (L1) or asked-about
    finding."""
    key = plan.scene.modality if plan.tier == "L1" else plan.asked_kind
    return pick(rng, KNOWLEDGE[key])


def clinical_context(plan: CasePlan, rng: np.random.Generator) -> str:
    """The case's synthetic vignette (drawn age and sex, a history fitting the finding)."""
    age = int(rng.integers(24, 89))
    sex = pick(rng, ("woman", "man"))
    key = plan.finding.kind if not plan.finding.is_normal else f"normal-{plan.scene.anatomy}"
    return "Synthetic vignette: " + CONTEXT[key].format(age=age, sex=sex)
