"""Array helpers the MedQ-Deg degradations share (spec ``docs/medqdeg-degradations.md``,
"Conventions"): per-channel application with the draws shared, colours as luminance on one channel,
PIL resizing of float arrays and the MRI k-space convention.
"""

from collections.abc import Callable

import numpy as np
from PIL import Image

__all__ = ["LUMA", "as_colour", "from_kspace", "kspace", "per_channel", "resize"]

LUMA = np.array([0.299, 0.587, 0.114])


def _grey(x: np.ndarray) -> bool:
    return (
        x.shape[2] == 3
        and np.array_equal(x[..., 0], x[..., 1])
        and np.array_equal(x[..., 0], x[..., 2])
    )


def per_channel(x: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Apply a 2-D operation to every channel of (H, W, C); grey RGB is computed once."""
    if _grey(x):
        return np.repeat(fn(x[..., 0])[..., None], x.shape[2], axis=2)
    return np.stack([fn(x[..., c]) for c in range(x.shape[2])], axis=2)


def as_colour(rgb: tuple[float, float, float], channels: int) -> np.ndarray:
    """An RGB colour for ``channels`` = 3, its luminance for one channel."""
    c = np.asarray(rgb, dtype=np.float64)
    return c if channels == 3 else np.array([float(LUMA @ c)])


def resize(a: np.ndarray, size: tuple[int, int], resample: int) -> np.ndarray:
    """Resize a 2-D float array with PIL mode 'F'; size is (width, height)."""
    return np.asarray(
        Image.fromarray(a.astype(np.float32), mode="F").resize(size, resample), dtype=np.float64
    )


def kspace(c: np.ndarray) -> np.ndarray:
    """The centred 2-D Fourier transform of one channel."""
    return np.fft.fftshift(np.fft.fft2(c))  # spec "MRI k-space" (TorchIO convention)


def from_kspace(f: np.ndarray) -> np.ndarray:
    """The inverse of :func:`kspace` (complex)."""
    return np.fft.ifft2(np.fft.ifftshift(f))
