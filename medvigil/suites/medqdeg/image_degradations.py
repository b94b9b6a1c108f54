"""The image degradations of MedQ-Deg (spec ``docs/medqdeg-degradations.md`` types 7-18):
pathology (blood cells, dark spots, bubble), motion (object rotation, object movement), intensity
(brightness, exposure, contrast), noise, resolution and blur. Every operation takes
``(x, p, rng, level)`` on (H, W, C) float64 in [0, 1] and draws in the spec's order;
:func:`medvigil.suites.medqdeg.degradations.degrade` clips and dispatches. Several per-object draws
(blood cells, dark spots) are one vector per quantity over all objects, in the listed order;
object_rotation's sign is ``+1`` when ``rng.random() < 0.5``.
"""

from collections.abc import Callable

import numpy as np
from PIL import Image
from scipy import ndimage, signal

from medvigil.suites.medqdeg.degradation_types import PARAMS, check_level, check_seed
from medvigil.suites.medqdeg.pixels import as_colour, from_kspace, kspace, per_channel, resize

__all__ = ["IMAGE_OPS", "motion_kernel", "movement_phase"]


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
    colour = as_colour((0.78, 0.22, 0.28), ch)
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
    blurred = per_channel(
        x, lambda c: ndimage.gaussian_filter(c, sigma, mode="reflect", truncate=4.0)
    )
    y = (1 - weight) * x + weight * blurred
    return y * (1 - 0.08 * np.exp(-((d - r) ** 2) / (2 * (0.01 * m) ** 2)))[..., None]


# ---------------------------------------------------------------- motion (spec 9, 10)


def _rotation(x, p, rng, level):
    sign = 1.0 if rng.random() < 0.5 else -1.0
    angle = sign * p["angle_deg"]
    return per_channel(
        x, lambda c: ndimage.rotate(c, angle, reshape=False, order=1, mode="constant", cval=0.0)
    )


def movement_phase(shape: tuple[int, int], level: int, seed: int) -> np.ndarray:
    """The k-space phase map of object_movement (spec 10); 1 on the segment-0 rows."""
    level, rng = check_level(level), np.random.default_rng(check_seed(seed))
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
    return per_channel(x, lambda c: from_kspace(kspace(c) * phase).real)


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
    return per_channel(
        x,
        lambda c: resize(resize(c, small, Image.Resampling.BOX), (w, h), Image.Resampling.NEAREST),
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
    return per_channel(x, lambda c: _convolve_reflect(c, kernel))


def _gaussian_blur(x, p, rng, level):
    sigma = p["sigma_px512"] * min(x.shape[:2]) / 512
    return per_channel(x, lambda c: ndimage.gaussian_filter(c, sigma, mode="reflect", truncate=4.0))


IMAGE_OPS: dict[str, Callable] = {
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
