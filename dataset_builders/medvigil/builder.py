"""`datasets` builder for a MedVIGIL release folder (published layout, or our synthetic one).

Current ``datasets`` no longer runs loading scripts, so this builder is a class of the
``medvigil`` package, used directly::

    from medvigil.builders.medvigil import MedvigilBuilder

    builder = MedvigilBuilder(config_name="mcq", release_dir="path/to/release")
    builder.download_and_prepare()
    mcq = builder.as_dataset(split="test")

or through ``medvigil build RELEASE --out OUT``, which writes a Hub-ready folder that plain
``datasets.load_dataset(OUT, "mcq")`` reads. The builder is thin: reading and checking
the release is :func:`medvigil.suites.medvigil.release.load_release`, choosing and rendering images is
:mod:`medvigil.suites.medvigil.variants`, option orders are :mod:`medvigil.mcq.option_order`.

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

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import datasets

from medvigil import citations
from medvigil.builders.evaluation_only import EvaluationOnlyBuilder
from medvigil.files.input_files import read_bytes
from medvigil.images import imaging
from medvigil.mcq import option_order
from medvigil.suites.medvigil import variants
from medvigil.suites.medvigil.release_format import SYNTHETIC_NOTICE

VERSION = datasets.Version("1.0.0")
DATE_PUBLISHED = "2026-11-22"  # date of VERSION; keep in step with CHANGELOG.md
HOMEPAGE = "https://huggingface.co/datasets/jhq0709/MedVIGIL"
HARNESS = "https://github.com/hq0709/MedVIGIL"
CITATION = citations.MEDVIGIL
DESCRIPTION = (
    "MedVIGIL: trust audit of medical vision-language models under broken evidence "
    "(hallucination traps, ROI masking, paraphrase, negation, laterality flips). "
    "Evaluation only; not a clinical-deployment licence."
)
LICENSE = "Per source: VQA-RAD CC0-1.0, SLAKE CC-BY-SA-4.0, ROCO CC-BY-NC-SA-4.0; CXR images not redistributed."

CONFIG_NAMES = ("mcq", "mcq_shuffled", "mcq_circular", "cases", "open", "triplets")

# image_status values
EMBEDDED = "embedded"
WITHHELD = "withheld_credentialed"
LOCAL = "local_reconstruction"
NO_IMAGE = "no_image"

_str = datasets.Value("string")
_bool = datasets.Value("bool")
_CASE_COLUMNS = {
    "case_id": _str,
    "risk_tier": _str,
    "source_dataset": _str,
    "modality": _str,
    "text_only_answerable": _bool,
    "laterality_dependent": _bool,
    "roi_bbox": datasets.List(datasets.Value("float64")),
    "credentialed": _bool,
}
_IMAGE_COLUMNS = {"image_kind": _str, "image_status": _str, "image": datasets.Image()}
_MCQ_COLUMNS = {
    "probe_id": _str,
    "probe_kind": _str,
    "question": _str,
    "options": datasets.List(_str),
    "correct_letter": _str,
    "image_file": _str,
}
_ORDER_COLUMNS = {"permutation": _str, "published_correct_letter": _str}

FEATURES: dict[str, datasets.Features] = {
    "mcq": datasets.Features({**_MCQ_COLUMNS, **_CASE_COLUMNS, **_IMAGE_COLUMNS}),
    "mcq_shuffled": datasets.Features(
        {**_MCQ_COLUMNS, **_ORDER_COLUMNS, "shuffle_seed": datasets.Value("int64"), **_CASE_COLUMNS, **_IMAGE_COLUMNS}
    ),
    "mcq_circular": datasets.Features(
        {**_MCQ_COLUMNS, **_ORDER_COLUMNS, "rotation": datasets.Value("int32"), **_CASE_COLUMNS, **_IMAGE_COLUMNS}
    ),
    "cases": datasets.Features(
        {
            **_CASE_COLUMNS,
            "image_file": _str,
            "question": _str,
            "gold_answer": _str,
            "gold_after_lr_flip": _str,
            "annotator_notes": _str,
            "roi_usable": _bool,
            "rationale": _str,
            "differential_set": datasets.List(_str),
            "clinical_context": _str,
            "pointer_source_path": _str,
            "pointer_sha256": _str,
            **_IMAGE_COLUMNS,
        }
    ),
    "open": datasets.Features(
        {
            "probe_id": _str,
            "probe_axis": _str,
            "probe_kind": _str,
            "question": _str,
            "expected_behavior": _str,
            "expected_answer_or_set": datasets.List(_str),
            "halluc_explanation": _str,
            "provenance": _str,
            "image_file": _str,
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
    "triplets": datasets.Features(
        {
            "anchor_question": _str,
            "tcf_question": _str,
            "vcf_question": _str,
            "anchor_gold": _str,
            "tcf_gold": _str,
            "vcf_gold": _str,
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
}

CONFIG_DESCRIPTIONS = {
    "mcq": "one row per MCQ probe, options in the published order (gold A on text probes, safe action E)",
    "mcq_shuffled": "one row per MCQ probe, options permuted per probe from (seed, probe_id); letter remapped",
    "mcq_circular": "five rows per MCQ probe: the five rotations of its options (CircularEval)",
    "cases": "one row per case: manifest and grounding fields with the case image",
    "open": "one row per open-ended probe",
    "triplets": "one row per counterfactual triplet (anchor, T-CF, V-CF) with the case image",
}


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
        if self.variant_source not in variants.VARIANT_SOURCES:
            raise ValueError(f"variant_source must be one of {variants.VARIANT_SOURCES}, got {self.variant_source!r}")
        if isinstance(self.shuffle_seed, bool) or not isinstance(self.shuffle_seed, int):
            raise TypeError(f"shuffle_seed must be an int, got {type(self.shuffle_seed).__name__}")


class MedvigilBuilder(EvaluationOnlyBuilder):
    """Typed configs of a MedVIGIL release; see the module docstring."""

    VERSION = VERSION
    BUILDER_CONFIG_CLASS = MedvigilConfig
    BUILDER_CONFIGS: ClassVar[list[MedvigilConfig]] = [
        MedvigilConfig(name=name, version=VERSION, description=CONFIG_DESCRIPTIONS[name]) for name in CONFIG_NAMES
    ]
    DEFAULT_CONFIG_NAME = "mcq"
    DESCRIPTION, HOMEPAGE, CITATION, LICENSE = DESCRIPTION, HOMEPAGE, CITATION, LICENSE
    FEATURES, CONFIG_DESCRIPTIONS = FEATURES, CONFIG_DESCRIPTIONS

    def __init__(self, *args: Any, release_dir: str | Path | None = None, **kwargs: Any):
        if release_dir is None:
            raise ValueError("release_dir is required: the folder of a MedVIGIL release (published layout)")
        root = Path(release_dir)
        if not root.is_dir():
            raise NotADirectoryError(f"release_dir {str(release_dir)!r} is not a folder")
        from medvigil.files.digest import release_digest

        # The digest is part of the cache key; callers that already hold it (the export,
        # which validated the release) pass it instead of hashing the folder again.
        digest = kwargs.pop("release_digest", None) or release_digest(root)
        kwargs.setdefault("dataset_name", "medvigil")
        super().__init__(*args, release_dir=str(root.resolve()), release_digest=digest, **kwargs)
        self._release = None
        self.skipped: Counter[str] = Counter()
        # Optional folder where rendered images are kept between configs of one export
        # (each variant is rendered once, not once per config); None renders in memory.
        self.image_store: Path | None = None
        self._renderer: _Images | None = None

    def description_suffix(self) -> str:
        digest = getattr(self.config, "release_digest", None)
        return f"\nRelease digest: sha256:{digest}" if digest else ""

    # ------------------------------------------------------------------ rows

    @property
    def release(self):
        """The release, read (and validated when ``config.check``) on first use."""
        if self._release is None:
            from medvigil.suites.medvigil.release import load_release

            self._release = load_release(self.config.release_dir, check=self.config.check)
            if self._release.digest != self.config.release_digest:
                raise RuntimeError("the release changed while the builder was open; create a new builder")
        return self._release

    def use_release(self, release) -> None:
        """Use an already loaded (and validated) :class:`~medvigil.suites.medvigil.release.Release`."""
        if Path(release.root).resolve() != Path(self.config.release_dir) or release.digest != self.config.release_digest:
            raise ValueError("use_release: the release is not the one this builder was configured with")
        self._release = release

    def rendered_image(self, case, kind: str) -> bytes | None:
        """Our render of a case image (``kind="case"``) or variant, whatever ``variant_source`` is.

        Served from :attr:`image_store` when an earlier config of the same export already
        rendered it; None for a withheld credentialed case.
        """
        if self._renderer is None or self._renderer.store != self.image_store:
            config = dataclasses.replace(self.config, variant_source="render")
            self._renderer = _Images(self.release, config, Counter(), self.image_store)
        return self._renderer.image_bytes(case, kind)

    def iter_rows(self) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` for the configured config; images as ``{"bytes", "path"}``.

        Counts of left-out items are kept in :attr:`skipped` (reset on each call).
        """
        self.skipped = Counter()
        release = self.release
        images = _Images(release, self.config, self.skipped, self.image_store)
        name = self.config.name
        if name == "cases":
            for case in release.cases.values():
                yield (
                    case.case_id,
                    {
                        **_case_columns(case),
                        "image_file": case.image_file,
                        "question": case.question,
                        "gold_answer": case.gold_answer,
                        "gold_after_lr_flip": case.gold_after_lr_flip,
                        "annotator_notes": case.annotator_notes,
                        "roi_usable": case.roi_usable,
                        "rationale": case.rationale,
                        "differential_set": list(case.differential_set),
                        "clinical_context": case.clinical_context,
                        # credentialed cases ship as pointers: path in the user's licensed copy + SHA-256
                        "pointer_source_path": release.pointers.get(case.case_id, ("", ""))[0],
                        "pointer_sha256": release.pointers.get(case.case_id, ("", ""))[1],
                        **images.columns(case, "case"),
                    },
                )
        elif name == "triplets":
            for triplet in release.triplets:
                case = release.cases[triplet.case_id]
                yield (
                    triplet.case_id,
                    {
                        "anchor_question": triplet.anchor_question,
                        "tcf_question": triplet.tcf_question,
                        "vcf_question": triplet.vcf_question,
                        "anchor_gold": triplet.anchor_gold,
                        "tcf_gold": triplet.tcf_gold,
                        "vcf_gold": triplet.vcf_gold,
                        **_case_columns(case),
                        **images.columns(case, "case"),
                    },
                )
        elif name == "open":
            for probe in release.probes_open:
                case = release.cases[probe.case_id]
                kind = variants.image_kind(probe.probe_kind)
                if kind in ("roi_masked", "roi_only") and not case.roi_usable:
                    self.skipped[f"open {probe.probe_kind} probe: case has no usable ROI"] += 1
                    continue
                yield (
                    probe.probe_id,
                    {
                        "probe_id": probe.probe_id,
                        "probe_axis": probe.probe_axis,
                        "probe_kind": probe.probe_kind,
                        "question": probe.question,
                        "expected_behavior": probe.expected_behavior,
                        "expected_answer_or_set": list(probe.expected_answer_or_set),
                        "halluc_explanation": probe.halluc_explanation,
                        "provenance": probe.provenance,
                        "image_file": probe.image_file or "",
                        **_case_columns(case),
                        **images.columns(case, kind, probe),
                    },
                )
        else:
            yield from self._mcq_rows(release, images)

    def _mcq_rows(self, release, images: _Images) -> Iterator[tuple[str, dict]]:
        name = self.config.name
        for probe in release.probes_mcq:
            case = release.cases[probe.case_id]
            kind = variants.image_kind(probe.probe_kind)
            if kind in ("roi_masked", "roi_only") and not case.roi_usable:
                self.skipped[f"mcq {probe.probe_kind} probe: case has no usable ROI"] += 1
                continue
            base = {
                "probe_id": probe.probe_id,
                "probe_kind": probe.probe_kind,
                "question": probe.question,
                "options": list(probe.options),
                "correct_letter": probe.correct_letter,
                "image_file": probe.image_file or "",
                **_case_columns(case),
                **images.columns(case, kind, probe),
            }
            if name == "mcq":
                yield probe.probe_id, base
            elif name == "mcq_shuffled":
                order = option_order.shuffled_order(probe.probe_id, self.config.shuffle_seed)
                yield (
                    probe.probe_id,
                    {
                        **_reordered(base, order, probe.correct_letter),
                        "shuffle_seed": self.config.shuffle_seed,
                    },
                )
            else:
                for rotation, order in enumerate(option_order.circular_orders()):
                    yield (
                        f"{probe.probe_id}#{rotation}",
                        {
                            **_reordered(base, order, probe.correct_letter),
                            "rotation": rotation,
                        },
                    )


