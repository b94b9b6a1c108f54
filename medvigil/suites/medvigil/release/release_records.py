"""The typed records of a MedVIGIL release (what
:func:`~medvigil.suites.medvigil.release.release.read_release` returns): :class:`Case` (a
``manifest.csv`` row joined with its ``grounding.csv`` row), :class:`McqProbe`, :class:`OpenProbe`,
:class:`Triplet`, :class:`BaselineRow` and :class:`Release`, plus the image-path rule
(:func:`resolve_image_file`) and the ROI box checks."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.pathsafe import InsideResolver, resolve_inside, unsafe_reason
from medvigil.records.record_checks import is_number
from medvigil.suites.medvigil.release import release_format as rf


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
        """Canonical source name (``cxr``, ``MIMIC-CXR`` -> ``CXR``); the string as written when
        unknown."""
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
        """Absolute path of the image of a case or probe (None when it has no image), resolved
        safely inside :attr:`root`; it may not exist (credentialed cases ship without images)."""
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

    A path starting with ``images/`` or ``images_perturbed/`` is relative to the release root (the
    probe-file convention); any other path is relative to ``images/`` (the manifest convention).
    ``file``, ``row`` and ``field`` locate the value for errors; ``inside``, an
    :class:`~medvigil.files.pathsafe.InsideResolver` of ``root``, resolves many paths faster. An
    unsafe path (absolute, ``..``, backslash, NUL, escaping link) raises a DataError.
    """
    if not isinstance(image_file, str) or not image_file.startswith(
        (f"{rf.IMAGES_DIR}/", f"{rf.PERTURBED_DIR}/")
    ):
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
        return (
            f"the box covers >= {pct}% of the image in both "
            f"directions, so it does not localise anything"
        )
    return None


def roi_geometry_issue(bbox: Iterable[float]) -> str | None:
    """Why ``bbox`` is not a valid box: four finite numbers, ``0 <= x0 < x1 <= 1``, ``0 <= y0 < y1
    <= 1``."""
    box = tuple(bbox)
    if len(box) != 4:
        return f"a box has 4 values [x0, y0, x1, y1], got {len(box)}"
    x0, y0, x1, y1 = box
    if (
        type(x0) is type(y0) is type(x1) is type(y1) is float
        and 0.0 <= x0 < x1 <= 1.0
        and 0.0 <= y0 < y1 <= 1.0
    ):
        return None  # the usual box, as the reader types it; every other one is judged below
    if not all(map(is_number, box)):
        return f"box values must be finite numbers, got {list(box)}"
    for name, value in zip(("x0", "y0", "x1", "y1"), box):
        if not 0.0 <= value <= 1.0:
            return f"{name} = {value} is outside [0, 1] (coordinates are normalised)"
    if x0 >= x1:
        return f"x0 ({x0}) must be smaller than x1 ({x1})"
    if y0 >= y1:
        return f"y0 ({y0}) must be smaller than y1 ({y1})"
    return None
