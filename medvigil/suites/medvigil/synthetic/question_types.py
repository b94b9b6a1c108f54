"""The question layer of a synthetic case (:class:`Authored`, before it is expanded into probes)
and what its templates are given: :class:`Asked` (every template) and :class:`Site` (finding
templates)."""

from dataclasses import dataclass

from medvigil.suites.medvigil.synthetic.phantom_scene import Box, Phantom
from medvigil.suites.medvigil.synthetic.plan import CasePlan


@dataclass(frozen=True)
class QA:
    question: str
    gold: str
    distractors: tuple[str, ...]  # exactly three, all different from the gold


@dataclass
class Authored:
    """The question layer of a case before it is expanded into probes."""

    original: QA
    tcf_question: str
    negation: QA
    sdrop_question: str
    roi: Box | None = None  # finding templates: the lesion's box unless given
    rationale: str = ""  # finding templates: the site's
    differential: list | None = None  # finding templates: the site's
    text_only: bool = False
    lat_dependent: bool = False
    gold_after_flip: str = ""
    vcf: tuple[str, str] | None = None  # (question, gold) of the visual counterfactual


@dataclass(frozen=True)
class Asked:
    """What every template knows: the plan, the phantom and the finding kind the question names."""

    plan: CasePlan
    phantom: Phantom
    others: list  # the other finding kinds of the same anatomy
    other: str  # one of them, drawn for distractors and counterfactuals
    anatomy: str
    modality: str
    study: str  # e.g. "chest radiograph"
    kind: str  # the asked-about finding kind


@dataclass(frozen=True)
class Site:
    """Where the finding is (or, for a normal case, where the question places it) and its shared
    texts."""

    side: str
    zone: str
    loc: str  # e.g. "right upper zone"
    mirror: str  # the same zone on the other side
    bright: bool  # the finding is brighter than the surrounding tissue
    rationale: str
    differential: list
    side_title: str  # "Right side"
    other_side_title: str
