"""Integrity validation of a release folder (``medvigil validate DIR``): :func:`validate_release`
reads it (:func:`medvigil.suites.medvigil.release.release.read_release`) and checks it as a whole,
one mixin per concern. Warnings (the authors' ``bench_validate_full.py``: L6 splits, L8 options) do
not fail; a credentialed image always does. ``scope``: ``"full"``; ``"metadata"`` (no image file
read); ``"scoring"`` (only ``manifest.csv`` required, and only what stops ``medvigil score`` is an
error: bad or duplicate rows of ``manifest.csv`` / ``probes_mcq.csv``, unknown cases; no counts, and
the MCQ probes stay rows of ``ValidationReport.read``).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import Problem
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_csv import ReadResult
from medvigil.suites.medvigil.release.release_records import Release
from medvigil.suites.medvigil.validate.validate_files import FileChecks
from medvigil.suites.medvigil.validate.validate_ids import IdChecks
from medvigil.suites.medvigil.validate.validate_images import ImageChecks
from medvigil.suites.medvigil.validate.validate_probes import ProbeChecks

SCOPES = ("full", "metadata", "scoring")


@dataclass
class ValidationReport:
    """Outcome of :func:`validate_release`."""

    root: Path
    release: Release | None
    problems: list[Problem]
    counts: dict[str, Any] = field(default_factory=dict)
    unusable: bool = False  # the folder is not a release at all (exit status 2)
    read: ReadResult | None = field(
        default=None, repr=False
    )  # the typed rows (``read.headers``: the files read)

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
                [
                    f"release: {self.root}",
                    "result:  UNUSABLE INPUT",
                    *(f"error: {p}" for p in self.errors),
                ]
            )
        c = self.counts
        lines = [f"release: {self.root}" + ("  (synthetic)" if c.get("synthetic") else "")]
        if c.get("digest"):
            lines.append(f"digest:  {c['digest']}  [{c.get('digest_status', '')}]")
        lines.append(
            f"cases:   {c.get('cases', 0)}  (credentialed {c.get('credentialed_cases', 0)}, "
            f"text-only answerable {c.get('text_only_answerable', 0)}, "
            f"usable ROI {c.get('usable_roi', 0)})"
        )
        for key, label in (
            ("cases_by_tier", "tiers"),
            ("cases_by_source", "sources"),
            ("cases_by_modality", "modalities"),
        ):
            if c.get(key):
                lines.append(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in c[key].items()))
        lines.append(f"probes:  mcq {c.get('probes_mcq', 0)}, open {c.get('probes_open', 0)}")
        for key, label in (
            ("probes_mcq_by_kind", "kind"),
            ("probes_mcq_by_tier", "tier"),
            ("probes_mcq_by_source", "source"),
        ):
            if c.get(key):
                lines.append(
                    f"  mcq by {label}: " + ", ".join(f"{k} {v}" for k, v in c[key].items())
                )
        lines.append(
            f"triplets: {c.get('triplets', 0)}  pointers: {c.get('pointers', 0)}  images "
            f"checked: {c.get('images_checked', 0)}  splits: "
            f"{', '.join(c.get('splits', [])) or '-'}"
        )
        errors, warnings = self.errors, self.warnings
        lines.append(
            f"result:  {'OK' if self.ok else 'FAILED'} ({len(errors)} "
            f"error(s), {len(warnings)} warning(s))"
        )
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
    """Every problem of the release at ``root``. ``images=False`` decodes no image (paths and the
    credentialed rule still checked); ``max_pixels``: decompression-bomb limit. FileNotFoundError /
    NotADirectoryError: no folder."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    root = Path(root)
    if root.is_dir() and not any((root / name).is_file() for name in rf.REQUIRED_FILES):
        # Checked before reading: hashing an arbitrary folder (say, a home directory) is not on.
        problem = Problem(
            str(root),
            "not a MedVIGIL release: none of "
            + ", ".join(rf.REQUIRED_FILES)
            + " is in this folder",
        )
        return ValidationReport(root, None, [problem], {}, unusable=True)
    scoring = scope == "scoring"
    read = read_release(
        root,
        required_files=rf.SCORING_FILES[:1] if scoring else rf.REQUIRED_FILES,
        digest=not scoring,
        mcq_records=not scoring,
    )
    checker = _Checker(
        read,
        root,
        images=images and scope == "full",
        max_pixels=max_pixels,
        files=scope == "full",
        refs=not scoring,
    )
    checker.run()
    problems = read.problems + checker.problems
    if scoring:
        blocking = {id(p) for p in checker.blocks_scoring}
        blocking |= {id(p) for p in read.problems if p.file in rf.SCORING_FILES}
        problems = [
            p if p.severity != "error" or id(p) in blocking else _not_for_scoring(p)
            for p in problems
        ]
    if scope != "full":
        what = (
            "image paths and files were not checked (scoring reads no image)"
            if scoring
            else "image files were not checked (metadata only)"
        )
        problems.append(Problem(str(root), what, severity="warning"))
    problems = sorted(
        problems, key=lambda p: (p.severity != "error", p.file, p.row or 0, p.field or "")
    )
    release = read.release
    release.warnings = [p for p in problems if p.severity != "error"]
    return ValidationReport(root, release, problems, checker.counts, read=read)


