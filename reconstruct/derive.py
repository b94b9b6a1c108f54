"""Re-derive withheld credentialed case images from a user's licensed copy.

``medvigil reconstruct RELEASE --source DIR --out DIR2`` does, for every pointer of the
release (``case_id -> source_path, sha256``):

1. check that ``DIR/source_path`` stays inside ``DIR``, exists and has the expected
   SHA-256 (:mod:`medvigil.reconstruct.pointers`);
2. decode it: DICOM files with the display pipeline of :mod:`~medvigil.reconstruct.mimic_cxr`
   (modality LUT, VOI LUT / window, MONOCHROME1 inversion, 8-bit); JPEG/PNG files
   (MIMIC-CXR-JPG, CheXpert) as they are (:mod:`~medvigil.reconstruct.chexpert`);
3. apply the published preprocessing (RGB, longest side 1024 Lanczos, JPEG q92) and
   write ``DIR2/images/<image_file>``, plus the three image-side variants in
   ``DIR2/images_perturbed/<case>_<variant>.jpg`` (ROI variants only for usable boxes),
   so both our builder and the official harness can read them;
4. write ``DIR2/RECONSTRUCTION.json``: the release digest, and per case the source path,
   the verified source checksum and the checksums of every file written.

Every missing, unsafe, mismatching or undecodable file is reported together in one
:class:`~medvigil.errors.DataError`; nothing is written unless all cases succeed. The
output folder holds credentialed images: it is for local evaluation only
(``medvigil build --reconstructed DIR2 --local-only``) and must never be shared.
"""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from medvigil.errors import DataError, Problem
from medvigil.files.atomic_output import staged_folder
from medvigil.files.output_guard import refuse_overlap
from medvigil.reconstruct import chexpert, mimic_cxr
from medvigil.reconstruct.pointers import check_pointers
from medvigil.suites.medvigil.export.dataset_rows import RECONSTRUCTION_MANIFEST as MANIFEST_NAME
from medvigil.suites.medvigil.release.release_format import (
    IMAGE_VARIANTS,
    IMAGES_DIR,
    PERTURBED_DIR,
    POINTERS_DIR,
)

LOCAL_ONLY_NOTE = (
    "Re-derived from a credentialed source (MIMIC-CXR / CheXpert). "
    "Local evaluation only: never upload or share these files."
)


def source_kind(source_path: str, path: Path) -> str:
    """``"mimic-cxr-dicom"``, ``"mimic-cxr-jpg"``, ``"chexpert"`` or ``"image"`` (unrecognised
    layout)."""
    if mimic_cxr.is_dicom(path):
        return "mimic-cxr-dicom"
    if mimic_cxr.is_mimic_path(source_path):
        return "mimic-cxr-jpg"
    if chexpert.is_chexpert_path(source_path):
        return "chexpert"
    return "image"


def derive_image(path: Path, source_path: str | None = None) -> Image.Image:
    """Display image (RGB, source resolution) of one source file.

    Raises:
        ValueError: the file cannot be decoded (the message names the file).
    """
    if mimic_cxr.is_dicom(path):
        return mimic_cxr.dicom_to_image(path)
    return chexpert.jpeg_to_image(path)


def published_jpeg(path: Path, source_path: str | None = None) -> bytes:
    """Published-form JPEG bytes (RGB, longest side 1024 Lanczos, q92) of one source file."""
    from medvigil.images import imaging

    return imaging.encode_jpeg(imaging.to_published(derive_image(path, source_path)))


@dataclass
class ReconstructionReport:
    out: Path
    release_digest: str
    cases: list[dict] = field(default_factory=list)

    def format(self) -> str:
        kinds: dict[str, int] = {}
        for case in self.cases:
            kinds[case["source_kind"]] = kinds.get(case["source_kind"], 0) + 1
        return "\n".join(
            [
                f"reconstructed: {len(self.cases)} case image(s) into {self.out}",
                "sources: " + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "-"),
                f"release digest: {self.release_digest}",
                (
                    f"LOCAL ONLY: these are credentialed images; use them "
                    f"with `medvigil build RELEASE --reconstructed {self.out} "
                    f"--local-only --out DIR`, never publish them."
                ),
            ]
        )


