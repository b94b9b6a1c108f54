"""Release checks of images: safe paths, files that exist and decode, credentialed images absent,
each probe kind's image."""

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.pathsafe import unsafe_reason
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_records import resolve_image_file
from medvigil.suites.medvigil.validate.validation_base import (
    CheckerBase,
    _credentialed_message,
    _listed,
)


@dataclass
class _Scan:
    """What the walk over every image reference found (paths release-relative, posix)."""

    referenced: set[str] = field(default_factory=set)
    to_decode: dict[Path, tuple[str, int, str]] = field(default_factory=dict)
    reported_present: set[str] = field(default_factory=set)  # credentialed images found present
    absent: set[str] = field(default_factory=set)  # credentialed images found absent
    unsafe: dict[str, list[Problem]] = field(default_factory=dict)  # as written -> problems
    missing: dict[Path, list[Problem]] = field(default_factory=dict)  # first reference, repeats
    original_of: dict[str, Path] = field(default_factory=dict)  # case -> its manifest image
    shown_of: dict[Path, str] = field(default_factory=dict)


class ImageChecks(CheckerBase):
    def _image_refs(self) -> list[tuple[str, str, int, str]]:
        """(image_file as written, file, row, case_id) for every image reference."""
        refs = []
        for rel in (rf.MANIFEST, rf.PROBES_MCQ, rf.PROBES_OPEN):
            columns = self.read.column(rel, "image_file"), self.read.column(rel, "case_id")
            for number, image, cid in zip(self.numbers(rel), *columns):
                if isinstance(image, str) and image and isinstance(cid, str):
                    refs.append((image, rel, number, cid))
        return refs

    def _resolve(self, image: str, rel: str, number: int) -> Path:
        """resolve_image_file, memoised by the path as written (many rows share an image)."""
        cached = self._resolved.get(image)
        if cached is None:
            try:
                cached = resolve_image_file(
                    self.root, image, file=rel, row=number, field="image_file", inside=self._inside
                )
            except DataError as exc:
                cached = exc.problems[0]
            self._resolved[image] = cached
        if isinstance(cached, Problem):
            raise DataError(Problem(rel, cached.message, row=number, field="image_file"))
        return cached

    def check_images(self) -> None:
        scan = self._scan_references()
        for first, *repeats in [*scan.unsafe.values(), *scan.missing.values()]:
            if repeats:
                where = _listed([f"{p.file} row {p.row}" for p in repeats], show=str)
                first = Problem(
                    first.file,
                    f"{first.message} (also referenced by {where})",
                    first.row,
                    first.field,
                )
            self.problems.append(first)
        self._check_probe_image_choice(scan.original_of)
        self._check_credentialed_files(scan.reported_present)
        scan.referenced |= scan.reported_present
        if rf.MANIFEST in self.readable and self.check_files:
            self._warn_unreferenced(scan.referenced)
        self._decode(scan.to_decode)

    def _scan_references(self) -> "_Scan":
        """Every image reference resolved once per path as written: unsafe paths, the files each
        shows, credentialed images found present (reported here), missing files, what to decode."""
        prefix = self._inside.base.rstrip(os.sep) + os.sep  # resolved paths start with it
        know_sources = rf.MANIFEST in self.readable
        scan = _Scan()
        for image, rel, number, cid in self._image_refs():
            if image in scan.unsafe:
                scan.unsafe[image].append(Problem(rel, "", row=number))
                continue
            try:
                path = self._resolve(image, rel, number)
            except DataError as exc:
                scan.unsafe[image] = list(exc.problems)
                lexical = self._lexical(image)
                if lexical is not None:
                    scan.referenced.add(lexical)
                continue
            shown = scan.shown_of.get(path)
            if shown is None:  # many rows share an image: one conversion / stat per path
                shown = scan.shown_of[path] = str(path)[len(prefix) :].replace(os.sep, "/")
            scan.referenced.add(shown)
            if know_sources:  # else withheld images cannot be told from missing ones
                self._scan_file(scan, path, shown, rel, number, cid)
        return scan

    def _scan_file(
        self, scan: "_Scan", path: Path, shown: str, rel: str, number: int, cid: str
    ) -> None:
        """One resolved reference: a credentialed case's image must be absent, any other must
        exist (it is decoded later)."""
        manifest_row = self.manifest.get(cid)
        source = manifest_row.values.get("source_dataset") if manifest_row else None
        if rel == rf.MANIFEST:
            scan.original_of.setdefault(cid, path)
        if rf.is_credentialed(source):
            if shown not in scan.reported_present and shown not in scan.absent:  # one lstat each
                if os.path.lexists(path):
                    scan.reported_present.add(shown)
                    self.error(rel, _credentialed_message(shown, source), number, "image_file")
                else:
                    scan.absent.add(shown)
            return
        if not self.check_files:
            return
        if path in scan.missing or (path not in scan.to_decode and not path.is_file()):
            message = f"image {shown} does not exist"
            scan.missing.setdefault(path, []).append(
                Problem(rel, message, row=number, field="image_file")
            )
            return
        scan.to_decode.setdefault(path, (rel, number, shown))

    def _check_credentialed_files(self, reported_present: set[str]) -> None:
        """Credentialed images that no row mentions (for example other variants): a file named
        ``<case_id>.<ext>`` or ``<case_id>_<variant>.<ext>`` of a credentialed case."""
        credentialed = {
            cid: row
            for cid, row in self.manifest.items()
            if rf.is_credentialed(row.values.get("source_dataset"))
        }
        for folder in (rf.IMAGES_DIR, rf.PERTURBED_DIR) if credentialed else ():
            base = self.root / folder
            names = sorted(p.name for p in base.iterdir()) if base.is_dir() else []
            for name in names:
                cuts = [i for i, ch in enumerate(name) if ch in "._"]
                cid = next((name[:i] for i in cuts if name[:i] in credentialed), None)
                shown = f"{folder}/{name}"
                if cid is not None and shown not in reported_present:
                    reported_present.add(shown)
                    row = credentialed[cid]
                    self.error(
                        rf.MANIFEST,
                        _credentialed_message(shown, row.values["source_dataset"]),
                        row.number,
                        "image_file",
                    )

    def _warn_unreferenced(self, referenced: set[str]) -> None:
        for folder in (rf.IMAGES_DIR, rf.PERTURBED_DIR):
            for path in sorted((self.root / folder).rglob("*")):
                if path.name.startswith(".") or path.is_dir():
                    continue
                rel = path.relative_to(self.root).as_posix()
                if rel not in referenced:
                    self.warn(rel, "file is not referenced by manifest.csv or the probe files")

    def _decode(self, to_decode: dict[Path, tuple[str, int, str]]) -> None:
        """Decode every image found (on up to 8 threads); an error for each that fails."""
        self.counts["images_checked"] = 0
        if not self.decode_images or not to_decode:
            return
        paths = list(to_decode)
        workers = min(8, os.cpu_count() or 1, len(paths))
        from medvigil.images.image_checks import (
            image_problem,
        )  # Pillow and numpy: only when images are decoded

        with ThreadPoolExecutor(max_workers=workers if len(paths) > 16 else 1) as pool:
            verdicts = list(pool.map(partial(image_problem, max_pixels=self.max_pixels), paths))
        for path, verdict in zip(paths, verdicts):
            if verdict is not None:
                rel, number, shown = to_decode[path]
                self.error(rel, f"image {shown} {verdict}", number, "image_file")
        self.counts["images_checked"] = len(paths)

    @staticmethod
    def _lexical(image: str) -> str | None:
        """Release-relative form of an image reference, when it is lexically safe."""
        if unsafe_reason(image) is not None:
            return None
        if image.startswith((f"{rf.IMAGES_DIR}/", f"{rf.PERTURBED_DIR}/")):
            return image
        return f"{rf.IMAGES_DIR}/{image}"

    def _check_probe_image_choice(self, original_of: dict[str, Path]) -> None:
        """Text probes show the case's original image; image-variant probes a perturbed one."""
        columns = self.read.valid_columns(rf.PROBES_MCQ, ("image_file", "case_id", "probe_kind"))
        for number, image, cid, kind in zip(self.numbers(rf.PROBES_MCQ, valid=True), *columns):
            if image is None or cid not in original_of:
                continue
            try:
                path = self._resolve(image, rf.PROBES_MCQ, number)
            except DataError:
                continue  # already reported
            original = original_of[cid]
            if kind in rf.IMAGE_PROBE_KINDS and path == original:
                self.warn(
                    rf.PROBES_MCQ,
                    f"{kind} probe shows the unperturbed image of its case",
                    number,
                    "image_file",
                )
            elif kind in rf.TEXT_PROBE_KINDS and path != original:
                self.warn(
                    rf.PROBES_MCQ,
                    f"{kind} probe shows {image!r}, not its case's original image",
                    number,
                    "image_file",
                )
