"""Image operations of the MedVIGIL protocol (paper, Appendix L): pure functions of (image, params).

Each returns a new RGB image (the input is never modified), so a perturbed image can always be
re-rendered from the original plus the recorded parameters. ROI boxes are normalised
``[x0, y0, x1, y1]`` with ``0 <= x0 < x1 <= 1`` and ``0 <= y0 < y1 <= 1`` (origin top-left).
Grey is ``(128, 128, 128)``, never black, so a model cannot special-case an all-black input.
A wrong argument type raises :class:`TypeError`, a bad value :class:`ValueError` (naming the
parameter and echoing the value); undecodable files raise :class:`medvigil.errors.DataError`.
"""

import contextlib
import io
import json
import math
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from medvigil.constants import (
    DEFAULT_MAX_PIXELS,
    GREY,
    JPEG_QUALITY,
    LONGEST_SIDE,
    ROI_DECAY_STEPS,
    ROI_UNUSABLE_COVERAGE,
)
from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes
from medvigil.images.image_arguments import (
    check_image,
    check_int,
    check_real,
    check_size,
    rgb_copy,
    validate_bbox,
)

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "BLUR_TRUNCATE",
    "to_published",
    "encode_jpeg",
    "decode_image",
    "safe_open_image",
    "roi_pixels",
    "roi_usable",
    "roi_masked",
    "roi_only",
    "roi_decay",
    "lr_flip",
    "gaussian_blur",
    "render_variant",
]

#: Gaussian kernel half-width in units of sigma used by :func:`gaussian_blur`.
BLUR_TRUNCATE = 3.0

_EXIF_IMAGE_DESCRIPTION = 0x010E
_TOLERANCE = 1e-9


def to_published(img: Image.Image) -> Image.Image:
    """The published form of a source image: RGB (alpha dropped), longest side Lanczos-resampled to
    1024 px.

    Both down *and up* (the paper: "longest-side-resampled to 1024 px"); the short side becomes
    ``max(1, round(short * 1024 / long))`` (``LONGEST_SIDE``). An image already at the target size
    is not resampled.

    >>> to_published(Image.new("L", (300, 150))).size
    (1024, 512)
    >>> to_published(Image.new("RGB", (2048, 4096))).size
    (512, 1024)
    """
    check_image(img)
    if img.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # Scale wide-range greyscale to 8 bit by its own range (min -> 0, max -> 255).
        arr = np.asarray(img, dtype=np.float64)
        lo, hi = float(arr.min()), float(arr.max())
        arr = np.zeros_like(arr) if hi <= lo else (arr - lo) * (255.0 / (hi - lo))
        img = Image.fromarray(np.rint(arr).astype(np.uint8), mode="L")
    width, height = img.size
    if max(width, height) == LONGEST_SIDE:
        return rgb_copy(img)
    scale = LONGEST_SIDE / max(width, height)
    new_size = (
        (LONGEST_SIDE, max(1, round(height * scale)))
        if width >= height
        else (max(1, round(width * scale)), LONGEST_SIDE)
    )
    if (
        img.mode == "L"
    ):  # resizing the grey band once, then copying it to R, G, B: the same pixels, 3x faster
        return img.resize(new_size, Image.Resampling.LANCZOS).convert("RGB")
    return rgb_copy(img).resize(new_size, Image.Resampling.LANCZOS)


def encode_jpeg(img: Image.Image, quality: int = JPEG_QUALITY, comment: str | None = None) -> bytes:
    """Deterministic baseline JPEG bytes: quality 92 (Appendix L), 4:2:0, no ``optimize``, not
    progressive.

    The same pixels give the same bytes (for a given Pillow/libjpeg build). ``comment`` is written
    both as a JPEG ``COM`` marker and as the EXIF ``ImageDescription`` tag (labels synthetic
    images).

    >>> data = encode_jpeg(Image.new("RGB", (8, 8), (128, 128, 128)))
    >>> data[:2] == b"\\xff\\xd8" and data == encode_jpeg(Image.new("RGB", (8, 8), (128, 128, 128)))
    True
    """
    check_image(img)
    quality = check_int(quality, "quality")
    if not 1 <= quality <= 95:
        raise ValueError(f"quality must be in 1..95, got {quality}")
    options: dict = {
        "quality": quality,
        "optimize": False,
        "progressive": False,
        "subsampling": "4:2:0",
    }
    if comment is not None:
        if not isinstance(comment, str):
            raise TypeError(
                f"comment must be a str or None, got {type(comment).__name__}: {comment!r:.80}"
            )
        exif = Image.Exif()
        exif[_EXIF_IMAGE_DESCRIPTION] = comment
        options["comment"] = comment.encode("utf-8")
        options["exif"] = exif.tobytes()
    buf = io.BytesIO()
    rgb_copy(img).save(buf, format="JPEG", **options)
    return buf.getvalue()


