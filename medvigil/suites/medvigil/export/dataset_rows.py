"""The rows of every MedVIGIL Hub dataset config. ``image`` is the exact image the model must see
(:mod:`.variants`); credentialed cases have ``image = None`` unless ``reconstructed_dir`` holds
re-derived images (local evaluation only)."""

import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes, read_json
from medvigil.images import imaging
from medvigil.mcq import option_order
from medvigil.suites.medvigil.export import variants
from medvigil.suites.medvigil.export.dataset_configs import CONFIG_NAMES
from medvigil.suites.medvigil.release.release_format import SYNTHETIC_NOTICE
from medvigil.suites.medvigil.release.release_records import resolve_image_file

# image_status values
EMBEDDED = "embedded"
WITHHELD = "withheld_credentialed"
LOCAL = "local_reconstruction"
NO_IMAGE = "no_image"
RECONSTRUCTION_MANIFEST = (
    "RECONSTRUCTION.json"  # written by `medvigil reconstruct` (reconstruct/derive.py)
)


def check_reconstruction(folder: Path | str, release_digest: str) -> None:
    """Refuse a ``medvigil reconstruct`` output folder without its manifest, or re-derived for
    another release."""
    folder = Path(folder)
    manifest = folder / RECONSTRUCTION_MANIFEST
    if not manifest.is_file():
        raise DataError(
            Problem(
                str(folder),
                f"no {RECONSTRUCTION_MANIFEST}: not an output folder of `medvigil reconstruct`",
            )
        )
    label = f"{folder.name}/{RECONSTRUCTION_MANIFEST}"
    data = read_json(manifest, label)
    if not isinstance(data, dict):
        raise DataError(Problem(label, f"expected a JSON object, got {type(data).__name__}"))
    recorded = data.get("release_digest")
    if recorded != release_digest:
        raise DataError(
            Problem(
                label,
                f"reconstructed for release {recorded!r}, not for this release ({release_digest}); "
                "run `medvigil reconstruct` again",
                field="release_digest",
            )
        )


def check_row_settings(shuffle_seed: object, variant_source: object) -> None:
    """Refuse settings no config could be built with."""
    if variant_source not in variants.VARIANT_SOURCES:
        raise ValueError(
            f"variant_source must be one of {variants.VARIANT_SOURCES}, got {variant_source!r}"
        )
    if isinstance(shuffle_seed, bool) or not isinstance(shuffle_seed, int):
        raise TypeError(f"shuffle_seed must be an int, got {type(shuffle_seed).__name__}")


