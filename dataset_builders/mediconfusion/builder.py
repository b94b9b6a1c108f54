"""`datasets` builder for MediConfusion: the authors' ``dataset.json`` plus the user's ROCO images.

Current ``datasets`` no longer runs loading scripts, so this builder is a class of the
``medvigil`` package, used directly::

    from medvigil.builders.mediconfusion import MediconfusionBuilder

    builder = MediconfusionBuilder(config_name="questions", dataset_json="data/dataset.json",
                                   images_dir="path/to/ROCO")
    builder.download_and_prepare()
    questions = builder.as_dataset(split="test")

or through ``medvigil mediconfusion-build DATASET_JSON --images ROCO --out OUT``, which writes a
Hub-ready folder that plain ``datasets.load_dataset(OUT, "questions")`` reads. The builder is
thin: reading and checking the release is :mod:`medvigil.suites.mediconfusion.release`, finding and
checking the images is :mod:`medvigil.reconstruct.roco` (every missing image is reported at
once, when the builder is created).

Configs (split ``test`` each):

============= ===================================================================
``questions`` one row per image (352 for the real release): the question as asked
              about that image, its correct letter and categories (default)
``pairs``     one row per pair (176): every field of ``dataset.json`` and both images
============= ===================================================================

Images are embedded as the original file bytes (never re-encoded), with the ROCO-relative
path as the image's ``path``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import datasets

from medvigil import citations
from medvigil.builders.evaluation_only import EvaluationOnlyBuilder
from medvigil.files.input_files import read_bytes

VERSION = datasets.Version("1.0.0")
DATE_PUBLISHED = "2024-10-09"  # the authors' dataset.json (HEAD 40a8b41 of their repository)
HOMEPAGE = "https://github.com/MShahabSepehri/MediConfusion"
CITATION = citations.MEDICONFUSION
DESCRIPTION = (
    "MediConfusion: 176 pairs of ROCO radiology images that medical vision-language models confuse "
    "(similar BiomedCLIP embeddings, dissimilar DINOv2 embeddings), each with one two-option question "
    "whose correct answer differs between the two images. Evaluation only."
)
LICENSE = "Images: ROCO (PubMed Central open access), CC BY-NC-SA 4.0, non-commercial use only. Annotations: MIT."

CONFIG_NAMES = ("questions", "pairs")

_str = datasets.Value("string")
_f64 = datasets.Value("float64")
_i64 = datasets.Value("int64")
_bool = datasets.Value("bool")
_cats = datasets.List(_str)

FEATURES: dict[str, datasets.Features] = {
    "questions": datasets.Features(
        {
            "pair_id": _str,
            "image_key": _str,
            "image": datasets.Image(),
            "image_path": _str,
            "question": _str,
            "option_A": _str,
            "option_B": _str,
            "correct_letter": _str,
            "categories": _cats,
            "caption": _str,
            "BiomedCLIP_sim": _f64,
            "DINO_sim": _f64,
            "synthetic": _bool,
        }
    ),
    "pairs": datasets.Features(
        {
            "pair_id": _str,
            "image_1": datasets.Image(),
            "image_2": datasets.Image(),
            "im_1": _str,
            "im_2": _str,
            "im_1_local": _i64,
            "im_2_local": _i64,
            "cap_1": _str,
            "cap_2": _str,
            "category_1": _cats,
            "category_2": _cats,
            "BiomedCLIP_sim": _f64,
            "DINO_sim": _f64,
            "question": _str,
            "option_A": _str,
            "option_B": _str,
            "im_1_correct": _str,
            "im_2_correct": _str,
            "AI_question": _str,
            "AI_option_A": _str,
            "AI_option_B": _str,
            "synthetic": _bool,
        }
    ),
}

CONFIG_DESCRIPTIONS = {
    "questions": "one row per image: the pair's question asked about that image, with its correct letter",
    "pairs": "one row per pair: every field of the authors' dataset.json and both images",
}

COLUMN_DESCRIPTIONS = {
    "pair_id": "Pair identifier of the authors' release (e.g. '10001').",
    "image_key": "Which image of the pair the row asks about: 'im1' or 'im2'.",
    "image": "The image (original ROCO file bytes).",
    "image_path": "The image's path relative to the ROCO data folder.",
    "image_1": "Image 1 of the pair (original ROCO file bytes).",
    "image_2": "Image 2 of the pair (original ROCO file bytes).",
    "im_1": "Path of image 1 relative to the ROCO data folder.",
    "im_2": "Path of image 2 relative to the ROCO data folder.",
    "im_1_local": "The authors' integer id of image 1.",
    "im_2_local": "The authors' integer id of image 2.",
    "cap_1": "ROCO caption of image 1.",
    "cap_2": "ROCO caption of image 2.",
    "caption": "ROCO caption of the image.",
    "categories": "Medical categories of the image (one or more of nine).",
    "category_1": "Medical categories of image 1.",
    "category_2": "Medical categories of image 2.",
    "BiomedCLIP_sim": "Cosine similarity of the two images in BiomedCLIP space (>= 0.9 by construction).",
    "DINO_sim": "Cosine similarity of the two images in DINOv2 space (<= 0.75 by construction).",
    "question": "The two-option question shared by both images (radiologist-revised).",
    "option_A": "Answer option A.",
    "option_B": "Answer option B.",
    "correct_letter": "Correct option for this image: 'A' or 'B'.",
    "im_1_correct": "Correct option for image 1.",
    "im_2_correct": "Correct option for image 2 (always the other letter).",
    "AI_question": "The LLM-generated question before radiologist revision.",
    "AI_option_A": "The LLM-generated option A before revision.",
    "AI_option_B": "The LLM-generated option B before revision.",
    "synthetic": "True for medvigil's synthetic stand-in pairs (phantom images), false for the real release.",
}


@dataclasses.dataclass
class MediconfusionConfig(datasets.BuilderConfig):
    """Builder parameters.

    Attributes:
        dataset_json: the authors' ``dataset.json`` (or ``dataset.csv``).
        images_dir: the user's ROCO copy (its data folder, or the repository root holding ``data/``).
        checksums_file: optional ``sha256sum``-format list the images must match.
        source_digest: filled in by the builder (SHA-256 over the release file and every
            image); part of the cache key, so edited inputs are never served from a stale cache.
    """

    dataset_json: str | None = None
    images_dir: str | None = None
    checksums_file: str | None = None
    source_digest: str | None = None


def source_digest(release_bytes: bytes, located: dict) -> str:
    """SHA-256 over the release file and ``<path>\\t<sha256>`` of every image, in path order."""
    h = hashlib.sha256()
    h.update(hashlib.sha256(release_bytes).hexdigest().encode() + b"\n")
    for rel in sorted(located):
        h.update(f"{rel}\t{located[rel].sha256}\n".encode())
    return h.hexdigest()


class MediconfusionBuilder(EvaluationOnlyBuilder):
    """Typed configs of MediConfusion; see the module docstring."""

    VERSION = VERSION
    BUILDER_CONFIG_CLASS = MediconfusionConfig
    BUILDER_CONFIGS: ClassVar[list[MediconfusionConfig]] = [
        MediconfusionConfig(name=name, version=VERSION, description=CONFIG_DESCRIPTIONS[name]) for name in CONFIG_NAMES
    ]
    DEFAULT_CONFIG_NAME = "questions"
    DESCRIPTION, HOMEPAGE, CITATION, LICENSE = DESCRIPTION, HOMEPAGE, CITATION, LICENSE
    FEATURES, CONFIG_DESCRIPTIONS = FEATURES, CONFIG_DESCRIPTIONS

    def __init__(
        self,
        *args: Any,
        dataset_json: str | Path | None = None,
        images_dir: str | Path | None = None,
        checksums_file: str | Path | None = None,
        **kwargs: Any,
    ):
        from medvigil.reconstruct.roco import locate_images, read_checksums
        from medvigil.suites.mediconfusion.release import read_release

        if dataset_json is None or images_dir is None:
            raise ValueError("dataset_json and images_dir are required (the authors' dataset.json and your ROCO folder)")
        json_path = Path(dataset_json)
        self.release = read_release(json_path)
        checksums = read_checksums(checksums_file) if checksums_file is not None else None
        self.located = locate_images(self.release, images_dir, checksums=checksums)  # all problems at once
        kwargs.setdefault("dataset_name", "mediconfusion")
        super().__init__(
            *args,
            dataset_json=str(json_path.resolve()),
            images_dir=str(Path(images_dir).resolve()),
            checksums_file=None if checksums_file is None else str(Path(checksums_file).resolve()),
            source_digest=source_digest(json_path.read_bytes(), self.located),
            **kwargs,
        )

    # ------------------------------------------------------------------ rows

    def _image(self, rel: str) -> dict:
        return {"bytes": read_bytes(self.located[rel].path, rel), "path": rel}

    def iter_rows(self) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` of the configured config, in file order; images as ``{"bytes", "path"}``."""
        if self.config.name == "pairs":
            for pair in self.release.pairs.values():
                row = pair.to_json()
                row["synthetic"] = pair.synthetic
                yield pair.pair_id, {"pair_id": pair.pair_id, "image_1": self._image(pair.im_1), "image_2": self._image(pair.im_2), **row}
            return
        for pair, key in self.release.images():
            rel = pair.image_path(key)
            yield f"{pair.pair_id}:{key}", {
                "pair_id": pair.pair_id,
                "image_key": key,
                "image": self._image(rel),
                "image_path": rel,
                "question": pair.question,
                "option_A": pair.option_A,
                "option_B": pair.option_B,
                "correct_letter": pair.correct(key),
                "categories": list(pair.categories(key)),
                "caption": pair.caption(key),
                "BiomedCLIP_sim": pair.BiomedCLIP_sim,
                "DINO_sim": pair.DINO_sim,
                "synthetic": pair.synthetic,
            }
