"""The frontal chest radiograph phantom: thorax, lungs, mediastinum, spine, ribs and clavicles,
mirror-symmetric about the midline, and one lung lesion (nodule, consolidation, effusion or
pneumothorax) on the patient's side (right = image left)."""

from dataclasses import dataclass

import numpy as np

from medvigil.suites.medvigil.synthetic.phantom_raster import (
    band_alpha,
    ellipse_alpha,
    grid,
    smooth_field,
    uniform,
)
from medvigil.suites.medvigil.synthetic.phantom_scene import LESION_LEVELS, Finding, Scene

Layers = tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _Chest:
    """The drawn anatomy (coverages in [0, 1]) and the lung geometry a lesion is placed by."""

    x: np.ndarray
    y: np.ndarray
    w: int
    h: int
    lung_dx: float
    lung_cy: float
    lung_ax: float
    lung_ay: float
    body: np.ndarray
    lung: np.ndarray
    mediastinum: np.ndarray
    spine: np.ndarray
    ribs: np.ndarray
    clavicle: np.ndarray
    lung_tex: np.ndarray
    soft_tex: np.ndarray


@dataclass
class _Lesion:
    """What a lesion does to the lung layer: values added, a level blended in, the pixels it
    changes."""

    add: np.ndarray
    mask: np.ndarray
    replace_level: float | None = None
    replace_alpha: np.ndarray | None = None


def draw_chest(scene: Scene, rng: np.random.Generator) -> Layers:
    """``(image, lesion mask or None, lung mask, body mask)`` before noise and label."""
    c = _anatomy(scene, rng)
    f = scene.finding
    lesion = None if f.is_normal else _lesion(c, f, rng)
    img = np.full((c.h, c.w), 10.0)
    img = img * (1 - c.body) + (150.0 + c.soft_tex) * c.body
    lung_layer = (55.0 + c.lung_tex).copy()
    if lesion is not None and lesion.replace_alpha is not None:
        alpha = lesion.replace_alpha
        lung_layer = lung_layer * (1 - alpha) + lesion.replace_level * alpha
    lung_layer = lung_layer + (lesion.add if lesion is not None else np.zeros((c.h, c.w)))
    img = img * (1 - c.lung) + lung_layer * c.lung
    img = img * (1 - c.mediastinum) + 195.0 * c.mediastinum
    img = img * (1 - c.spine) + 215.0 * c.spine
    img = img + 28.0 * c.ribs * c.body + 40.0 * c.clavicle * c.body
    lesion_mask = None
    if lesion is not None:
        # only what stays visible: inside the lung and not hidden behind the mediastinum
        lesion_mask = lesion.mask & (c.lung > 0.02) & (c.mediastinum < 0.98)
    return img, lesion_mask, c.lung > 0.02, c.body > 0.02


def _anatomy(scene: Scene, rng: np.random.Generator) -> _Chest:
    w, h = scene.width, scene.height
    x, y = grid(w, h)
    xm = np.abs(x - 0.5)  # distance from the midline: every anatomical shape depends on it only

    body_cy, body_ax, body_ay = uniform(rng, 0.65, 0.67), uniform(rng, 0.43, 0.45), 0.58
    lung_dx, lung_cy = uniform(rng, 0.195, 0.21), uniform(rng, 0.47, 0.49)
    lung_ax, lung_ay = uniform(rng, 0.125, 0.135), uniform(rng, 0.285, 0.3)
    rib_y0, rib_step = uniform(rng, 0.19, 0.21), uniform(rng, 0.082, 0.088)

    body = ellipse_alpha(xm, y, 0.0, body_cy, body_ax, body_ay, 2.0, w, h)
    lung = ellipse_alpha(xm, y, lung_dx, lung_cy, lung_ax, lung_ay, 2.0, w, h)
    heart = ellipse_alpha(xm, y, 0.0, 0.665, 0.15, 0.125, 2.0, w, h)
    upper_med = band_alpha(xm, 0.062, 2.0 / w) * np.clip((y - 0.1) * h / 2.0, 0.0, 1.0)
    spine = band_alpha(xm, 0.021, 2.0 / w) * np.clip((y - 0.1) * h / 2.0, 0.0, 1.0)

    ribs = np.zeros((h, w))
    lateral = np.clip((xm - 0.06) * w / 3.0, 0.0, 1.0) * np.clip((0.37 - xm) * w / 3.0, 0.0, 1.0)
    for k in range(7):
        centre = rib_y0 + rib_step * k + 0.8 * (xm - 0.07) ** 2
        ribs = np.maximum(ribs, band_alpha(y - centre, 0.0085, 2.0 / h) * lateral)
    clav_line = 0.152 - 0.12 * (xm - 0.04)
    clavicle = (
        band_alpha(y - clav_line, 0.0065, 2.0 / h)
        * np.clip((xm - 0.03) * w / 3.0, 0, 1)
        * np.clip((0.3 - xm) * w / 3.0, 0, 1)
    )
    return _Chest(
        x,
        y,
        w,
        h,
        lung_dx,
        lung_cy,
        lung_ax,
        lung_ay,
        body=body,
        lung=lung,
        mediastinum=np.maximum(heart, upper_med),
        spine=spine,
        ribs=ribs,
        clavicle=clavicle,
        lung_tex=smooth_field(rng, h, w, 12, 6),
        soft_tex=smooth_field(rng, h, w, 24, 4),
    )