def _case_columns(case) -> dict:
    return {
        "case_id": case.case_id,
        "risk_tier": case.risk_tier,
        "source_dataset": case.source_dataset,
        "modality": case.modality,
        "text_only_answerable": case.text_only_answerable,
        "laterality_dependent": case.laterality_dependent,
        "roi_bbox": None if case.roi_bbox is None else list(case.roi_bbox),
        "credentialed": case.credentialed,
    }


def _reordered(row: dict, order: str, published_correct: str) -> dict:
    return {
        **row,
        "options": list(option_order.apply_order(order, row["options"])),
        "correct_letter": option_order.displayed_letter(order, published_correct),
        "permutation": order,
        "published_correct_letter": published_correct,
    }


class _Images:
    """Chooses, renders and caches the image of each row (see :mod:`medvigil.suites.medvigil.variants`)."""

    def __init__(self, release, config: MedvigilConfig, skipped: Counter, store: Path | None = None):
        self.release = release
        self.config = config
        self.skipped = skipped
        self.cache = imaging.ImageCache()
        self.store = store
        self.comment = SYNTHETIC_NOTICE if release.synthetic else None
        self.reconstructed = Path(config.reconstructed_dir) if config.reconstructed_dir else None
        if self.reconstructed is not None:
            from medvigil.reconstruct.derive import check_reconstruction

            check_reconstruction(self.reconstructed, release.digest)

    def _case_source(self, case) -> Path | None:
        """Where the case image comes from, or None when it is withheld."""
        if case.credentialed:
            if self.reconstructed is None:
                return None
            from medvigil.suites.medvigil.release import resolve_image_file

            path = resolve_image_file(self.reconstructed, case.image_file, file="reconstructed images")
            if not path.is_file():
                raise FileNotFoundError(
                    f"reconstructed image for credentialed case {case.case_id} not found: {path} "
                    "(run `medvigil reconstruct` for this release first)"
                )
            return path
        return self.release.image_path(case)

    def columns(self, case, kind: str, probe=None) -> dict:
        """``image_kind``, ``image_status`` and ``image`` for one row."""
        if kind == "none":
            return {"image_kind": "none", "image_status": NO_IMAGE, "image": None}
        data = self.image_bytes(case, kind, probe)
        if data is None:
            self.skipped[f"{self.config.name}: image withheld (credentialed source {case.source_dataset})"] += 1
            return {"image_kind": kind, "image_status": WITHHELD, "image": None}
        status = LOCAL if case.credentialed else EMBEDDED
        name = f"{case.case_id}.jpg" if kind == "case" else f"{case.case_id}_{kind}.jpg"
        return {"image_kind": kind, "image_status": status, "image": {"bytes": data, "path": name}}

    def image_bytes(self, case, kind: str, probe=None) -> bytes | None:
        """Encoded image of kind ``"case"`` or a variant name; None when withheld."""
        source = self._case_source(case)
        if source is None:
            return None

        def case_jpeg() -> bytes:
            return self._get(case.case_id, "case", lambda: variants.case_image_bytes(source, comment=self.comment))

        if kind == "case":
            return case_jpeg()
        if self.config.variant_source == "shipped" and not case.credentialed and probe is not None and probe.image_file:
            return self._get(case.case_id, f"shipped:{probe.image_file}", lambda: read_bytes(self.release.image_path(probe)))
        return self._get(
            case.case_id,
            kind,
            lambda: variants.render_variant_bytes(case_jpeg(), kind, case.roi_bbox, comment=self.comment),
        )

    def _get(self, case_id: str, what: str, make) -> bytes:
        """Memory LRU first, then the export's image store, then ``make()``."""

        def from_store() -> bytes:
            if self.store is None:
                return make()
            import hashlib

            path = self.store / (hashlib.sha256(f"{case_id}\0{what}".encode()).hexdigest() + ".bin")
            if path.is_file():
                return path.read_bytes()
            data = make()
            self.store.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            return data

        return self.cache.get((case_id, what), from_store)


__all__ = [
    "CONFIG_NAMES",
    "FEATURES",
    "VERSION",
    "MedvigilBuilder",
    "MedvigilConfig",
]
