"""Synthetic case planning, before the image is drawn: tiers cycle L1..L5; sources follow the
paper's 2:1:1:1 VQA-RAD:SLAKE:ROCO:CXR mix, rotated so every tier meets every source; modalities
cycle CT, X-ray, MRI (non-CXR)."""

from dataclasses import dataclass

import numpy as np

from medvigil.suites.medvigil.release.release_format import TIERS
from medvigil.suites.medvigil.synthetic.phantom_scene import (
    CHEST_ZONES,
    HEAD_ZONES,
    NORMAL,
    Finding,
    Scene,
)

SOURCES = ("VQA-RAD", "SLAKE", "ROCO", "CXR")
# One block of five consecutive cases holds this source mix (2:1:1:1, as the paper's 120:60:60:60);
# block b is rotated by b so that, over 25 cases, every tier meets every source.
_SOURCE_PATTERN = ("VQA-RAD", "SLAKE", "VQA-RAD", "ROCO", "CXR")
_CXR_SLOT = _SOURCE_PATTERN.index("CXR")
_MODALITY_CYCLE = ("CT", "X-ray", "MRI")  # over the non-CXR cases, in order
RARE_KINDS = frozenset(
    {"pneumothorax", "mass"}
)  # by_rarity: these kinds are "rare", all else "common"

# Finding-kind weights outside L5; L5 ("don't miss") uses only time-critical kinds.
_KIND_WEIGHTS = {
    "chest": (("nodule", 0.3), ("consolidation", 0.3), ("effusion", 0.25), ("pneumothorax", 0.15)),
    "head": (("haemorrhage", 0.35), ("infarct", 0.4), ("mass", 0.25)),
}
_L5_KINDS = {"chest": ("pneumothorax",), "head": ("haemorrhage", "infarct")}
_TEMPLATES = {
    "L1": (("modality", 0.5), ("region", 0.5)),
    "L2": (("side", 0.35), ("location", 0.35), ("zone", 0.3)),
    "L3": (("presence", 0.7), ("presence_side", 0.3)),
    "L4": (("kind", 0.4), ("size", 0.35), ("appearance", 0.25)),
    "L5": (("presence", 0.4), ("urgent", 0.35), ("presence_side", 0.25)),
}
_NORMAL_P = {
    "L1": 0.3,
    "L3": 0.35,
    "L5": 0.35,
}  # share of normal cases (presence templates only, and L1)


@dataclass(frozen=True)
class CasePlan:
    """Everything about a case that is decided before drawing its image."""

    index: int
    case_id: str
    tier: str
    source: str
    scene: Scene
    template: str
    asked_kind: str  # the finding the question is about (== finding kind unless the case is normal)

    @property
    def finding(self) -> Finding:
        return self.scene.finding

    @property
    def rarity(self) -> str:
        return "rare" if self.finding.kind in RARE_KINDS else "common"

    @property
    def credentialed(self) -> bool:
        return self.source == "CXR"


def case_id(index: int) -> str:
    """``MVB-0001`` for index 0 (at least four digits)."""
    return f"MVB-{index + 1:04d}"


def case_rngs(
    seed: int, index: int
) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    """Independent streams for one case: (plan/authoring, image, simulated reader)."""
    return tuple(np.random.default_rng([seed, index, stream]) for stream in range(3))  # type: ignore[return-value]


def source_of(index: int) -> str:
    return _SOURCE_PATTERN[(index + index // 5) % 5]


def _cxr_before(index: int) -> int:
    """Number of CXR cases with a smaller index (exactly one per complete block of five)."""
    block, pos = divmod(index, 5)
    return block + (1 if (_CXR_SLOT - block) % 5 < pos else 0)


def modality_of(index: int) -> str:
    if source_of(index) == "CXR":
        return "X-ray"
    return _MODALITY_CYCLE[(index - _cxr_before(index)) % len(_MODALITY_CYCLE)]


def _weighted(rng: np.random.Generator, table) -> str:
    names = [name for name, _ in table]
    weights = np.array([w for _, w in table], dtype=np.float64)
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def pick(rng: np.random.Generator, items):
    """One of ``items``, drawn uniformly (planning and authoring draw with it)."""
    items = list(items)
    return items[int(rng.integers(0, len(items)))]


def plan_case(index: int, rng: np.random.Generator) -> CasePlan:
    """Plan case ``index`` with the case's plan stream (see :func:`case_rngs`)."""
    tier = TIERS[index % len(TIERS)]
    source = source_of(index)
    modality = modality_of(index)
    anatomy = "chest" if modality == "X-ray" else "head"
    template = _weighted(rng, _TEMPLATES[tier])
    kinds = _L5_KINDS[anatomy] if tier == "L5" else None
    asked = pick(rng, kinds) if kinds else _weighted(rng, _KIND_WEIGHTS[anatomy])
    normal_allowed = tier == "L1" or template == "presence"
    normal = normal_allowed and float(rng.random()) < _NORMAL_P.get(tier, 0.0)
    side = pick(rng, ("right", "left"))
    if anatomy == "chest":
        zone = {"pneumothorax": "upper", "effusion": "lower"}.get(asked) or pick(rng, CHEST_ZONES)
    else:
        zone = pick(rng, HEAD_ZONES)
    size = pick(rng, ("small", "large"))
    finding = Finding(NORMAL) if normal else Finding(asked, side, zone, size)
    if anatomy == "chest":
        width, height = 480 + 8 * int(rng.integers(0, 11)), 512 + 8 * int(rng.integers(0, 9))
    else:
        width = 488 + 8 * int(rng.integers(0, 8))
        height = width + 8 * int(rng.integers(-2, 3))
    scene = Scene(anatomy, modality, finding, width, height)
    return CasePlan(index, case_id(index), tier, source, scene, template, asked)
