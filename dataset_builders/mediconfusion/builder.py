"""`datasets` builder for MediConfusion: the authors' ``dataset.json`` plus the user's ROCO images.

Current ``datasets`` no longer runs loading scripts, so this builder is a class of the
``medvigil`` package, used directly::

    from medvigil.builders.mediconfusion import MediconfusionBuilder

    builder = MediconfusionBuilder(config_name="questions", dataset_json="data/dataset.json",
                                   images_dir="path/to/ROCO")
    builder.download_and_prepare()
    questions = builder.as_dataset(split="test")

or through ``medvigil mediconfusion-build DATASET_JSON --images ROCO --out OUT``, which writes a
Hub-ready folder that plain ``datasets.load_dataset(OUT, "questions")`` reads. The builder is a
thin face over the core: the configs and their features are
:mod:`medvigil.suites.mediconfusion.dataset_configs`; reading the release, finding and checking
the images (every missing image is reported at once, when the builder is created) and the rows
of every config (the same ones ``medvigil mediconfusion-build`` writes) are
:class:`medvigil.suites.mediconfusion.dataset_rows.RocoSource`.

Configs (split ``test`` each):

============= ===================================================================
``questions`` one row per image (352 for the real release): the question as asked
              about that image, its correct letter and categories (default)
``pairs``     one row per pair (176): every field of ``dataset.json`` and both images
============= ===================================================================

Images are embedded as the original file bytes (never re-encoded), with the ROCO-relative
path as the image's ``path``.
"""

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import datasets

from medvigil.builders.evaluation_only import EvaluationOnlyBuilder
from medvigil.suites.mediconfusion.dataset_configs import (
    CITATION,
    CONFIG_DESCRIPTIONS,
    CONFIG_NAMES,
    DATE_PUBLISHED,
    DESCRIPTION,
    FEATURES,
    HOMEPAGE,
    LICENSE,
    VERSION,
)
from medvigil.suites.mediconfusion.dataset_rows import RocoSource


@dataclasses.dataclass
class MediconfusionConfig(datasets.BuilderConfig):
    """Builder parameters.

    Attributes:
        dataset_json: the authors' ``dataset.json`` (or ``dataset.csv``). images_dir: the user's
        ROCO copy (its data folder, or the repository root holding ``data/``). checksums_file:
        optional ``sha256sum``-format list the images must match. source_digest: filled in by the
        builder (SHA-256 over the release file and every
            image); part of the cache key, so edited inputs are never served from a stale cache.
    """

    dataset_json: str | None = None
    images_dir: str | None = None
    checksums_file: str | None = None
    source_digest: str | None = None


class MediconfusionBuilder(EvaluationOnlyBuilder):
    """Typed configs of MediConfusion; see the module docstring."""

    VERSION = VERSION
    BUILDER_CONFIG_CLASS = MediconfusionConfig
    BUILDER_CONFIGS: ClassVar[list[MediconfusionConfig]] = [
        MediconfusionConfig(name=name, version=VERSION, description=CONFIG_DESCRIPTIONS[name])
        for name in CONFIG_NAMES
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
        if dataset_json is None or images_dir is None:
            raise ValueError(
                "dataset_json and images_dir are required (the "
                "authors' dataset.json and your ROCO folder)"
            )
        self.source = RocoSource.open(dataset_json, images_dir, checksums_file)
        kwargs.setdefault("dataset_name", "mediconfusion")
        super().__init__(
            *args,
            dataset_json=str(Path(dataset_json).resolve()),
            images_dir=str(Path(images_dir).resolve()),
            checksums_file=None if checksums_file is None else str(Path(checksums_file).resolve()),
            source_digest=self.source.source_digest,
            **kwargs,
        )

    def iter_rows(self) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` of the configured config, in file order; images as ``{"bytes",
        "path"}``."""
        yield from self.source.iter_rows(self.config.name)


__all__ = [
    "CONFIG_NAMES",
    "DATE_PUBLISHED",
    "FEATURES",
    "VERSION",
    "MediconfusionBuilder",
    "MediconfusionConfig",
]
