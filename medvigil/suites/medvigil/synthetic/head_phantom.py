"""The axial head CT/MRI phantom: scalp, skull, brain with cortex, lateral ventricles and falx,
mirror-symmetric about the midline (anterior at the top), and one brain lesion (haemorrhage,
infarct, or mass with its oedema rim) in a lobe of the patient's side (right = image left)."""

import numpy as np

from medvigil.suites.medvigil.synthetic.phantom_raster import (
    band_alpha,
    ellipse_alpha,
    grid,
    smooth_field,
    uniform,
)
from medvigil.suites.medvigil.synthetic.phantom_scene import LESION_LEVELS, Scene

_ZONE_POS = {  # (lateral offset from the midline, vertical offset from the centre)
    "frontal": (0.16, -0.21),
    "parietal": (0.2, 0.0),
    "occipital": (0.15, 0.21),
}
_LEVELS = {  # grey levels of the anatomy per modality
    "CT": dict(scalp=88.0, skull=238.0, brain=92.0, cortex=102.0, vent=30.0, falx=140.0),
    "MRI": dict(scalp=196.0, skull=28.0, brain=104.0, cortex=122.0, vent=228.0, falx=60.0),
}


def draw_head(
    scene: Scene, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """``(image, lesion mask or None, brain mask, scalp mask)`` before noise and label."""
    w, h = scene.width, scene.height
    x, y = grid(w, h)
    xm = np.abs(x - 0.5)

    cy = uniform(rng, 0.495, 0.51)
    ax, ay = uniform(rng, 0.385, 0.4), uniform(rng, 0.44, 0.455)
    bone = uniform(rng, 0.026, 0.032)
    scalp = ellipse_alpha(xm, y, 0.0, cy, ax, ay, 1.5, w, h)
    skull = ellipse_alpha(xm, y, 0.0, cy, ax - 0.016, ay - 0.016, 1.5, w, h)
    brain = ellipse_alpha(xm, y, 0.0, cy, ax - 0.016 - bone, ay - 0.016 - bone, 1.5, w, h)
    inner = ellipse_alpha(xm, y, 0.0, cy, ax - 0.04 - bone, ay - 0.04 - bone, 3.0, w, h)
    cortex = np.clip(brain - inner, 0.0, 1.0)
    vent = ellipse_alpha(xm, y, 0.048, cy - 0.02, 0.032, 0.105, 1.5, w, h)
    falx = band_alpha(xm, 0.004, 1.5 / w) * (1 - vent) * inner

    levels = _LEVELS["CT" if scene.modality == "CT" else "MRI"]
    tex = smooth_field(rng, h, w, 10, 5)

    img = np.full((h, w), 6.0)
    img = img * (1 - scalp) + levels["scalp"] * scalp
    img = img * (1 - skull) + levels["skull"] * skull
    img = img * (1 - brain) + (levels["brain"] + tex) * brain
    img = img * (1 - cortex) + (levels["cortex"] + tex) * cortex
    img = img * (1 - vent) + levels["vent"] * vent
    img = img * (1 - falx) + levels["falx"] * falx

    lesion_mask = None
    if not scene.finding.is_normal:
        img, lesion_mask = _add_lesion(img, scene, rng, x, y, cy, brain)
    return img, lesion_mask, brain > 0.02, scalp > 0.02


def _add_lesion(
    img: np.ndarray,
    scene: Scene,
    rng: np.random.Generator,
    x: np.ndarray,
    y: np.ndarray,
    cy: float,
    brain: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``img`` with the finding drawn in its lobe, and the lesion's mask (a mass: with its rim)."""
    f, w, h = scene.finding, scene.width, scene.height
    sgn = -1.0 if f.side == "right" else 1.0
    dx, dy = _ZONE_POS[f.zone]
    lcx = 0.5 + sgn * (dx + uniform(rng, -0.012, 0.012))
    lcy = cy + dy + uniform(rng, -0.02, 0.02)
    params = LESION_LEVELS[(scene.modality, f.kind)]
    inside_brain = np.where(brain > 0.5, 1.0, 0.0)
    lesion_mask = None
    if f.kind == "haemorrhage":
        r = 0.035 if f.size == "small" else 0.062
        alpha = ellipse_alpha(x, y, lcx, lcy, r, 0.8 * r * w / h, 1.5, w, h) * inside_brain
    elif f.kind == "infarct":
        r = 0.045 if f.size == "small" else 0.072
        alpha = ellipse_alpha(x, y, lcx, lcy, 0.7 * r, 1.25 * r * w / h, 2.0, w, h) * inside_brain
    else:  # mass: core plus oedema rim
        r = 0.035 if f.size == "small" else 0.058
        rim = ellipse_alpha(x, y, lcx, lcy, 1.35 * r, 1.35 * r * w / h, 2.0, w, h) * inside_brain
        img = img * (1 - rim) + params["rim"] * rim
        alpha = ellipse_alpha(x, y, lcx, lcy, r, r * w / h, 1.5, w, h) * inside_brain
        lesion_mask = rim > 0.02
    img = img * (1 - alpha) + params["level"] * alpha
    if lesion_mask is None:
        lesion_mask = alpha > 0.02
    return img, lesion_mask
