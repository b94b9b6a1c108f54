"""Check that an image file of a release decodes, fully and safely.

The pixel count is checked from the header *before* decoding, so a decompression bomb is never
expanded. JPEG files are decoded in Pillow's draft mode (1/8 size): every entropy-coded byte is
still read, so truncation is detected at a fraction of the cost. Verdicts are memoised by the
SHA-256 of the bytes (and the pixel limit), so validating again in one process only decodes
images whose content changed.
"""

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

# a published image is a ~1 Mpx JPEG of a few hundred kB; a larger file is refused before it is read
MAX_FILE_BYTES = 256 * 1024 * 1024
_CACHE_SIZE = 100_000
_cache: OrderedDict[tuple[bytes, int], str | None] = OrderedDict()
_cache_lock = Lock()

__all__ = ["DEFAULT_MAX_PIXELS", "MAX_FILE_BYTES", "image_problem"]


def image_problem(path: Path | str, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> str | None:
    """Why the image at ``path`` is unusable (not an image, a bomb, truncated or corrupt), or None.

    Raises ``OSError`` when the file cannot be read at all (missing, permission denied).
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
    except (
        SyntaxError,
        ValueError,
        EOFError,
    ) as exc:  # Pillow signals some corrupt headers this way
        return f"cannot be decoded: {exc}"
    return None
