"""Loading a release for use: :func:`load_release` (read + the full integrity validation; nothing
partial is returned) and :func:`load_for_scoring` (only what ``medvigil score`` needs, from a
release folder, a built dataset folder or a Hub repo id)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from medvigil.data_location import locate_release
from medvigil.errors import DataError, Problem
from medvigil.files.input_files import note_read
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_records import Release
from medvigil.suites.medvigil.validate.validate import validate_release


def load_release(root: Path | str, *, check: bool = True) -> Release:
    """Read the release folder at ``root`` (published layout) into typed records; non-fatal findings
    go to ``Release.warnings``.

    ``check`` runs the full validation
    (:func:`medvigil.suites.medvigil.validate.validate.validate_release`: schemas, cross-file
    references, letter conventions, images, splits, digest) and raises a DataError listing every
    error. With ``check=False`` only reading and typing happen and rows that cannot be typed are
    skipped silently: use it only on a release you validated before. A ``root`` that is not a folder
    raises FileNotFoundError or NotADirectoryError.
    """
    if not check:
        result = read_release(root)
        result.release.warnings = [p for p in result.problems if p.severity == "warning"]
        return result.release
    report = validate_release(root)
    if report.errors:
        raise DataError(report.errors)
    assert report.release is not None
    return report.release


# --------------------------------------------------------------------------- scoring


@dataclass
class ScoringReference:
    """What ``medvigil score`` reads of a release: cases (tier, source, modality, text-only
    flag) and, when available, the MCQ probes (kind, gold letter).

    ``kind`` is ``"release"`` (a folder in the published layout), ``"build"`` (a folder made
    by ``medvigil build``) or ``"hub"`` (a Hub dataset repo id); ``warnings`` hold every
    finding that does not stop scoring.
    """

    location: str
    kind: str
    cases: dict[str, Any]
    probes_mcq: list[Any] | None
    warnings: list[Problem] = field(default_factory=list)


def load_for_scoring(location: Path | str, *, skip_invalid_rows: bool = False) -> ScoringReference:
    """Read only what scoring needs from a release folder, a built dataset folder or a Hub id.

    A release folder needs ``manifest.csv``; ``probes_mcq.csv`` is used when present (else the
    result rows must carry the gold letters). Every other file and every finding that does not touch
    those two files (images, pointers, splits, triplets, letter conventions, ...) is a warning (see
    :func:`medvigil.suites.medvigil.validate.validate.validate_release` with ``scope="scoring"``). A
    built folder or Hub id is resolved as ``MEDVIGIL_DATA`` is (:mod:`medvigil.data_location`) and
    its ``mcq`` config read. With ``skip_invalid_rows`` an error located on one row of
    ``manifest.csv`` / ``probes_mcq.csv`` is a warning instead: that case or probe is left out
    (result rows that need it are then invalid rows themselves). Raises DataError (the manifest or
    the MCQ file is unusable, every problem listed) or FileNotFoundError (``location`` is neither a
    folder nor a Hub repo id).
    """
    kind, where = locate_release(location)
    if kind == "release":
        report = validate_release(where, scope="scoring")
        errors, warnings = report.errors, report.warnings
        if skip_invalid_rows and not report.unusable:
            left = [p for p in errors if p.row is not None]
            errors = [p for p in errors if p.row is None]
            warnings = warnings + [
                Problem(p.file, f"{p.message} (row left out)", p.row, p.field, "warning")
                for p in left
            ]
        if report.unusable or errors:
            raise DataError(errors or report.errors)
        mcq = report.read.valid_columns(rf.PROBES_MCQ, _ScoringProbe._fields)
        probes = list(map(_ScoringProbe, *mcq)) if rf.PROBES_MCQ in report.read.headers else None
        return ScoringReference(str(where), kind, report.release.cases, probes, warnings)
    return _reference_from_build(str(where), kind)


class _BuiltCase(NamedTuple):
    case_id: str
    risk_tier: str
    source_dataset: str
    modality: str
    text_only_answerable: bool


class _ScoringProbe(NamedTuple):  # (a tuple: a release has tens of thousands of probes)
    probe_id: str
    case_id: str
    probe_kind: str
    correct_letter: str


def _reference_from_build(where: str, kind: str) -> ScoringReference:
    import datasets

    names = list(dict.fromkeys(_ScoringProbe._fields + _BuiltCase._fields))
    if Path(where).is_dir():
        note_read(where)  # read by datasets: no output of this command may replace it
    try:
        columns = datasets.load_dataset(where, "mcq", split="test").select_columns(names).to_dict()
    except Exception as exc:  # datasets raises many types (offline, missing config, ...)
        raise DataError(
            Problem(where, f"cannot load the 'mcq' config of this {kind} dataset: {exc}")
        ) from None
    cases: dict[str, _BuiltCase] = {}
    for case in map(_BuiltCase, *(columns[k] for k in _BuiltCase._fields)):
        cases.setdefault(case.case_id, case)
    return ScoringReference(
        where, kind, cases, list(map(_ScoringProbe, *(columns[k] for k in _ScoringProbe._fields)))
    )