def _lesion(c: _Chest, f: Finding, rng: np.random.Generator) -> _Lesion:
    """The finding's layers in the lung of its side and zone."""
    sgn = -1.0 if f.side == "right" else 1.0  # patient's right -> image left
    cx = 0.5 + sgn * c.lung_dx
    zone_cy = c.lung_cy - 0.5 * c.lung_ay if f.zone == "upper" else c.lung_cy + 0.45 * c.lung_ay
    params = LESION_LEVELS[("X-ray", f.kind)]
    lesion = _DRAW[f.kind](c, f, rng, sgn, cx, zone_cy, params)
    if not lesion.mask.any():
        raise RuntimeError(f"internal error: lesion {f} drew no pixels")
    return lesion


def _nodule(c: _Chest, f: Finding, rng, sgn: float, cx: float, zone_cy: float, params) -> _Lesion:
    r = 0.022 if f.size == "small" else 0.042
    ncx = cx + sgn * uniform(rng, -0.3, 0.3) * c.lung_ax
    ncy = zone_cy + uniform(rng, -0.06, 0.06) * c.lung_ay
    alpha = ellipse_alpha(c.x, c.y, ncx, ncy, r, r * c.w / c.h, 1.5, c.w, c.h)
    return _Lesion(add=params["add"] * alpha, mask=alpha > 0.02)


def _consolidation(
    c: _Chest, f: Finding, rng, sgn: float, cx: float, zone_cy: float, params
) -> _Lesion:
    ax, ay = (0.055, 0.065) if f.size == "small" else (0.085, 0.11)
    ccx = cx + sgn * uniform(rng, -0.15, 0.15) * c.lung_ax
    ccy = zone_cy + uniform(rng, -0.05, 0.05) * c.lung_ay
    alpha = ellipse_alpha(c.x, c.y, ccx, ccy, ax, ay, 3.0, c.w, c.h) * np.where(
        c.lung > 0.5, 1.0, 0.0
    )
    tex = smooth_field(rng, c.h, c.w, 8, 10)
    return _Lesion(add=(params["add"] + tex) * alpha, mask=alpha > 0.02)


def _effusion(c: _Chest, f: Finding, rng, sgn: float, cx: float, zone_cy: float, params) -> _Lesion:
    xs = c.x - 0.5  # signed, for the lesion only
    level = c.lung_cy + c.lung_ay * (0.55 if f.size == "small" else 0.12)
    t = np.clip((np.abs(xs) - (c.lung_dx - c.lung_ax)) / (2 * c.lung_ax), 0.0, 1.0)
    meniscus = level - 0.07 * t * t
    own_side = (sgn * xs) > 0
    alpha = (
        np.clip((c.y - meniscus) * c.h / 2.0 + 0.5, 0.0, 1.0)
        * np.where(c.lung > 0.5, 1.0, 0.0)
        * own_side
    )
    return _Lesion(
        add=np.zeros((c.h, c.w)),
        mask=alpha > 0.02,
        replace_level=params["level"],
        replace_alpha=0.95 * alpha,
    )


def _pneumothorax(
    c: _Chest, f: Finding, rng, sgn: float, cx: float, zone_cy: float, params
) -> _Lesion:
    xs = c.x - 0.5  # signed, for the lesion only
    k = 0.72 if f.size == "small" else 0.55
    pcx = cx - sgn * c.lung_ax * (1 - k) * 0.9  # collapsed lung drifts medially ...
    pcy = c.lung_cy + c.lung_ay * (1 - k) * 0.7  # ... and downwards
    inside = np.sqrt(((c.x - pcx) / (c.lung_ax * k)) ** 2 + ((c.y - pcy) / (c.lung_ay * k)) ** 2)
    own_side = (sgn * xs) > 0
    upper = c.y < c.lung_cy + 0.15 * c.lung_ay
    air = (c.lung > 0.5) & (inside > 1.0) & own_side & upper
    line_w = 1.2 / min(c.lung_ax * k * c.w, c.lung_ay * k * c.h)
    line = (np.abs(inside - 1.0) < line_w) & (c.lung > 0.5) & own_side & upper
    return _Lesion(
        add=params["pleural_line_add"] * line,
        mask=air | line,
        replace_level=params["level"],
        replace_alpha=air.astype(np.float64),
    )


_DRAW = {
    "nodule": _nodule,
    "consolidation": _consolidation,
    "effusion": _effusion,
    "pneumothorax": _pneumothorax,
}
