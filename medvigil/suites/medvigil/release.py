"""Typed reader of a release folder in the published MedVIGIL layout.

:func:`load_release` is the one way the rest of medvigil reads a release (the real one
or our synthetic one). It reads every file with :mod:`medvigil.files.csvio`, turns the CSV
strings into typed values (*coercion happens here*, once), validates each coerced row
against its JSON Schema in ``schemas/`` and returns frozen records:

- :class:`Case` — one ``manifest.csv`` row joined with its ``grounding.csv`` row;
- :class:`McqProbe`, :class:`OpenProbe`, :class:`Triplet`, :class:`BaselineRow`;
- :class:`Release` — all of them plus the splits, the credentialed-source pointers, the
  content digest and whether the release is synthetic.

With ``check=True`` (the default) the full integrity validation of
:mod:`medvigil.suites.medvigil.validate` runs as well, every problem is collected and a single
:class:`~medvigil.errors.DataError` lists them all; nothing partial is returned.
:func:`load_for_scoring` reads only what ``medvigil score`` needs, from a release folder, a
built dataset folder or a Hub repo id.

Columns in ``release_format.OPTIONAL_COLUMNS`` (those the authors' scripts never read) may be
absent: a warning, and they read as empty. ``source_dataset`` keeps the spelling of the
release; :attr:`Case.source` and :attr:`Case.credentialed` use the canonical name
(:func:`medvigil.suites.medvigil.release_format.canonical_source`).

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

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.csvio import CsvTable, read_csv
from medvigil.files.digest import release_digest
from medvigil.files.input_files import read_bytes
from medvigil.files.pathsafe import InsideResolver, resolve_inside, unsafe_reason
from medvigil.records.schema_columns import JSON_TYPES
from medvigil.records.schema_validation import problems_for
from medvigil.schemas import load_schema
from medvigil.suites.medvigil import release_format as rf

__all__ = [
    "BaselineRow",
    "Case",
    "McqProbe",
    "OpenProbe",
    "Release",
    "Triplet",
    "load_release",
    "read_release",
    "resolve_image_file",
    "roi_geometry_issue",
    "roi_issue",
]


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Case:
    """One case: its ``manifest.csv`` row joined with its ``grounding.csv`` row.

    ``roi_bbox`` is None when the box is missing or not a valid box inside the unit
    square; a valid box that covers >= 97% of both axes is kept (see :attr:`roi_usable`).
    """

    case_id: str
    source_dataset: str
    modality: str
    image_file: str  # relative to images/
    question: str
    gold_answer: str
    risk_tier: str
    text_only_answerable: bool
    annotator_notes: str
    roi_bbox: tuple[float, float, float, float] | None
    rationale: str
    differential_set: tuple[str, ...]
    clinical_context: str
    laterality_dependent: bool
    gold_after_lr_flip: str
    credentialed: bool

    @property
    def source(self) -> str:
        """Canonical source name (``cxr``, ``MIMIC-CXR`` -> ``CXR``); the string as written when unknown."""
        return rf.source_label(self.source_dataset)

    @property
    def roi_usable(self) -> bool:
        """True when ROI probes (roi_masked, roi_only) can be rendered for this case."""
        return self.roi_bbox is not None and roi_issue(self.roi_bbox) is None


@dataclass(frozen=True)
class McqProbe:
    """One row of ``probes_mcq.csv``; ``options`` are the texts of A..E in stored order."""

    probe_id: str
    case_id: str
    probe_kind: str
    question: str
    options: tuple[str, str, str, str, str]
    correct_letter: str
    image_file: str | None  # relative to the release root; None = no image

    def option(self, letter: str) -> str:
        """Text of option ``letter`` (A..E)."""
        if letter not in rf.LETTERS:
            raise ValueError(f"letter must be one of {', '.join(rf.LETTERS)}, got {letter!r}")
        return self.options[rf.LETTERS.index(letter)]

    @property
    def correct_option(self) -> str:
        return self.option(self.correct_letter)


@dataclass(frozen=True)
class OpenProbe:
    """One row of ``probes_open.csv``."""

    case_id: str
    probe_id: str
    probe_axis: str
    probe_kind: str
    question: str
    expected_behavior: str
    expected_answer_or_set: tuple[str, ...]
    halluc_explanation: str
    image_file: str | None  # relative to the release root; None = no image
    provenance: str


@dataclass(frozen=True)
class Triplet:
    """One counterfactual triplet of ``triplets.csv``.

    ``case_id`` comes from the optional ``case_id`` column, or else from the one manifest case
    whose question equals ``anchor_question`` (case- and whitespace-insensitive).
    """

    case_id: str
    anchor_question: str
    tcf_question: str
    vcf_question: str
    anchor_gold: str
    tcf_gold: str
    vcf_gold: str


@dataclass(frozen=True)
class BaselineRow:
    """One (probe family, tier) row of ``clinician_baseline.csv``."""

    probe_kind: str
    risk_tier: str  # L1..L5 or ALL
    acc_or_sfr_pct: float | None
    n_probes: int | None
    n_correct: int | None


@dataclass
class Release:
    """A release folder, read and typed. Build it with :func:`load_release`."""

    root: Path
    cases: dict[str, Case]
    probes_mcq: list[McqProbe]
    probes_open: list[OpenProbe]
    triplets: list[Triplet]
    splits: dict[str, dict[str, list[str]]]
    pointers: dict[str, tuple[str, str]]  # case_id -> (source_path, sha256)
    digest: str
    synthetic: bool
    clinician_baseline: list[BaselineRow] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def image_path(self, item: Case | McqProbe | OpenProbe) -> Path | None:
        """Absolute path of the image of a case or probe (None when it has no image).

        The path is resolved safely inside :attr:`root`; it may not exist (credentialed
        cases ship without images).
        """
        if isinstance(item, Case):
            return resolve_image_file(self.root, item.image_file, file=rf.MANIFEST)
        if isinstance(item, (McqProbe, OpenProbe)):
            if item.image_file is None:
                return None
            file = rf.PROBES_MCQ if isinstance(item, McqProbe) else rf.PROBES_OPEN
            return resolve_image_file(self.root, item.image_file, file=file)
        raise TypeError(f"expected a Case, McqProbe or OpenProbe, got {type(item).__name__}")

    def probes_by_kind(self) -> dict[str, list[McqProbe]]:
        """MCQ probes grouped by kind: every kind of PROBE_KINDS (in that order) is a key."""
        out: dict[str, list[McqProbe]] = {kind: [] for kind in rf.PROBE_KINDS}
        for probe in self.probes_mcq:
            out.setdefault(probe.probe_kind, []).append(probe)
        return out

    def probes_by_case(self) -> dict[str, list[McqProbe]]:
        """MCQ probes grouped by case id, in file order."""
        out: dict[str, list[McqProbe]] = {}
        for probe in self.probes_mcq:
            out.setdefault(probe.case_id, []).append(probe)
        return out

    def case_of(self, probe: McqProbe | OpenProbe | Triplet) -> Case:
        """The case a probe or triplet belongs to."""
        try:
            return self.cases[probe.case_id]
        except KeyError:
            raise KeyError(f"no case {probe.case_id!r} in release {self.root}") from None


# --------------------------------------------------------------------------- paths


def resolve_image_file(
    root: Path | str,
    image_file: str,
    *,
    file: str = rf.MANIFEST,
    row: int | None = None,
    field: str = "image_file",
    inside: InsideResolver | None = None,
) -> Path:
    """Absolute path of ``image_file``, proven to stay inside ``root``.

    A path starting with ``images/`` or ``images_perturbed/`` is relative to the release
    root (the probe-file convention); any other path is relative to ``images/`` (the
    manifest convention). ``file``, ``row`` and ``field`` locate the value for errors;
    ``inside``, an :class:`~medvigil.files.pathsafe.InsideResolver` of ``root``, resolves many paths faster.

    Raises:
        DataError: the path is unsafe (absolute, ``..``, backslash, NUL, escaping link).
    """
    if not isinstance(image_file, str) or not image_file.startswith((f"{rf.IMAGES_DIR}/", f"{rf.PERTURBED_DIR}/")):
        # Judge the path as written: "/etc/passwd" must not pass as "images//etc/passwd".
        reason = unsafe_reason(image_file)
        if reason is not None:
            raise DataError(Problem(file=file, row=row, field=field, message=reason))
        image_file = f"{rf.IMAGES_DIR}/{image_file}"
    if inside is not None:
        return inside(image_file, file, row, field)
    return resolve_inside(root, image_file, file, row, field)


def roi_issue(bbox: Iterable[float]) -> str | None:
    """Why ``bbox`` ``(x0, y0, x1, y1)`` is not a usable ROI box, or None when it is.

    Usable: a valid box (see :func:`roi_geometry_issue`) that does not cover
    ``>= ROI_UNUSABLE_COVERAGE`` of the image in both directions. Agrees with
    :func:`medvigil.images.imaging.roi_usable`, which answers only yes or no.

    >>> roi_issue((0.1, 0.2, 0.5, 0.6)) is None
    True
    >>> roi_issue((0.5, 0.2, 0.5, 0.6))
    'x0 (0.5) must be smaller than x1 (0.5)'
    >>> roi_issue((0.0, 0.0, 1.0, 0.99))
    'the box covers >= 97% of the image in both directions, so it does not localise anything'
    """
    box = tuple(bbox)
    issue = roi_geometry_issue(box)
    if issue is not None:
        return issue
    x0, y0, x1, y1 = box
    if x1 - x0 >= rf.ROI_UNUSABLE_COVERAGE and y1 - y0 >= rf.ROI_UNUSABLE_COVERAGE:
        pct = round(rf.ROI_UNUSABLE_COVERAGE * 100)
        return f"the box covers >= {pct}% of the image in both directions, so it does not localise anything"
    return None


def roi_geometry_issue(bbox: Iterable[float]) -> str | None:
    """Why ``bbox`` is not a valid box: four finite numbers, ``0 <= x0 < x1 <= 1``, ``0 <= y0 < y1 <= 1``."""
    box = tuple(bbox)
    if len(box) != 4:
        return f"a box has 4 values [x0, y0, x1, y1], got {len(box)}"
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box):
        return f"box values must be finite numbers, got {list(box)}"
    x0, y0, x1, y1 = box
    for name, value in zip(("x0", "y0", "x1", "y1"), box):
        if not 0.0 <= value <= 1.0:
            return f"{name} = {value} is outside [0, 1] (coordinates are normalised)"
    if x0 >= x1:
        return f"x0 ({x0}) must be smaller than x1 ({x1})"
    if y0 >= y1:
        return f"y0 ({y0}) must be smaller than y1 ({y1})"
    return None


# --------------------------------------------------------------------------- coercion


class _Invalid(ValueError):
    """A cell that cannot be coerced; the message is user-facing."""


def _identity(text: str) -> str:
    return text


def _optional_path(text: str) -> str | None:
    return None if text == "" else text


_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def _boolean(*, empty: bool | None | type[_Invalid]) -> Callable[[str], bool | None]:
    def coerce(text: str) -> bool | None:
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        if low == "" and empty is not _Invalid:
            return empty  # type: ignore[return-value]
        raise _Invalid(f"{text!r} is not a boolean; write true or false")

    return coerce


def _string_list(text: str) -> list[str]:
    if text.strip() == "":
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Invalid(f"{_short(text)} is not a JSON list of strings ({exc.msg})") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid(f"{_short(text)} is not a JSON list of strings")
    return value


def _answers(text: str) -> list[str]:
    if text.strip() == "":
        return []
    if text.lstrip().startswith("["):
        return _string_list(text)
    return [text]


def _number(text: str) -> float | None:
    if text.strip() == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise _Invalid(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise _Invalid(f"{text!r} is not a finite number")
    return value


def _integer(text: str) -> int | None:
    value = _number(text)
    if value is None:
        return None
    if value != int(value):
        raise _Invalid(f"{text!r} is not a whole number")
    return int(value)


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _roi_box(text: str) -> tuple[list[float] | None, str | None]:
    """(box or None, note) — unparsable boxes are not errors by themselves."""
    if text.strip() == "":
        return None, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{_short(text)} is not valid JSON ({exc.msg}); expected [x0, y0, x1, y1]"
    if not isinstance(value, list):
        return None, f"{_short(text)} is not a JSON list; expected [x0, y0, x1, y1]"
    if len(value) != 4:
        return None, f"{_short(text)} has {len(value)} values; expected 4: [x0, y0, x1, y1]"
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None, f"{_short(text)} must hold 4 numbers [x0, y0, x1, y1]"
    return [float(v) for v in value], None


# --------------------------------------------------------------------------- fast schema check

# A release has tens of thousands of rows and jsonschema costs ~0.1 ms per row. The
# schema is still the only definition: _compile turns the small keyword subset our row
# schemas use into a predicate, which only ever *accepts* a row. Any row it does not
# accept, and any schema using another keyword, goes to jsonschema for the verdict and
# the messages (tests/test_schemas.py checks the two agree).
_ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "examples", "default"}
_TYPES = JSON_TYPES  # one table of JSON type tests (medvigil.records.schema_columns)


def _compile(schema: Any) -> Callable[[Any], bool] | None:
    """A predicate that is True only for instances valid under ``schema``; None if unsupported."""
    if schema is True:
        return lambda v: True
    if not isinstance(schema, dict):
        return None
    checks: list[Callable[[Any], bool]] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            names = [value] if isinstance(value, str) else list(value)
            if not all(n in _TYPES for n in names):
                return None
            simple = {"string": str, "boolean": bool, "null": type(None), "array": list, "object": dict}
            if all(n in simple for n in names):
                classes = tuple(simple[n] for n in names)
                checks.append(lambda v, classes=classes: isinstance(v, classes))
            else:
                tests = [_TYPES[n] for n in names]
                checks.append(lambda v, tests=tests: any(t(v) for t in tests))
        elif key == "enum":
            allowed = list(value)
            checks.append(lambda v, allowed=allowed: any(type(v) is type(a) and v == a for a in allowed))
        elif key == "pattern":
            regex = re.compile(value)
            checks.append(lambda v, regex=regex: not isinstance(v, str) or regex.search(v) is not None)
        elif key in ("minLength", "maxLength"):
            bound = value
            if key == "minLength":
                checks.append(lambda v, b=bound: not isinstance(v, str) or len(v) >= b)
            else:
                checks.append(lambda v, b=bound: not isinstance(v, str) or len(v) <= b)
        elif key in ("minimum", "maximum"):
            number = _TYPES["number"]
            if key == "minimum":
                checks.append(lambda v, b=value, n=number: not n(v) or v >= b)
            else:
                checks.append(lambda v, b=value, n=number: not n(v) or v <= b)
        elif key in ("minItems", "maxItems"):
            if key == "minItems":
                checks.append(lambda v, b=value: not isinstance(v, list) or len(v) >= b)
            else:
                checks.append(lambda v, b=value: not isinstance(v, list) or len(v) <= b)
        elif key == "items":
            item = _compile(value)
            if item is None:
                return None
            checks.append(lambda v, item=item: not isinstance(v, list) or all(item(x) for x in v))
        elif key == "oneOf":
            options = [_compile(option) for option in value]
            if any(o is None for o in options):
                return None
            checks.append(lambda v, options=options: sum(1 for o in options if o(v)) == 1)
        elif key == "required":
            names = frozenset(value)
            checks.append(lambda v, names=names: not isinstance(v, dict) or names.issubset(v.keys()))
        elif key == "properties":
            props = tuple((name, _compile(sub)) for name, sub in value.items())
            if any(p is None for _, p in props):
                return None
            checks.append(_properties_check(props))
        elif key == "additionalProperties" and value is True:
            continue
        elif key == "const":
            checks.append(lambda v, c=value: type(v) is type(c) and v == c)
        elif key in ("then", "else"):
            continue  # compiled with "if"
        elif key == "if":
            cond, then, other = _compile(value), _compile(schema.get("then", True)), _compile(schema.get("else", True))
            if cond is None or then is None or other is None:
                return None
            checks.append(lambda v, c=cond, t=then, o=other: t(v) if c(v) else o(v))
        else:
            return None
    return _all_of(checks)


def _all_of(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    """One predicate that holds when every check holds (plain loop: rows are many)."""
    if len(checks) == 1:
        return checks[0]
    checks = tuple(checks)

    def check(v: Any) -> bool:
        for one in checks:
            if not one(v):
                return False
        return True

    return check


def _properties_check(props: tuple[tuple[str, Callable[[Any], bool]], ...]) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for name, one in props:
            if name in v and not one(v[name]):
                return False
        return True

    return check


_FAST: dict[str, Callable[[Any], bool] | None] = {}


def schema_predicate(schema: str) -> Callable[[Any], bool] | None:
    """The compiled accept-only check of ``schemas/<schema>.schema.json`` (None if unsupported)."""
    if schema not in _FAST:
        _FAST[schema] = _compile(load_schema(schema))
    return _FAST[schema]


def _row_problems(schema: str, values: dict[str, Any], file: str, row: int) -> list[Problem]:
    fast = schema_predicate(schema)
    if fast is not None and fast(values):
        return []
    return problems_for(schema, values, file, row)


_ABSENT = object()
_COLUMNS: dict[str, Callable[[list[dict]], list[bool]] | None] = {}


def rows_accepted(schema: str, rows: list[dict[str, Any]]) -> list[bool]:
    """Which ``rows`` ``schemas/<schema>.schema.json`` accepts, judged column by column.

    For a flat object schema (``required``, ``properties``, ``additionalProperties: true``) each
    property's compiled check runs once per distinct value of its column (columns repeat:
    kinds, letters, tiers, options); otherwise row by row. True means valid; a False row is
    described by ``jsonschema`` (:func:`_row_problems`).
    """
    if schema not in _COLUMNS:
        _COLUMNS[schema] = _compile_columns(load_schema(schema))
    by_column = _COLUMNS[schema]
    if by_column is not None:
        return by_column(rows)
    fast = schema_predicate(schema)
    return [fast is not None and fast(v) for v in rows]


def _compile_columns(schema: Any) -> Callable[[list[dict]], list[bool]] | None:
    if not isinstance(schema, dict) or schema.get("type") != "object" or schema.get("additionalProperties", True) is not True:
        return None
    if set(schema) - _ANNOTATIONS - {"type", "required", "properties", "additionalProperties"}:
        return None
    required = frozenset(schema.get("required", ()))
    props = tuple((name, _compile(sub)) for name, sub in (schema.get("properties") or {}).items())
    if any(check is None for _, check in props):
        return None

    def accept(rows: list[dict]) -> list[bool]:
        ok = [type(v) is dict for v in rows]
        if not all(ok):
            return [False] * len(rows)  # not objects: judged row by row
        for i in [i for i, v in enumerate(rows) if not required <= v.keys()]:
            ok[i] = False
        for name, check in props:
            column = [v.get(name, _ABSENT) for v in rows]
            if set(map(type, column)) <= {str, type(None), type(_ABSENT)}:  # hashable, no 1 == True
                bad = {x for x in set(column) if x is not _ABSENT and not check(x)}
                if bad:
                    for i, x in enumerate(column):
                        if x in bad:
                            ok[i] = False
            else:
                for i, x in enumerate(column):
                    if x is not _ABSENT and not check(x):
                        ok[i] = False
        return ok

    return accept


# --------------------------------------------------------------------------- file specs


@dataclass(frozen=True)
class _CsvSpec:
    file: str
    schema: str
    columns: tuple[str, ...]  # required in the header
    coercers: dict[str, Callable[[str], Any]]
    optional: tuple[str, ...] = ()  # read as empty, with a warning, when absent


_SPECS = {
    rf.MANIFEST: _CsvSpec(
        rf.MANIFEST,
        "manifest_row",
        rf.required_columns(rf.MANIFEST),
        {"text_only_answerable": _boolean(empty=_Invalid)},
    ),
    rf.GROUNDING: _CsvSpec(
        rf.GROUNDING,
        "grounding_row",
        rf.required_columns(rf.GROUNDING),
        {"differential_set": _string_list, "laterality_dependent": _boolean(empty=None)},
        rf.OPTIONAL_COLUMNS[rf.GROUNDING],
    ),
    rf.PROBES_MCQ: _CsvSpec(
        rf.PROBES_MCQ, "mcq_probe_row", rf.required_columns(rf.PROBES_MCQ), {"image_file": _optional_path}
    ),
    rf.PROBES_OPEN: _CsvSpec(
        rf.PROBES_OPEN,
        "open_probe_row",
        rf.required_columns(rf.PROBES_OPEN),
        {"image_file": _optional_path, "expected_answer_or_set": _answers},
    ),
    rf.TRIPLETS: _CsvSpec(rf.TRIPLETS, "triplet_row", rf.required_columns(rf.TRIPLETS), {}, rf.OPTIONAL_COLUMNS[rf.TRIPLETS]),
    rf.CLINICIAN_BASELINE: _CsvSpec(
        rf.CLINICIAN_BASELINE,
        "clinician_baseline_row",
        rf.required_columns(rf.CLINICIAN_BASELINE),
        {"acc_or_sfr_pct": _number, "n_probes": _integer, "n_correct": _integer},
        rf.OPTIONAL_COLUMNS[rf.CLINICIAN_BASELINE],
    ),
}
POINTER_COLUMNS = ("case_id", "source_path", "sha256")
POINTER_GLOB = "*pointers*.csv"
_ID_FIELDS = {"case_id", "probe_id"}


@dataclass
class Row:
    """One coerced CSV row: its number, typed values, whether it passed, and notes."""

    number: int
    values: dict[str, Any]
    valid: bool
    notes: dict[str, str] = field(default_factory=dict)  # field -> remark for the validator


@dataclass
class ReadResult:
    """What :func:`read_release` found: the typed release plus everything needed to judge it."""

    release: Release
    problems: list[Problem]
    rows: dict[str, list[Row]]  # file (relative posix path) -> coerced rows
    headers: dict[str, tuple[str, ...]]
    split_files: list[str]  # relative posix paths of the split JSON files read


def _coerce_table(table: CsvTable, spec: _CsvSpec) -> tuple[list[Row], list[Problem]]:
    coerced = [_coerce_row(table, spec, csv_row) for csv_row in table.rows]
    accepted = rows_accepted(spec.schema, [values for values, _, _, _ in coerced])
    rows, problems = [], []
    for csv_row, (values, failed, notes, row_problems), valid in zip(table.rows, coerced, accepted):
        if not valid:
            row_problems += _schema_row_problems(spec, values, failed, table.file, csv_row.number)
        rows.append(Row(csv_row.number, values, valid=not row_problems, notes=notes))
        problems.extend(row_problems)
    return rows, problems


def _coerce_row(table: CsvTable, spec: _CsvSpec, csv_row) -> tuple[dict, set, dict, list[Problem]]:
    """``(typed values, columns that failed to coerce, notes, problems)`` of one CSV row."""
    values: dict[str, Any] = dict(csv_row.values)
    failed: set[str] = set()
    notes: dict[str, str] = {}
    row_problems = []
    for column, coerce in spec.coercers.items():
        if column not in values:
            continue
        try:
            values[column] = coerce(values[column])
        except _Invalid as exc:
            failed.add(column)
            row_problems.append(Problem(table.file, str(exc), row=csv_row.number, field=column))
    if spec.schema == "grounding_row" and "roi_bbox_norm" in values:
        values["roi_bbox_norm"], note = _roi_box(values["roi_bbox_norm"])
        if note:
            notes["roi_bbox_norm"] = note
    return values, failed, notes, row_problems


def _schema_row_problems(spec: _CsvSpec, values: dict, failed: set, file: str, number: int) -> list[Problem]:
    """The schema's problems of one row, less those of columns that failed to coerce."""
    out = []
    for problem in _row_problems(spec.schema, values, file, number):
        if problem.field in failed:
            continue
        if problem.field in _ID_FIELDS and "does not match" in problem.message:
            problem = Problem(
                file,
                f"{values.get(problem.field)!r} is not a valid id: it must be non-empty, "
                "without whitespace or slashes",
                row=problem.row,
                field=problem.field,
            )
        out.append(problem)
    return out


