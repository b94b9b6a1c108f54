"""Procedural phantoms: chest radiographs and axial head CT/MRI slices with known lesions (not
clinical data).

Drawn with numpy from a :class:`Scene` and a seeded generator at native size, 8-bit greyscale; the
**patient's right is on the image left** (x < 0.5), head slices anterior at the top. A pixel
heuristic can rely on:

* mirror-symmetric anatomy (shapes of ``|x - 0.5|``): the ROI against its mirror box ``[1 - x1, y0,
  1 - x0, y1]`` isolates the lesion, the organ's halves give its side;
* lesion ROI means differing from the mirror box's by >= 17 grey levels with the sign of
  :data:`BRIGHT` (:data:`LESION_LEVELS`; normal lung about 55, brain 92 on CT and 104 on MRI);
* noise: integer triangular in [-4, 4] plus texture of at most +-6 inside organs, so a masked ROI's
  flat 128 is no anatomy;
* ROI boxes bounding every changed pixel, widened by :data:`ROI_MARGIN_PX` (Lanczos and JPEG bleed),
  rounded outwards to 4 decimals;
* the "SYNTHETIC" label (grey 215) in the top :data:`LABEL_BAND` (7%) of rows: skip them when
  comparing halves.

Only IEEE-exact arithmetic (+, -, *, /, sqrt) and integer random draws: pixels do not depend on
platform libm."""

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

CHEST_KINDS = ("nodule", "consolidation", "effusion", "pneumothorax")
HEAD_KINDS = ("haemorrhage", "infarct", "mass")
NORMAL = "normal"
CHEST_ZONES = ("upper", "lower")
HEAD_ZONES = ("frontal", "parietal", "occipital")
MODALITIES = ("X-ray", "CT", "MRI")

ROI_MARGIN_PX = 4  # native pixels added around a lesion's bounding box
LABEL_TEXT = "SYNTHETIC"
LABEL_LEVEL = 215
LABEL_BAND = 0.07  # the corner label lies within the top 7% of the image rows

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


