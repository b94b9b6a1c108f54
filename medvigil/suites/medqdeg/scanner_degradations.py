"""The scanner degradations of MedQ-Deg (spec ``docs/medqdeg-degradations.md`` types 1-6): CT by
projection and filtered back-projection at a working size (limited_angle, sparse_view, low_dose),
MRI in k-space (bias_field_artifact, undersampling_artifact, ghosting_artifact). Every operation
takes ``(x, p, rng, level)`` on (H, W, C) float64 in [0, 1] (CT also the working size) and draws in
the spec's order; :func:`medvigil.suites.medqdeg.degradations.degrade` clips and dispatches.
"""

from collections.abc import Callable

import numpy as np
from PIL import Image

from medvigil.suites.medqdeg.degradation_types import PARAMS, check_kind, check_level, check_seed
from medvigil.suites.medqdeg.pixels import LUMA, from_kspace, kspace, per_channel, resize

__all__ = ["MRI_OPS", "ct_angles", "ct_views", "low_dose", "undersampling_mask"]


# ---------------------------------------------------------------- CT (spec types 1-3)


def ct_angles(kind: str, level: int, seed: int) -> np.ndarray:
    """Projection angles in degrees of limited_angle / sparse_view / low_dose (spec 1-3)."""
    kind, level, rng = (
        check_kind(kind),
        check_level(level),
        np.random.default_rng(check_seed(seed)),
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
    return square if sw == side else resize(square, (sw, sw), Image.Resampling.BOX)


def _from_work(r: np.ndarray, shape: tuple[int, int], work: int) -> np.ndarray:
    """Bicubically upsample a work-size residual to S and crop to the image."""
    side, sw, top, left = _ct_frame(shape, work)
    if sw != side:
        r = resize(r, (side, side), Image.Resampling.BICUBIC)
    return r[top : top + shape[0], left : left + shape[1]]


def _radon(a: np.ndarray, theta: np.ndarray) -> np.ndarray:
    from skimage.transform import radon

    return radon(a, theta=theta, circle=False)


def _fbp(sino: np.ndarray, theta: np.ndarray, size: int) -> np.ndarray:
    from skimage.transform import iradon

    return iradon(sino, theta=theta, filter_name="ramp", circle=False, output_size=size)


def ct_views(x, p, rng, level, kind, work):
    """limited_angle / sparse_view (spec 1, 2): the FBP residual of the views, per channel."""
    theta = _angles(kind, level, rng)

    def one(c):
        xw = _to_work(c, work)
        residual = _fbp(_radon(xw, theta), theta, xw.shape[0]) - xw
        return c + _from_work(residual, c.shape, work)

    return per_channel(x, one)


def low_dose(x, p, rng, level, work):
    """low_dose (spec 3): one Poisson-noise luminance residual added to every channel."""
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
    level, rng = check_level(level), np.random.default_rng(check_seed(seed))
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
    return per_channel(x, lambda c: np.abs(from_kspace(kspace(c) * keep[None, :])))


def _ghosting(x, p, rng, level):
    def one(c):
        f = kspace(c)
        g = f.copy()
        g[:: p["every"], :] *= 1.0 - p["strength"]
        g[c.shape[0] // 2, :] = f[c.shape[0] // 2, :]  # the k-space centre row is kept
        return from_kspace(g).real

    return per_channel(x, one)


MRI_OPS: dict[str, Callable] = {
    "bias_field_artifact": _bias_field,
    "undersampling_artifact": _undersampling,
    "ghosting_artifact": _ghosting,
}
