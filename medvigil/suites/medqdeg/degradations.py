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
  change. :func:`seed_for` gives the recommended seed, the first 8 bytes of ``sha256(image_id +
  kind)``.
* Channels share the draws (grey RGB stays grey); gaussian_noise is independent per channel and
  low_dose adds one luminance residual to every channel. Colour constants become luminance
  (0.299, 0.587, 0.114) on 2-D input.
* ``m = min(H, W)``, ``s = m / 512``; "px@512" parameters are multiplied by ``s``.
* Several per-object draws (blood cells, dark spots) are drawn as one vector per quantity over all
  objects, in the listed order; object_rotation's sign is ``+1`` when ``rng.random() < 0.5``.

Applicability follows Table 5: nine general types apply to every modality, three each to
CT, MRI and pathology only (see :data:`MODALITY_KINDS` and :func:`modality_family`).

Implementation notes (equivalences, not deviations): a grey RGB image (three equal
channels) is processed once and stacked, which gives the same result because every
per-channel operation uses the same draws; motion_blur convolves by FFT after symmetric
padding, equal to ``scipy.ndimage.convolve(mode='reflect')`` to ~1e-12; blood cells are
blended inside a box of 4 radii, outside which their weight is below 1e-16.
"""

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image
from scipy import ndimage, signal

from medvigil.suites.medqdeg.categories import CATEGORIES, CATEGORY_OF  # noqa: F401  (part of this module's names)

__all__ = [
    "GENERAL_KINDS",
    "KINDS",
    "LEVELS",
    "MODALITY_KINDS",
    "PARAMS",
    "applicable_kinds",
    "choose_kinds",
    "ct_angles",
    "degrade",
    "degrade_image",
    "modality_family",
    "motion_kernel",
    "movement_phase",
    "parameters",
    "seed_for",
    "undersampling_mask",
]

LEVELS = (0, 1, 2)
LUMA = np.array([0.299, 0.587, 0.114])
CT_WORK_SIZE = 512  # spec "CT pipeline": work at Sw = min(S, 512)
MIN_SIDE = 8

# Spec L1 / L2 values, by type (spec section numbers in comments).
PARAMS: dict[str, dict[int, dict[str, Any]]] = {
    "limited_angle": {1: {"arc_deg": 150.0}, 2: {"arc_deg": 120.0}},  # 1
    "sparse_view": {1: {"views": 90}, 2: {"views": 30}},  # 2
    "low_dose": {1: {"I0": 1e5}, 2: {"I0": 2.5e4}},  # 3
    "bias_field_artifact": {1: {"magnitude": 0.3}, 2: {"magnitude": 0.5}},  # 4
    "undersampling_artifact": {1: {"acceleration": 4}, 2: {"acceleration": 8}},  # 5
    "ghosting_artifact": {1: {"every": 6, "strength": 0.5}, 2: {"every": 6, "strength": 1.5}},  # 6
    "blood_cell_artifact": {1: {"cells_per_256sq": 15}, 2: {"cells_per_256sq": 40}},  # 7
    "dark_spots_artifact": {
        1: {"spots": 1, "q": 0.25, "a0": 0.45},
        2: {"spots": 2, "q": 0.30, "a0": 0.65},
    },  # 8
    "object_rotation": {1: {"angle_deg": 18.0}, 2: {"angle_deg": 153.0}},  # 9
    "object_movement": {1: {"shift_frac": 0.02}, 2: {"shift_frac": 0.04}},  # 10
    "adjust_brightness": {1: {"delta": -0.29}, 2: {"delta": -0.44}},  # 11
    "exposure": {1: {"gamma": 1.46, "beta": -0.035}, 2: {"gamma": 2.35, "beta": -0.11}},  # 12
    "reduce_contrast": {1: {"c": 0.65}, 2: {"c": 0.30}},  # 13
    "gaussian_noise": {1: {"sigma": 0.05}, 2: {"sigma": 0.08}},  # 14
    "low_resolution": {1: {"factor": 2}, 2: {"factor": 16}},  # 15
    "motion_blur": {1: {"q": 0.014}, 2: {"q": 0.03}},  # 16
    "gaussian_blur": {1: {"sigma_px512": 3.0}, 2: {"sigma_px512": 7.0}},  # 17
    "bubble": {1: {"rho": 0.20, "sigma_px512": 4.0}, 2: {"rho": 0.35, "sigma_px512": 6.0}},  # 18
}
KINDS = tuple(PARAMS)  # spec order 1..18

# Table 5 "Modality" column.
GENERAL_KINDS = (
    "object_rotation",
    "object_movement",
    "adjust_brightness",
    "exposure",
    "reduce_contrast",
    "gaussian_noise",
    "low_resolution",
    "motion_blur",
    "gaussian_blur",
)
MODALITY_KINDS = {
    "CT": ("limited_angle", "sparse_view", "low_dose"),
    "MRI": ("bias_field_artifact", "undersampling_artifact", "ghosting_artifact"),
    "Pathology": ("blood_cell_artifact", "dark_spots_artifact", "bubble"),
}
# Our release names modalities "X-ray", "CT", "MRI"; common spellings map to Table 5's families.
# X-ray (radiography) has no modality-specific type in Table 5: it gets the general ones.
_ALIASES = {
    "ct": "CT",
    "computed tomography": "CT",
    "cta": "CT",
    "mri": "MRI",
    "mr": "MRI",
    "magnetic resonance imaging": "MRI",
    "pathology": "Pathology",
    "histopathology": "Pathology",
    "microscopy": "Pathology",
    "wsi": "Pathology",
}


# ---------------------------------------------------------------- seeds and applicability


def _check_kind(kind: Any) -> str:
    if kind not in PARAMS:
        raise ValueError(
            f"kind must be one of the 18 MedQ-Deg types ({', '.join(KINDS)}), got {kind!r}"
        )
    return kind


def _check_level(level: Any) -> int:
    if (
        isinstance(level, bool)
        or not isinstance(level, (int, np.integer))
        or int(level) not in LEVELS
    ):
        raise ValueError(f"level must be 0, 1 or 2 (L0 clean, L1 mild, L2 severe), got {level!r}")
    return int(level)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


def seed_for(image_id: str, kind: str) -> int:
    """Spec "Seeding": the first 8 bytes (big-endian) of sha256(image_id + kind)."""
    if not isinstance(image_id, str) or not image_id:
        raise ValueError(f"image_id must be a non-empty str, got {image_id!r}")
    digest = hashlib.sha256((image_id + _check_kind(kind)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def modality_family(modality: str | None) -> str | None:
    """Table 5 family ("CT", "MRI", "Pathology") of a modality name, or None (general types
    only)."""
    if modality is None:
        return None
    if not isinstance(modality, str):
        raise TypeError(f"modality must be a str or None, got {type(modality).__name__}")
    return _ALIASES.get(modality.strip().lower())


def applicable_kinds(modality: str | None) -> tuple[str, ...]:
    """Types Table 5 allows for ``modality``, in spec order (general ones for any modality)."""
    family = modality_family(modality)
    allowed = set(GENERAL_KINDS) | set(MODALITY_KINDS.get(family, ()))
    return tuple(k for k in KINDS if k in allowed)


def choose_kinds(image_id: str, modality: str | None, n: int | None = 3) -> tuple[str, ...]:
    """The ``n`` applicable types with the smallest :func:`seed_for` (all for None), in spec order:
    Section 3.3's "randomly appl[ies] three modality-specific degradations" as a pure, uniform and
    nested function of the image id."""
    kinds = applicable_kinds(modality)
    if n is None:
        return kinds
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n (types per image) must be a positive int or None, got {n!r}")
    ranked = sorted(kinds, key=lambda k: seed_for(image_id, k))[:n]
    return tuple(k for k in KINDS if k in ranked)


def parameters(kind: str, level: int) -> dict[str, Any]:
    """The spec parameters of ``kind`` at ``level`` (empty at L0)."""
    _check_kind(kind)
    level = _check_level(level)
    return {} if level == 0 else dict(PARAMS[kind][level])


# ---------------------------------------------------------------- shared helpers


def _grey(x: np.ndarray) -> bool:
    return (
        x.shape[2] == 3
        and np.array_equal(x[..., 0], x[..., 1])
        and np.array_equal(x[..., 0], x[..., 2])
    )


def _per_channel(x: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Apply a 2-D operation to every channel of (H, W, C); grey RGB is computed once."""
    if _grey(x):
        return np.repeat(fn(x[..., 0])[..., None], x.shape[2], axis=2)
    return np.stack([fn(x[..., c]) for c in range(x.shape[2])], axis=2)


