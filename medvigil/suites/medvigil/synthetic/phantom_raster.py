"""Pixel primitives of the phantoms: a normalised grid, soft-edged ellipses and bands, smooth
texture, integer noise, a mask's outward-rounded box and 1e-4-rounded uniform draws. Only
IEEE-exact arithmetic and integer random draws (see :mod:`.phantoms`)."""

import math

import numpy as np

from medvigil.suites.medvigil.synthetic.phantom_scene import Box


def grid(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates in [0, 1]: a row of x and a column of y."""
    xs = (np.arange(width, dtype=np.float64) + 0.5) / width
    ys = (np.arange(height, dtype=np.float64) + 0.5) / height
    return xs[None, :], ys[:, None]


def ellipse_alpha(x, y, cx, cy, ax, ay, edge_px: float, width: int, height: int) -> np.ndarray:
    """Soft-edged ellipse coverage in [0, 1] (linear ramp of about ``edge_px`` pixels)."""
    d = np.sqrt(((x - cx) / ax) ** 2 + ((y - cy) / ay) ** 2)
    ramp = edge_px / min(ax * width, ay * height)
    return np.clip((1.0 - d) / ramp + 0.5, 0.0, 1.0)


def band_alpha(dist: np.ndarray, half_width: float, edge: float) -> np.ndarray:
    """Coverage of a band ``|dist| < half_width`` with a linear edge of width ``edge``."""
    return np.clip((half_width - np.abs(dist)) / edge + 0.5, 0.0, 1.0)


def smooth_field(
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


def noise(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Integer triangular noise in [-4, 4] (sum of two uniform integers in [-2, 2])."""
    return (
        rng.integers(-2, 3, size=(height, width)) + rng.integers(-2, 3, size=(height, width))
    ).astype(np.float64)


def mask_box(mask: np.ndarray, margin: int) -> Box:
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


def uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    """A uniform draw rounded to 1e-4 (keeps geometry reproducible and printable)."""
    return round(lo + (hi - lo) * float(rng.integers(0, 10001)) / 10000, 4)
