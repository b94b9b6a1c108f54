"""The ``grounded`` baseline: a transparent pixel heuristic for our synthetic phantoms only (it
knows nothing about real images), reading what a model receives (prompt text and image).

1. **Image facts** (:func:`read_image`), from the conventions of
   :mod:`medvigil.suites.medvigil.synthetic.phantoms`:

   * *Masked evidence*: a block of flat mid-grey (128 +- 3, local spread < 2). Covering most of the
     image, the visible window is the ROI (ROI-only); a smaller block removed evidence (ROI-masked,
     ROI-decay).
   * *Lesion*: the anatomy is left-right symmetric, so the smoothed image-minus-mirror difference
     peaks at the lesion or its mirror; the lesion is the one with the stronger
     centre-versus-surround contrast. Its sign gives brighter/darker, its position the patient side
     (image left = patient right) and zone, its extent the size. In a ROI-only window it is the
     window's contrast against normal tissue.
   * *Anatomy and modality*: lung fields are dark (about 55), brain mid-grey; CT ventricles are
     dark, MRI (T2) ventricles bright.

2. **Answering** (:func:`choose`): the safe option (found by its wording) when evidence is masked or
   the question presupposes a finding the image contradicts (wrong side, zone, brightness, or no
   lesion); otherwise the option whose words agree most with the facts, with yes/no polarity for
   presence questions. Without an image, the ``blind`` lexical prior.

``temperature=`` (and ``seed=``) samples around the chosen letter
(:mod:`medvigil.baselines.sampling`).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image

from medvigil.baselines.policies import BlindPolicy
from medvigil.baselines.sampling import VoteSampler, images_digest
from medvigil.mcq.prompting import parse_mcq_prompt

GREY = 128.0
GREY_TOLERANCE = 3.0
FLAT_SPREAD = 2.0
LABEL_BAND = 0.07  # top rows holding the "SYNTHETIC" label (phantom_label.LABEL_BAND)
# The phantom module documents >= 17 grey levels between a lesion ROI and its mirror; a
# smoothed asymmetry of half that is taken as "a lesion is present".
LESION_MIN_CONTRAST = 8.5
WORK_SIZE = 256  # analysis resolution (longest side)

SAFE_WORDS = re.compile(
    r"premise|insufficient|cannot be determined|decline|not visible|unable to", re.I
)
BRIGHT_KINDS = {
    "X-ray": {"nodule": True, "consolidation": True, "effusion": True, "pneumothorax": False},
    "CT": {"haemorrhage": True, "hemorrhage": True, "mass": True, "infarct": False},
    "MRI": {"haemorrhage": False, "hemorrhage": False, "mass": True, "infarct": True},
}
KIND_WORDS = {kind for kinds in BRIGHT_KINDS.values() for kind in kinds}
ZONES = ("upper", "lower", "frontal", "parietal", "occipital")
REGION_WORDS = {
    "chest": {"chest", "lung", "lungs", "thorax", "thoracic", "radiograph"},
    "head": {"head", "brain", "skull", "intracranial", "cerebral", "lobe"},
}
FOREIGN_REGIONS = {
    "abdominal",
    "abdomen",
    "liver",
    "kidney",
    "pelvis",
    "pelvic",
    "knee",
    "spleen",
    "bowel",
}


@dataclass(frozen=True)
class ImageFacts:
    anatomy: str | None = None  # "chest" | "head" | None (not visible)
    modality: str | None = None  # "X-ray" | "CT" | "MRI" | None
    masked: bool = False  # part of the evidence replaced by flat grey
    lesion: bool = False
    side: str | None = None  # patient side
    zone: str | None = None
    bright: bool | None = None
    large: bool | None = None
    rim: bool | None = None  # a ring of the opposite contrast around the lesion (a mass)
    y: float | None = None  # vertical lesion position (0 top, 1 bottom), for the zone


def _grey_array(image: Image.Image) -> np.ndarray:
    img = image.convert("L")
    scale = WORK_SIZE / max(img.size)
    if scale < 1:
        img = img.resize(
            (max(1, round(img.width * scale)), max(1, round(img.height * scale))),
            Image.Resampling.BILINEAR,
        )
    return np.asarray(img, dtype=np.float64)


def _box_mean(a: np.ndarray, k: int) -> np.ndarray:
    """Mean over a (2k+1)^2 window with edge padding, via integral images."""
    p = np.pad(a, k + 1, mode="edge")
    c = p.cumsum(0).cumsum(1)
    n = 2 * k + 1
    s = c[n:, n:] - c[:-n, n:] - c[n:, :-n] + c[:-n, :-n]
    return s[: a.shape[0], : a.shape[1]] / (n * n)


def _flat_grey(a: np.ndarray) -> np.ndarray:
    mean = _box_mean(a, 2)
    spread = np.sqrt(np.maximum(_box_mean(a * a, 2) - mean * mean, 0.0))
    return (np.abs(a - GREY) <= GREY_TOLERANCE) & (spread < FLAT_SPREAD)


def _modality(a: np.ndarray, valid: np.ndarray) -> tuple[str | None, str | None]:
    h, w = a.shape

    def sample(x0, x1, y0, y1):
        sl = (slice(int(y0 * h), int(y1 * h)), slice(int(x0 * w), int(x1 * w)))
        m = valid[sl]
        return float(a[sl][m].mean()) if m.mean() > 0.5 else None

    field = [
        v for v in (sample(0.25, 0.35, 0.35, 0.55), sample(0.65, 0.75, 0.35, 0.55)) if v is not None
    ]
    if not field:
        return None, None
    if min(field) < 78:  # dark lung fields
        return "chest", "X-ray"
    vent = sample(0.51, 0.56, 0.42, 0.52)
    if vent is None:
        return "head", None
    return "head", ("CT" if vent < 80 else "MRI" if vent > 160 else None)


def _zone(anatomy: str | None, y: float) -> str | None:
    if anatomy == "chest":
        return "upper" if y < 0.47 else "lower"
    if anatomy == "head":
        return "frontal" if y < 0.40 else "parietal" if y < 0.60 else "occipital"
    return None


def _is_window(grey: np.ndarray, band: int) -> bool:
    """True when the only non-grey pixels form one filled rectangle (an ROI-only image; a grey block
    inside the image leaves non-grey pixels all around it). The label band is ignored: ROI-only
    images grey it out."""
    body = ~grey[band:]
    if grey[band:].mean() < 0.002 or not body.any():
        return False
    rows, cols = np.nonzero(body.any(1))[0], np.nonzero(body.any(0))[0]
    inside = np.zeros_like(body)
    inside[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1] = True
    if inside.mean() > 0.9:  # the non-grey pixels span the image: grey is a block inside it
        return False
    # JPEG ringing leaves a few flat-grey pixels inside the window's edge: allow 15%
    return bool(body[inside].mean() > 0.85)


def _read_window(a: np.ndarray, grey: np.ndarray) -> ImageFacts:
    """The facts of an ROI-only image, whose visible window is the evidence region: a lesion when
    the window's core differs from normal tissue and the window is small (too little anatomy
    visible to tell; a larger window is read like a whole image)."""
    h, w = a.shape
    ys, xs = np.nonzero(~grey)
    cx, cy = xs.mean() / w, ys.mean() / h
    window = a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    normal = 55.0 if window.mean() < 78 else 100.0  # lung or brain background
    inner = window[
        window.shape[0] // 4 : -window.shape[0] // 4 or None,
        window.shape[1] // 4 : -window.shape[1] // 4 or None,
    ]
    core = float(np.median(inner)) if inner.size else float(window.mean())
    small = window.size < 0.25 * a.size
    lesion = abs(core - normal) > LESION_MIN_CONTRAST and small
    anatomy, modality = (None, None) if small else _modality(a, ~grey)
    if not lesion:
        return ImageFacts(anatomy=anatomy, modality=modality)
    return ImageFacts(
        anatomy=anatomy,
        modality=modality,
        lesion=True,
        y=cy,
        side="right" if cx < 0.5 else "left",
        zone=_zone(anatomy, cy),
        bright=core > normal,
        large=window.size > 0.012 * a.size,
    )


def _read_whole(a: np.ndarray, valid: np.ndarray, masked: bool) -> ImageFacts:
    """The facts of a whole image (``valid``: its pixels neither masked nor label): the lesion is
    where the smoothed image differs most from its mirror, on the side of the stronger
    centre-versus-surround contrast."""
    h, w = a.shape
    anatomy, modality = _modality(a, valid)
    k = max(2, round(0.02 * w))
    mirror_ok = valid & valid[:, ::-1]
    smooth = _box_mean(a, k)
    diff = np.where(mirror_ok, smooth - smooth[:, ::-1], 0.0)
    left = np.abs(diff[:, : w // 2])
    peak = float(left.max()) if left.size else 0.0
    if peak < LESION_MIN_CONTRAST:
        return ImageFacts(anatomy=anatomy, modality=modality, masked=masked)
    py, px = np.unravel_index(int(left.argmax()), left.shape)
    surround = _box_mean(a, 3 * k)

    def contrast(x: int) -> float:
        return float(smooth[py, x] - surround[py, x])

    candidates = (px, w - 1 - px)
    lx = max(candidates, key=lambda x: abs(contrast(x)))
    extent = float((left > peak / 2).mean()) * 0.5
    bright = contrast(lx) > 0
    return ImageFacts(
        anatomy=anatomy,
        modality=modality,
        masked=masked,
        lesion=True,
        side="right" if lx < w / 2 else "left",
        zone=_zone(anatomy, py / h),
        bright=bright,
        large=extent > 0.004,
        rim=_has_rim(a, py, lx, bright),
    )


def read_image(image: Image.Image) -> ImageFacts:
    """Extract the facts listed in the module docstring from one image."""
    a = _grey_array(image)
    grey = _flat_grey(a)
    band = int(np.ceil(LABEL_BAND * a.shape[0]))
    if _is_window(grey, band):  # ROI-only: the visible window is the evidence region
        return _read_window(a, grey)
    valid = ~grey
    valid[:band] = False
    return _read_whole(a, valid, masked=float(grey.mean()) > 0.002)


def _has_rim(a: np.ndarray, cy: int, cx: int, bright: bool) -> bool:
    """A mass has a ring of other contrast around its core (CT: dark oedema; T2: brighter rim): in
    the radial profile of medians in 2-pixel rings, a ring darker than the background (outermost
    rings) or brighter than the core (first ring) by more than half the lesion threshold."""
    h, w = a.shape
    yy, xx = np.ogrid[:h, :w]
    ring = (np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2) // 2).astype(int)
    profile = [float(np.median(a[ring == i])) for i in range(0, 24) if (ring == i).any()]
    if len(profile) < 12 or not bright:
        return False
    core, background = profile[0], float(np.median(profile[-5:]))
    margin = LESION_MIN_CONTRAST / 2
    return min(profile) < background - margin or max(profile[1:]) > core + margin


# ---------------------------------------------------------------- answering


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _kinds(text: str) -> set[str]:
    return _words(text) & KIND_WORDS


def _meta_contradicts(question: str, facts: ImageFacts) -> bool:
    """Does the question name a modality or body region the image is not?"""
    words = _words(question)
    named = _modality_from_text(question)
    if facts.modality and named and named != facts.modality:
        return True
    if words & FOREIGN_REGIONS:
        return True
    if facts.anatomy:
        other = "head" if facts.anatomy == "chest" else "chest"
        if words & REGION_WORDS[other] - REGION_WORDS[facts.anatomy]:
            return True
    return False


def _kind_fits(kind: str, facts: ImageFacts, modality: str | None) -> bool:
    table = BRIGHT_KINDS.get(modality or "", {})
    if kind not in table or facts.bright is None:
        return True
    if table[kind] != facts.bright:
        return False
    if facts.rim is not None and modality in ("CT", "MRI") and facts.bright:
        return (kind == "mass") == facts.rim
    return True


def _premise_wrong(question: str, facts: ImageFacts, modality: str | None) -> bool:
    """The question names another modality or region, or presupposes a finding the image
    contradicts."""
    return _meta_contradicts(question, facts) or bool(
        _PRESUPPOSES.match(question) and _contradicts(question, facts, modality)
    )


def _contradicts(question: str, facts: ImageFacts, modality: str | None) -> bool:
    """Does a question that presupposes a finding disagree with the image?"""
    words = _words(question)
    if not facts.lesion:
        return bool(_kinds(question))
    if facts.side and ({"right", "left"} & words) and facts.side not in words:
        return True
    zones = words & set(ZONES)
    if facts.zone and zones and facts.zone not in zones:
        return True
    return not all(_kind_fits(kind, facts, modality) for kind in _kinds(question))


def _modality_from_text(text: str) -> str | None:
    t = text.lower()
    if "radiograph" in t or "x-ray" in t:
        return "X-ray"
    if re.search(r"\bct\b", t):
        return "CT"
    if "mri" in t or "t2" in t:
        return "MRI"
    return None


def _fact_words(facts: ImageFacts) -> tuple[set[str], set[str]]:
    """(words that agree with the image, words that contradict it)."""
    agree, clash = set(), set()
    if facts.side:
        agree.add(facts.side)
        clash.add("left" if facts.side == "right" else "right")
    if facts.zone:
        agree.add(facts.zone)
        clash |= set(ZONES) - {facts.zone}
    if facts.bright is not None:
        agree |= (
            {"brighter", "opaque", "hyperdense", "hyperintense"}
            if facts.bright
            else {"darker", "lucent", "hypodense", "hypointense"}
        )
        clash |= (
            {"darker", "lucent", "hypodense", "hypointense"}
            if facts.bright
            else {"brighter", "opaque", "hyperdense", "hyperintense"}
        )
    if facts.large is not None:
        agree.add("large" if facts.large else "small")
        clash.add("small" if facts.large else "large")
    if facts.anatomy:
        agree.add(facts.anatomy)
        clash |= {"chest", "head", "knee", "pelvis", "abdomen"} - {facts.anatomy}
    if facts.modality:
        mod = {"X-ray": {"x", "ray", "radiograph"}, "CT": {"ct"}, "MRI": {"mri"}}
        agree |= mod[facts.modality]
        for name, ws in mod.items():
            if name != facts.modality:
                clash |= ws
        clash |= {"ultrasound", "pet"}
    clash |= {
        "both",
        "midline",
        "middle",
        "alternating",
        "same",
        "moderate",
        "very",
        "hydrocephalus",
        "cerebellum",
    }
    if not facts.lesion:
        agree |= {"no", "normal", "acute", "abnormality"}
    return agree, clash


_YES = re.compile(r"^\s*yes\b", re.I)
_NO = re.compile(r"^\s*no\b", re.I)
_PRESENCE = re.compile(r"^\s*(is there|are there|does this|do these|is a|is an)\b", re.I)
_NEGATED = re.compile(r"free of|is it false|\bnot\b|outside", re.I)
_PRESUPPOSES = re.compile(
    r"^\s*(how large|how old|what is the most appropriate next step|what size)", re.I
)


def _yes_no(question: str, facts: ImageFacts, modality: str | None) -> bool | None:
    """The yes/no answer to a presence question (negated forms inverted), else None."""
    if not (_PRESENCE.match(question) or _NEGATED.search(question)):
        return None
    present = facts.lesion and not _contradicts(question, facts, modality)
    return (not present) if _NEGATED.search(question) else present


def describe(question: str, facts: ImageFacts) -> str:
    """A free-text answer built from the facts (open-ended variant)."""
    modality = facts.modality or _modality_from_text(question)
    if facts.masked:
        return (
            "Insufficient visual evidence: the region needed "
            "to answer is not visible in this image."
        )
    if _premise_wrong(question, facts, modality):
        return "The premise of this question is incorrect."
    truth = _yes_no(question, facts, modality)
    if truth is not None:
        return "Yes." if truth else "No."
    parts = [f"{facts.anatomy.capitalize()} {modality or 'image'}." if facts.anatomy else ""]
    if facts.lesion:
        region = "lobe" if facts.anatomy == "head" else "zone"
        contrast = "brighter" if facts.bright else "darker"
        size = "large" if facts.large else "small"
        parts.append(
            f"A {size} lesion, {contrast} than the surrounding tissue, in the {facts.side} "
            f"{facts.zone} {region} ({facts.side} side of the patient)."
        )
    else:
        parts.append("No acute abnormality.")
    return " ".join(p for p in parts if p)


def choose(question: str, options: dict[str, str], facts: ImageFacts) -> str:
    """Pick a letter from the facts (see the module docstring)."""
    safe = [letter for letter, text in options.items() if SAFE_WORDS.search(text)]
    answers = {letter: text for letter, text in options.items() if letter not in safe}
    modality = facts.modality or _modality_from_text(question)
    if facts.anatomy is None and modality:
        anatomy = "chest" if modality == "X-ray" else "head"
        facts = replace(
            facts,
            anatomy=anatomy,
            zone=facts.zone or (_zone(anatomy, facts.y) if facts.y is not None else None),
        )
    if safe and (facts.masked or _premise_wrong(question, facts, modality)):
        return safe[0]

    bare = {
        letter: text.strip(" .").lower()
        for letter, text in answers.items()
        if text.strip(" .").lower() in {"yes", "no"}
    }
    truth = _yes_no(question, facts, modality)
    if bare and truth is not None:
        for letter, text in bare.items():
            if text == ("yes" if truth else "no"):
                return letter
    if facts.side and re.search(r"which side .* free of", question, re.I):
        facts = replace(facts, side="left" if facts.side == "right" else "right")

    agree, clash = _fact_words(facts)

    def score(letter: str) -> tuple[int, str]:
        words = _words(answers[letter])
        s = 2 * len(words & agree) - 3 * len(words & clash)
        for kind in _kinds(answers[letter]):
            s += 2 if facts.lesion and _kind_fits(kind, facts, modality) else -3
        return (-s, letter)

    return min(answers, key=score) if answers else sorted(options)[0]


class GroundedPolicy:
    """Reads the phantom image (see the module docstring); blind prior without an image."""

    name = "grounded"
    reads_images = True

    def __init__(self, temperature=0.0, seed: int = 0):
        self.sampler = VoteSampler(temperature, seed)

    def answer(self, prompt: str, images: Sequence[Image.Image]) -> str:
        question, options = parse_mcq_prompt(prompt)
        if not images:
            letter = BlindPolicy().answer(prompt, images)
        else:
            letter = choose(question, options, read_image(images[0]))
        if self.sampler.temperature == 0:
            return letter
        return self.sampler.draw(f"{prompt}\0{images_digest(images)}", sorted(options), letter)

    def answer_open(self, question: str, images: Sequence[Image.Image]) -> str:
        if not images:
            return BlindPolicy().answer_open(question, images)
        return describe(question, read_image(images[0]))
