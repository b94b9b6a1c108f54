"""Check that an image file of a release decodes, fully and safely.

:func:`image_problem` returns ``None`` for a good image or a sentence saying what is
wrong: not an image at all, a decompression bomb (a small file declaring a huge pixel
count), or a truncated/corrupt file. The pixel count is read from the header and
checked *before* decoding, so a bomb is never expanded in memory. JPEG files are
decoded in Pillow's draft mode (DCT scaling, 1/8 size): every entropy-coded byte is
still read, so truncation is detected, at a fraction of the cost of a full decode.

Verdicts are memoised by the SHA-256 of the file's bytes (and the pixel limit), so
validating a release again in the same process (``medvigil validate`` followed by
``load_release``, or many variants of one release in the tests) only decodes images
whose content changed.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections import OrderedDict
from pathlib import Path
from threading import Lock

from PIL import Image, UnidentifiedImageError

from medvigil.errors import DataError
from medvigil.files.input_files import read_bytes

# one pixel limit for validating and for rendering
from medvigil.images.imaging import DEFAULT_MAX_PIXELS, pixel_budget_problem

# A published image is a ~1 Mpx JPEG of a few hundred kB; a file this large is refused
# before it is read into memory.
MAX_FILE_BYTES = 256 * 1024 * 1024
_CACHE_SIZE = 100_000
_cache: OrderedDict[tuple[bytes, int], str | None] = OrderedDict()
_cache_lock = Lock()

__all__ = ["DEFAULT_MAX_PIXELS", "MAX_FILE_BYTES", "image_problem"]


def image_problem(path: Path | str, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> str | None:
    """Why the image at ``path`` is unusable, or None when it decodes completely.

    Args:
        path: the image file (it must exist).
        max_pixels: largest accepted width * height, as declared in the header.

    Raises:
        TypeError, ValueError: ``max_pixels`` is not a positive int.
        OSError: the file cannot be read at all (missing, permission denied).
    """
    if not isinstance(max_pixels, int) or isinstance(max_pixels, bool):
        raise TypeError(f"max_pixels must be an int, got {type(max_pixels).__name__}")
    if max_pixels <= 0:
        raise ValueError(f"max_pixels must be positive, got {max_pixels}")
    path = Path(path)
    try:
        data = read_bytes(path, max_bytes=MAX_FILE_BYTES)
    except DataError as exc:  # a FIFO, device, folder or a file over the limit
        return exc.problems[0].message
    key = (hashlib.sha256(data).digest(), max_pixels)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    verdict = _judge(data, max_pixels)
    with _cache_lock:
        _cache[key] = verdict
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return verdict


def _judge(data: bytes, max_pixels: int) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                reason = pixel_budget_problem(width, height, max_pixels=max_pixels)
                if reason is not None:
                    return reason
                if image.format == "JPEG":
                    image.draft(image.mode, (max(1, width // 8), max(1, height // 8)))
                image.load()
    except Image.DecompressionBombError as exc:
        return f"is a decompression bomb: {exc}"
    except UnidentifiedImageError:
        return "is not an image Pillow can read (expected JPEG or PNG data)"
    except OSError as exc:
        if "truncated" in str(exc).lower():
            return f"is truncated: {exc}"
        return f"cannot be decoded: {exc}"
    except (SyntaxError, ValueError, EOFError) as exc:  # Pillow signals some corrupt headers this way
        return f"cannot be decoded: {exc}"
    return None
