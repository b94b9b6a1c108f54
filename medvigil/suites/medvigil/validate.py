"""Integrity validation of a release folder (``medvigil validate DIR``).

:func:`validate_release` reads the release with :func:`medvigil.suites.medvigil.release.read_release`
(per-file encoding, header and per-row schema checks) and then judges it as a whole:

- ids: case ids and probe ids are unique; every referenced case exists; every case has
  a grounding row;
- sources: any spelling :func:`medvigil.suites.medvigil.release_format.canonical_source` knows
  (``vqa-rad``, ``slake``, ``roco``, ``cxr``, ``MIMIC-CXR``, ``CheXpert``, ...); another
  source is a warning (its licence is unknown);
- ROI boxes: inside the unit square with ``x0 < x1`` and ``y0 < y1``. A case whose box
  is missing or unusable must not have ROI probes (error); a malformed box on a case
  without ROI probes is only a warning;
- MCQ options (warnings, as in the authors' ``bench_validate_full.py`` L8): at least three
  non-empty options, no duplicate option texts, the correct option non-empty; the published
  letter conventions (``FIXED_CORRECT_LETTER``; ``roi_only`` is A; ``lr_flip`` is A, or the
  option matching ``gold_after_lr_flip`` when the case is laterality-dependent);
  image-variant probes share the option set of the case's ``original`` probe; at most
  ``MAX_PROBES_PER_CASE`` MCQ probes per case. Errors: ``knowledge_only`` probes have no
  image and every other probe has one;
- triplets: the textual counterfactual rewords the anchor and keeps its gold; the visual
  counterfactual changes the gold;
- splits (warnings, as in the authors' validator L6; the folder is optional): every
  ``by_*`` file partitions the cases; ``text_only_subset`` is exactly the cases flagged
  ``text_only_answerable``;
- clinician baseline (warning): ``n_correct <= n_probes``;
- images: every path stays inside the release; every image exists and decodes fully
  and is not a decompression bomb; images of credentialed sources (``CREDENTIALED_SOURCES``)
  are absent from ``images/`` and ``images_perturbed/`` (their presence is an error:
  they must never be redistributed). Reconstruction pointers are not demanded: credentialed
  cases without one are counted in a warning and ``medvigil reconstruct`` asks for them;
- ``RELEASE_DIGEST``, when present, equals the digest of the folder.

Every finding is a :class:`~medvigil.errors.Problem`; warnings do not fail validation.

``scope`` says what the release is checked for: ``"full"`` (everything above),
``"metadata"`` (no image file is looked at, except that a credentialed image present is
still an error) or ``"scoring"`` (no image path or file is looked at; only ``manifest.csv``
is required, and only problems that stop ``medvigil score`` stay errors: unreadable or
invalid rows of ``manifest.csv`` / ``probes_mcq.csv``, duplicate ids there, probes of
unknown cases; every other finding becomes a warning).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.pathsafe import InsideResolver, unsafe_reason
from medvigil.suites.medvigil import release_format as rf
from medvigil.suites.medvigil.release import read_release
from medvigil.suites.medvigil.release_csv import POINTER_GLOB, ReadResult, Row
from medvigil.suites.medvigil.release_records import Release, resolve_image_file, roi_geometry_issue, roi_issue

ROI_PROBE_KINDS = ("roi_masked", "roi_only")
SCOPES = ("full", "metadata", "scoring")
_HEX64 = re.compile(r"\b(?:sha256:)?([0-9a-fA-F]{64})\b")
_MAX_LISTED = 10  # ids listed in one message before "and N more"
_CHOICE_COLUMNS = tuple(f"choice_{letter}" for letter in rf.LETTERS)


@dataclass
class ValidationReport:
    """Outcome of :func:`validate_release`."""

    root: Path
    release: Release | None
    problems: list[Problem]
    counts: dict[str, Any] = field(default_factory=dict)
    unusable: bool = False  # the folder is not a release at all (exit status 2)
    read_files: frozenset[str] = frozenset()  # release files whose header was read
    probe_rows: dict[str, dict[int, str]] = field(default_factory=dict)  # probe file -> row -> probe_id

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity != "error"]

    @property
    def ok(self) -> bool:
        return not self.unusable and not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "root": str(self.root),
            "counts": self.counts,
            "problems": [p.to_dict() for p in self.problems],
        }

    def format(self) -> str:
        """Human report: summary counts, then one line per problem."""
        if self.unusable:
            return "\n".join(
                [f"release: {self.root}", "result:  UNUSABLE INPUT", *(f"error: {p}" for p in self.errors)]
            )
        c = self.counts
        lines = [f"release: {self.root}" + ("  (synthetic)" if c.get("synthetic") else "")]
        if c.get("digest"):
            lines.append(f"digest:  {c['digest']}  [{c.get('digest_status', '')}]")
        lines.append(
            f"cases:   {c.get('cases', 0)}  (credentialed {c.get('credentialed_cases', 0)}, "
            f"text-only answerable {c.get('text_only_answerable', 0)}, usable ROI {c.get('usable_roi', 0)})"
        )
        for key, label in (
            ("cases_by_tier", "tiers"),
            ("cases_by_source", "sources"),
            ("cases_by_modality", "modalities"),
        ):
            if c.get(key):
                lines.append(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in c[key].items()))
        lines.append(f"probes:  mcq {c.get('probes_mcq', 0)}, open {c.get('probes_open', 0)}")
        if c.get("probes_mcq_by_kind"):
            lines.append("  mcq by kind: " + ", ".join(f"{k} {v}" for k, v in c["probes_mcq_by_kind"].items()))
        for key, label in (("probes_mcq_by_tier", "tier"), ("probes_mcq_by_source", "source")):
            if c.get(key):
                lines.append(f"  mcq by {label}: " + ", ".join(f"{k} {v}" for k, v in c[key].items()))
        lines.append(
            f"triplets: {c.get('triplets', 0)}  pointers: {c.get('pointers', 0)}  "
            f"images checked: {c.get('images_checked', 0)}  splits: {', '.join(c.get('splits', [])) or '-'}"
        )
        errors, warnings = self.errors, self.warnings
        verdict = "OK" if self.ok else "FAILED"
        lines.append(f"result:  {verdict} ({len(errors)} error(s), {len(warnings)} warning(s))")
        lines += [f"error: {p}" for p in errors]
        lines += [f"warning: {p}" for p in warnings]
        return "\n".join(lines)


def validate_release(
    root: Path | str,
    *,
    images: bool = True,
    max_pixels: int = rf.DEFAULT_MAX_PIXELS,
    scope: str = "full",
) -> ValidationReport:
    """Check the release at ``root`` and return every problem found.

    Args:
        root: the release folder.
        images: decode every image (turn off for a quick structural check; existence,
            path safety and the credentialed-image rule are checked either way).
        max_pixels: largest accepted declared image size (decompression-bomb limit).
        scope: ``"full"``, ``"metadata"`` or ``"scoring"`` (module docstring).

    Raises:
        FileNotFoundError, NotADirectoryError: ``root`` is not a folder.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    root = Path(root)
    if root.is_dir() and not any((root / name).is_file() for name in rf.REQUIRED_FILES):
        # Checked before reading: hashing an arbitrary folder (say, a home directory) is not on.
        problem = Problem(
            str(root),
            "not a MedVIGIL release: none of " + ", ".join(rf.REQUIRED_FILES) + " is in this folder",
        )
        return ValidationReport(root, None, [problem], {}, unusable=True)
    scoring = scope == "scoring"
    read = read_release(root, required_files=rf.SCORING_FILES[:1] if scoring else rf.REQUIRED_FILES, digest=not scoring)
    checker = _Checker(
        read, root, images=images and scope == "full", max_pixels=max_pixels, files=scope == "full", refs=not scoring
    )
    checker.run()
    problems = read.problems + checker.problems
    if scoring:
        blocking = {id(p) for p in checker.blocks_scoring}
        blocking |= {id(p) for p in read.problems if p.file in rf.SCORING_FILES}
        problems = [p if p.severity != "error" or id(p) in blocking else _not_for_scoring(p) for p in problems]
    if scope != "full":
        what = "image paths and files were not checked (scoring reads no image)" if scoring else "image files were not checked (metadata only)"
        problems.append(Problem(str(root), what, severity="warning"))
    problems = sorted(problems, key=lambda p: (p.severity != "error", p.file, p.row or 0, p.field or ""))
    release = read.release
    release.warnings = [p for p in problems if p.severity != "error"]
    probe_rows = {
        rel: {row.number: row.values.get("probe_id") for row in read.rows.get(rel, [])}
        for rel in (rf.PROBES_MCQ, rf.PROBES_OPEN)
    }
    return ValidationReport(
        root, release, problems, checker.counts, read_files=frozenset(read.headers), probe_rows=probe_rows
    )


