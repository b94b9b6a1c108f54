"""The images a MedVIGIL probe shows (paper, Appendix L), and an audit of a release's shipped
variants.

Text-side probes show the published case image (:func:`case_image_bytes`), ``roi_masked`` /
``roi_only`` / ``lr_flip`` a render of it (:func:`render_variant_bytes`), ``knowledge_only`` none;
``variant_source`` picks our render or ``images_perturbed/`` (:func:`compare_shipped_variants`
compares them).
"""

import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from medvigil.files.input_files import read_bytes
from medvigil.images import imaging
from medvigil.suites.medvigil.release.release_format import (
    IMAGE_PROBE_KINDS,
    LONGEST_SIDE,
    NO_IMAGE_PROBE_KINDS,
    PERTURBED_DIR,
)

VARIANT_SOURCES = ("render", "shipped")

# Re-encoding the same pixels at JPEG q92 twice (ours vs. theirs, possibly another
# libjpeg build) moves a few grey levels near edges. Calibrated on the synthetic
# release: identical renders give mean 0, re-encodes stay below 1.0 mean and 12 at the
# 99th percentile; a misplaced ROI or a missing flip gives means of 5 or more.
MEAN_ABS_TOLERANCE = 1.5
P99_ABS_TOLERANCE = 16.0


def image_kind(probe_kind: str) -> str:
    """``"case"``, ``"none"`` or the variant name a probe of this kind attaches."""
    if probe_kind in IMAGE_PROBE_KINDS:
        return probe_kind
    if probe_kind in NO_IMAGE_PROBE_KINDS:
        return "none"
    return "case"


def is_published_form(data: bytes) -> bool:
    """True when ``data`` is a JPEG, RGB, whose longest side is exactly ``LONGEST_SIDE``."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            return im.format == "JPEG" and im.mode == "RGB" and max(im.size) == LONGEST_SIDE
    except (OSError, ValueError):  # not an image at all: let the decoder report it properly
        return False


def case_image_bytes(path: Path, *, comment: str | None = None) -> bytes:
    """Published-form JPEG bytes of a case image file; ``comment`` labels re-encoded images only."""
    data = read_bytes(path)
    if is_published_form(data):
        return data
    image = imaging.decode_image(data, name=str(path))
    return imaging.encode_jpeg(imaging.to_published(image), comment=comment)


def render_variant_bytes(
    case_jpeg: bytes, variant: str, bbox: Iterable[float] | None, *, comment: str | None = None
) -> bytes:
    """Render one variant from published case bytes and encode it (JPEG q92)."""
    image = imaging.decode_image(case_jpeg)
    out = imaging.render_variant(image, variant, None if bbox is None else tuple(bbox))
    return imaging.encode_jpeg(out, comment=comment)


# --------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class VariantDifference:
    """Our render of one (case, variant) against the file the release ships."""

    case_id: str
    variant: str
    shipped_file: str
    status: str  # "match", "differs", "size_differs", "missing_shipped", "unreadable_shipped"
    mean_abs: float | None = None  # mean absolute difference over all pixels and channels
    p99_abs: float | None = None  # 99th percentile of the absolute difference
    max_abs: int | None = None
    differing_fraction: float | None = None  # share of pixels with any channel differing by > 8


@dataclass
class VariantComparison:
    """All comparisons of a release, with counts per status."""

    differences: list[VariantDifference] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(d.status for d in self.differences).items()))

    @property
    def mismatches(self) -> list[VariantDifference]:
        return [d for d in self.differences if d.status != "match"]

    def to_dict(self) -> dict:
        return {
            "counts": self.counts,
            "tolerance": {"mean_abs": MEAN_ABS_TOLERANCE, "p99_abs": P99_ABS_TOLERANCE},
            "mismatches": [d.__dict__ for d in self.mismatches],
        }


def compare_images(ours: Image.Image, theirs: Image.Image) -> dict:
    """Pixel-difference statistics of two same-size RGB images (percentile read off the difference
    histogram)."""
    a = np.asarray(ours.convert("RGB"), dtype=np.uint8)
    b = np.asarray(theirs.convert("RGB"), dtype=np.uint8)
    diff = np.maximum(a, b) - np.minimum(a, b)  # |a - b| without leaving uint8
    counts = np.bincount(diff.ravel(), minlength=256)
    return {
        "mean_abs": float((counts * np.arange(256)).sum() / diff.size),
        "p99_abs": float(np.searchsorted(np.cumsum(counts), 0.99 * diff.size)),
        "max_abs": int(np.flatnonzero(counts)[-1]),
        "differing_fraction": float((diff.max(axis=2) > 8).mean()),
    }


def compare_one(
    case_id: str, variant: str, ours_jpeg: bytes, shipped: Path, shipped_label: str
) -> VariantDifference:
    """Compare our rendered bytes with one shipped file (decoded, within JPEG tolerance)."""
    if not shipped.is_file():
        return VariantDifference(case_id, variant, shipped_label, "missing_shipped")
    if (
        read_bytes(shipped, shipped_label) == ours_jpeg
    ):  # the common case: same renderer, same encoder
        return VariantDifference(case_id, variant, shipped_label, "match", 0.0, 0.0, 0, 0.0)
    try:
        theirs = imaging.safe_open_image(shipped)
    except ValueError:
        return VariantDifference(case_id, variant, shipped_label, "unreadable_shipped")
    ours = imaging.decode_image(ours_jpeg)
    if ours.size != theirs.size:
        return VariantDifference(case_id, variant, shipped_label, "size_differs")
    stats = compare_images(ours, theirs)
    ok = stats["mean_abs"] <= MEAN_ABS_TOLERANCE and stats["p99_abs"] <= P99_ABS_TOLERANCE
    return VariantDifference(case_id, variant, shipped_label, "match" if ok else "differs", **stats)


def compare_shipped_variants(release, rendered) -> VariantComparison:
    """Our render, ``rendered(case, variant) -> bytes`` (the builder's), against each shipped
    ``images_perturbed/`` file (credentialed cases skipped)."""
    seen: set[tuple[str, str, str]] = set()
    out = VariantComparison()
    for probe in [*release.probes_mcq, *release.probes_open]:
        kind = image_kind(probe.probe_kind)
        if (
            kind in ("case", "none")
            or not probe.image_file
            or not probe.image_file.startswith(f"{PERTURBED_DIR}/")
        ):
            continue
        key = (probe.case_id, kind, probe.image_file)
        if key in seen:
            continue
        seen.add(key)
        case = release.cases[probe.case_id]
        case_path = release.image_path(case)
        if (
            case_path is None
            or not case_path.is_file()
            or (kind != "lr_flip" and not case.roi_usable)
        ):
            continue
        out.differences.append(
            compare_one(
                case.case_id,
                kind,
                rendered(case, kind),
                release.image_path(probe),
                probe.image_file,
            )
        )
    return out
