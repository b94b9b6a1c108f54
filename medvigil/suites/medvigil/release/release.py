"""Typed reader of a release folder in the published MedVIGIL layout.

:func:`read_release` reads a release (the real one or our synthetic one); the rest of medvigil goes
through :func:`medvigil.suites.medvigil.release.release_loading.load_release`, which adds the full
integrity validation. It reads every file with :mod:`medvigil.files.csvio`, turns the CSV strings
into typed values (*coercion happens here*, once), validates each coerced row against its JSON
Schema in ``schemas/`` and returns the frozen records of
:mod:`medvigil.suites.medvigil.release.release_records` (CSV specs and coercion in
:mod:`~medvigil.suites.medvigil.release.release_csv`, schema checks in
:mod:`~medvigil.records.schema_validation`):

- :class:`Case` — one ``manifest.csv`` row joined with its ``grounding.csv`` row;
- :class:`McqProbe`, :class:`OpenProbe`, :class:`Triplet`, :class:`BaselineRow`;
- :class:`Release` — all of them plus the splits, the credentialed-source pointers, the
  content digest and whether the release is synthetic.

Columns in ``release_format.OPTIONAL_COLUMNS`` (those the authors' scripts never read) may be
absent: a warning, and they read as empty. ``source_dataset`` keeps the spelling of the
release; :attr:`Case.source` and :attr:`Case.credentialed` use the canonical name
(:func:`medvigil.suites.medvigil.release.release_format.canonical_source`).

Coercion rules (what the schemas describe):

========================  ===============================================================
column                    CSV text -> value
========================  ===============================================================
booleans                  ``true``/``false`` (any case) or ``1``/``0``; an empty
                          ``laterality_dependent`` is ``null`` (treated as false)
``roi_bbox_norm``         JSON ``[x0, y0, x1, y1]``; empty -> ``null``; a cell that is not a
                          list of four numbers -> ``null`` plus a note the validator reports
``differential_set``      JSON list of strings; empty -> ``[]``
``expected_answer_or_set``  JSON list, or a plain string taken as one answer; empty -> ``[]``
probe ``image_file``      empty -> ``null`` (no image)
clinician numbers         float / int; empty -> ``null``
everything else           the string, unchanged (no stripping)
========================  ===============================================================

Image paths: ``manifest.csv`` gives ``image_file`` relative to ``images/``; the probe
files give it relative to the release root (``images/...``, ``images_perturbed/...``).
:func:`resolve_image_file` accepts both and always goes through
:func:`medvigil.files.pathsafe.resolve_inside`.
"""

from itertools import compress
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.csvio import parse_csv_columns
from medvigil.files.digest import release_digest
from medvigil.files.input_files import read_bytes
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import (
    _SPECS,
    POINTER_COLUMNS,
    POINTER_GLOB,
    ReadResult,
    Rows,
    _coerce_table,
    _CsvSpec,
    _read_splits,
    _read_table,
    text_key,
)
from medvigil.suites.medvigil.release.release_records import (
    BaselineRow,
    Case,
    McqProbe,
    OpenProbe,
    Release,
    Triplet,
    roi_geometry_issue,
)

__all__ = ["read_release"]

# probes_mcq.csv columns in the order of McqProbe's fields (the five options make its `options`)
_MCQ_FIELDS = (
    "probe_id",
    "case_id",
    "probe_kind",
    "question",
    *(f"choice_{x}" for x in rf.LETTERS),
    "correct_letter",
    "image_file",
)


def read_release(
    root: Path | str,
    *,
    required_files: tuple[str, ...] = rf.REQUIRED_FILES,
    digest: bool = True,
    mcq_records: bool = True,
) -> ReadResult:
    """Read and type every file of the release at ``root``; collect problems, never raise for data.

    Rows that fail coercion or their schema are left out of the records (but stay in
    ``ReadResult.rows`` with ``valid=False``). Integrity across files is not judged here: see
    :func:`medvigil.suites.medvigil.validate.validate.validate_release`. A missing file of
    ``required_files`` is an error, any other missing file a warning; ``digest=False`` skips hashing
    the folder (``Release.digest`` stays empty); ``mcq_records=False`` leaves ``Release.probes_mcq``
    empty (scoring reads a few columns of the MCQ rows: no record per probe). Raises
    FileNotFoundError (``root`` does not exist) or NotADirectoryError (``root`` is not a folder).
    """
    root = Path(root)
    if not root.exists():
        raise FileNotFoundError(f"release folder {str(root)!r} does not exist")
    if not root.is_dir():
        raise NotADirectoryError(f"release path {str(root)!r} is not a folder")
    out = ReadResult(
        release=Release(root, {}, [], [], [], {}, {}, "", False),
        problems=[],
        rows={},
        headers={},
        split_files=[],
    )
    for rel, spec in _SPECS.items():
        if (root / rel).is_file():
            _read_table(root, rel, spec, out)
        elif rel in required_files:
            out.problems.append(Problem(rel, "required file is missing"))
        elif rel in rf.REQUIRED_FILES:
            out.problems.append(Problem(rel, "file is missing", severity="warning"))
    pointer_spec = _CsvSpec("", "pointer_row", POINTER_COLUMNS, {})
    pointer_files = (
        sorted((root / rf.POINTERS_DIR).glob(POINTER_GLOB))
        if (root / rf.POINTERS_DIR).is_dir()
        else []
    )
    for path in pointer_files:
        _read_table(root, f"{rf.POINTERS_DIR}/{path.name}", pointer_spec, out)

    release = out.release
    release.splits = _read_splits(root, out)
    _build_records(release, out, mcq_records)
    release.synthetic = any(rf.SYNTHETIC_COLUMN in header for header in out.headers.values())
    if not digest:
        return out
    try:
        release.digest = release_digest(root)
    except ValueError as exc:  # symbolic links: message "<rel>: symbolic links are not allowed ..."
        where, _, message = str(exc).partition(": ")
        out.problems.append(Problem(where, message or str(exc)))
    return out