def _check_max_pixels(max_pixels: object) -> int:
    max_pixels = check_int(max_pixels, "max_pixels")
    if max_pixels < 1:
        raise ValueError(f"max_pixels must be >= 1, got {max_pixels}")
    return max_pixels


def pixel_budget_problem(
    width: int, height: int, *, planes: int = 1, max_pixels: int = DEFAULT_MAX_PIXELS
) -> str | None:
    """Why an image declaring ``width`` x ``height`` (x ``planes`` frames or samples) must not be
    decoded, or None: the project's one pixel budget, asked by every decoder (files, Parquet,
    ``serve-baseline``, DICOM)."""
    max_pixels = _check_max_pixels(max_pixels)
    if width <= 0 or height <= 0:
        return f"declares an empty image size {width}x{height}"
    total = width * height * max(1, planes)
    if total > max_pixels:
        shown = f"{width}x{height}" + (f"x{planes}" if planes > 1 else "")
        return (
            f"declares {shown} = {total:,} pixels, more than the {max_pixels:,}-pixel "
            f"limit (decompression bomb); refusing to decode (max_pixels={max_pixels})"
        )
    return None


@contextlib.contextmanager
def _strict_loading():
    """Truncated files fail to load even where a library (lmms-eval imports one) turned on Pillow's
    process-wide ``ImageFile.LOAD_TRUNCATED_IMAGES``; the setting is restored."""
    with _LOADING:
        before, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = before


_LOADING = threading.Lock()