SKIPPABLE_FILES = (rf.PROBES_MCQ, rf.PROBES_OPEN)


def leave_out_bad_probes(
    report: ValidationReport,
) -> tuple[list[Problem], list[Problem], dict[str, int]]:
    """Drop from ``report.release`` every probe whose probe-file row an error names
    (``--skip-invalid-rows``); returns ``(left_out, fatal, counts)``: errors whose probes went,
    errors that remain, counts per file."""
    left_out, fatal = [], []
    drop: dict[str, set[str]] = {rel: set() for rel in SKIPPABLE_FILES}
    rows = report.read.rows if report.read is not None else {}
    probe_ids = {
        rel: dict(zip(rows[rel].numbers, rows[rel].columns.get("probe_id", ())))
        for rel in SKIPPABLE_FILES
        if rel in rows
    }
    for problem in report.errors:
        probe_id = (
            probe_ids.get(problem.file, {}).get(problem.row) if problem.row is not None else None
        )
        if problem.file in SKIPPABLE_FILES and probe_id:
            drop[problem.file].add(probe_id)
            left_out.append(problem)
        else:
            fatal.append(problem)
    release = report.release
    if release is not None:
        release.probes_mcq = [
            p for p in release.probes_mcq if p.probe_id not in drop[rf.PROBES_MCQ]
        ]
        release.probes_open = [
            p for p in release.probes_open if p.probe_id not in drop[rf.PROBES_OPEN]
        ]
    counts = {f"{rel}: probe left out (invalid row)": len(ids) for rel, ids in drop.items() if ids}
    return left_out, fatal, counts


def _not_for_scoring(problem: Problem) -> Problem:
    return Problem(
        problem.file,
        f"{problem.message} (not needed for scoring)",
        problem.row,
        problem.field,
        "warning",
    )


class _Checker(IdChecks, ProbeChecks, FileChecks, ImageChecks):
    """Cross-file checks over one :class:`ReadResult`, one mixin per concern; findings go to
    ``problems``."""

    def run(self) -> None:
        checks = [
            self.check_unique_ids,
            self.check_references,
            self.check_sources_and_pointers,
            self.check_roi,
            self.check_mcq,
            self.check_open,
            self.check_triplets,
            self.check_splits,
            self.check_baseline,
        ]
        last = (
            [self.check_images, self.check_digest, self.count]
            if self.check_refs
            else [self.check_digest]
        )  # scoring: no counts
        for check in [*checks, *last]:
            check()
