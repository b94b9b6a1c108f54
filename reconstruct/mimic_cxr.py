"""MIMIC-CXR: DICOM (and MIMIC-CXR-JPG) source files to an 8-bit RGB image.

MIMIC-CXR (PhysioNet, credentialed) distributes chest radiographs as DICOM files under
``files/pXX/pXXXXXXXX/sXXXXXXXX/<dicom_id>.dcm``; MIMIC-CXR-JPG ships the same images
as 8-bit JPEGs with the same layout and a ``.jpg`` suffix. A DICOM stores raw detector
values, so they must be mapped to display grey levels before the published
preprocessing (RGB, longest side 1024 Lanczos, JPEG q92) can be applied:

1. the Modality LUT or Rescale Slope/Intercept (pydicom ``apply_modality_lut``);
2. the VOI LUT, or else the Window Center/Width of the first view
   (pydicom ``apply_voi_lut``); with neither, the values are left unchanged;
3. a linear rescale of the result's ``[min, max]`` to ``[0, 255]`` (a constant image
   maps to 0);
4. ``MONOCHROME1`` images are inverted (``255 - x``): in MONOCHROME1 the lowest value
   is displayed white, in MONOCHROME2 black.

Only the first frame of a multi-frame object is used (chest radiographs are single
frame). Compressed transfer syntaxes need a pixel-data plugin (pylibjpeg or GDCM); if
none is installed the error says which transfer syntax could not be decoded.
"""

import io
import re
from pathlib import Path

import numpy as np
from PIL import Image

from medvigil.files.input_files import open_regular, read_bytes
from medvigil.images.imaging import pixel_budget_problem

MIMIC_PATH = re.compile(r"(^|/)files/p\d{2}/p\d{8}/s\d{8}/[^/]+\.(dcm|jpg)$", re.IGNORECASE)
DICOM_MAGIC_OFFSET = 128
DICOM_MAGIC = b"DICM"


def is_mimic_path(source_path: str) -> bool:
    """True for paths laid out like MIMIC-CXR / MIMIC-CXR-JPG (``files/pXX/pX.../sX.../x.dcm``)."""
    return bool(MIMIC_PATH.search(source_path.replace("\\", "/")))


def is_dicom(path: Path) -> bool:
    """DICOM Part 10 files carry ``DICM`` after a 128-byte preamble; ``.dcm`` files also count."""
    if path.suffix.lower() in (".dcm", ".dicom"):
        return True
    with open_regular(path) as fh:
        head = fh.read(DICOM_MAGIC_OFFSET + len(DICOM_MAGIC))
    return head[DICOM_MAGIC_OFFSET:] == DICOM_MAGIC


def to_uint8(values: np.ndarray) -> np.ndarray:
    """Linear rescale of ``[min, max]`` to ``[0, 255]``, rounded; constant input gives 0."""
    arr = np.asarray(values, dtype=np.float64)
    lo, hi = float(arr.min()), float(arr.max())
    if hi <= lo:
        return np.zeros(arr.shape, dtype=np.uint8)
    return np.rint((arr - lo) * (255.0 / (hi - lo))).astype(np.uint8)


def dicom_to_image(path: Path | str) -> Image.Image:
    """Read one DICOM file and return its display image as 8-bit RGB (steps in the module doc).

    Raises:
        ValueError: the file is not a readable image DICOM, or its pixel data cannot be
            decoded with the installed plugins.
    """
    import pydicom
    from pydicom.pixels import apply_modality_lut, apply_voi_lut

    path = Path(path)
    data = read_bytes(path, path.name)  # a regular file, bounded
    try:
        ds = pydicom.dcmread(io.BytesIO(data))
    except Exception as exc:  # pydicom raises InvalidDicomError and plain errors alike
        raise ValueError(f"{path.name}: not a readable DICOM file ({exc})") from exc
    if "PixelData" not in ds:
        raise ValueError(f"{path.name}: DICOM file has no pixel data")
    try:  # the project's one pixel budget, from the header, before any pixel is decoded
        size = (int(ds.Columns), int(ds.Rows))
        planes = int(ds.get("NumberOfFrames", 1) or 1) * int(ds.get("SamplesPerPixel", 1) or 1)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"{path.name}: DICOM header lacks a usable Rows/Columns ({exc})") from exc
    reason = pixel_budget_problem(*size, planes=planes)
    if reason is not None:
        raise ValueError(f"{path.name}: image {reason}")
    try:
        pixels = ds.pixel_array
    except Exception as exc:  # missing decoder plugin, truncated data, ...
        syntax = getattr(getattr(ds, "file_meta", None), "TransferSyntaxUID", "unknown")
        raise ValueError(
            f"{path.name}: cannot decode pixel data (transfer syntax {syntax}): {exc}"
        ) from exc
    photometric = str(ds.get("PhotometricInterpretation", "MONOCHROME2")).strip().upper()
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    if photometric in ("RGB", "YBR_FULL", "YBR_FULL_422"):
        # colour DICOM (rare for CXR): pydicom converts YBR to RGB by default
        frame = pixels[0] if frames > 1 else pixels
        return Image.fromarray(to_uint8(frame) if frame.dtype != np.uint8 else frame, mode="RGB")
    if photometric not in ("MONOCHROME1", "MONOCHROME2"):
        raise ValueError(f"{path.name}: unsupported PhotometricInterpretation {photometric!r}")
    frame = pixels[0] if frames > 1 else pixels
    values = apply_modality_lut(frame, ds)
    values = apply_voi_lut(values, ds, index=0)
    grey = to_uint8(values)
    if photometric == "MONOCHROME1":
        grey = 255 - grey
    return Image.fromarray(grey, mode="L").convert("RGB")


def dicom_image_or_none(path: Path) -> Image.Image | None:
    """The display image of a DICOM file; None for any other file and for a DICOM that does not
    decode (``medvigil publish --credentialed`` compares the pixels of what decodes, the bytes of
    everything)."""
    if not is_dicom(path):
        return None
    try:
        return dicom_to_image(path)
    except (ValueError, OSError):
        return None