def _colour(rgb: tuple[float, float, float], channels: int) -> np.ndarray:
    c = np.asarray(rgb, dtype=np.float64)
    return c if channels == 3 else np.array([float(LUMA @ c)])


def _resize(a: np.ndarray, size: tuple[int, int], resample: int) -> np.ndarray:
    """Resize a 2-D float array with PIL mode 'F'; size is (width, height)."""
    return np.asarray(
        Image.fromarray(a.astype(np.float32), mode="F").resize(size, resample), dtype=np.float64
    )


def _kspace(c: np.ndarray) -> np.ndarray:
    return np.fft.fftshift(np.fft.fft2(c))  # spec "MRI k-space" (TorchIO convention)


def _image(f: np.ndarray) -> np.ndarray:
    return np.fft.ifft2(np.fft.ifftshift(f))


# ---------------------------------------------------------------- CT (spec types 1-3)


def ct_angles(kind: str, level: int, seed: int) -> np.ndarray:
    """Projection angles in degrees of limited_angle / sparse_view / low_dose (spec 1-3)."""
    kind, level, rng = (
        _check_kind(kind),
        _check_level(level),
        np.random.default_rng(_check_seed(seed)),
    )
    return _angles(kind, level, rng)


def _angles(kind: str, level: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "low_dose":  # spec 3: fixed 0.5 deg steps over 180 deg, no draw
        return 0.5 * np.arange(360)
    phi0 = rng.uniform(0.0, 180.0)
    if kind == "limited_angle":  # spec 1: arc A sampled every 0.5 deg from phi0
        return phi0 + 0.5 * np.arange(int(round(PARAMS[kind][level]["arc_deg"] / 0.5)))
    if kind == "sparse_view":  # spec 2: n equally spaced views over 180 deg
        n = PARAMS[kind][level]["views"]
        return phi0 + 180.0 * np.arange(n) / n
    raise ValueError(f"{kind} is not a CT type")


def _ct_frame(shape: tuple[int, int], work: int) -> tuple[int, int, int, int]:
    h, w = shape
    side = max(h, w)
    return side, min(side, work), (side - h) // 2, (side - w) // 2


def _to_work(c: np.ndarray, work: int) -> np.ndarray:
    """Zero-pad to a centred square S and area-downsample to Sw = min(S, work)."""
    side, sw, top, left = _ct_frame(c.shape, work)
    square = np.zeros((side, side))
    square[top : top + c.shape[0], left : left + c.shape[1]] = c
    return square if sw == side else _resize(square, (sw, sw), Image.Resampling.BOX)


def _from_work(r: np.ndarray, shape: tuple[int, int], work: int) -> np.ndarray:
    """Bicubically upsample a work-size residual to S and crop to the image."""
    side, sw, top, left = _ct_frame(shape, work)
    if sw != side:
        r = _resize(r, (side, side), Image.Resampling.BICUBIC)
    return r[top : top + shape[0], left : left + shape[1]]


def _radon(a: np.ndarray, theta: np.ndarray) -> np.ndarray:
    from skimage.transform import radon

    return radon(a, theta=theta, circle=False)


def _fbp(sino: np.ndarray, theta: np.ndarray, size: int) -> np.ndarray:
    from skimage.transform import iradon

    return iradon(sino, theta=theta, filter_name="ramp", circle=False, output_size=size)


def _ct_views(x, p, rng, level, kind, work):
    theta = _angles(kind, level, rng)

    def one(c):
        xw = _to_work(c, work)
        residual = _fbp(_radon(xw, theta), theta, xw.shape[0]) - xw
        return c + _from_work(residual, c.shape, work)

    return _per_channel(x, one)


def _low_dose(x, p, rng, level, work):
    kappa, theta = 4.0, _angles("low_dose", level, rng)  # spec 3
    lum = x[..., 0] if x.shape[2] == 1 else x @ LUMA
    xw = _to_work(lum, work)
    sw = xw.shape[0]
    proj = kappa * _radon(xw, theta) / sw
    counts = rng.poisson(p["I0"] * np.exp(-proj))
    noisy = -np.log(np.maximum(counts, 1) / p["I0"])
    residual = _fbp(noisy - proj, theta, sw) * sw / kappa  # FBP is linear: FBP(p^) - FBP(p)
    return x + _from_work(residual, lum.shape, work)[..., None]


# ---------------------------------------------------------------- MRI (spec types 4-6)


def _bias_field(x, p, rng, level):
    h, w = x.shape[:2]
    u = (np.arange(w) - w / 2 + 0.5) / max(w / 2 - 0.5, 1e-12)
    v = (np.arange(h) - h / 2 + 0.5) / max(h / 2 - 0.5, 1e-12)
    powers = [(a, b) for a in range(4) for b in range(4 - a)]  # 10 terms, constant included
    coef = rng.uniform(-1.0, 1.0, len(powers))
    log_field = sum(c * v[:, None] ** b * u[None, :] ** a for c, (a, b) in zip(coef, powers))
    return x * np.exp(p["magnitude"] * log_field)[..., None]


def undersampling_mask(width: int, level: int, seed: int) -> np.ndarray:
    """Kept k-space columns of undersampling_artifact (spec 5, fastMRI RandomMaskFunc)."""
    level, rng = _check_level(level), np.random.default_rng(_check_seed(seed))
    if level == 0:
        return np.ones(width, dtype=bool)
    return _mask(width, PARAMS["undersampling_artifact"][level]["acceleration"], rng)


def _mask(width: int, accel: int, rng: np.random.Generator) -> np.ndarray:
    centre = int(round(0.08 * width))
    u = rng.uniform(0.0, 1.0, width)
    keep = u < (width / accel - centre) / (width - centre)
    start = (width - centre + 1) // 2
    keep[start : start + centre] = True
    return keep


def _undersampling(x, p, rng, level):
    keep = _mask(x.shape[1], p["acceleration"], rng)
    return _per_channel(x, lambda c: np.abs(_image(_kspace(c) * keep[None, :])))


def _ghosting(x, p, rng, level):
    def one(c):
        f = _kspace(c)
        g = f.copy()
        g[:: p["every"], :] *= 1.0 - p["strength"]
        g[c.shape[0] // 2, :] = f[c.shape[0] // 2, :]  # the k-space centre row is kept
        return _image(g).real

    return _per_channel(x, one)


# ---------------------------------------------------------------- pathology (spec 7, 8, 18)


def _ellipse_rho(yy, xx, cy, cx, a, b, angle):
    dy, dx = yy - cy, xx - cx
    along = dx * np.cos(angle) + dy * np.sin(angle)
    across = -dx * np.sin(angle) + dy * np.cos(angle)
    return np.sqrt((along / a) ** 2 + (across / b) ** 2)


def _blood_cells(x, p, rng, level):
    h, w, ch = x.shape
    m, area = min(h, w), h * w / 256**2
    n_max = int(round(40 * area))
    cy, cx = rng.uniform(0.1 * h, 0.9 * h, n_max), rng.uniform(0.1 * w, 0.9 * w, n_max)
    radius, aspect, angle = (
        rng.uniform(0.035, 0.055, n_max) * m,
        rng.uniform(0.85, 1.0, n_max),
        rng.uniform(0.0, np.pi, n_max),
    )
    colour = _colour((0.78, 0.22, 0.28), ch)
    y = x.copy()
    for i in range(int(round(p["cells_per_256sq"] * area))):
        reach = 4 * radius[i]  # alpha < 1e-16 beyond 4 radii
        y0, y1 = max(0, int(cy[i] - reach)), min(h, int(np.ceil(cy[i] + reach)) + 1)
        x0, x1 = max(0, int(cx[i] - reach)), min(w, int(np.ceil(cx[i] + reach)) + 1)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        rho = _ellipse_rho(yy, xx, cy[i], cx[i], radius[i], radius[i] * aspect[i], angle[i])
        alpha = (0.55 / (1.0 + np.exp(-(1.0 - rho) / 0.08)))[..., None]
        y[y0:y1, x0:x1] = (1 - alpha) * y[y0:y1, x0:x1] + alpha * colour
    return y


def _dark_spots(x, p, rng, level):
    h, w, _ = x.shape
    m = min(h, w)
    cy, cx = rng.uniform(0.1 * h, 0.9 * h, 2), rng.uniform(0.1 * w, 0.9 * w, 2)
    aspect, angle = rng.uniform(0.6, 1.0, 2), rng.uniform(0.0, np.pi, 2)
    yy, xx = np.mgrid[0:h, 0:w]
    y = x.copy()
    for i in range(p["spots"]):
        rho = _ellipse_rho(yy, xx, cy[i], cx[i], p["q"] * m, p["q"] * m * aspect[i], angle[i])
        alpha = (p["a0"] * np.exp(-(rho**2) / 2))[..., None]
        y = (1 - alpha) * y + alpha * 0.12
    return y


def _bubble(x, p, rng, level):
    h, w, _ = x.shape
    m = min(h, w)
    cy, cx = rng.uniform(0.3, 0.7, 2) * (h, w)
    yy, xx = np.mgrid[0:h, 0:w]
    d = np.hypot(yy - cy, xx - cx)
    r = p["rho"] * m
    weight = np.clip(r - d + 0.5, 0.0, 1.0)[..., None]
    sigma = p["sigma_px512"] * m / 512
    blurred = _per_channel(
        x, lambda c: ndimage.gaussian_filter(c, sigma, mode="reflect", truncate=4.0)
    )
    y = (1 - weight) * x + weight * blurred
    return y * (1 - 0.08 * np.exp(-((d - r) ** 2) / (2 * (0.01 * m) ** 2)))[..., None]


# ---------------------------------------------------------------- motion (spec 9, 10)


def _rotation(x, p, rng, level):
    sign = 1.0 if rng.random() < 0.5 else -1.0
    angle = sign * p["angle_deg"]
    return _per_channel(
        x, lambda c: ndimage.rotate(c, angle, reshape=False, order=1, mode="constant", cval=0.0)
    )


def movement_phase(shape: tuple[int, int], level: int, seed: int) -> np.ndarray:
    """The k-space phase map of object_movement (spec 10); 1 on the segment-0 rows."""
    level, rng = _check_level(level), np.random.default_rng(_check_seed(seed))
    if level == 0:
        return np.ones(shape, dtype=complex)
    return _phase(shape, PARAMS["object_movement"][level], rng)


def _phase(shape: tuple[int, int], p: dict, rng: np.random.Generator) -> np.ndarray:
    h, w = shape
    t = np.arange(1, 3) / 3 + rng.uniform(-0.1, 0.1, 2)
    shifts = (
        p["shift_frac"] * min(h, w) * rng.uniform(-1.0, 1.0, (2, 2))
    )  # rows: (dy, dx) of segments 1, 2
    bounds = [int(np.floor(v * h)) for v in t] + [h]
    fy, fx = np.fft.fftshift(np.fft.fftfreq(h)), np.fft.fftshift(np.fft.fftfreq(w))
    phase = np.ones((h, w), dtype=complex)
    for j in range(2):
        rows = slice(bounds[j], bounds[j + 1])
        phase[rows] = np.exp(
            -2j * np.pi * (fy[rows, None] * shifts[j, 0] + fx[None, :] * shifts[j, 1])
        )
    return phase


def _movement(x, p, rng, level):
    phase = _phase(x.shape[:2], p, rng)
    return _per_channel(x, lambda c: _image(_kspace(c) * phase).real)


# ---------------------------------------------------------------- intensity (spec 11-13)


def _brightness(x, p, rng, level):
    return x + p["delta"]


def _exposure(x, p, rng, level):
    return x ** p["gamma"] + p["beta"]


def _contrast(x, p, rng, level):
    mean = x.mean(axis=(0, 1), keepdims=True)
    return mean + p["c"] * (x - mean)


# ---------------------------------------------------------------- noise, resolution, blur


def _noise(x, p, rng, level):
    return x + p["sigma"] * rng.standard_normal(x.shape)  # x.shape here is (H, W, C)


def _low_resolution(x, p, rng, level):
    h, w, _ = x.shape
    small = (max(1, round(w / p["factor"])), max(1, round(h / p["factor"])))
    return _per_channel(
        x,
        lambda c: _resize(
            _resize(c, small, Image.Resampling.BOX), (w, h), Image.Resampling.NEAREST
        ),
    )


def motion_kernel(length: int, angle_deg: float) -> np.ndarray:
    """Spec 16: an anti-aliased line of ``length`` at ``angle_deg`` through the centre of an
    (length + 2)^2 grid (angle counter-clockwise from the image x axis), summing to 1."""
    from skimage.draw import line_aa

    size = length + 2
    centre, half, a = (size - 1) / 2, (length - 1) / 2, np.deg2rad(angle_deg)
    dr, dc = -half * np.sin(a), half * np.cos(a)
    rr, cc, val = line_aa(
        int(round(centre - dr)),
        int(round(centre - dc)),
        int(round(centre + dr)),
        int(round(centre + dc)),
    )
    kernel = np.zeros((size, size))
    inside = (rr >= 0) & (rr < size) & (cc >= 0) & (cc < size)
    np.maximum.at(kernel, (rr[inside], cc[inside]), val[inside])
    return kernel / kernel.sum()


def _convolve_reflect(c: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``ndimage.convolve(c, k, mode='reflect')`` computed by FFT (same origin convention)."""
    pad = [((n - 1) // 2, n // 2) for n in k.shape]
    return signal.fftconvolve(np.pad(c, pad, mode="symmetric"), k, mode="valid")


def _motion_blur(x, p, rng, level):
    angle = rng.uniform(0.0, 180.0)
    kernel = motion_kernel(max(3, int(round(p["q"] * min(x.shape[:2])))), angle)
    return _per_channel(x, lambda c: _convolve_reflect(c, kernel))


def _gaussian_blur(x, p, rng, level):
    sigma = p["sigma_px512"] * min(x.shape[:2]) / 512
    return _per_channel(
        x, lambda c: ndimage.gaussian_filter(c, sigma, mode="reflect", truncate=4.0)
    )


_OPS: dict[str, Callable] = {
    "bias_field_artifact": _bias_field,
    "undersampling_artifact": _undersampling,
    "ghosting_artifact": _ghosting,
    "blood_cell_artifact": _blood_cells,
    "dark_spots_artifact": _dark_spots,
    "object_rotation": _rotation,
    "object_movement": _movement,
    "adjust_brightness": _brightness,
    "exposure": _exposure,
    "reduce_contrast": _contrast,
    "gaussian_noise": _noise,
    "low_resolution": _low_resolution,
    "motion_blur": _motion_blur,
    "gaussian_blur": _gaussian_blur,
    "bubble": _bubble,
}


# ---------------------------------------------------------------- public entry points


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
    _check_kind(kind)
    level = _check_level(level)
    seed = _check_seed(seed)
    if isinstance(ct_work_size, bool) or not isinstance(ct_work_size, int) or ct_work_size < 16:
        raise ValueError(f"ct_work_size must be an int >= 16, got {ct_work_size!r}")
    if level == 0:
        return x.copy()
    rng = np.random.default_rng(seed)
    p = PARAMS[kind][level]
    a = x.astype(np.float64)
    a = a[..., None] if a.ndim == 2 else a
    if kind in ("limited_angle", "sparse_view"):
        y = _ct_views(a, p, rng, level, kind, ct_work_size)
    elif kind == "low_dose":
        y = _low_dose(a, p, rng, level, ct_work_size)
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