SKIPPABLE_FILES = (rf.PROBES_MCQ, rf.PROBES_OPEN)


def leave_out_bad_probes(report: ValidationReport) -> tuple[list[Problem], list[Problem], dict[str, int]]:
    """Drop from ``report.release`` every probe whose row an error names (``--skip-invalid-rows``).

    An error located on one row of ``probes_mcq.csv`` or ``probes_open.csv`` costs only that
    probe; any other error (a case, a whole file, the digest, a credentialed image) stays fatal.

    Returns:
        ``(left_out, fatal, counts)``: the errors whose probes were dropped, the errors that
        remain, and ``{"<file>: probe left out (invalid row)": n}`` for the build report.
    """
    left_out, fatal = [], []
    drop: dict[str, set[str]] = {rel: set() for rel in SKIPPABLE_FILES}
    for problem in report.errors:
        probe_id = report.probe_rows.get(problem.file, {}).get(problem.row) if problem.row is not None else None
        if problem.file in SKIPPABLE_FILES and probe_id:
            drop[problem.file].add(probe_id)
            left_out.append(problem)
        else:
            fatal.append(problem)
    release = report.release
    if release is not None:
        release.probes_mcq = [p for p in release.probes_mcq if p.probe_id not in drop[rf.PROBES_MCQ]]
        release.probes_open = [p for p in release.probes_open if p.probe_id not in drop[rf.PROBES_OPEN]]
    counts = {f"{rel}: probe left out (invalid row)": len(ids) for rel, ids in drop.items() if ids}
    return left_out, fatal, counts