def _read_table(root: Path, rel: str, spec: _CsvSpec, out: ReadResult) -> None:
    path = root / rel
    try:
        table = read_csv(path, rel, required=spec.columns)
    except DataError as exc:
        out.problems.extend(exc.problems)
        out.rows[rel] = []
        return
    out.headers[rel] = table.header
    out.problems.extend(table.problems)
    for column in spec.optional:
        if column not in table.header:
            out.problems.append(
                Problem(rel, f"optional column {column!r} is absent; read as empty", field=column, severity="warning")
            )
    rows, problems = _coerce_table(table, spec)
    out.rows[rel] = rows
    out.problems.extend(problems)


def _read_json(path: Path, rel: str, problems: list[Problem]) -> Any:
    try:
        data = read_bytes(path, rel)  # regular files only, bounded (medvigil.files.input_files)
    except DataError as exc:
        problems.extend(exc.problems)
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        problems.append(Problem(rel, "file starts with a UTF-8 byte-order mark (BOM); save it as UTF-8 without BOM"))
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(rel, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"))
        return None
    if not text.strip():
        problems.append(Problem(rel, "file is empty; expected a JSON object {group: [case_id, ...]}"))
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(Problem(rel, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"))
        return None


def _read_splits(root: Path, out: ReadResult) -> dict[str, dict[str, list[str]]]:
    splits: dict[str, dict[str, list[str]]] = {}
    folder = root / rf.SPLITS_DIR
    if not folder.is_dir():
        out.problems.append(
            Problem(rf.SPLITS_DIR, "no splits/ folder; stratified results need the split files", severity="warning")
        )
        return splits
    for name in rf.SPLIT_FILES:
        if not (folder / f"{name}.json").is_file():
            out.problems.append(Problem(f"{rf.SPLITS_DIR}/{name}.json", "split file is missing", severity="warning"))
    for path in sorted(folder.glob("*.json")):
        rel = f"{rf.SPLITS_DIR}/{path.name}"
        out.split_files.append(rel)
        value = _read_json(path, rel, out.problems)
        if value is None:
            continue
        problems = problems_for("split_file", value, rel)
        if problems:
            out.problems.extend(problems)
            continue
        if isinstance(value, list):
            splits[path.stem] = {path.stem: list(value)}
        else:
            splits[path.stem] = {k: list(v) for k, v in value.items() if not k.startswith("_")}
    return splits


# --------------------------------------------------------------------------- reading


def read_release(
    root: Path | str, *, required_files: tuple[str, ...] = rf.REQUIRED_FILES, digest: bool = True
) -> ReadResult:
    """Read and type every file of the release at ``root``; collect problems, never raise for data.

    Rows that fail coercion or their schema are left out of the records (but stay in
    ``ReadResult.rows`` with ``valid=False``). Integrity across files is not judged
    here: see :func:`medvigil.suites.medvigil.validate.validate_release`. A missing file of
    ``required_files`` is an error, any other missing file a warning; ``digest=False`` skips
    hashing the folder (``Release.digest`` stays empty).

    Raises:
        FileNotFoundError: ``root`` does not exist.
        NotADirectoryError: ``root`` is not a folder.
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
    pointer_files = sorted((root / rf.POINTERS_DIR).glob(POINTER_GLOB)) if (root / rf.POINTERS_DIR).is_dir() else []
    for path in pointer_files:
        _read_table(root, f"{rf.POINTERS_DIR}/{path.name}", pointer_spec, out)

    release = out.release
    release.splits = _read_splits(root, out)
    _build_records(release, out.rows)
    release.synthetic = any(rf.SYNTHETIC_COLUMN in header for header in out.headers.values())
    if not digest:
        return out
    try:
        release.digest = release_digest(root)
    except ValueError as exc:  # symbolic links: message "<rel>: symbolic links are not allowed ..."
        where, _, message = str(exc).partition(": ")
        out.problems.append(Problem(where, message or str(exc)))
    return out


def _valid(rows: dict[str, list[Row]], rel: str) -> list[dict[str, Any]]:
    return [row.values for row in rows.get(rel, []) if row.valid]


def _build_records(release: Release, rows: dict[str, list[Row]]) -> None:
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
            case_id=values["case_id"],
            source_dataset=values["source_dataset"],
            modality=values["modality"],
            image_file=values["image_file"],
            question=values["question"],
            gold_answer=values["gold_answer"],
            risk_tier=values["risk_tier"],
            text_only_answerable=values["text_only_answerable"],
            annotator_notes=values["annotator_notes"],
            roi_bbox=box,
            rationale=g.get("rationale", ""),
            differential_set=tuple(g.get("differential_set", ())),
            clinical_context=g.get("clinical_context", ""),
            laterality_dependent=bool(g.get("laterality_dependent")),
            gold_after_lr_flip=g.get("gold_after_lr_flip", ""),
            credentialed=rf.is_credentialed(values["source_dataset"]),
        )
    release.probes_mcq = [
        McqProbe(
            probe_id=v["probe_id"],
            case_id=v["case_id"],
            probe_kind=v["probe_kind"],
            question=v["question"],
            options=tuple(v[f"choice_{letter}"] for letter in rf.LETTERS),
            correct_letter=v["correct_letter"],
            image_file=v["image_file"],
        )
        for v in _valid(rows, rf.PROBES_MCQ)
    ]
    release.probes_open = [
        OpenProbe(
            case_id=v["case_id"],
            probe_id=v["probe_id"],
            probe_axis=v["probe_axis"],
            probe_kind=v["probe_kind"],
            question=v["question"],
            expected_behavior=v["expected_behavior"],
            expected_answer_or_set=tuple(v["expected_answer_or_set"]),
            halluc_explanation=v["halluc_explanation"],
            image_file=v["image_file"],
            provenance=v["provenance"],
        )
        for v in _valid(rows, rf.PROBES_OPEN)
    ]
    release.triplets = _triplets(release, _valid(rows, rf.TRIPLETS))
    release.clinician_baseline = [
        BaselineRow(**{c: v.get(c) for c in rf.CLINICIAN_BASELINE_COLUMNS}) for v in _valid(rows, rf.CLINICIAN_BASELINE)
    ]
    for rel in sorted(rows):
        if rel.startswith(f"{rf.POINTERS_DIR}/"):
            for v in _valid(rows, rel):
                release.pointers.setdefault(v["case_id"], (v["source_path"], v["sha256"]))


def read_pointer_file(path: Path | str) -> dict[str, tuple[str, str]]:
    """``case_id -> (source_path, sha256)`` from a pointer CSV given outside the release
    (``medvigil reconstruct --pointers``), checked like the release's own pointer files.

    Raises:
        DataError: unreadable file, missing column, invalid or duplicate rows (all listed).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"pointer file {str(path)!r} does not exist or is not a file")
    spec = _CsvSpec(str(path), "pointer_row", POINTER_COLUMNS, {})
    table = read_csv(path, str(path), required=POINTER_COLUMNS)  # DataError: not readable as a table
    table_rows, problems = _coerce_table(table, spec)
    problems = [p for p in table.problems + problems if p.severity == "error"]
    pointers: dict[str, tuple[str, str]] = {}
    first: dict[str, int] = {}
    for row in table_rows:
        if not row.valid:
            continue
        cid = row.values["case_id"]
        if cid in first:
            problems.append(Problem(str(path), f"duplicate pointer for case {cid!r} (first at row {first[cid]})", row.number, "case_id"))
            continue
        first[cid] = row.number
        pointers[cid] = (row.values["source_path"], row.values["sha256"])
    if problems:
        raise DataError(problems)
    return pointers


def _question_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _triplets(release: Release, rows: list[dict[str, Any]]) -> list[Triplet]:
    """Triplets of the valid rows; without a ``case_id`` column the case is matched by question.

    A triplet whose case cannot be told (no column and no single manifest case asking its
    anchor question) is left out; :mod:`medvigil.suites.medvigil.validate` counts and reports those.
    """
    by_question: dict[str, list[str]] = {}
    for case in release.cases.values():
        by_question.setdefault(_question_key(case.question), []).append(case.case_id)
    out = []
    for v in rows:
        case_id = v.get("case_id")
        if case_id is None:
            matches = by_question.get(_question_key(v["anchor_question"]), [])
            if len(matches) != 1:
                continue
            case_id = matches[0]
        out.append(Triplet(case_id=case_id, **{c: v[c] for c in rf.TRIPLETS_COLUMNS if c != "case_id"}))
    return out


def load_release(root: Path | str, *, check: bool = True) -> Release:
    """Read the release at ``root`` into typed records.

    Args:
        root: the release folder (published layout).
        check: run the full integrity validation (:func:`medvigil.suites.medvigil.validate.validate_release`:
            schemas, cross-file references, letter conventions, images, splits, digest)
            and raise if anything is wrong. With ``check=False`` only the reading and
            typing happen; rows that cannot be typed are skipped silently, so use it
            only on a release you validated before.

    Returns:
        The :class:`Release`; its ``warnings`` hold non-fatal findings.

    Raises:
        FileNotFoundError, NotADirectoryError: ``root`` is not a folder.
        DataError: (``check=True``) one or more errors, all listed in ``.problems``.
    """
    if not check:
        result = read_release(root)
        result.release.warnings = [p for p in result.problems if p.severity == "warning"]
        return result.release
    from medvigil.suites.medvigil.validate import validate_release  # validate imports this module

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
    result rows must carry the gold letters). Every other file and every finding that does not
    touch those two files (images, pointers, splits, triplets, letter conventions, ...) is a
    warning (see :func:`medvigil.suites.medvigil.validate.validate_release` with ``scope="scoring"``). A built
    folder or Hub id is resolved as ``MEDVIGIL_DATA`` is (:mod:`medvigil.data_location`) and
    its ``mcq`` config read. With ``skip_invalid_rows`` an error located on one row of
    ``manifest.csv`` / ``probes_mcq.csv`` is a warning instead: that case or probe is left out
    (result rows that need it are then invalid rows themselves).

    Raises:
        DataError: the manifest or the MCQ file is unusable (every problem listed).
        FileNotFoundError: ``location`` is neither a folder nor a Hub repo id.
    """
    from medvigil.data_location import locate_release

    kind, where = locate_release(location)
    if kind == "release":
        from medvigil.suites.medvigil.validate import validate_release

        report = validate_release(where, scope="scoring")
        errors, warnings = report.errors, report.warnings
        if skip_invalid_rows and not report.unusable:
            left = [p for p in errors if p.row is not None]
            errors = [p for p in errors if p.row is None]
            warnings = warnings + [
                Problem(p.file, f"{p.message} (row left out)", p.row, p.field, "warning") for p in left
            ]
        if report.unusable or errors:
            raise DataError(errors or report.errors)
        release = report.release
        probes = release.probes_mcq if rf.PROBES_MCQ in report.read_files else None
        return ScoringReference(str(where), kind, release.cases, probes, warnings)
    return _reference_from_build(str(where), kind)


@dataclass(frozen=True)
class _BuiltCase:
    case_id: str
    risk_tier: str
    source_dataset: str
    modality: str
    text_only_answerable: bool


@dataclass(frozen=True)
class _BuiltProbe:
    probe_id: str
    case_id: str
    probe_kind: str
    correct_letter: str


def _reference_from_build(where: str, kind: str) -> ScoringReference:
    import datasets

    columns = ["probe_id", "case_id", "probe_kind", "correct_letter", "risk_tier", "source_dataset", "modality",
               "text_only_answerable"]
    try:
        table = datasets.load_dataset(where, "mcq", split="test").select_columns(columns)
    except Exception as exc:  # datasets raises many types (offline, missing config, ...)
        raise DataError(Problem(where, f"cannot load the 'mcq' config of this {kind} dataset: {exc}")) from None
    cases: dict[str, _BuiltCase] = {}
    probes = []
    for row in table.to_list():
        cases.setdefault(row["case_id"], _BuiltCase(**{k: row[k] for k in _BuiltCase.__dataclass_fields__}))
        probes.append(_BuiltProbe(**{k: row[k] for k in _BuiltProbe.__dataclass_fields__}))
    return ScoringReference(where, kind, cases, probes)
