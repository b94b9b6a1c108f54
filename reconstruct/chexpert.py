"""CheXpert: Stanford's JPEG chest radiographs to an RGB image.

CheXpert v1.0 (Stanford AIMI, research-use agreement) ships 8-bit greyscale JPEGs under
``CheXpert-v1.0[-small]/{train,valid,test}/patientNNNNN/studyN/viewN_{frontal,lateral}.jpg``.
They are already display images: decoding and converting to RGB is all that precedes the
published preprocessing. Decoding goes through :func:`medvigil.images.imaging.safe_open_image`,
which bounds the pixel count of untrusted files.
"""

import re
from pathlib import Path

from PIL import Image

CHEXPERT_PATH = re.compile(
    r"(^|/)CheXpert-v1\.0(-small)?/(train|valid|test)/patient\d+/study\d+/view\d+_(frontal|lateral)\.jpe?g$",
    re.IGNORECASE,
)


def is_chexpert_path(source_path: str) -> bool:
    """True for paths laid out like the CheXpert v1.0 download."""
    return bool(CHEXPERT_PATH.search(source_path.replace("\\", "/")))


def jpeg_to_image(path: Path | str) -> Image.Image:
    """Decode a CheXpert (or MIMIC-CXR-JPG) JPEG and return it as RGB."""
    from medvigil.images import imaging

    image = imaging.safe_open_image(Path(path))
    return image.convert("RGB")