class ReleaseRows:
    """The rows of one validated release's configs for one set of settings; left-out items are
    counted in :attr:`skipped`. ``variant_source``: ``"render"`` or ``"shipped"``; ``image_store``:
    folder keeping renders between configs (None: memory)."""

    def __init__(
        self,
        release,
        *,
        shuffle_seed: int = 0,
        variant_source: str = "render",
        reconstructed_dir: str | None = None,
        image_store: Path | None = None,
    ):
        check_row_settings(shuffle_seed, variant_source)
        self.release = release
        self.shuffle_seed = shuffle_seed
        self.variant_source = variant_source
        self.reconstructed_dir = reconstructed_dir
        if reconstructed_dir is not None:
            check_reconstruction(reconstructed_dir, release.digest)
        self.image_store = image_store
        self.skipped: Counter[str] = Counter()
        self._renderer: _Images | None = None

    def iter_rows(self, name: str) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` of config ``name``; images as ``{"bytes", "path"}``."""
        if name not in CONFIG_NAMES:
            raise ValueError(f"unknown config {name!r}; available: {', '.join(CONFIG_NAMES)}")
        images = _Images(
            self.release,
            name,
            self.variant_source,
            self.reconstructed_dir,
            self.skipped,
            self.image_store,
        )
        if name == "cases":
            yield from self._case_rows(images)
        elif name == "triplets":
            yield from self._triplet_rows(images)
        elif name == "open":
            yield from self._open_rows(images)
        else:
            yield from self._mcq_rows(name, images)

    def _case_rows(self, images: "_Images") -> Iterator[tuple[str, dict]]:
        for case in self.release.cases.values():
            # credentialed cases ship as pointers: path in the user's licensed copy + SHA-256
            source_path, sha256 = self.release.pointers.get(case.case_id, ("", ""))
            yield (
                case.case_id,
                {
                    **_case_columns(case),
                    **_fields(
                        case,
                        "image_file",
                        "question",
                        "gold_answer",
                        "gold_after_lr_flip",
                        "annotator_notes",
                        "roi_usable",
                        "rationale",
                    ),
                    "differential_set": list(case.differential_set),
                    "clinical_context": case.clinical_context,
                    "pointer_source_path": source_path,
                    "pointer_sha256": sha256,
                    **images.columns(case, "case"),
                },
            )

    def _triplet_rows(self, images: "_Images") -> Iterator[tuple[str, dict]]:
        for triplet in self.release.triplets:
            case = self.release.cases[triplet.case_id]
            yield (
                triplet.case_id,
                {
                    **_fields(
                        triplet,
                        "anchor_question",
                        "tcf_question",
                        "vcf_question",
                        "anchor_gold",
                        "tcf_gold",
                        "vcf_gold",
                    ),
                    **_case_columns(case),
                    **images.columns(case, "case"),
                },
            )

    def _open_rows(self, images: "_Images") -> Iterator[tuple[str, dict]]:
        for probe, case, kind in self._probes(self.release.probes_open, "open"):
            yield (
                probe.probe_id,
                {
                    **_fields(
                        probe,
                        "probe_id",
                        "probe_axis",
                        "probe_kind",
                        "question",
                        "expected_behavior",
                    ),
                    "expected_answer_or_set": list(probe.expected_answer_or_set),
                    "halluc_explanation": probe.halluc_explanation,
                    "provenance": probe.provenance,
                    "image_file": probe.image_file or "",
                    **_case_columns(case),
                    **images.columns(case, kind, probe),
                },
            )

    def _probes(self, probes, file: str):
        """``(probe, case, image kind)`` of every probe that can be shown (ROI probes need a usable
        ROI)."""
        for probe in probes:
            case = self.release.cases[probe.case_id]
            kind = variants.image_kind(probe.probe_kind)
            if kind in ("roi_masked", "roi_only") and not case.roi_usable:
                self.skipped[f"{file} {probe.probe_kind} probe: case has no usable ROI"] += 1
                continue
            yield probe, case, kind

    def rendered_image(self, case, kind: str) -> bytes | None:
        """Our render of the case image or a variant, whatever ``variant_source`` is; None when
        withheld."""
        if self._renderer is None:
            self._renderer = _Images(
                self.release,
                "render",
                "render",
                self.reconstructed_dir,
                Counter(),
                self.image_store,
            )
        return self._renderer.image_bytes(case, kind)

    def _mcq_rows(self, name: str, images: "_Images") -> Iterator[tuple[str, dict]]:
        for probe, case, kind in self._probes(self.release.probes_mcq, "mcq"):
            base = {
                **_fields(probe, "probe_id", "probe_kind", "question"),
                "options": list(probe.options),
                "correct_letter": probe.correct_letter,
                "image_file": probe.image_file or "",
                **_case_columns(case),
                **images.columns(case, kind, probe),
            }
            if name == "mcq":
                yield probe.probe_id, base
            elif name == "mcq_shuffled":
                order = option_order.shuffled_order(probe.probe_id, self.shuffle_seed)
                yield (
                    probe.probe_id,
                    {
                        **_reordered(base, order, probe.correct_letter),
                        "shuffle_seed": self.shuffle_seed,
                    },
                )
            else:
                for rotation, order in enumerate(option_order.circular_orders()):
                    yield (
                        f"{probe.probe_id}#{rotation}",
                        {**_reordered(base, order, probe.correct_letter), "rotation": rotation},
                    )


def _fields(record, *names: str) -> dict:
    return {name: getattr(record, name) for name in names}


def _case_columns(case) -> dict:
    return {
        **_fields(
            case,
            "case_id",
            "risk_tier",
            "source_dataset",
            "modality",
            "text_only_answerable",
            "laterality_dependent",
        ),
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
    """Chooses, renders and caches the image of each row (see
    :mod:`medvigil.suites.medvigil.export.variants`)."""

    def __init__(
        self,
        release,
        config_name: str,
        variant_source: str,
        reconstructed_dir: str | None,
        skipped: Counter,
        store: Path | None = None,
    ):
        self.release = release
        self.config_name = config_name
        self.variant_source = variant_source
        self.skipped = skipped
        self.cache = imaging.ImageCache()
        self.store = store
        self.comment = SYNTHETIC_NOTICE if release.synthetic else None
        self.reconstructed = Path(reconstructed_dir) if reconstructed_dir else None

    def _case_source(self, case) -> Path | None:
        """Where the case image comes from, or None when it is withheld."""
        if case.credentialed:
            if self.reconstructed is None:
                return None
            path = resolve_image_file(
                self.reconstructed, case.image_file, file="reconstructed images"
            )
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
            self.skipped[
                f"{self.config_name}: image withheld (credentialed source {case.source_dataset})"
            ] += 1
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
            return self._get(
                case.case_id,
                "case",
                lambda: variants.case_image_bytes(source, comment=self.comment),
            )

        if kind == "case":
            return case_jpeg()
        if (
            self.variant_source == "shipped"
            and not case.credentialed
            and probe is not None
            and probe.image_file
        ):
            return self._get(
                case.case_id,
                f"shipped:{probe.image_file}",
                lambda: read_bytes(self.release.image_path(probe)),
            )
        return self._get(
            case.case_id,
            kind,
            lambda: variants.render_variant_bytes(
                case_jpeg(), kind, case.roi_bbox, comment=self.comment
            ),
        )

    def _get(self, case_id: str, what: str, make) -> bytes:
        """Memory LRU first, then the export's image store, then ``make()``."""

        def from_store() -> bytes:
            if self.store is None:
                return make()
            path = self.store / (hashlib.sha256(f"{case_id}\0{what}".encode()).hexdigest() + ".bin")
            if path.is_file():
                return path.read_bytes()
            data = make()
            self.store.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            return data

        return self.cache.get((case_id, what), from_store)
