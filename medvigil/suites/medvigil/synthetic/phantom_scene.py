"""What a phantom shows: the finding kinds, zones and modalities, the lesions' grey levels and
appearance, the :class:`Scene` to draw and the :class:`Phantom` drawn (:mod:`.phantoms`)."""

from dataclasses import dataclass

from PIL import Image

CHEST_KINDS = ("nodule", "consolidation", "effusion", "pneumothorax")
HEAD_KINDS = ("haemorrhage", "infarct", "mass")
NORMAL = "normal"
CHEST_ZONES = ("upper", "lower")
HEAD_ZONES = ("frontal", "parietal", "occipital")
MODALITIES = ("X-ray", "CT", "MRI")

ROI_MARGIN_PX = 4  # native pixels added around a lesion's bounding box

# Target grey levels of lesions (native, before noise). "add" lesions add to the anatomy.
LESION_LEVELS = {
    ("X-ray", "nodule"): {"add": 105.0},
    ("X-ray", "consolidation"): {"add": 75.0},
    ("X-ray", "effusion"): {"level": 172.0},
    ("X-ray", "pneumothorax"): {"level": 6.0, "pleural_line_add": 40.0},
    ("CT", "haemorrhage"): {"level": 188.0},
    ("CT", "infarct"): {"level": 48.0},
    ("CT", "mass"): {"level": 172.0, "rim": 76.0},
    ("MRI", "haemorrhage"): {"level": 42.0},
    ("MRI", "infarct"): {"level": 196.0},
    ("MRI", "mass"): {"level": 150.0, "rim": 185.0},
}

# Appearance of each lesion against the surrounding tissue (True = brighter), per modality: all
# brighter but a pneumothorax (X-ray), an infarct on CT and a haemorrhage on T2-weighted MRI.
_DARKER = {"X-ray": "pneumothorax", "CT": "infarct", "MRI": "haemorrhage"}
BRIGHT = {(modality, kind): kind != _DARKER[modality] for modality, kind in LESION_LEVELS}


@dataclass(frozen=True)
class Finding:
    """The single lesion of a phantom (or ``kind == "normal"`` with no lesion)."""

    kind: str
    side: str | None = None  # "right" / "left" (patient's)
    zone: str | None = None  # chest: "upper"/"lower"; head: "frontal"/"parietal"/"occipital"
    size: str | None = None  # "small" / "large"

    @property
    def is_normal(self) -> bool:
        return self.kind == NORMAL


@dataclass(frozen=True)
class Scene:
    """What to draw: anatomy, modality, finding and native size in pixels."""

    anatomy: str  # "chest" or "head"
    modality: str  # "X-ray" for chest; "CT" or "MRI" for head
    finding: Finding
    width: int
    height: int

    def __post_init__(self) -> None:
        kinds = CHEST_KINDS if self.anatomy == "chest" else HEAD_KINDS
        if self.anatomy not in ("chest", "head"):
            raise ValueError(f"anatomy must be 'chest' or 'head', got {self.anatomy!r}")
        if (self.anatomy == "chest") != (
            self.modality == "X-ray"
        ) or self.modality not in MODALITIES:
            raise ValueError(f"modality {self.modality!r} does not fit anatomy {self.anatomy!r}")
        if self.finding.kind != NORMAL and self.finding.kind not in kinds:
            raise ValueError(
                f"finding kind {self.finding.kind!r} does not fit anatomy {self.anatomy!r}"
            )
        if self.width < 64 or self.height < 64:
            raise ValueError(f"phantom size must be at least 64x64, got {self.width}x{self.height}")


Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Phantom:
    """A drawn phantom and the boxes (normalised, outward-rounded to 4 decimals) it defines."""

    image: Image.Image  # native size, mode "L"
    lesion_box: Box | None  # tight box of the lesion (+ margin); None for normal phantoms
    organ_box: Box  # both lungs / the brain
    body_box: Box  # thorax / head outline
