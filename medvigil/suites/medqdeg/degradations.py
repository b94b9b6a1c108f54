"""The 18 MedQ-Deg image degradations (Liu et al., seed 002, Section 3.2, Table 5, App. A.4).

Every type follows the project spec ``docs/medqdeg-degradations.md`` ("the spec"): each type's
numbered paragraph gives its formula, its random draws (in order) and its L1 / L2 parameters. The
authors' numeric severities were not published, so every parameter is the spec's *proposed
default* (most fitted to the project page's L0/L1/L2 examples).

Conventions (spec, "Conventions"):

* ``degrade(x, kind, level, seed)``: ``x`` float32/float64 in [0, 1], shape (H, W) or (H, W, 3); the
  result has the same shape and dtype, clipped to [0, 1]. Level 0 returns a copy.
* ``rng = numpy.random.default_rng(seed)``, drawn in the listed order at every level, so L1 and L2
  of one image share angles, positions, masks and noise fields (nested draws); only magnitudes
  change. :func:`medvigil.suites.medqdeg.degradation_types.seed_for` gives the recommended seed,
  the first 8 bytes of ``sha256(image_id + kind)``.
* Channels share the draws (grey RGB stays grey); gaussian_noise is independent per channel and
  low_dose adds one luminance residual to every channel. Colour constants become luminance
  (0.299, 0.587, 0.114) on 2-D input.
* ``m = min(H, W)``, ``s = m / 512``; "px@512" parameters are multiplied by ``s``.
* Several per-object draws (blood cells, dark spots) are drawn as one vector per quantity over all
  objects, in the listed order; object_rotation's sign is ``+1`` when ``rng.random() < 0.5``.

The types, their parameters, applicability (Table 5) and seeds are
:mod:`medvigil.suites.medqdeg.degradation_types`; the operations
:mod:`medvigil.suites.medqdeg.scanner_degradations` (types 1-6) and
:mod:`medvigil.suites.medqdeg.image_degradations` (types 7-18).

Implementation notes (equivalences, not deviations): a grey RGB image (three equal
channels) is processed once and stacked, which gives the same result because every
per-channel operation uses the same draws; motion_blur convolves by FFT after symmetric
padding, equal to ``scipy.ndimage.convolve(mode='reflect')`` to ~1e-12; blood cells are
blended inside a box of 4 radii, outside which their weight is below 1e-16.
"""

from typing import Any

import numpy as np
from PIL import Image

from medvigil.suites.medqdeg.degradation_types import PARAMS, check_kind, check_level, check_seed
from medvigil.suites.medqdeg.image_degradations import IMAGE_OPS
from medvigil.suites.medqdeg.scanner_degradations import MRI_OPS, ct_views, low_dose

__all__ = ["CT_WORK_SIZE", "degrade", "degrade_image"]

CT_WORK_SIZE = 512  # spec "CT pipeline": work at Sw = min(S, 512)
MIN_SIDE = 8
_OPS = {**MRI_OPS, **IMAGE_OPS}


def _check_image(x: Any) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise TypeError(f"x must be a numpy array, got {type(x).__name__}")
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x must be float32 or float64 in [0, 1], got dtype {x.dtype}")
    if not (x.ndim == 2 or (x.ndim == 3 and x.shape[2] == 3)):
        raise ValueError(f"x must have shape (H, W) or (H, W, 3), got {x.shape}")
    if min(x.shape[:2]) < MIN_SIDE:
        raise ValueError(
            f"x must be at least {MIN_SIDE}x{MIN_SIDE} pixels, got {x.shape[0]}x{x.shape[1]}"
        )
    if not np.isfinite(x).all() or x.min() < 0 or x.max() > 1:
        raise ValueError("x must hold finite values in [0, 1]")
    return x


def degrade(
    x: np.ndarray, kind: str, level: int, seed: int, *, ct_work_size: int = CT_WORK_SIZE
) -> np.ndarray:
    """Apply MedQ-Deg type ``kind`` at ``level`` (0-2) with ``seed`` (module docstring);
    ``ct_work_size``: the spec's 512-pixel CT working size (types 1-3), smaller trades fidelity for
    speed (callers record it)."""
    _check_image(x)
    check_kind(kind)
    level = check_level(level)
    seed = check_seed(seed)
    if isinstance(ct_work_size, bool) or not isinstance(ct_work_size, int) or ct_work_size < 16:
        raise ValueError(f"ct_work_size must be an int >= 16, got {ct_work_size!r}")
    if level == 0:
        return x.copy()
    rng = np.random.default_rng(seed)
    p = PARAMS[kind][level]
    a = x.astype(np.float64)
    a = a[..., None] if a.ndim == 2 else a
    if kind in ("limited_angle", "sparse_view"):
        y = ct_views(a, p, rng, level, kind, ct_work_size)
    elif kind == "low_dose":
        y = low_dose(a, p, rng, level, ct_work_size)
    else:
        y = _OPS[kind](a, p, rng, level)
    y = np.clip(y, 0.0, 1.0).astype(x.dtype)
    return y[..., 0] if x.ndim == 2 else y


def degrade_image(
    img: Image.Image, kind: str, level: int, seed: int, *, ct_work_size: int = CT_WORK_SIZE
) -> Image.Image:
    """:func:`degrade` of a PIL image: mode "L" stays greyscale, any other is read as RGB; rounded
    to 8 bits."""
    if not isinstance(img, Image.Image):
        raise TypeError(f"img must be a PIL.Image.Image, got {type(img).__name__}")
    grey = img.mode == "L"
    a = np.asarray(img if grey else img.convert("RGB"), dtype=np.float64) / 255.0
    y = degrade(a, kind, level, seed, ct_work_size=ct_work_size)
    return Image.fromarray(np.round(y * 255.0).astype(np.uint8), mode="L" if grey else "RGB")
