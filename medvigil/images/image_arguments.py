"""Argument checks of the image operations (:mod:`medvigil.images.imaging`): a wrong type raises
:class:`TypeError`, a bad value :class:`ValueError`, each naming the parameter and echoing the
value."""

import math
from collections.abc import Sequence
from numbers import Real

import numpy as np
from PIL import Image


def check_image(img: object, name: str = "img") -> Image.Image:
    if not isinstance(img, Image.Image):
        raise TypeError(f"{name} must be a PIL.Image.Image, got {type(img).__name__}: {img!r:.80}")
    return img


def rgb_copy(img: Image.Image) -> Image.Image:
    """An RGB copy (a new object even when the input is already RGB)."""
    return img.convert("RGB") if img.mode != "RGB" else img.copy()


def check_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    return int(value)


def check_real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}: {value!r}")
    return float(value)


def validate_bbox(bbox: object, name: str = "bbox") -> tuple[float, float, float, float]:
    """Check a normalised ROI box (a sequence, not a string, of four reals) and return it as four
    floats.

    >>> validate_bbox([0.1, 0.2, 0.5, 0.9])
    (0.1, 0.2, 0.5, 0.9)
    """
    if isinstance(bbox, (str, bytes)) or not isinstance(bbox, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name} must be a sequence [x0, y0, x1, y1], got {type(bbox).__name__}: {bbox!r:.80}"
        )
    values = list(bbox)
    if len(values) != 4:
        raise ValueError(
            f"{name} must have 4 values [x0, y0, x1, y1], got {len(values)}: {values!r}"
        )
    out = tuple(check_real(v, f"{name}[{i}]") for i, v in enumerate(values))
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} values must be finite, got {values!r}")
    x0, y0, x1, y1 = out
    if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
        raise ValueError(
            f"{name} must satisfy 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1, got {values!r}"
        )
    return out  # type: ignore[return-value]


def check_size(size: object) -> tuple[int, int]:
    if isinstance(size, (str, bytes)) or not isinstance(size, Sequence) or len(size) != 2:
        raise TypeError(
            f"size must be a (width, height) pair, got {type(size).__name__}: {size!r:.80}"
        )
    width, height = (check_int(v, f"size[{i}]") for i, v in enumerate(size))
    if width < 1 or height < 1:
        raise ValueError(f"size must be positive (width, height), got {size!r}")
    return width, height