def _valid(rows: dict[str, Rows], rel: str) -> list[dict[str, Any]]:
    return [row.values for row in rows.get(rel, []) if row.valid]


def _build_records(release: Release, read: ReadResult, mcq_records: bool) -> None:
    rows = read.rows
    grounding: dict[str, dict[str, Any]] = {}
    for values in _valid(rows, rf.GROUNDING):
        grounding.setdefault(values["case_id"], values)
    for values in _valid(rows, rf.MANIFEST):
        if values["case_id"] in release.cases:
            continue  # duplicate id: the validator reports it; the first row wins
        g = grounding.get(values["case_id"], {})
        box = g.get("roi_bbox_norm")
        box = tuple(box) if box is not None and roi_geometry_issue(box) is None else None
        release.cases[values["case_id"]] = Case(
            **{c: values[c] for c in rf.MANIFEST_COLUMNS},
            roi_bbox=box,
            rationale=g.get("rationale", ""),
            differential_set=tuple(g.get("differential_set", ())),
            clinical_context=g.get("clinical_context", ""),
            laterality_dependent=bool(g.get("laterality_dependent")),
            gold_after_lr_flip=g.get("gold_after_lr_flip", ""),
            credentialed=rf.is_credentialed(values["source_dataset"]),
        )
    if mcq_records:
        probe_id, case_id, kind, question, *options, letter, image = read.valid_columns(
            rf.PROBES_MCQ, _MCQ_FIELDS
        )
        release.probes_mcq = list(
            map(McqProbe, probe_id, case_id, kind, question, zip(*options), letter, image)
        )
    release.probes_open = [
        OpenProbe(
            **{
                **{c: v[c] for c in rf.PROBES_OPEN_COLUMNS},
                "expected_answer_or_set": tuple(v["expected_answer_or_set"]),
            }
        )
        for v in _valid(rows, rf.PROBES_OPEN)
    ]
    release.triplets = _triplets(release, _valid(rows, rf.TRIPLETS))
    release.clinician_baseline = [
        BaselineRow(**{c: v.get(c) for c in rf.CLINICIAN_BASELINE_COLUMNS})
        for v in _valid(rows, rf.CLINICIAN_BASELINE)
    ]
    for rel in sorted(rows):
        if rel.startswith(f"{rf.POINTERS_DIR}/"):
            for v in _valid(rows, rel):
                release.pointers.setdefault(v["case_id"], (v["source_path"], v["sha256"]))


def read_pointer_file(path: Path | str) -> dict[str, tuple[str, str]]:
    """``case_id -> (source_path, sha256)`` from a pointer CSV given outside the release
    (``medvigil reconstruct --pointers``), checked like the release's own pointer files: a DataError
    lists an unreadable file, a missing column, invalid or duplicate rows."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"pointer file {str(path)!r} does not exist or is not a file")
    spec = _CsvSpec(str(path), "pointer_row", POINTER_COLUMNS, {})
    table = parse_csv_columns(
        read_bytes(path, str(path)), str(path), required=POINTER_COLUMNS
    )  # DataError: not readable as a table
    rows, problems = _coerce_table(table, spec)
    problems = [p for p in table.problems + problems if p.severity == "error"]
    pointers: dict[str, tuple[str, str]] = {}
    first: dict[str, int] = {}
    for number, cid, source_path, sha256 in compress(
        zip(rows.numbers, *(rows.columns[c] for c in POINTER_COLUMNS)), rows.valid
    ):
        if cid in first:
            problems.append(
                Problem(
                    str(path),
                    f"duplicate pointer for case {cid!r} (first at row {first[cid]})",
                    number,
                    "case_id",
                )
            )
            continue
        first[cid] = number
        pointers[cid] = (source_path, sha256)
    if problems:
        raise DataError(problems)
    return pointers


def _triplets(release: Release, rows: list[dict[str, Any]]) -> list[Triplet]:
    """Triplets of the valid rows; without a ``case_id`` column the case is matched by question.

    A triplet whose case cannot be told (no column and no single manifest case asking its anchor
    question) is left out; :mod:`medvigil.suites.medvigil.validate.validate` counts and reports
    those.
    """
    by_question: dict[str, list[str]] = {}
    for case in release.cases.values():
        by_question.setdefault(text_key(case.question), []).append(case.case_id)
    out = []
    for v in rows:
        case_id = v.get("case_id")
        if case_id is None:
            matches = by_question.get(text_key(v["anchor_question"]), [])
            if len(matches) != 1:
                continue
            case_id = matches[0]
        out.append(
            Triplet(case_id=case_id, **{c: v[c] for c in rf.TRIPLETS_COLUMNS if c != "case_id"})
        )
    return out