def _not_for_scoring(problem: Problem) -> Problem:
    return Problem(problem.file, f"{problem.message} (not needed for scoring)", problem.row, problem.field, "warning")


def _norm(text: str) -> str:
    """Comparison form of an option or answer: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _listed(ids: list[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED])
    more = len(ids) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


class _Checker:
    """Cross-file checks over one :class:`ReadResult`; findings go to ``problems``."""

    def __init__(
        self, read: ReadResult, root: Path, *, images: bool, max_pixels: int, files: bool = True, refs: bool = True
    ):
        self.read = read
        self.check_files = files  # look at image files (existence, decoding, unreferenced files)
        self.check_refs = refs  # image paths at all (safety, credentialed images present); not for scoring
        self.blocks_scoring: list[Problem] = []  # errors that also stop `medvigil score`
        self.release = read.release
        self.root = root
        self.decode_images = images
        self.max_pixels = max_pixels
        self.problems: list[Problem] = []
        self._resolved: dict[str, Path | Problem] = {}
        self._inside = InsideResolver(root)  # one listing per folder for every image reference
        self.counts: dict[str, Any] = {}
        self.rows = read.rows
        # files whose header was read: rows of the others are unknown, not absent, so
        # checks that need them are skipped instead of reporting every reference as broken
        self.readable = set(read.headers)
        self.grounding: dict[str, Row] = {}
        for row in self.valid_rows(rf.GROUNDING):
            self.grounding.setdefault(row.values["case_id"], row)
        # manifest values by case id, from every row with a usable id (even if another
        # field is invalid), so one bad cell does not cascade into "unknown case" errors
        self.manifest: dict[str, Row] = {}
        for row in self.rows.get(rf.MANIFEST, []):
            cid = row.values.get("case_id")
            if isinstance(cid, str) and cid and cid not in self.manifest:
                self.manifest[cid] = row

    # ----------------------------------------------------------------- helpers
    def error(
        self, file: str, message: str, row: int | None = None, field: str | None = None, *, scoring: bool = False
    ) -> None:
        problem = Problem(file, message, row=row, field=field)
        self.problems.append(problem)
        if scoring:
            self.blocks_scoring.append(problem)

    def warn(self, file: str, message: str, row: int | None = None, field: str | None = None) -> None:
        self.problems.append(Problem(file, message, row=row, field=field, severity="warning"))

    def valid_rows(self, rel: str) -> list[Row]:
        return [row for row in self.rows.get(rel, []) if row.valid]

    def pointer_files(self) -> list[str]:
        return sorted(rel for rel in self.rows if rel.startswith(f"{rf.POINTERS_DIR}/"))

    # ----------------------------------------------------------------- run
    def run(self) -> None:
        self.check_unique_ids()
        self.check_references()
        self.check_sources_and_pointers()
        self.check_roi()
        self.check_mcq()
        self.check_open()
        self.check_triplets()
        self.check_splits()
        self.check_baseline()
        if self.check_refs:
            self.check_images()
        self.check_digest()
        self.count()

    # ----------------------------------------------------------------- ids
    def _unique(self, rel: str, key: str, *, severity: str = "error") -> None:
        first: dict[str, int] = {}
        for row in self.rows.get(rel, []):
            value = row.values.get(key)
            if not isinstance(value, str) or not value:
                continue
            if value in first:
                message = f"duplicate {key} {value!r} (first at row {first[value]})"
                if severity == "error":
                    self.error(rel, message, row.number, key, scoring=rel in rf.SCORING_FILES)
                else:
                    self.warn(rel, message, row.number, key)
            else:
                first[value] = row.number

    def check_unique_ids(self) -> None:
        if rf.MANIFEST in self.readable and not self.rows[rf.MANIFEST]:
            self.error(rf.MANIFEST, "has no cases", scoring=True)
        self._unique(rf.MANIFEST, "case_id")
        self._unique(rf.GROUNDING, "case_id")
        self._unique(rf.PROBES_MCQ, "probe_id")
        self._unique(rf.PROBES_OPEN, "probe_id")
        self._unique(rf.TRIPLETS, "case_id", severity="warning")
        seen: dict[str, str] = {}
        for rel in self.pointer_files():
            for row in self.rows[rel]:
                cid = row.values.get("case_id")
                if not isinstance(cid, str) or not cid:
                    continue
                if cid in seen:
                    self.error(rel, f"duplicate pointer for case {cid!r} (first in {seen[cid]})", row.number, "case_id")
                else:
                    seen[cid] = f"{rel} row {row.number}"

    def check_references(self) -> None:
        if rf.MANIFEST not in self.readable:
            return  # missing or unreadable manifest: already reported, nothing to refer to
        files = [rf.GROUNDING, rf.PROBES_MCQ, rf.PROBES_OPEN, rf.TRIPLETS, *self.pointer_files()]
        for rel in files:
            for row in self.rows.get(rel, []):
                cid = row.values.get("case_id")
                if isinstance(cid, str) and cid and cid not in self.manifest:
                    self.error(rel, f"case_id {cid!r} is not in {rf.MANIFEST}", row.number, "case_id", scoring=rel == rf.PROBES_MCQ)
        if rf.TRIPLETS in self.readable and "case_id" not in self.read.headers[rf.TRIPLETS]:
            unmatched = len(self.valid_rows(rf.TRIPLETS)) - len(self.release.triplets)
            if unmatched:
                self.warn(
                    rf.TRIPLETS,
                    f"{unmatched} triplet(s) left out: no case_id column, and their anchor_question is not the "
                    f"question of exactly one case in {rf.MANIFEST}",
                    field="case_id",
                )
        if rf.GROUNDING in self.readable:
            grounded = {row.values.get("case_id") for row in self.rows[rf.GROUNDING]}
            for cid, row in self.manifest.items():
                if cid not in grounded:
                    self.error(
                        rf.GROUNDING,
                        f"no grounding row for case {cid!r} ({rf.MANIFEST} row {row.number})",
                        field="case_id",
                    )

    def check_sources_and_pointers(self) -> None:
        warned: set[str] = set()
        for row in self.manifest.values():
            source = row.values.get("source_dataset")
            if isinstance(source, str) and source and rf.canonical_source(source) is None and source not in warned:
                warned.add(source)
                self.warn(
                    rf.MANIFEST,
                    f"source_dataset {source!r} is not a known source ({', '.join(rf.SOURCE_LICENCES)}, or a "
                    "spelling such as vqa-rad, cxr, MIMIC-CXR, CheXpert); its licence and redistribution rule are unknown",
                    row.number,
                    "source_dataset",
                )
        # any pointer row counts here, valid or not: a broken row is reported on its own
        pointers = {row.values.get("case_id") for rel in self.pointer_files() for row in self.rows[rel]}
        unpointed = [c.case_id for c in self.release.cases.values() if c.credentialed and c.case_id not in pointers]
        if unpointed:
            self.warn(
                rf.MANIFEST,
                f"{len(unpointed)} credentialed case(s) have no pointer in {rf.POINTERS_DIR}/{POINTER_GLOB} "
                f"({_listed(unpointed)}); the published release ships none: `medvigil reconstruct --pointers CSV` "
                "takes them when you re-derive those images",
                field="case_id",
            )
        for rel in self.pointer_files():
            for row in self.valid_rows(rel):
                case = self.release.cases.get(row.values["case_id"])
                if case is not None and not case.credentialed:
                    self.warn(
                        rel,
                        f"case {case.case_id!r} is from {case.source_dataset!r}, not a credentialed source; "
                        "it needs no pointer",
                        row.number,
                        "case_id",
                    )

    # ----------------------------------------------------------------- ROI
    def _kinds_by_case(self) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for rel in (rf.PROBES_MCQ, rf.PROBES_OPEN):
            for row in self.valid_rows(rel):
                out.setdefault(row.values["case_id"], []).append((row.values["probe_kind"], row.values["probe_id"]))
        return out

    def check_roi(self) -> None:
        kinds = self._kinds_by_case()
        for row in self.valid_rows(rf.GROUNDING):
            cid = row.values["case_id"]
            box = row.values["roi_bbox_norm"]
            reason = row.notes.get("roi_bbox_norm") or (roi_issue(box) if box is not None else None)
            roi_probes = sorted({pid for kind, pid in kinds.get(cid, []) if kind in ROI_PROBE_KINDS})
            if box is None and reason is None:
                if roi_probes:
                    self.error(
                        rf.GROUNDING,
                        f"roi_bbox_norm is empty but case {cid!r} has ROI probes ({_listed(roi_probes)}); "
                        "ROI probes need a usable box",
                        row.number,
                        "roi_bbox_norm",
                    )
                continue
            if reason is None:
                continue
            if roi_probes:
                self.error(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; case {cid!r} has ROI probes ({_listed(roi_probes)}) "
                    "which need a usable box",
                    row.number,
                    "roi_bbox_norm",
                )
            elif row.notes.get("roi_bbox_norm") or roi_geometry_issue(box) is not None:  # malformed, not just large
                self.warn(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; the case has no ROI probes, so only its grounding is lost",
                    row.number,
                    "roi_bbox_norm",
                )

    # ----------------------------------------------------------------- MCQ
    def check_mcq(self) -> None:
        rel = rf.PROBES_MCQ
        per_case: Counter[str] = Counter()
        reported_overflow: set[str] = set()
        totals = Counter(
            row.values.get("case_id") for row in self.rows.get(rel, []) if isinstance(row.values.get("case_id"), str)
        )
        for row in self.rows.get(rel, []):
            cid = row.values.get("case_id")
            if not isinstance(cid, str):
                continue
            per_case[cid] += 1
            if per_case[cid] > rf.MAX_PROBES_PER_CASE and cid not in reported_overflow:
                reported_overflow.add(cid)
                self.warn(
                    rel,
                    f"case {cid!r} has {totals[cid]} MCQ probes; at most {rf.MAX_PROBES_PER_CASE} per case",
                    row.number,
                    "case_id",
                )

        originals: dict[str, Row] = {}
        kinds_seen: dict[tuple[str, str], list[int]] = {}
        for row in self.valid_rows(rel):
            v = row.values
            kinds_seen.setdefault((v["case_id"], v["probe_kind"]), []).append(row.number)
            if v["probe_kind"] == "original":
                originals.setdefault(v["case_id"], row)
        for (cid, kind), numbers in kinds_seen.items():
            limit = 2 if kind == "halluc_trap" else 1
            if len(numbers) > limit:
                self.warn(
                    rel,
                    f"case {cid!r} has {len(numbers)} {kind} probes (rows {', '.join(map(str, numbers))}); "
                    f"expected at most {limit}",
                    numbers[limit],
                    "probe_kind",
                )

        for row in self.valid_rows(rel):
            self._check_options(row)
            self._check_letter(row)
            self._check_probe_image_field(rel, row)
            v = row.values
            if v["probe_kind"] in rf.IMAGE_PROBE_KINDS:
                original = originals.get(v["case_id"])
                if original is None:
                    self.warn(
                        rel,
                        f"{v['probe_kind']} probe has no original probe in case {v['case_id']!r} "
                        "to inherit its options from",
                        row.number,
                        "probe_kind",
                    )
                    continue
                for letter in rf.LETTERS:
                    mine, theirs = v[f"choice_{letter}"], original.values[f"choice_{letter}"]
                    if mine != theirs:
                        self.warn(
                            rel,
                            f"{v['probe_kind']} probes inherit the options of the case's original probe "
                            f"{original.values['probe_id']!r} (row {original.number}); option {letter} is "
                            f"{mine!r} here but {theirs!r} there",
                            row.number,
                            f"choice_{letter}",
                        )
                        break

    def _check_options(self, row: Row) -> None:
        v = row.values
        keys = [_norm(v[column]) for column in _CHOICE_COLUMNS]
        if all(keys) and len(set(keys)) == len(keys):
            return  # the usual row: every option non-empty (so is the correct one) and distinct
        options = {letter: v[f"choice_{letter}"] for letter in rf.LETTERS}
        empty = [letter for letter, text in options.items() if not text.strip()]
        if len(rf.LETTERS) - len(empty) < 3:
            self.warn(
                rf.PROBES_MCQ,
                f"only {len(rf.LETTERS) - len(empty)} non-empty options (empty: {', '.join(empty)}); "
                "a probe needs at least 3",
                row.number,
                f"choice_{empty[0]}",
            )
        seen: dict[str, str] = {}
        for letter, text in options.items():
            key = _norm(text)
            if not key:
                continue
            if key in seen:
                self.warn(
                    rf.PROBES_MCQ,
                    f"option {letter} duplicates option {seen[key]} ({text.strip()!r})",
                    row.number,
                    f"choice_{letter}",
                )
            else:
                seen[key] = letter
        letter = v["correct_letter"]
        if letter in empty:
            self.warn(
                rf.PROBES_MCQ,
                f"correct letter {letter} points to an empty option",
                row.number,
                "correct_letter",
            )

    def _check_letter(self, row: Row) -> None:
        v = row.values
        kind, letter = v["probe_kind"], v["correct_letter"]
        if kind == "lr_flip":
            grounding = self.grounding.get(v["case_id"])
            if grounding is None:
                return  # laterality unknown: the missing or broken grounding row is reported
            if grounding.values["laterality_dependent"]:
                self._check_lr_flip_letter(row, grounding.values["gold_after_lr_flip"])
                return
            expected, why = "A", "lr_flip probes of a case that is not laterality-dependent keep letter A"
        elif kind == "roi_only":
            expected, why = "A", "roi_only probes keep the original probe's gold, letter A"
        elif kind in rf.FIXED_CORRECT_LETTER:
            expected = rf.FIXED_CORRECT_LETTER[kind]
            why = f"{kind} probes have correct letter {expected} in the published convention"
        else:
            return
        if letter != expected:
            self.warn(rf.PROBES_MCQ, f"{why}; found {letter}", row.number, "correct_letter")

    def _check_lr_flip_letter(self, row: Row, gold: str) -> None:
        v = row.values
        if not gold.strip():
            self.warn(
                rf.PROBES_MCQ,
                f"case {v['case_id']!r} is laterality-dependent but its gold_after_lr_flip in "
                f"{rf.GROUNDING} is empty, so the lr_flip answer is unknown",
                row.number,
                "correct_letter",
            )
            return
        matches = [letter for letter in rf.LETTERS if _norm(v[f"choice_{letter}"]) == _norm(gold)]
        if not matches:
            self.warn(
                rf.PROBES_MCQ,
                f"no option matches gold_after_lr_flip {gold!r} of laterality-dependent case {v['case_id']!r}",
                row.number,
                "correct_letter",
            )
        elif v["correct_letter"] not in matches:
            self.warn(
                rf.PROBES_MCQ,
                f"lr_flip of a laterality-dependent case: the correct letter is {matches[0]} (the option "
                f"matching gold_after_lr_flip {gold!r}); found {v['correct_letter']}",
                row.number,
                "correct_letter",
            )

    def _check_probe_image_field(self, rel: str, row: Row) -> None:
        v = row.values
        kind, image = v["probe_kind"], v["image_file"]
        if kind in rf.NO_IMAGE_PROBE_KINDS and image is not None:
            self.error(
                rel,
                f"{kind} probes carry no image (the protocol asks them without one); found {image!r}",
                row.number,
                "image_file",
            )
        elif kind not in rf.NO_IMAGE_PROBE_KINDS and image is None and rel == rf.PROBES_MCQ:
            self.error(rel, f"{kind} probes need an image; image_file is empty", row.number, "image_file")

    def check_open(self) -> None:
        for row in self.valid_rows(rf.PROBES_OPEN):
            if row.values["probe_kind"] in rf.NO_IMAGE_PROBE_KINDS:
                self._check_probe_image_field(rf.PROBES_OPEN, row)

    # ----------------------------------------------------------------- triplets
    def check_triplets(self) -> None:
        rel = rf.TRIPLETS
        for row in self.valid_rows(rel):
            v = row.values
            if _norm(v["anchor_question"]) == _norm(v["tcf_question"]):
                self.error(
                    rel,
                    "tcf_question repeats anchor_question; a textual counterfactual must reword it",
                    row.number,
                    "tcf_question",
                )
            if _norm(v["anchor_gold"]) != _norm(v["tcf_gold"]):
                self.error(
                    rel,
                    f"tcf_gold {v['tcf_gold']!r} differs from anchor_gold {v['anchor_gold']!r}; "
                    "a textual counterfactual keeps the answer",
                    row.number,
                    "tcf_gold",
                )
            if _norm(v["vcf_gold"]) == _norm(v["anchor_gold"]):
                self.error(
                    rel,
                    f"vcf_gold equals anchor_gold ({v['anchor_gold']!r}); a visual counterfactual must change the answer",
                    row.number,
                    "vcf_gold",
                )

    # ----------------------------------------------------------------- splits
    def check_splits(self) -> None:
        if rf.MANIFEST not in self.readable:
            return
        all_ids = list(self.manifest)
        known = set(all_ids)
        cases = self.release.cases
        attribute = {"by_tier": "risk_tier", "by_source": "source", "by_modality": "modality"}
        attribute_values = {attr: {getattr(c, attr) for c in cases.values()} for attr in attribute.values()}
        for name, groups in self.release.splits.items():
            rel = f"{rf.SPLITS_DIR}/{name}.json"
            where: dict[str, str] = {}
            for group, members in groups.items():
                for cid in members:
                    if cid not in known:
                        self.warn(rel, f"case {cid!r} is not in {rf.MANIFEST}", field=group)
                        continue
                    if cid in where:
                        if where[cid] == group:
                            self.warn(rel, f"case {cid!r} is listed twice in group {group!r}", field=group)
                        elif name.startswith("by_"):
                            self.warn(
                                rel,
                                f"case {cid!r} is in groups {where[cid]!r} and {group!r}; "
                                "the groups of a by_* split must partition the cases",
                                field=group,
                            )
                        continue
                    where[cid] = group
                    attr = attribute.get(name)
                    case = cases.get(cid)
                    if attr and case is not None:
                        actual = getattr(case, attr)
                        label = rf.source_label(group) if attr == "source" else group
                        if label in attribute_values[attr] and actual != label:
                            self.warn(
                                rel,
                                f"case {cid!r} is in group {group!r} but its {attr} is {actual!r}",
                                field=group,
                            )
            if name.startswith("by_"):
                missing = [cid for cid in all_ids if cid not in where]
                if missing:
                    self.warn(
                        rel,
                        f"{len(missing)} case(s) are in no group: {_listed(missing)}; "
                        f"the groups of a by_* split must partition the {len(all_ids)} cases",
                    )
            elif name == "text_only_subset":
                flagged = [cid for cid, case in cases.items() if case.text_only_answerable]
                missing = [cid for cid in flagged if cid not in where]
                if missing:
                    self.warn(
                        rel,
                        f"{_listed(missing)} flagged text_only_answerable in {rf.MANIFEST} but not in text_only_subset",
                    )
                for cid, group in where.items():
                    case = cases.get(cid)
                    if case is not None and not case.text_only_answerable:
                        self.warn(
                            rel,
                            f"case {cid!r} is in text_only_subset but {rf.MANIFEST} says text_only_answerable = false",
                            field=group,
                        )

    # ----------------------------------------------------------------- clinician baseline
    def check_baseline(self) -> None:
        for row in self.valid_rows(rf.CLINICIAN_BASELINE):
            n, k = row.values.get("n_probes"), row.values.get("n_correct")
            if n is not None and k is not None and k > n:
                self.warn(rf.CLINICIAN_BASELINE, f"n_correct ({k}) exceeds n_probes ({n})", row.number, "n_correct")

    # ----------------------------------------------------------------- images
    def _image_refs(self) -> list[tuple[str, str, int, str]]:
        """(image_file as written, file, row, case_id) for every image reference."""
        refs = []
        for rel in (rf.MANIFEST, rf.PROBES_MCQ, rf.PROBES_OPEN):
            for row in self.rows.get(rel, []):
                image, cid = row.values.get("image_file"), row.values.get("case_id")
                if isinstance(image, str) and image and isinstance(cid, str):
                    refs.append((image, rel, row.number, cid))
        return refs

    def _resolve(self, image: str, rel: str, number: int) -> Path:
        """resolve_image_file, memoised by the path as written (many rows share an image)."""
        cached = self._resolved.get(image)
        if cached is None:
            try:
                cached = resolve_image_file(self.root, image, file=rel, row=number, field="image_file", inside=self._inside)
            except DataError as exc:
                cached = exc.problems[0]
            self._resolved[image] = cached
        if isinstance(cached, Problem):
            raise DataError(Problem(rel, cached.message, row=number, field="image_file"))
        return cached

    def check_images(self) -> None:
        prefix = self._inside.base.rstrip(os.sep) + os.sep  # resolved paths start with it
        know_sources = rf.MANIFEST in self.readable
        referenced: set[str] = set()  # release-relative posix paths
        to_decode: dict[Path, tuple[str, int, str]] = {}
        reported_present: set[str] = set()
        absent: set[str] = set()  # credentialed images found not present
        unsafe: dict[str, list[Problem]] = {}  # image_file as written -> its problem, then repeats
        missing: dict[Path, list[Problem]] = {}  # missing image -> first reference, then repeats
        original_of: dict[str, Path] = {}
        shown_of: dict[Path, str] = {}
        for image, rel, number, cid in self._image_refs():
            if image in unsafe:
                unsafe[image].append(Problem(rel, "", row=number))
                continue
            try:
                path = self._resolve(image, rel, number)
            except DataError as exc:
                unsafe[image] = list(exc.problems)
                lexical = self._lexical(image)
                if lexical is not None:
                    referenced.add(lexical)
                continue
            shown = shown_of.get(path)
            if shown is None:  # many rows share an image: one conversion / stat per path
                shown = shown_of[path] = str(path)[len(prefix) :].replace(os.sep, "/")
            referenced.add(shown)
            if not know_sources:
                continue  # cannot tell withheld images from missing ones
            manifest_row = self.manifest.get(cid)
            source = manifest_row.values.get("source_dataset") if manifest_row else None
            if rel == rf.MANIFEST:
                original_of.setdefault(cid, path)
            if rf.is_credentialed(source):
                if shown not in reported_present and shown not in absent:  # one lstat per image
                    if os.path.lexists(path):
                        reported_present.add(shown)
                        self.error(rel, _credentialed_message(shown, source), number, "image_file")
                    else:
                        absent.add(shown)
                continue
            if not self.check_files:
                continue
            if path in missing or (path not in to_decode and not path.is_file()):
                message = f"image {shown} does not exist"
                missing.setdefault(path, []).append(Problem(rel, message, row=number, field="image_file"))
                continue
            to_decode.setdefault(path, (rel, number, shown))
        for first, *repeats in [*unsafe.values(), *missing.values()]:
            if repeats:
                where = ", ".join(f"{p.file} row {p.row}" for p in repeats[:_MAX_LISTED])
                more = len(repeats) - _MAX_LISTED
                where += f" and {more} more" if more > 0 else ""
                first = Problem(first.file, f"{first.message} (also referenced by {where})", first.row, first.field)
            self.problems.append(first)
        self._check_probe_image_choice(original_of)

        # credentialed images that no row mentions (for example other variants): a file
        # named <case_id>.<ext> or <case_id>_<variant>.<ext> of a credentialed case
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
                    source = row.values["source_dataset"]
                    self.error(rf.MANIFEST, _credentialed_message(shown, source), row.number, "image_file")
        referenced |= reported_present

        if know_sources and self.check_files:
            for folder in (rf.IMAGES_DIR, rf.PERTURBED_DIR):
                for path in sorted((self.root / folder).rglob("*")):
                    if path.name.startswith(".") or path.is_dir():
                        continue
                    rel = path.relative_to(self.root).as_posix()
                    if rel not in referenced:
                        self.warn(rel, "file is not referenced by manifest.csv or the probe files")

        self.counts["images_checked"] = 0
        if not self.decode_images or not to_decode:
            return
        paths = list(to_decode)
        workers = min(8, os.cpu_count() or 1, len(paths))

        from medvigil.images.image_checks import image_problem  # Pillow and numpy: only when images are decoded

        def judge(path: Path) -> str | None:
            return image_problem(path, max_pixels=self.max_pixels)

        if workers > 1 and len(paths) > 16:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                verdicts = list(pool.map(judge, paths))
        else:
            verdicts = [judge(p) for p in paths]
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
        for row in self.valid_rows(rf.PROBES_MCQ):
            v = row.values
            if v["image_file"] is None or v["case_id"] not in original_of:
                continue
            try:
                path = self._resolve(v["image_file"], rf.PROBES_MCQ, row.number)
            except DataError:
                continue  # already reported
            original = original_of[v["case_id"]]
            if v["probe_kind"] in rf.IMAGE_PROBE_KINDS and path == original:
                self.warn(
                    rf.PROBES_MCQ,
                    f"{v['probe_kind']} probe shows the unperturbed image of its case",
                    row.number,
                    "image_file",
                )
            elif v["probe_kind"] in rf.TEXT_PROBE_KINDS and path != original:
                self.warn(
                    rf.PROBES_MCQ,
                    f"{v['probe_kind']} probe shows {v['image_file']!r}, not its case's original image",
                    row.number,
                    "image_file",
                )

    # ----------------------------------------------------------------- digest
    def check_digest(self) -> None:
        path = self.root / rf.DIGEST_FILE
        digest = self.release.digest
        if not path.is_file():
            self.counts["digest_status"] = "no RELEASE_DIGEST file"
            return
        from medvigil.files.input_files import read_bytes

        text = read_bytes(path, rf.DIGEST_FILE, max_bytes=1 << 16).decode("utf-8", errors="replace")
        match = _HEX64.search(text)
        if match is None:
            self.error(rf.DIGEST_FILE, "does not contain a SHA-256 hex digest")
            self.counts["digest_status"] = "unreadable RELEASE_DIGEST"
            return
        stored = match.group(1).lower()
        if not digest:
            self.counts["digest_status"] = "not computable"
            return  # the reason (a symbolic link) is already reported
        if stored != digest:
            self.counts["digest_status"] = "MISMATCH"
            self.error(
                rf.DIGEST_FILE,
                f"digest mismatch: the file records {stored} but the release hashes to {digest}; "
                "a file was changed, added or removed after the digest was written",
            )
        else:
            self.counts["digest_status"] = "matches RELEASE_DIGEST"

    # ----------------------------------------------------------------- counts
    def count(self) -> None:
        release = self.release
        cases = list(release.cases.values())
        tier_of = {c.case_id: c.risk_tier for c in cases}
        source_of = {c.case_id: c.source for c in cases}
        kinds = Counter(p.probe_kind for p in release.probes_mcq)
        self.counts.update(
            {
                "synthetic": release.synthetic,
                "digest": release.digest,
                "cases": len(cases),
                "cases_by_tier": {t: n for t in rf.TIERS if (n := sum(c.risk_tier == t for c in cases))},
                "cases_by_source": dict(sorted(Counter(c.source for c in cases).items())),
                "cases_by_modality": dict(sorted(Counter(c.modality for c in cases).items())),
                "credentialed_cases": sum(c.credentialed for c in cases),
                "text_only_answerable": sum(c.text_only_answerable for c in cases),
                "usable_roi": sum(c.roi_usable for c in cases),
                "probes_mcq": len(release.probes_mcq),
                "probes_mcq_by_kind": {k: kinds[k] for k in [*rf.PROBE_KINDS, *sorted(kinds)] if kinds.get(k)},
                "probes_mcq_by_tier": {
                    t: n for t in rf.TIERS if (n := sum(tier_of.get(p.case_id) == t for p in release.probes_mcq))
                },
                "probes_mcq_by_source": dict(
                    sorted(Counter(source_of[p.case_id] for p in release.probes_mcq if p.case_id in source_of).items())
                ),
                "probes_open": len(release.probes_open),
                "triplets": len(release.triplets),
                "pointers": len(release.pointers),
                "splits": sorted(release.splits),
            }
        )
        self.counts.setdefault("images_checked", 0)


def _credentialed_message(shown: str, source: str) -> str:
    return (
        f"credentialed image {shown} is present in the release: source {source!r} is credentialed and its "
        "images must never be redistributed; remove the file and ship a pointer instead"
    )