# --------------------------------------------------------------------------- helpers
def _grid(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    xs = (np.arange(width, dtype=np.float64) + 0.5) / width
    ys = (np.arange(height, dtype=np.float64) + 0.5) / height
    return xs[None, :], ys[:, None]


def _ellipse_alpha(x, y, cx, cy, ax, ay, edge_px: float, width: int, height: int) -> np.ndarray:
    """Soft-edged ellipse coverage in [0, 1] (linear ramp of about ``edge_px`` pixels)."""
    d = np.sqrt(((x - cx) / ax) ** 2 + ((y - cy) / ay) ** 2)
    ramp = edge_px / min(ax * width, ay * height)
    return np.clip((1.0 - d) / ramp + 0.5, 0.0, 1.0)


def _band_alpha(dist: np.ndarray, half_width: float, edge: float) -> np.ndarray:
    """Coverage of a band ``|dist| < half_width`` with a linear edge of width ``edge``."""
    return np.clip((half_width - np.abs(dist)) / edge + 0.5, 0.0, 1.0)


def _smooth_field(
    rng: np.random.Generator, height: int, width: int, cell: int, amp: int
) -> np.ndarray:
    """Smooth texture in [-amp, amp]: integers on a ``cell``-pixel grid, bilinearly interpolated
    (exact float arithmetic)."""
    gh, gw = height // cell + 2, width // cell + 2
    coarse = rng.integers(-amp, amp + 1, size=(gh, gw)).astype(np.float64)
    ty = np.arange(height, dtype=np.float64) / cell
    tx = np.arange(width, dtype=np.float64) / cell
    iy, ix = ty.astype(np.intp), tx.astype(np.intp)
    fy, fx = (ty - iy)[:, None], tx - ix
    rows = coarse[iy] * (1.0 - fy) + coarse[iy + 1] * fy  # (height, gw)
    return rows[:, ix] * (1.0 - fx) + rows[:, ix + 1] * fx


def _noise(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Integer triangular noise in [-4, 4] (sum of two uniform integers in [-2, 2])."""
    return (
        rng.integers(-2, 3, size=(height, width)) + rng.integers(-2, 3, size=(height, width))
    ).astype(np.float64)


def _mask_box(mask: np.ndarray, margin: int) -> Box:
    """Normalised box of the True pixels of ``mask`` widened by ``margin`` px, rounded outwards."""
    height, width = mask.shape
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        raise RuntimeError("internal error: empty lesion/organ mask")
    px0 = max(int(cols[0]) - margin, 0)
    px1 = min(int(cols[-1]) + 1 + margin, width)
    py0 = max(int(rows[0]) - margin, 0)
    py1 = min(int(rows[-1]) + 1 + margin, height)
    return _floor4(px0 / width), _floor4(py0 / height), _ceil4(px1 / width), _ceil4(py1 / height)


def _floor4(v: float) -> float:
    return max(0.0, math.floor(v * 10000 + 1e-7) / 10000)


def _ceil4(v: float) -> float:
    return min(1.0, math.ceil(v * 10000 - 1e-7) / 10000)


def _u(rng: np.random.Generator, lo: float, hi: float) -> float:
    """A uniform draw rounded to 1e-4 (keeps geometry reproducible and printable)."""
    return round(lo + (hi - lo) * float(rng.integers(0, 10001)) / 10000, 4)


# --------------------------------------------------------------------------- label font

_GLYPHS = {
    "S": (".###.", "#...#", "#....", ".###.", "....#", "#...#", ".###."),
    "Y": ("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."),
    "N": ("#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "H": ("#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "I": (".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "C": (".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."),
}


def label_mask(text: str, scale: int) -> np.ndarray:
    """Boolean bitmap of ``text`` in a 5x7 font (1 px spacing), each font pixel ``scale`` px."""
    cols = []
    for i, ch in enumerate(text):
        glyph = np.array([[c == "#" for c in row] for row in _GLYPHS[ch]], dtype=bool)
        if i:
            cols.append(np.zeros((7, 1), dtype=bool))
        cols.append(glyph)
    bitmap = np.concatenate(cols, axis=1)
    return np.repeat(np.repeat(bitmap, scale, axis=0), scale, axis=1)


def _label_mask(width: int, height: int) -> np.ndarray:
    return label_mask(LABEL_TEXT, max(2, round(min(width, height) / 170)))


def label_box(width: int, height: int) -> tuple[int, int, int, int]:
    """Pixel rectangle ``(x0, y0, x1, y1)`` of the corner label in a native image."""
    mask = _label_mask(width, height)
    x0, y0 = round(0.02 * width), round(0.012 * height)
    if y0 + mask.shape[0] > LABEL_BAND * height:
        raise ValueError(f"image {width}x{height} is too flat for the corner label")
    return x0, y0, x0 + mask.shape[1], y0 + mask.shape[0]


def _phantom(
    img: np.ndarray,
    rng: np.random.Generator,
    lesion: np.ndarray | None,
    organ: np.ndarray,
    body: np.ndarray,
) -> Phantom:
    """The finished phantom: noise added, label stamped, boxes of the lesion, organ and body
    masks."""
    height, width = img.shape
    out = np.clip(np.rint(img + _noise(rng, height, width)), 0, 255)
    x0, y0, x1, y1 = label_box(width, height)
    out[y0:y1, x0:x1][_label_mask(width, height)] = LABEL_LEVEL
    return Phantom(
        image=Image.fromarray(out.astype(np.uint8), mode="L"),
        lesion_box=None if lesion is None else _mask_box(lesion, ROI_MARGIN_PX),
        organ_box=_mask_box(organ, ROI_MARGIN_PX),
        body_box=_mask_box(body, 0),
    )


# --------------------------------------------------------------------------- chest
def _draw_chest(scene: Scene, rng: np.random.Generator) -> Phantom:
    w, h = scene.width, scene.height
    x, y = _grid(w, h)
    xm = np.abs(x - 0.5)  # distance from the midline: every anatomical shape depends on it only
    f = scene.finding

    body_cy, body_ax, body_ay = _u(rng, 0.65, 0.67), _u(rng, 0.43, 0.45), 0.58
    lung_dx, lung_cy = _u(rng, 0.195, 0.21), _u(rng, 0.47, 0.49)
    lung_ax, lung_ay = _u(rng, 0.125, 0.135), _u(rng, 0.285, 0.3)
    rib_y0, rib_step = _u(rng, 0.19, 0.21), _u(rng, 0.082, 0.088)

    body = _ellipse_alpha(xm, y, 0.0, body_cy, body_ax, body_ay, 2.0, w, h)
    lung = _ellipse_alpha(xm, y, lung_dx, lung_cy, lung_ax, lung_ay, 2.0, w, h)
    heart = _ellipse_alpha(xm, y, 0.0, 0.665, 0.15, 0.125, 2.0, w, h)
    upper_med = _band_alpha(xm, 0.062, 2.0 / w) * np.clip((y - 0.1) * h / 2.0, 0.0, 1.0)
    mediastinum = np.maximum(heart, upper_med)
    spine = _band_alpha(xm, 0.021, 2.0 / w) * np.clip((y - 0.1) * h / 2.0, 0.0, 1.0)

    ribs = np.zeros((h, w))
    lateral = np.clip((xm - 0.06) * w / 3.0, 0.0, 1.0) * np.clip((0.37 - xm) * w / 3.0, 0.0, 1.0)
    for k in range(7):
        centre = rib_y0 + rib_step * k + 0.8 * (xm - 0.07) ** 2
        ribs = np.maximum(ribs, _band_alpha(y - centre, 0.0085, 2.0 / h) * lateral)
    clav_line = 0.152 - 0.12 * (xm - 0.04)
    clavicle = (
        _band_alpha(y - clav_line, 0.0065, 2.0 / h)
        * np.clip((xm - 0.03) * w / 3.0, 0, 1)
        * np.clip((0.3 - xm) * w / 3.0, 0, 1)
    )

    lung_tex = _smooth_field(rng, h, w, 12, 6)
    soft_tex = _smooth_field(rng, h, w, 24, 4)

    # Lesion layers (applied to the lung layer, before the bony overlay).
    lung_value = 55.0 + lung_tex
    lesion_mask = None
    add = np.zeros((h, w))
    replace_level = None
    replace_alpha = None
    if not f.is_normal:
        sgn = -1.0 if f.side == "right" else 1.0  # patient's right -> image left
        cx = 0.5 + sgn * lung_dx
        zone_cy = lung_cy - 0.5 * lung_ay if f.zone == "upper" else lung_cy + 0.45 * lung_ay
        params = LESION_LEVELS[("X-ray", f.kind)]
        xs = x - 0.5  # signed, for the lesion only
        if f.kind == "nodule":
            r = 0.022 if f.size == "small" else 0.042
            ncx = cx + sgn * _u(rng, -0.3, 0.3) * lung_ax
            ncy = zone_cy + _u(rng, -0.06, 0.06) * lung_ay
            alpha = _ellipse_alpha(x, y, ncx, ncy, r, r * w / h, 1.5, w, h)
            add = params["add"] * alpha
            lesion_mask = alpha > 0.02
        elif f.kind == "consolidation":
            ax, ay = (0.055, 0.065) if f.size == "small" else (0.085, 0.11)
            ccx = cx + sgn * _u(rng, -0.15, 0.15) * lung_ax
            ccy = zone_cy + _u(rng, -0.05, 0.05) * lung_ay
            alpha = _ellipse_alpha(x, y, ccx, ccy, ax, ay, 3.0, w, h) * np.where(
                lung > 0.5, 1.0, 0.0
            )
            tex = _smooth_field(rng, h, w, 8, 10)
            add = (params["add"] + tex) * alpha
            lesion_mask = alpha > 0.02
        elif f.kind == "effusion":
            level = lung_cy + lung_ay * (0.55 if f.size == "small" else 0.12)
            t = np.clip((np.abs(xs) - (lung_dx - lung_ax)) / (2 * lung_ax), 0.0, 1.0)
            meniscus = level - 0.07 * t * t
            own_side = (sgn * xs) > 0
            alpha = (
                np.clip((y - meniscus) * h / 2.0 + 0.5, 0.0, 1.0)
                * np.where(lung > 0.5, 1.0, 0.0)
                * own_side
            )
            replace_level, replace_alpha = params["level"], 0.95 * alpha
            lesion_mask = alpha > 0.02
        elif f.kind == "pneumothorax":
            k = 0.72 if f.size == "small" else 0.55
            pcx = cx - sgn * lung_ax * (1 - k) * 0.9  # collapsed lung drifts medially ...
            pcy = lung_cy + lung_ay * (1 - k) * 0.7  # ... and downwards
            inside = np.sqrt(((x - pcx) / (lung_ax * k)) ** 2 + ((y - pcy) / (lung_ay * k)) ** 2)
            own_side = (sgn * xs) > 0
            upper = y < lung_cy + 0.15 * lung_ay
            air = (lung > 0.5) & (inside > 1.0) & own_side & upper
            line_w = 1.2 / min(lung_ax * k * w, lung_ay * k * h)
            line = (np.abs(inside - 1.0) < line_w) & (lung > 0.5) & own_side & upper
            replace_level, replace_alpha = params["level"], air.astype(np.float64)
            add = params["pleural_line_add"] * line
            lesion_mask = air | line
        if lesion_mask is None or not lesion_mask.any():
            raise RuntimeError(f"internal error: lesion {f} drew no pixels")

    img = np.full((h, w), 10.0)
    img = img * (1 - body) + (150.0 + soft_tex) * body
    lung_layer = lung_value.copy()
    if replace_alpha is not None:
        lung_layer = lung_layer * (1 - replace_alpha) + replace_level * replace_alpha
    lung_layer = lung_layer + add
    img = img * (1 - lung) + lung_layer * lung
    img = img * (1 - mediastinum) + 195.0 * mediastinum
    img = img * (1 - spine) + 215.0 * spine
    img = img + 28.0 * ribs * body + 40.0 * clavicle * body
    if lesion_mask is not None:
        # only what stays visible: inside the lung and not hidden behind the mediastinum
        lesion_mask = lesion_mask & (lung > 0.02) & (mediastinum < 0.98)

    return _phantom(img, rng, lesion_mask, lung > 0.02, body > 0.02)


# --------------------------------------------------------------------------- head
_HEAD_ZONE_POS = {  # (lateral offset from the midline, vertical offset from the centre)
    "frontal": (0.16, -0.21),
    "parietal": (0.2, 0.0),
    "occipital": (0.15, 0.21),
}


def _draw_head(scene: Scene, rng: np.random.Generator) -> Phantom:
    w, h = scene.width, scene.height
    x, y = _grid(w, h)
    xm = np.abs(x - 0.5)
    f = scene.finding
    ct = scene.modality == "CT"

    cy = _u(rng, 0.495, 0.51)
    ax, ay = _u(rng, 0.385, 0.4), _u(rng, 0.44, 0.455)
    bone = _u(rng, 0.026, 0.032)
    scalp = _ellipse_alpha(xm, y, 0.0, cy, ax, ay, 1.5, w, h)
    skull = _ellipse_alpha(xm, y, 0.0, cy, ax - 0.016, ay - 0.016, 1.5, w, h)
    brain = _ellipse_alpha(xm, y, 0.0, cy, ax - 0.016 - bone, ay - 0.016 - bone, 1.5, w, h)
    inner = _ellipse_alpha(xm, y, 0.0, cy, ax - 0.04 - bone, ay - 0.04 - bone, 3.0, w, h)
    cortex = np.clip(brain - inner, 0.0, 1.0)
    vent = _ellipse_alpha(xm, y, 0.048, cy - 0.02, 0.032, 0.105, 1.5, w, h)
    falx = _band_alpha(xm, 0.004, 1.5 / w) * (1 - vent) * inner

    levels = (
        dict(scalp=88.0, skull=238.0, brain=92.0, cortex=102.0, vent=30.0, falx=140.0)
        if ct
        else dict(scalp=196.0, skull=28.0, brain=104.0, cortex=122.0, vent=228.0, falx=60.0)
    )
    tex = _smooth_field(rng, h, w, 10, 5)

    img = np.full((h, w), 6.0)
    img = img * (1 - scalp) + levels["scalp"] * scalp
    img = img * (1 - skull) + levels["skull"] * skull
    img = img * (1 - brain) + (levels["brain"] + tex) * brain
    img = img * (1 - cortex) + (levels["cortex"] + tex) * cortex
    img = img * (1 - vent) + levels["vent"] * vent
    img = img * (1 - falx) + levels["falx"] * falx

    lesion_mask = None
    if not f.is_normal:
        sgn = -1.0 if f.side == "right" else 1.0
        dx, dy = _HEAD_ZONE_POS[f.zone]
        lcx = 0.5 + sgn * (dx + _u(rng, -0.012, 0.012))
        lcy = cy + dy + _u(rng, -0.02, 0.02)
        params = LESION_LEVELS[(scene.modality, f.kind)]
        inside_brain = np.where(brain > 0.5, 1.0, 0.0)
        if f.kind == "haemorrhage":
            r = 0.035 if f.size == "small" else 0.062
            alpha = _ellipse_alpha(x, y, lcx, lcy, r, 0.8 * r * w / h, 1.5, w, h) * inside_brain
        elif f.kind == "infarct":
            r = 0.045 if f.size == "small" else 0.072
            alpha = (
                _ellipse_alpha(x, y, lcx, lcy, 0.7 * r, 1.25 * r * w / h, 2.0, w, h) * inside_brain
            )
        else:  # mass: core plus oedema rim
            r = 0.035 if f.size == "small" else 0.058
            rim = (
                _ellipse_alpha(x, y, lcx, lcy, 1.35 * r, 1.35 * r * w / h, 2.0, w, h) * inside_brain
            )
            img = img * (1 - rim) + params["rim"] * rim
            alpha = _ellipse_alpha(x, y, lcx, lcy, r, r * w / h, 1.5, w, h) * inside_brain
            lesion_mask = rim > 0.02
        img = img * (1 - alpha) + params["level"] * alpha
        if lesion_mask is None:
            lesion_mask = alpha > 0.02

    return _phantom(img, rng, lesion_mask, brain > 0.02, scalp > 0.02)


def draw_phantom(scene: Scene, rng: np.random.Generator) -> Phantom:
    """Draw ``scene`` with randomness from ``rng``; see the module docstring for conventions."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return _draw_chest(scene, rng) if scene.anatomy == "chest" else _draw_head(scene, rng)
