"""Write a Hub-ready folder from a MedVIGIL release (``medvigil build``).

Layout of the output folder::

    README.md                 dataset card: YAML front matter (configs, dataset_info,
                              licence, tags, medvigil digests) + datasheet sections
    DATASHEET.md              the datasheet sections alone (paper, Appendix C)
    croissant.json            Croissant 1.0 JSON-LD; mlcroissant reports no error, no warning
    build_info.json           versions, digests, settings, row counts, skipped items,
                              shard checksums, variant comparison, credentialed case ids
    data/<config>/test-NNNNN-of-MMMMM.parquet   images embedded, one folder per config

Guarantees:

* **Validated first.** :func:`medvigil.suites.medvigil.validate.validate_release` runs before anything is
  written; any error stops the build with the validator's own problems.
* **Atomic.** Everything is written to a hidden sibling folder that is renamed onto the
  destination at the very end; after a failure no destination folder exists.
* **Streamed.** Rows come one at a time from the builder and go to the Parquet writer in
  batches of :data:`~medvigil.hub.parquet_shards.ROWS_PER_BATCH`; a shard is closed once its payload passes
  ``max_shard_bytes``. Memory does not grow with the release.
* **Deterministic.** No clock, no absolute path, no random state: two builds of the same
  release with the same settings give byte-identical files and the same build digest.
* **Credentialed images never leave.** Rows of credentialed cases carry ``image = None``
  in every config. Re-derived images (``medvigil reconstruct``) can be embedded only in a
  ``local_only`` build, which is marked as such in ``build_info.json``, the card and a
  ``LOCAL_ONLY`` file, and which ``medvigil publish`` refuses. A normal build re-scans its
  own Parquet files before the final rename (:func:`credentialed_problems`).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.atomic_output import staged_folder
from medvigil.files.input_files import open_regular, read_json
from medvigil.files.output_guard import refuse_overlap
from medvigil.hub import croissant
from medvigil.hub.card_metadata import configs_and_info, markdown_table
from medvigil.hub.parquet_shards import (
    DATA_DIR,
    DEFAULT_MAX_SHARD_BYTES,
    SPLIT,
    checksum_lines,
    shards_line,
    shards_to_json,
    write_shards,
)
from medvigil.suites.medvigil.release_format import (
    CREDENTIALED_SOURCES,
    GREY,
    JPEG_QUALITY,
    LONGEST_SIDE,
    PROBE_KINDS,
    SOURCE_LICENCES,
    SYNTHETIC_NOTICE,
    TIERS,
    is_credentialed,
)

BUILD_INFO = "build_info.json"
LOCAL_ONLY_MARKER = "LOCAL_ONLY"
README = "README.md"
DATASHEET = "DATASHEET.md"
CROISSANT = "croissant.json"
SHARD_NAME = re.compile(r"^data/(?P<config>[a-z_]+)/test-(?P<i>\d{5})-of-(?P<n>\d{5})\.parquet$")
PUBLISHABLE_FILES = (README, DATASHEET, CROISSANT, BUILD_INFO)

# Hugging Face licence identifiers of the directly redistributed sources (paper, Table 5)
_HF_LICENCE_IDS = {"CC0-1.0": "cc0-1.0", "CC-BY-SA-4.0": "cc-by-sa-4.0", "CC-BY-NC-SA-4.0": "cc-by-nc-sa-4.0"}
_LICENCE_URLS = {
    "CC0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "CC-BY-SA-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "CC-BY-NC-SA-4.0": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
}
_VARIANT_SOURCE_NOTES = {
    "render": "rendered by medvigil from the case image and ROI box; the release's images_perturbed/ files, "
    "when present, were compared with these renders and the differences are listed in build_info.json",
    "shipped": "the release's own images_perturbed/ files, embedded unchanged",
}


@dataclass
class BuildReport:
    """What a build wrote and left out."""

    out: Path
    version: str
    release_digest: str
    build_digest: str
    local_only: bool
    synthetic: bool
    settings: dict[str, Any]
    rows: dict[str, int]
    shards: list[croissant.Shard]
    skipped: dict[str, int]
    notes: dict[str, int]
    variant_comparison: dict[str, Any] | None
    credentialed_case_ids: list[str]
    images: dict[str, dict[str, int]] = field(default_factory=dict)  # config -> image_status -> rows
    credentialed_sha256: list[str] = field(default_factory=list)  # the withheld source files (publish checks content)

    def to_dict(self) -> dict[str, Any]:
        return {
            "builder": "medvigil",
            "version": self.version,
            "release_digest": self.release_digest,
            "build_digest": self.build_digest,
            "local_only": self.local_only,
            "synthetic": self.synthetic,
            "settings": self.settings,
            "rows": self.rows,
            "images": self.images,
            "skipped": self.skipped,
            "notes": self.notes,
            "credentialed_case_ids": self.credentialed_case_ids,
            "credentialed_sha256": self.credentialed_sha256,
            "variant_comparison": self.variant_comparison,
            "shards": shards_to_json(self.shards),
        }

    def format(self) -> str:
        lines = [
            f"built:   {self.out}" + ("  (LOCAL ONLY: never publish)" if self.local_only else ""),
            f"version: {self.version}",
            f"release digest: {self.release_digest}",
            f"build digest:   {self.build_digest}",
            "rows:    " + ", ".join(f"{c} {n}" for c, n in self.rows.items()),
            shards_line(self.shards),
        ]
        for reason, count in self.skipped.items():
            lines.append(f"skipped: {count:5d}  {reason}")
        for note, count in self.notes.items():
            lines.append(f"note:    {count:5d}  {note}")
        if self.variant_comparison is not None:
            counts = self.variant_comparison["counts"]
            lines.append("shipped variants vs. render: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "none shipped"))
            for diff in self.variant_comparison["mismatches"][:20]:
                lines.append(f"  differs: {diff['case_id']} {diff['variant']} {diff['shipped_file']} [{diff['status']}]")
        return "\n".join(lines)


# --------------------------------------------------------------------------- entry point


def build(
    release_dir: Path | str,
    out: Path | str,
    *,
    reconstructed: Path | str | None = None,
    local_only: bool = False,
    configs: tuple[str, ...] | None = None,
    shuffle_seed: int = 0,
    variant_source: str = "render",
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    repo_id: str | None = None,
    force: bool = False,
    skip_invalid_rows: bool = False,
) -> BuildReport:
    """Validate ``release_dir`` and write the Hub-ready folder ``out`` atomically.

    Args:
        release_dir: release folder in the published layout.
        out: destination folder; must not exist unless ``force``.
        reconstructed: output folder of ``medvigil reconstruct`` (credentialed images);
            requires ``local_only``.
        local_only: embed the reconstructed credentialed images for local evaluation.
            The result is marked and ``medvigil publish`` refuses it.
        configs: subset of the builder's configs (default: all).
        shuffle_seed: seed of ``mcq_shuffled``.
        variant_source: ``"render"`` or ``"shipped"`` (see :mod:`medvigil.suites.medvigil.variants`).
        max_shard_bytes: close a Parquet shard once its payload passes this size.
        repo_id: Hub repository the folder is meant for (used in the card and Croissant URL).
        force: replace an existing ``out`` (only after the new build succeeded).
        skip_invalid_rows: leave out the probes whose rows the validator reports as errors
            (:func:`medvigil.suites.medvigil.validate.leave_out_bad_probes`), counted in ``skipped``; other
            errors still stop the build.

    Raises:
        DataError: the release does not validate (the validator's problems, all of them).
        FileExistsError: ``out`` exists and ``force`` is false.
        ValueError: inconsistent arguments.
    """
    from medvigil.builders.medvigil.builder import CONFIG_NAMES
    from medvigil.suites.medvigil.validate import validate_release
    from medvigil.suites.medvigil.variants import VARIANT_SOURCES

    release_dir, out = Path(release_dir), Path(out)
    configs = tuple(configs or CONFIG_NAMES)
    unknown = [c for c in configs if c not in CONFIG_NAMES]
    if unknown:
        raise ValueError(f"unknown config(s) {unknown}; available: {', '.join(CONFIG_NAMES)}")
    if variant_source not in VARIANT_SOURCES:
        raise ValueError(f"variant_source must be one of {VARIANT_SOURCES}, got {variant_source!r}")
    if reconstructed is not None and not local_only:
        raise ValueError(
            "reconstructed credentialed images may only go into a local-only build (--local-only): "
            "they must never be redistributed"
        )
    if local_only and reconstructed is None:
        raise ValueError("--local-only needs --reconstructed DIR (the output of `medvigil reconstruct`)")
    if isinstance(max_shard_bytes, bool) or not isinstance(max_shard_bytes, int) or max_shard_bytes < 1:
        raise ValueError(f"max_shard_bytes must be a positive int, got {max_shard_bytes!r}")
    if not release_dir.is_dir():
        raise NotADirectoryError(f"release folder {str(release_dir)!r} does not exist or is not a folder")
    inputs = {"RELEASE": release_dir, "--reconstructed": reconstructed}
    refuse_overlap({"--out": out}, inputs, replace=force)
    if out.exists() and not force:
        raise FileExistsError(f"{out} already exists; pass --force to replace it")

    report = validate_release(release_dir)
    left_out: dict[str, int] = {}
    left_out_problems: list[Problem] = []
    if not report.ok and skip_invalid_rows and not report.unusable:
        from medvigil.suites.medvigil.validate import leave_out_bad_probes

        left_out_problems, fatal, left_out = leave_out_bad_probes(report)
        if fatal:
            raise DataError(fatal)
    elif not report.ok:
        raise DataError(report.errors or report.problems)
    release = report.release
    if reconstructed is not None:
        from medvigil.reconstruct.derive import check_reconstruction

        check_reconstruction(reconstructed, release.digest)

    with tempfile.TemporaryDirectory(prefix="medvigil-build-cache-") as cache, staged_folder(out, inputs=inputs, replace=force) as tmp:
        result = _write(
            release,
            tmp,
            Path(cache),
            configs=configs,
            shuffle_seed=shuffle_seed,
            variant_source=variant_source,
            reconstructed=reconstructed,
            local_only=local_only,
            max_shard_bytes=max_shard_bytes,
            repo_id=repo_id,
            left_out=left_out,
        )
        if not local_only:
            problems = credentialed_problems(tmp)
            if problems:  # a bug, not a user error: the builder must never embed these
                raise DataError(problems)
    result.out = out
    result.left_out_problems = left_out_problems  # named rows behind skipped["...: probe left out ..."]
    return result


# --------------------------------------------------------------------------- writing


def _write(release, tmp: Path, cache: Path, **opts) -> BuildReport:
    from medvigil.builders.medvigil.builder import FEATURES, VERSION, MedvigilBuilder
    from medvigil.suites.medvigil.variants import compare_shipped_variants

    rows: dict[str, int] = {}
    shards: list[croissant.Shard] = []
    skipped: Counter[str] = Counter(opts.get("left_out", {}))
    images: dict[str, dict[str, int]] = {}
    kinds: Counter[str] = Counter()
    for config in opts["configs"]:
        builder = MedvigilBuilder(
            config_name=config,
            release_dir=release.root,
            release_digest=release.digest,
            shuffle_seed=opts["shuffle_seed"],
            variant_source=opts["variant_source"],
            reconstructed_dir=str(opts["reconstructed"]) if opts["reconstructed"] else None,
            cache_dir=str(cache),
        )
        builder.use_release(release)
        builder.image_store = cache / "images"  # render each image once for all configs
        count, config_shards, statuses, config_kinds = _write_config(
            builder, FEATURES[config], tmp, config, opts["max_shard_bytes"]
        )
        rows[config] = count
        shards.extend(config_shards)
        images[config] = dict(sorted(statuses.items()))
        skipped.update(builder.skipped)
        if config == "mcq":
            kinds = config_kinds

    if "mcq" not in opts["configs"]:  # the card's composition table still needs the kinds
        kinds = Counter(p.probe_kind for p in release.probes_mcq)
    comparison = None
    if any((release.root / "images_perturbed").glob("*")):
        comparison = compare_shipped_variants(release, rendered=builder.rendered_image).to_dict()
    notes: dict[str, int] = {}
    no_roi = sum(not case.roi_usable for case in release.cases.values())
    if no_roi:
        notes["cases without a usable ROI box (the release has no roi_masked / roi_only probes for them)"] = no_roi
    credentialed = sorted(c.case_id for c in release.cases.values() if c.credentialed)
    settings = {
        "configs": list(opts["configs"]),
        "shuffle_seed": opts["shuffle_seed"],
        "variant_source": opts["variant_source"],
        "local_only": opts["local_only"],
        "max_shard_bytes": opts["max_shard_bytes"],
    }
    report = BuildReport(
        out=tmp,
        version=str(VERSION),
        release_digest=release.digest,
        build_digest=build_digest(str(VERSION), release.digest, settings, shards),
        local_only=opts["local_only"],
        synthetic=release.synthetic,
        settings=settings,
        rows=rows,
        shards=shards,
        skipped=dict(sorted(skipped.items())),
        notes=notes,
        variant_comparison=comparison,
        credentialed_case_ids=credentialed,
        images=images,
        credentialed_sha256=sorted({sha.lower() for _, sha in release.pointers.values()}),
    )
    features = {c: FEATURES[c] for c in opts["configs"]}
    doc = croissant_document(release, report, features, repo_id=opts["repo_id"])
    (tmp / CROISSANT).write_text(croissant.dumps(doc), encoding="utf-8")
    errors, warnings = croissant.validate(tmp / CROISSANT)
    if errors or warnings:
        raise RuntimeError("croissant.json does not validate cleanly:\n" + "\n".join([*errors, *warnings]))
    card, datasheet = dataset_card(release, report, features, kinds, repo_id=opts["repo_id"])
    (tmp / README).write_text(card, encoding="utf-8")
    (tmp / DATASHEET).write_text(datasheet, encoding="utf-8")
    (tmp / BUILD_INFO).write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if opts["local_only"]:
        (tmp / LOCAL_ONLY_MARKER).write_text(
            "This build embeds credentialed images re-derived from a local licensed copy.\n"
            "It is for local evaluation only. Never upload or share it.\n",
            encoding="utf-8",
        )
    return report


def _write_config(builder, features, tmp: Path, config: str, max_shard_bytes: int):
    """Stream the builder's rows into size-bounded Parquet shards; return counts and shards."""
    from tqdm.auto import tqdm

    statuses: Counter[str] = Counter()
    kinds: Counter[str] = Counter()

    def tallied(rows):
        for key, row in rows:
            statuses[row["image_status"]] += 1
            if "probe_kind" in row:
                kinds[row["probe_kind"]] += 1
            yield key, row

    # progress on a terminal only (disable=None), so logs and tests stay clean
    rows = tqdm(builder.iter_rows(), desc=f"build {config}", unit=" rows", disable=None, leave=False)
    count, shards = write_shards(tallied(rows), features, tmp, config, max_shard_bytes, _payload_size)
    return count, shards, statuses, kinds


def _payload_size(row: dict) -> int:
    size = 0
    for value in row.values():
        if isinstance(value, dict) and value.get("bytes") is not None:
            size += len(value["bytes"])
        elif isinstance(value, str):
            size += len(value.encode("utf-8"))
        elif isinstance(value, list):
            size += sum(len(v.encode("utf-8")) if isinstance(v, str) else 8 for v in value)
        else:
            size += 8
    return size


def _sha256(path: Path) -> str:
    from medvigil.files.digest import file_sha256

    return file_sha256(path)


def build_digest(version: str, release_digest: str, settings: dict, shards: list[croissant.Shard]) -> str:
    """SHA-256 identifying a build: builder version, release digest, settings, shard checksums.

    Lines hashed: ``medvigil-build <version>``, ``release <digest>``, ``settings <sorted
    JSON>``, then ``<shard path>\\t<sha256>`` for every shard in path order.
    """
    h = hashlib.sha256()
    h.update(f"medvigil-build {version}\nrelease {release_digest}\n".encode())
    h.update(f"settings {json.dumps(settings, sort_keys=True)}\n".encode())
    h.update(checksum_lines(shards).encode())
    return h.hexdigest()


# --------------------------------------------------------------------------- scanning


_IMAGE_MAGIC = (
    (0, b"\xff\xd8\xff", "JPEG"),
    (0, b"\x89PNG\r\n\x1a\n", "PNG"),
    (0, b"GIF8", "GIF"),
    (0, b"II*\x00", "TIFF"),
    (0, b"MM\x00*", "TIFF"),
    (0, b"BM", "BMP"),
    (0, b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (0, b"\xff\x4f\xff\x51", "JPEG 2000"),
    (128, b"DICM", "DICOM"),
)


def sniff_image(path: Path) -> str | None:
    """Name of the image format ``path`` starts with, or None."""
    with open_regular(path, max_bytes=0) as fh:
        head = fh.read(132)
    for offset, magic, name in _IMAGE_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return name
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return None


def credentialed_problems(out: Path) -> list[Problem]:
    """Every place where ``out`` carries image bytes of a credentialed case.

    A row counts as credentialed when its ``credentialed`` column is true, its
    ``source_dataset`` is a credentialed source in any spelling (``is_credentialed``), or its ``case_id`` is listed
    in ``build_info.json``. The scan reads the Parquet files in batches (bounded memory).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    listed: set[str] = set()
    info_path = out / BUILD_INFO
    if info_path.is_file():
        try:
            info = read_json(info_path, BUILD_INFO)
        except DataError:
            info = {}  # check_publishable reports it
        ids = info.get("credentialed_case_ids", []) if isinstance(info, dict) else []
        listed = {str(i) for i in ids} if isinstance(ids, list) else set()
    problems: list[Problem] = []
    for path in sorted((out / DATA_DIR).rglob("*.parquet")) if (out / DATA_DIR).is_dir() else []:
        rel = path.relative_to(out).as_posix()
        try:
            parquet = pq.ParquetFile(path)
        except (ValueError, OSError) as exc:  # pyarrow.ArrowInvalid is a ValueError
            problems.append(Problem(rel, f"not a readable Parquet file ({exc}); cannot prove it holds no credentialed images"))
            continue
        names = set(parquet.schema_arrow.names)
        image_columns = [name for name in parquet.schema_arrow.names if _is_image_type(parquet.schema_arrow.field(name).type)]
        if not image_columns:
            continue
        keys = [c for c in ("case_id", "source_dataset", "credentialed") if c in names]
        found: dict[tuple[str, str], list[int]] = {}  # (column, case id) -> rows with image bytes
        first_row = 0
        # One row group at a time (iter_batches() reads ahead and holds hundreds of MB of
        # images), and the image column only for row groups that hold a credentialed row.
        for group in range(parquet.metadata.num_row_groups):
            data = parquet.read_row_group(group, columns=keys, use_threads=False).to_pydict() if keys else {}
            n = parquet.metadata.row_group(group).num_rows
            ids = data.get("case_id", [None] * n)
            flagged = [
                i
                for i in range(n)
                if bool(data.get("credentialed", [False] * n)[i])
                or is_credentialed(data.get("source_dataset", [None] * n)[i])
                or ids[i] in listed
                or ids[i] is None  # rows we cannot attribute are treated as unsafe
            ]
            if flagged:
                images = parquet.read_row_group(group, columns=image_columns, use_threads=False)
                for column in image_columns:
                    # non-empty ``bytes`` per row, computed in Arrow (no Python copies of the images)
                    size = pc.binary_length(pc.struct_field(images.column(column), "bytes"))
                    has_bytes = pc.fill_null(pc.greater(size, 0), False).to_pylist()
                    for i in flagged:
                        if has_bytes[i]:
                            found.setdefault((column, str(ids[i])), []).append(first_row + i + 1)
                del images
                pa.default_memory_pool().release_unused()  # keep the scan's footprint at one row group
            first_row += n
        for (column, case_id), rows in sorted(found.items(), key=lambda item: item[1][0]):
            shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
            problems.append(
                Problem(
                    rel,
                    f"credentialed case {case_id!r} has image bytes in {len(rows)} row(s) (rows {shown}); "
                    "credentialed images must never be published",
                    row=rows[0],
                    field=column,
                )
            )
    return problems


def _is_image_type(pa_type) -> bool:
    import pyarrow as pa

    return pa.types.is_struct(pa_type) and {f.name for f in pa_type} == {"bytes", "path"}


# --------------------------------------------------------------------------- metadata


_COLUMN_DESCRIPTIONS = {
    "probe_id": "Probe identifier (immutable).",
    "case_id": "Case identifier (immutable).",
    "probe_kind": "Probe family: " + ", ".join(PROBE_KINDS) + ".",
    "question": "Question text shown to the model (already perturbed for non-original probes).",
    "options": "The five option texts, displayed as A..E in this order.",
    "correct_letter": "Correct letter in the displayed order.",
    "published_correct_letter": "Correct letter in the published order.",
    "permutation": "Published letters in displayed order (e.g. CAEBD: displayed A is published C).",
    "shuffle_seed": "Seed of the per-probe option permutation.",
    "rotation": "CircularEval rotation index 0..4 (0 = published order).",
    "image_file": "Image path as written in the release (relative).",
    "risk_tier": "Clinical risk tier L1 (meta) .. L5 (time-critical).",
    "source_dataset": "Source corpus as the release spells it: VQA-RAD, SLAKE, ROCO or CXR (credentialed), or a "
    "spelling such as vqa-rad, cxr, MIMIC-CXR, CheXpert.",
    "modality": "Imaging modality.",
    "text_only_answerable": "Whether the question is answerable from its wording alone.",
    "laterality_dependent": "Whether the gold answer changes under a left-right flip.",
    "roi_bbox": "Region of interest [x0, y0, x1, y1], normalised to the image size; null when missing.",
    "roi_usable": "Whether the ROI box can drive the ROI probes.",
    "credentialed": "Whether the case comes from a credentialed source (image withheld).",
    "image_kind": "Which image the row shows: case, roi_masked, roi_only, lr_flip or none.",
    "image_status": "embedded, withheld_credentialed, local_reconstruction or no_image.",
    "image": "The exact image the model must see (JPEG); null when none or withheld.",
    "gold_answer": "Doctor-finalised gold answer of the case question.",
    "gold_after_lr_flip": "Gold answer after a left-right flip (differs only for laterality-dependent cases).",
    "annotator_notes": "Annotator notes from the manifest.",
    "rationale": "Answer rationale (grounding layer).",
    "differential_set": "Plausible alternatives (grounding layer).",
    "clinical_context": "Clinical context summary (grounding layer).",
    "probe_axis": "Open-ended probe axis.",
    "expected_behavior": "Expected behaviour for the open-ended probe (answer, refuse, correct the premise, ...).",
    "expected_answer_or_set": "Accepted answers for the open-ended probe.",
    "halluc_explanation": "Why the premise of a hallucination trap is false.",
    "provenance": "Provenance of the open-ended probe.",
    "anchor_question": "Triplet anchor question (the original probe).",
    "tcf_question": "Textual counterfactual: reworded anchor, same gold.",
    "vcf_question": "Visual counterfactual: anchor with a hypothetical condition, different gold.",
    "anchor_gold": "Gold answer of the anchor.",
    "tcf_gold": "Gold answer of the textual counterfactual (equals the anchor gold).",
    "vcf_gold": "Gold answer of the visual counterfactual (differs from the anchor gold).",
    "pointer_source_path": "Credentialed cases: path of the source image in the licensed copy (MIMIC-CXR / CheXpert).",
    "pointer_sha256": "Credentialed cases: SHA-256 of that source file, checked by `medvigil reconstruct`.",
}


def _licences_present(release) -> list[str]:
    present = {case.source for case in release.cases.values()}
    return [
        licence
        for source, (licence, how) in SOURCE_LICENCES.items()
        if how == "direct" and source in present and licence in _HF_LICENCE_IDS
    ]


def croissant_document(release, report: BuildReport, features: dict, *, repo_id: str | None) -> dict:
    """The Croissant 1.0 document of a build (see :mod:`medvigil.hub.croissant`)."""
    from medvigil.builders.medvigil import builder as b

    description = b.DESCRIPTION + f" Release digest sha256:{report.release_digest}; build digest sha256:{report.build_digest}."
    if release.synthetic:
        description += f" {SYNTHETIC_NOTICE}."
    return croissant.build_metadata(
        name="medvigil-synthetic" if release.synthetic else "medvigil",
        description=description,
        version=report.version,
        date_published=b.DATE_PUBLISHED,
        license=[_LICENCE_URLS[lic] for lic in _licences_present(release)],
        url=f"https://huggingface.co/datasets/{repo_id}" if repo_id else b.HOMEPAGE,
        cite_as=b.CITATION,
        keywords=["medical imaging", "visual question answering", "trustworthiness", "hallucination", "evaluation"],
        creators=["MedVIGIL authors"],
        shards=report.shards,
        features_by_config=features,
        column_descriptions=_COLUMN_DESCRIPTIONS,
        rai={
            "dataCollection": "Cases drawn from VQA-RAD, SLAKE, ROCO and MIMIC-CXR/CheXpert; three-stage pipeline "
            "by four board-certified radiologists (screening, parallel annotation, adjudication).",
            "dataPreprocessingProtocol": f"RGB, longest side {LONGEST_SIDE} px (Lanczos), JPEG quality {JPEG_QUALITY}; "
            f"ROI variants filled with grey {GREY}; lr_flip is a horizontal mirror.",
            "dataUseCases": "Evaluation and auditing of medical vision-language models only.",
            "dataLimitations": "Not a clinical-deployment licence; 300-case scale; single human reference rater; "
            "possible pretraining overlap with public sources.",
            "dataBiases": "Risk tiers are unevenly represented (L3 and L1 dominate); four source corpora only.",
            "personalSensitiveInformation": "De-identified public images; credentialed chest radiographs are "
            "not redistributed (pointers and reconstruction only).",
            "dataReleaseMaintenancePlan": "Immutable case ids; corrections as new manifest versions with a digest "
            "bump and a changelog entry.",
        },
    )


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "n>1M"


def _changelog() -> str:
    from importlib import resources

    try:
        text = resources.files("medvigil.builders.medvigil").joinpath("CHANGELOG.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return "Changelog: CHANGELOG.md of the medvigil dataset builder (not bundled with this installation)."
    # demote the changelog's headings below the datasheet's "###"
    return "\n".join("###" + line if line.startswith("#") else line for line in text.strip().splitlines())


def _front_matter(release, report: BuildReport, features: dict) -> str:
    import yaml

    configs, dataset_info = configs_and_info(features, report.rows, report.shards, default="mcq", split=SPLIT,
                                             data_dir=DATA_DIR)
    head: dict[str, Any] = {
        "pretty_name": "MedVIGIL (synthetic)" if release.synthetic else "MedVIGIL",
        "license": [_HF_LICENCE_IDS[lic] for lic in _licences_present(release)],
        "language": ["en"],
        "task_categories": ["visual-question-answering", "multiple-choice"],
        "tags": ["medical", "radiology", "trustworthiness", "hallucination", "evaluation"]
        + (["synthetic"] if release.synthetic else []),
        "size_categories": [_size_category(report.rows.get("mcq", max(report.rows.values(), default=0)))],
        "configs": configs,
        "dataset_info": dataset_info,
        "medvigil": {
            "version": report.version,
            "release_digest": report.release_digest,
            "build_digest": report.build_digest,
            "local_only": report.local_only,
            "synthetic": release.synthetic,
        },
    }
    return yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=1000).strip()


def dataset_card(release, report: BuildReport, features: dict, kinds: Counter, *, repo_id: str | None) -> tuple[str, str]:
    """``(README.md, DATASHEET.md)`` texts, from the templates in ``cards/``."""
    from string import Template

    from medvigil.builders.medvigil import builder as b
    from medvigil.cards import CARDS_DIR

    cases = list(release.cases.values())
    credentialed = [c for c in cases if c.credentialed]
    tiers = Counter(c.risk_tier for c in cases)
    sources = Counter(c.source for c in cases)  # canonical names: cxr, MIMIC-CXR, CheXpert -> CXR
    mcq_total = report.rows.get("mcq", len(release.probes_mcq))
    kind_rows = [(k, kinds.get(k, 0)) for k in PROBE_KINDS if kinds.get(k, 0)] + [
        (k, n) for k, n in sorted(kinds.items()) if k not in PROBE_KINDS
    ]
    licence_rows = []
    for source, (licence, how) in SOURCE_LICENCES.items():
        licence_rows.append(
            (source, licence, "direct" if how == "direct" else "reconstruct (pointer only)", sources.get(source, 0))
        )
    for source in sorted(set(sources) - set(SOURCE_LICENCES)):
        licence_rows.append((source, "unknown", "unknown", sources[source]))
    skipped_rows = [(reason, n) for reason, n in report.skipped.items()] + [(note, n) for note, n in report.notes.items()]
    synthetic_collection = (
        f"\n**This build was made from a synthetic release** ({SYNTHETIC_NOTICE}): procedurally generated "
        "phantom images and templated questions in the published layout. No clinician authored them; the "
        "paragraph above describes the real release."
        if release.synthetic
        else ""
    )
    datasheet = Template((CARDS_DIR / "medvigil_datasheet.md").read_text(encoding="utf-8")).substitute(
        n_cases=len(cases),
        n_credentialed=len(credentialed),
        n_mcq=mcq_total,
        n_open=report.rows.get("open", len(release.probes_open)),
        n_triplets=report.rows.get("triplets", len(release.triplets)),
        table_probe_kinds=markdown_table(("probe kind", "probes"), kind_rows + [("**total**", sum(n for _, n in kind_rows))]),
        table_tiers=markdown_table(("tier", "cases"), [(t, tiers.get(t, 0)) for t in TIERS]),
        table_sources=markdown_table(
            ("source", "cases", "image"),
            [(s, n, "withheld (credentialed)" if s in CREDENTIALED_SOURCES else "embedded") for s, n in sorted(sources.items())],
        ),
        table_skipped=markdown_table(("reason", "count"), skipped_rows) if skipped_rows else "Nothing was left out.",
        table_licences=markdown_table(("source", "image licence (upstream)", "redistribution", "cases here"), licence_rows),
        synthetic_collection=synthetic_collection,
        longest_side=LONGEST_SIDE,
        jpeg_quality=JPEG_QUALITY,
        grey=str(GREY),
        variant_source=report.settings["variant_source"],
        variant_source_note=_VARIANT_SOURCE_NOTES[report.settings["variant_source"]],
        shuffle_seed=report.settings["shuffle_seed"],
        version=report.version,
        date_published=b.DATE_PUBLISHED,
        release_digest=report.release_digest,
        build_digest=report.build_digest,
        changelog=_changelog(),
        citation=b.CITATION,
    )
    notices = []
    if report.local_only:
        notices.append(
            "> **LOCAL ONLY.** This build embeds credentialed images re-derived from a local licensed copy. "
            "It is for local evaluation only: never upload or share it (`medvigil publish` refuses it)."
        )
    if release.synthetic:
        notices.append(f"> **Synthetic data.** {SYNTHETIC_NOTICE}. Not clinical data; for testing the toolchain.")
    config_rows = []
    for config in features:
        statuses = report.images.get(config, {})
        config_rows.append(
            (
                f"`{config}`" + (" (default)" if config == "mcq" else ""),
                report.rows[config],
                b.CONFIG_DESCRIPTIONS[config],
                ", ".join(f"{k} {v}" for k, v in statuses.items()),
            )
        )
    card = Template((CARDS_DIR / "medvigil_dataset_card.md").read_text(encoding="utf-8")).substitute(
        front_matter=_front_matter(release, report, features),
        notice="\n\n".join(notices) if notices else f"Version {report.version}, release digest `{report.release_digest[:16]}…`.",
        load_examples="\n".join(
            f'{config} = load_dataset("{repo_id or "path/to/this/folder"}", "{config}", split="test")'
            + ("  # default config" if config == "mcq" else "")
            for config in features
        ),
        table_configs=markdown_table(("config", "rows", "one row per", "images"), config_rows),
        datasheet=datasheet.strip(),
    )
    return card.rstrip() + "\n", datasheet.rstrip() + "\n"


# --------------------------------------------------------------------------- publishing


def check_publishable(out: Path | str, credentialed_dirs: Iterable[Path | str] = ()) -> tuple[list[Path], list[Problem]]:
    """Decide, without any network access, whether ``out`` may be uploaded.

    Returns ``(files, problems)``: the files that would be uploaded, and every reason to
    refuse (empty when publishing is allowed). Refused: a folder that is not a medvigil
    build; a ``local_only`` build; any file other than the card, datasheet, Croissant,
    build info and the Parquet shards (in particular any stray image or DICOM file);
    symbolic links; shards whose checksum differs from ``build_info.json``; and any
    Parquet row of a credentialed case that carries image bytes; and any content that is, or
    embeds, an image (:mod:`medvigil.hub.publish_scan`): bytes identical to a credentialed image
    (``credentialed_sha256`` of the build plus every file under ``credentialed_dirs``) anywhere,
    and any image at all inside the text files.
    """
    out = Path(out)
    if not out.is_dir():
        raise NotADirectoryError(f"{out} is not a folder")
    problems: list[Problem] = []
    info_path = out / BUILD_INFO
    info: dict[str, Any] = {}
    if not info_path.is_file():
        problems.append(Problem(BUILD_INFO, "missing: not a folder written by `medvigil build`"))
    else:
        try:
            info = read_json(info_path, BUILD_INFO)
        except DataError as exc:
            problems.extend(exc.problems)
        if not isinstance(info, dict):
            problems.append(Problem(BUILD_INFO, f"expected a JSON object, got {type(info).__name__}"))
            info = {}
    if info.get("local_only") or (out / LOCAL_ONLY_MARKER).exists():
        problems.append(
            Problem(
                LOCAL_ONLY_MARKER if (out / LOCAL_ONLY_MARKER).exists() else BUILD_INFO,
                "this is a --local-only build with credentialed images; it must never be published",
            )
        )
    files: list[Path] = []
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if path.is_symlink():
            problems.append(Problem(rel, "symbolic link; a build holds plain files only"))
            continue
        if path.is_dir():
            continue
        if rel == LOCAL_ONLY_MARKER:
            continue  # already reported
        fmt = None if rel.endswith(".parquet") else sniff_image(path)
        if fmt is not None:
            problems.append(Problem(rel, f"stray {fmt} image file; images are published only inside the Parquet shards"))
            continue
        if rel not in PUBLISHABLE_FILES and not SHARD_NAME.match(rel):
            problems.append(
                Problem(
                    rel,
                    "unexpected file; a build publishes only "
                    + ", ".join(PUBLISHABLE_FILES)
                    + " and data/<config>/test-*.parquet",
                )
            )
            continue
        files.append(path)
    if info:
        recorded = {s["path"]: s["sha256"] for s in info.get("shards", [])}
        present = {p.relative_to(out).as_posix() for p in files if p.suffix == ".parquet"}
        for rel in sorted(recorded.keys() - present):
            problems.append(Problem(rel, "listed in build_info.json but missing"))
        for rel in sorted(present - recorded.keys()):
            problems.append(Problem(rel, "not listed in build_info.json (added after the build?)"))
        for rel in sorted(present & recorded.keys()):
            if _sha256(out / rel) != recorded[rel]:
                problems.append(Problem(rel, "checksum differs from build_info.json (modified after the build?)"))
    problems.extend(credentialed_problems(out))
    from medvigil.hub.publish_scan import content_problems, credentialed_hashes

    recorded_hashes = info.get("credentialed_sha256") if isinstance(info.get("credentialed_sha256"), list) else []
    hashes = {str(h).lower() for h in recorded_hashes} | credentialed_hashes(credentialed_dirs)
    problems.extend(content_problems(out, files, hashes, (f for f in PUBLISHABLE_FILES if not f.endswith(".parquet"))))
    return files, problems