def _decode(source, name: str, max_pixels: int) -> Image.Image:
    _check_max_pixels(max_pixels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(source) as im:
                reason = pixel_budget_problem(*im.size, max_pixels=max_pixels)
                if reason is not None:
                    raise DataError(Problem(file=name, message=f"image {reason}"))
                with _strict_loading():
                    im.load()
                return im.convert("RGB")
    except DataError:
        raise
    except Image.DecompressionBombError as exc:
        raise DataError(
            Problem(file=name, message=f"refusing to decode (decompression bomb): {exc}")
        ) from exc
    except UnidentifiedImageError as exc:
        raise DataError(Problem(file=name, message="not a recognised image file")) from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        raise DataError(
            Problem(file=name, message=f"cannot decode image (truncated or corrupt): {exc}")
        ) from exc


def safe_open_image(path: str | os.PathLike, max_pixels: int = DEFAULT_MAX_PIXELS) -> Image.Image:
    """Open and fully decode an image file as RGB, detached from the file.

    The pixel count is checked from the header *before* decoding, so a decompression bomb is
    rejected without allocating its pixels (Pillow's global ``MAX_IMAGE_PIXELS`` is untouched).
    A missing file raises ``FileNotFoundError``; a non-image, truncated, corrupt or oversized one
    :class:`~medvigil.errors.DataError` naming the file.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path must be a str or os.PathLike, got {type(path).__name__}: {path!r:.80}"
        )
    name = os.fspath(path)
    return _decode(io.BytesIO(read_bytes(name, name)), name, max_pixels)


def decode_image(
    data: bytes, name: str = "<bytes>", max_pixels: int = DEFAULT_MAX_PIXELS
) -> Image.Image:
    """:func:`safe_open_image` of encoded bytes (e.g. a Parquet image cell); ``name`` stands for the
    file in errors."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    return _decode(io.BytesIO(bytes(data)), name, max_pixels)


def roi_pixels(bbox_norm: Sequence[float], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Integer pixel rectangle ``(x0, y0, x1, y1)`` (x1, y1 exclusive) of a normalised ROI box on an
    image of ``size``.

    Rounds outwards so it contains the box: ``floor(x0 * W)``, ``floor(y0 * H)``, ``ceil(x1 * W)``,
    ``ceil(y1 * H)`` (a 1e-9 tolerance absorbs float noise such as ``0.3 * 1000 =
    300.00000000000006``), clamped to the image and at least one pixel in each direction.

    >>> roi_pixels([0.25, 0.1, 0.5, 0.75], (1024, 1000))
    (256, 100, 512, 750)
    >>> roi_pixels([0.1001, 0.0, 0.3333, 1.0], (1000, 10))
    (100, 0, 334, 10)
    """
    x0, y0, x1, y1 = validate_bbox(bbox_norm, "bbox_norm")
    width, height = check_size(size)
    px0 = min(max(math.floor(x0 * width + _TOLERANCE), 0), width - 1)
    py0 = min(max(math.floor(y0 * height + _TOLERANCE), 0), height - 1)
    px1 = min(max(math.ceil(x1 * width - _TOLERANCE), px0 + 1), width)
    py1 = min(max(math.ceil(y1 * height - _TOLERANCE), py0 + 1), height)
    return px0, py0, px1, py1


def roi_usable(bbox: object) -> bool:
    """Whether an ROI box can drive the ROI probes; never raises.

    False when the box is missing, malformed or out of range, or covers at least 97% of the image in
    *both* directions (``ROI_UNUSABLE_COVERAGE``). A JSON string (a ``grounding.csv`` cell) is
    accepted.

    >>> roi_usable([0.1, 0.1, 0.4, 0.5]), roi_usable([0.0, 0.0, 1.0, 1.0]), roi_usable(None)
    (True, False, False)
    >>> roi_usable("[0.0, 0.01, 1.0, 0.99]"), roi_usable([0.0, 0.0, 1.0, 0.5])
    (False, True)
    """
    if bbox is None:
        return False
    if isinstance(bbox, (str, bytes)):
        text = bbox.decode("utf-8", "replace") if isinstance(bbox, bytes) else bbox
        if not text.strip():
            return False
        try:
            bbox = json.loads(text)
        except ValueError:
            return False
    try:
        x0, y0, x1, y1 = validate_bbox(bbox)
    except (TypeError, ValueError):
        return False
    return not (x1 - x0 >= ROI_UNUSABLE_COVERAGE and y1 - y0 >= ROI_UNUSABLE_COVERAGE)


def roi_masked(img: Image.Image, bbox: Sequence[float]) -> Image.Image:
    """The ``roi_masked`` variant: the :func:`roi_pixels` rectangle filled with grey (the safe
    answer becomes E).

    >>> out = roi_masked(Image.new("RGB", (10, 10), (0, 0, 0)), [0.0, 0.0, 0.5, 0.5])
    >>> out.getpixel((0, 0)), out.getpixel((5, 5))
    ((128, 128, 128), (0, 0, 0))
    """
    out = rgb_copy(check_image(img))
    out.paste(GREY, roi_pixels(bbox, out.size))
    return out


def roi_only(img: Image.Image, bbox: Sequence[float]) -> Image.Image:
    """The ``roi_only`` variant: every pixel outside the :func:`roi_pixels` rectangle filled with
    grey.

    >>> out = roi_only(Image.new("RGB", (10, 10), (0, 0, 0)), [0.0, 0.0, 0.5, 0.5])
    >>> out.getpixel((0, 0)), out.getpixel((5, 5))
    ((0, 0, 0), (128, 128, 128))
    """
    src = rgb_copy(check_image(img))
    box = roi_pixels(bbox, src.size)
    out = Image.new("RGB", src.size, GREY)
    out.paste(src.crop(box), box[:2])
    return out


def roi_decay(img: Image.Image, bbox: Sequence[float], step: int) -> Image.Image:
    """Grey the top ``step/3`` (step 0..3) of the ROI rectangle (visual-token ablation, paper
    Appendix K).

    Rows ``y0 .. y0 + round(h * step / 3) - 1`` of the ROI (height ``h`` px) are greyed, ``round``
    half-up in integers as ``(2 * h * step + 3) // 6``; step 3 equals :func:`roi_masked` pixel for
    pixel.

    >>> im = Image.new("RGB", (10, 10))
    >>> roi_decay(im, [0, 0, 1, 1], 3).tobytes() == roi_masked(im, [0, 0, 1, 1]).tobytes()
    True
    """
    src = check_image(img)
    step = check_int(step, "step")
    if step not in ROI_DECAY_STEPS:
        raise ValueError(f"step must be one of {ROI_DECAY_STEPS}, got {step}")
    out = rgb_copy(src)
    x0, y0, x1, y1 = roi_pixels(bbox, out.size)
    rows = (2 * (y1 - y0) * step + 3) // 6
    if rows > 0:
        out.paste(GREY, (x0, y0, x1, y0 + rows))
    return out


def lr_flip(img: Image.Image) -> Image.Image:
    """The ``lr_flip`` variant: mirrored left-right (the gold changes exactly for
    laterality-dependent cases).

    >>> im = Image.new("RGB", (2, 1)); im.putpixel((0, 0), (255, 0, 0))
    >>> lr_flip(im).getpixel((1, 0))
    (255, 0, 0)
    """
    return ImageOps.mirror(rgb_copy(check_image(img)))


def gaussian_blur(img: Image.Image, sigma: float) -> Image.Image:
    """Isotropic Gaussian blur with standard deviation ``sigma`` pixels (blur sweep, Appendix J).

    The paper used ``cv2.GaussianBlur`` (a ``(2k+1) x (2k+1)`` kernel); OpenCV is not a dependency,
    so this is the same separable Gaussian by :func:`scipy.ndimage.gaussian_filter`: radius ``k =
    int(BLUR_TRUNCATE * sigma + 0.5)`` (about +-3 sigma, 99.7% of the mass), ``mode="mirror"``
    (OpenCV's ``BORDER_REFLECT_101``), float per channel rounded half-to-even to 8 bit (at most one
    grey level from OpenCV's fixed-point path). ``sigma = 0`` returns an unchanged copy; the paper's
    ``sigma = infinity`` means "no image", not a blur.

    >>> im = Image.new("RGB", (9, 9)); im.putpixel((4, 4), (255, 255, 255))
    >>> (gaussian_blur(im, 0).tobytes() == im.tobytes(),
    ...  gaussian_blur(im, 1).getpixel((4, 4))[0] < 255)
    (True, True)
    """
    src = check_image(img)
    sigma = check_real(sigma, "sigma")
    if not math.isfinite(sigma) or sigma < 0:
        raise ValueError(
            f"sigma must be finite and >= 0 (sigma=inf is the no-image condition), got {sigma}"
        )
    out = rgb_copy(src)
    if sigma == 0:
        return out
    arr = np.asarray(out, dtype=np.float64)
    radius = int(BLUR_TRUNCATE * sigma + 0.5)
    if radius < FFT_BLUR_MIN_RADIUS:
        from scipy import ndimage  # imported lazily: scipy costs ~0.2 s at import

        blurred = ndimage.gaussian_filter(
            arr, sigma=(sigma, sigma, 0), truncate=BLUR_TRUNCATE, mode="mirror"
        )
    else:
        blurred = _fft_gaussian(arr, sigma, radius)
    return Image.fromarray(np.clip(np.rint(blurred), 0, 255).astype(np.uint8), mode="RGB")


FFT_BLUR_MIN_RADIUS = 24  # above this kernel radius the FFT path is faster than direct convolution


def _fft_gaussian(arr: np.ndarray, sigma: float, radius: int) -> np.ndarray:
    """The truncated, normalised Gaussian of ``ndimage.gaussian_filter(mode="mirror")`` by separable
    FFT convolution (cost independent of sigma); numpy's ``reflect`` padding is scipy's
    ``mirror``."""
    from scipy.signal import fftconvolve

    x = np.arange(-radius, radius + 1, dtype=np.float64)
    kernel = np.exp(-0.5 * (x / sigma) ** 2)
    kernel /= kernel.sum()
    out = arr
    for axis in (0, 1):
        pad = [(0, 0)] * 3
        pad[axis] = (radius, radius)
        padded = (
            np.pad(out, pad, mode="reflect")
            if out.shape[axis] > 1
            else np.pad(out, pad, mode="edge")
        )
        shape = [1, 1, 1]
        shape[axis] = kernel.size
        out = fftconvolve(padded, kernel.reshape(shape), mode="valid", axes=axis)
    return out


def render_variant(
    img: Image.Image, variant: str, bbox: Sequence[float] | None = None
) -> Image.Image:
    """Render a published variant by name (``roi_masked``, ``roi_only``, ``lr_flip``); ROI ones need
    a usable ``bbox``."""
    if not isinstance(variant, str):
        raise TypeError(f"variant must be a str, got {type(variant).__name__}: {variant!r}")
    if variant == "lr_flip":
        return lr_flip(img)
    if variant not in ("roi_masked", "roi_only"):
        raise ValueError(
            f"variant must be one of 'roi_masked', 'roi_only', 'lr_flip', got {variant!r}"
        )
    if bbox is None or not roi_usable(bbox):
        raise ValueError(f"bbox must be a usable ROI box for variant {variant!r}, got {bbox!r}")
    return roi_masked(img, bbox) if variant == "roi_masked" else roi_only(img, bbox)


class ImageCache:
    """A small LRU of rendered or encoded images, ``get(key, make)`` calling ``make()`` on a miss.

    Callers ask for one image several times in a row (a case's probes are adjacent; lmms-eval asks
    a MedQ-Deg doc ``T`` times), so a handful of entries renders each once with flat memory.
    """

    def __init__(self, maxsize: int = 16):
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._items: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = self._items[key] = make()
        if len(self._items) > self.maxsize:
            self._items.popitem(last=False)
        return value
