"""`datasets` builder for a MedVIGIL release folder (published layout, or our synthetic one).

Current ``datasets`` no longer runs loading scripts, so this builder is a class of the
``medvigil`` package, used directly::

    from medvigil.builders.medvigil import MedvigilBuilder

    builder = MedvigilBuilder(config_name="mcq", release_dir="path/to/release")
    builder.download_and_prepare()
    mcq = builder.as_dataset(split="test")

or through ``medvigil build RELEASE --out OUT``, which writes a Hub-ready folder that plain
``datasets.load_dataset(OUT, "mcq")`` reads. The builder is a thin face over the core: the configs
and their features are :mod:`medvigil.suites.medvigil.export.dataset_configs`, reading and checking
the release is :func:`medvigil.suites.medvigil.release.release_loading.load_release`, and the rows
of every config (the same ones ``medvigil build`` writes) are
:class:`medvigil.suites.medvigil.export.dataset_rows.ReleaseRows`.

Configs (split ``test`` each):

============== ================================================================
``cases``      one row per case: fields of manifest + grounding, case image
``mcq``        one row per MCQ probe, published letter order (default)
``mcq_shuffled`` the same, options permuted per probe (seeded); letter remapped
``mcq_circular`` five rows per probe, the five rotations of its options
``open``       one row per open-ended probe
``triplets``   one row per counterfactual triplet, with the case image
============== ================================================================

``image`` is the exact image the model must see for the row. Credentialed cases (see
``CREDENTIALED_SOURCES``) have ``image = None`` unless ``reconstructed_dir`` points at
images re-derived with ``medvigil reconstruct``; such a build is for local evaluation
only (``medvigil build --local-only``) and can never be published.
"""

import dataclasses
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import datasets

from medvigil.builders.evaluation_only import EvaluationOnlyBuilder
from medvigil.files.digest import release_digest
from medvigil.suites.medvigil.export.dataset_configs import (
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
from medvigil.suites.medvigil.export.dataset_rows import ReleaseRows, check_row_settings
from medvigil.suites.medvigil.release.release_loading import load_release


@dataclasses.dataclass
class MedvigilConfig(datasets.BuilderConfig):
    """Builder parameters.

    Attributes:
        release_dir: the release folder (published layout).
        release_digest: filled in by the builder from the release content; part of the
            cache key, so an edited release is never served from a stale cache.
        shuffle_seed: seed of the ``mcq_shuffled`` permutations.
        variant_source: ``"render"`` (default: render image-side variants from the case
            image and ROI) or ``"shipped"`` (embed the release's ``images_perturbed/``
            files as they are).
        reconstructed_dir: output of ``medvigil reconstruct``; when set, credentialed
            cases get their re-derived images (local evaluation only).
        check: validate the release before reading (``load_release(check=True)``).
    """

    release_dir: str | None = None
    release_digest: str | None = None
    shuffle_seed: int = 0
    variant_source: str = "render"
    reconstructed_dir: str | None = None
    check: bool = True

    def __post_init__(self):
        super().__post_init__()
        check_row_settings(self.shuffle_seed, self.variant_source)


class MedvigilBuilder(EvaluationOnlyBuilder):
    """Typed configs of a MedVIGIL release; see the module docstring."""

    VERSION = VERSION
    BUILDER_CONFIG_CLASS = MedvigilConfig
    BUILDER_CONFIGS: ClassVar[list[MedvigilConfig]] = [
        MedvigilConfig(name=name, version=VERSION, description=CONFIG_DESCRIPTIONS[name])
        for name in CONFIG_NAMES
    ]
    DEFAULT_CONFIG_NAME = "mcq"
    DESCRIPTION, HOMEPAGE, CITATION, LICENSE = DESCRIPTION, HOMEPAGE, CITATION, LICENSE
    FEATURES, CONFIG_DESCRIPTIONS = FEATURES, CONFIG_DESCRIPTIONS

    def __init__(self, *args: Any, release_dir: str | Path | None = None, **kwargs: Any):
        if release_dir is None:
            raise ValueError(
                "release_dir is required: the folder of a MedVIGIL release (published layout)"
            )
        root = Path(release_dir)
        if not root.is_dir():
            raise NotADirectoryError(f"release_dir {str(release_dir)!r} is not a folder")
        # The digest is part of the cache key; a caller that already holds it may pass it
        # instead of hashing the folder again.
        digest = kwargs.pop("release_digest", None) or release_digest(root)
        kwargs.setdefault("dataset_name", "medvigil")
        super().__init__(*args, release_dir=str(root.resolve()), release_digest=digest, **kwargs)
        self._release = None
        self.skipped: Counter[str] = Counter()

    def description_suffix(self) -> str:
        digest = getattr(self.config, "release_digest", None)
        return f"\nRelease digest: sha256:{digest}" if digest else ""

    @property
    def release(self):
        """The release, read (and validated when ``config.check``) on first use."""
        if self._release is None:
            self._release = load_release(self.config.release_dir, check=self.config.check)
            if self._release.digest != self.config.release_digest:
                raise RuntimeError(
                    "the release changed while the builder was open; create a new builder"
                )
        return self._release

    def use_release(self, release) -> None:
        """Use an already loaded (and validated)
        :class:`~medvigil.suites.medvigil.release.release_records.Release`."""
        if (
            Path(release.root).resolve() != Path(self.config.release_dir)
            or release.digest != self.config.release_digest
        ):
            raise ValueError(
                "use_release: the release is not the one this builder was configured with"
            )
        self._release = release

    def iter_rows(self) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` for the configured config; images as ``{"bytes", "path"}``.

        Counts of left-out items are kept in :attr:`skipped` (reset on each call).
        """
        rows = ReleaseRows(
            self.release,
            shuffle_seed=self.config.shuffle_seed,
            variant_source=self.config.variant_source,
            reconstructed_dir=self.config.reconstructed_dir,
        )
        self.skipped = rows.skipped
        yield from rows.iter_rows(self.config.name)


__all__ = [
    "CONFIG_NAMES",
    "DATE_PUBLISHED",
    "FEATURES",
    "VERSION",
    "MedvigilBuilder",
    "MedvigilConfig",
]
