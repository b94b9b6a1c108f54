"""The questions of a synthetic case (:func:`author_questions`), one function per template, true by
construction; L1 templates (:mod:`.image_questions`: modality, region) ask about the whole image,
the others (:mod:`.finding_questions`) about the finding."""

from dataclasses import replace

import numpy as np

from medvigil.suites.medvigil.synthetic.finding_questions import FINDING
from medvigil.suites.medvigil.synthetic.finding_site import finding_site
from medvigil.suites.medvigil.synthetic.image_questions import WHOLE_IMAGE
from medvigil.suites.medvigil.synthetic.phantom_scene import Phantom
from medvigil.suites.medvigil.synthetic.plan import CasePlan, pick
from medvigil.suites.medvigil.synthetic.question_types import Asked, Authored
from medvigil.suites.medvigil.synthetic.wording import STUDY, other_kinds


def author_questions(plan: CasePlan, phantom: Phantom, rng: np.random.Generator) -> Authored:
    """The question layer of one case, drawn from the case's plan stream (see the module
    docstring)."""
    others = other_kinds(plan.asked_kind)
    scene = plan.scene
    asked = Asked(
        plan,
        phantom,
        others,
        pick(rng, others),
        scene.anatomy,
        scene.modality,
        STUDY[scene.modality],
        plan.asked_kind,
    )
    t = plan.template
    if t in WHOLE_IMAGE:
        return WHOLE_IMAGE[t](asked, rng)
    if t in FINDING:
        site = finding_site(asked, rng)
        authored = FINDING[t](asked, site, rng)
        return replace(
            authored,
            roi=authored.roi or phantom.lesion_box,
            rationale=site.rationale,
            differential=site.differential,
        )
    raise ValueError(f"unknown template {t!r}")