def reconstruct(
    release_dir: Path | str,
    source_root: Path | str,
    out: Path | str,
    *,
    force: bool = False,
    pointers_file: Path | str | None = None,
) -> ReconstructionReport:
    """Re-derive every credentialed case image of a release (steps in the module docstring).

    The pointers come from the release's ``reconstruction/*pointers*.csv`` and, for a release
    without them (the published one ships none), from ``pointers_file`` (same columns
    ``case_id, source_path, sha256``; its rows win over the release's).

    Raises:
        DataError: the release does not validate, or one or more source files are
            missing, unsafe, mismatching or undecodable (all listed).
        FileExistsError: ``out`` exists and ``force`` is false.
    """
    from medvigil.images import imaging
    from medvigil.suites.medvigil.release.release import read_pointer_file
    from medvigil.suites.medvigil.release.release_loading import load_release

    out = Path(out).absolute()
    inputs = {"RELEASE": release_dir, "--source": source_root, "--pointers": pointers_file}
    refuse_overlap({"--out": out}, inputs, replace=force)
    if out.exists() and not force:
        raise FileExistsError(f"{out} already exists; pass --force to replace it")
    release = load_release(release_dir, check=True)
    given = read_pointer_file(pointers_file) if pointers_file is not None else {}
    all_pointers = {**release.pointers, **given}
    credentialed = {c.case_id: c for c in release.cases.values() if c.credentialed}
    problems: list[Problem] = []
    label = (
        str(pointers_file)
        if pointers_file is not None and not release.pointers
        else f"{POINTERS_DIR}/*pointers*.csv"
    )
    for case_id in sorted(set(credentialed) - set(all_pointers)):
        problems.append(
            Problem(
                label,
                f"credentialed case {case_id} has no reconstruction pointer; "
                f"give one with --pointers CSV (columns case_id, source_path, "
                f"sha256: the file in your licensed copy and its SHA-256)",
                field="case_id",
            )
        )
    pointers = {k: v for k, v in all_pointers.items() if k in credentialed}
    for case_id in sorted(set(all_pointers) - set(credentialed)):
        problems.append(
            Problem(
                label,
                f"pointer for case {case_id}, which is not a credentialed case",
                field="case_id",
            )
        )
    verified, pointer_problems = check_pointers(source_root, pointers, file_label=label)
    problems.extend(pointer_problems)

    records = []
    with staged_folder(out, inputs=inputs, replace=force, kind="reconstruct") as tmp:
        for item in verified:
            case = credentialed[item.case_id]
            try:
                case_jpeg = published_jpeg(item.path, item.source_path)
            except ValueError as exc:
                problems.append(Problem(label, f"case {item.case_id}: {exc}", field="source_path"))
                continue
            files = {f"{IMAGES_DIR}/{case.image_file}": case_jpeg}
            image = imaging.decode_image(case_jpeg)
            for variant in IMAGE_VARIANTS:
                if variant != "lr_flip" and not case.roi_usable:
                    continue
                rendered = imaging.render_variant(image, variant, case.roi_bbox)
                files[f"{PERTURBED_DIR}/{case.case_id}_{variant}.jpg"] = imaging.encode_jpeg(
                    rendered
                )
            for rel, data in files.items():
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            records.append(
                {
                    "case_id": item.case_id,
                    "image_file": case.image_file,
                    "source_path": item.source_path,
                    "source_sha256": item.sha256,
                    "source_kind": source_kind(item.source_path, item.path),
                    "files": {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()},
                }
            )
        if problems:  # nothing reaches ``out`` unless every case succeeded
            raise DataError(problems)
        manifest = {
            "note": LOCAL_ONLY_NOTE,
            "release_digest": release.digest,
            "preprocessing": "DICOM: modality LUT, VOI LUT/window, MONOCHROME1 inverted, min-max "
            "to 8 bit; then RGB, longest side 1024 px Lanczos, JPEG quality 92",
            "cases": records,
        }
        (tmp / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return ReconstructionReport(out=out, release_digest=release.digest, cases=records)
