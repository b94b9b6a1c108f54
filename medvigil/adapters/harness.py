"""Read official-harness outputs (``results/baselines/<model>__mcq.jsonl``) into probe records.

One JSON object per line with at least ``probe_id, case_id, probe_kind, model_letter,
correct_letter, status`` (``schemas/harness_result_row.schema.json``). Each row becomes a
record of ``schemas/probe_record.schema.json``:

==========================  =============================================================
harness row                 probe record
==========================  =============================================================
file name ``<m>__mcq.jsonl``  ``model = m`` (a ``model`` field in the rows is ignored)
``status != "ok"``          ``parse_status = "error"``, ``predicted_letter = null``
``status == "ok"``, letter  ``parse_status = "ok"``, ``predicted_letter`` = the letter
``status == "ok"``, empty   ``parse_status = "parse_failure"``, ``predicted_letter = null``
or null ``model_letter``
``raw_response`` /          ``raw_response`` (first present; an object is JSON-encoded)
``response`` / ``raw``
``retries``                 ``retries``
release manifest            ``risk_tier, source_dataset, modality, text_only_answerable``
==========================  =============================================================

Every row is validated (JSON, the harness-row schema, a letter that is one capital
letter or empty, the case and probe known to the release with the same kind and correct
letter, no duplicate probe per file). Problems name the file, the 1-based line and the
field, and are raised together as one :class:`~medvigil.errors.DataError` after every file
has been read. With ``strict=False`` bad rows are skipped instead, and both the
problems and the per-reason counts of skipped rows are kept on the result; blank lines
are always skipped and counted. Nothing is dropped without being counted.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.input_files import open_regular
from medvigil.release_format import HARNESS_REQUIRED_FIELDS

__all__ = ["HARNESS_SUFFIX", "HarnessRecords", "model_from_filename", "read_harness_file", "read_harness_files"]

HARNESS_SUFFIX = "__mcq.jsonl"
_RAW_FIELDS = ("raw_response", "response", "raw")


class HarnessRecords(list):
    """Probe records (a ``list`` of dicts) read from harness files, with bookkeeping.

    Attributes:
        files: ``{path: model}`` of the files read.
        skipped: ``{model: {reason: count}}`` of lines not turned into records
            (``blank_line``; ``invalid_row`` with ``strict=False``). :func:`medvigil.scoring.audit`
            copies it into each model's ``skipped``.
        problems: the problems of skipped invalid rows (``strict=False``).
        warnings: e.g. scoring without a release (no tiers, so no SFR_w).
    """

    def __init__(self, records: Iterable[dict] = ()):
        super().__init__(records)
        self.files: dict[str, str] = {}
        self.skipped: dict[str, dict[str, int]] = {}
        self.problems: list[Problem] = []
        self.warnings: list[str] = []


def model_from_filename(path: str | Path) -> str:
    """``results/baselines/gpt-4o__mcq.jsonl`` -> ``"gpt-4o"``."""
    name = Path(path).name
    if not name.endswith(HARNESS_SUFFIX) or len(name) == len(HARNESS_SUFFIX):
        raise ValueError(f"harness output file must be named <model>{HARNESS_SUFFIX}, got {name!r}")
    return name[: -len(HARNESS_SUFFIX)]


def _release_lookup(release: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(cases, probes)`` from a release root, a Release-like object or None."""
    if release is None:
        return None, None
    if isinstance(release, (str, Path)):
        from medvigil.release import load_release  # lazy: reading a release pulls in the validator

        release = load_release(release)
    cases = getattr(release, "cases", None)
    if not isinstance(cases, Mapping):
        raise TypeError(f"release must be a release folder or have a 'cases' mapping, got {type(release).__name__}")
    probes_list = getattr(release, "probes_mcq", None)
    probes = None if probes_list is None else {p.probe_id: p for p in probes_list}
    return dict(cases), probes


def _row_problems_fallback(row: dict, file: str, line: int) -> list[Problem]:
    """Required-field checks used when schemas/harness_result_row.schema.json is absent."""
    out = []
    for name in HARNESS_REQUIRED_FIELDS:
        if name not in row:
            out.append(Problem(file=file, row=line, field=name, message="required field is missing"))
        elif name != "model_letter" and not (isinstance(row[name], str) and row[name]):
            out.append(Problem(file=file, row=line, field=name, message=f"must be a non-empty string, got {row[name]!r}"))
    if "model_letter" in row and not (row["model_letter"] is None or isinstance(row["model_letter"], str)):
        out.append(
            Problem(file=file, row=line, field="model_letter", message=f"must be a string or null, got {row['model_letter']!r}")
        )
    if isinstance(row.get("correct_letter"), str) and row["correct_letter"] not in "ABCDE":
        out.append(
            Problem(file=file, row=line, field="correct_letter", message=f"must be one of A-E, got {row['correct_letter']!r}")
        )
    return out


def _schema_checker():
    from medvigil.schemas import SCHEMA_DIR

    if (SCHEMA_DIR / "harness_result_row.schema.json").is_file():
        from medvigil.schema_validation import problems_for

        return lambda row, file, line: problems_for("harness_result_row", row, file, line)
    return _row_problems_fallback


def _convert(row: dict, model: str, file: str, line: int, cases, probes, condition: str) -> tuple[dict | None, list[Problem]]:
    problems: list[Problem] = []
    letter = row.get("model_letter")
    status = row["status"]
    letter = letter.strip() if isinstance(letter, str) else letter
    if status == "ok":
        if letter in (None, ""):
            parse_status, predicted = "parse_failure", None
        elif len(letter) == 1 and "A" <= letter <= "Z":
            parse_status, predicted = "ok", letter
        else:
            problems.append(
                Problem(
                    file=file,
                    row=line,
                    field="model_letter",
                    message=f"must be one capital letter or empty, got {row.get('model_letter')!r}",
                )
            )
            parse_status, predicted = "ok", None
    else:
        parse_status, predicted = "error", None
    case_id, probe_id, kind = row["case_id"], row["probe_id"], row["probe_kind"]
    case = None
    if cases is not None:
        case = cases.get(case_id)
        if case is None:
            problems.append(
                Problem(file=file, row=line, field="case_id", message=f"case {case_id!r} is not in the release manifest")
            )
    if probes is not None:
        probe = probes.get(probe_id)
        if probe is None:
            problems.append(
                Problem(file=file, row=line, field="probe_id", message=f"probe {probe_id!r} is not in the release probes_mcq.csv")
            )
        else:
            for name, expected in (
                ("case_id", probe.case_id),
                ("probe_kind", probe.probe_kind),
                ("correct_letter", probe.correct_letter),
            ):
                if row[name] != expected:
                    problems.append(
                        Problem(
                            file=file,
                            row=line,
                            field=name,
                            message=f"is {row[name]!r} but the release has {expected!r} for probe {probe_id!r}",
                        )
                    )
    if problems:
        return None, problems
    record: dict[str, Any] = {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": probe_id,
        "case_id": case_id,
        "probe_kind": kind,
        "risk_tier": getattr(case, "risk_tier", None),
        "source_dataset": getattr(case, "source_dataset", None),
        "modality": getattr(case, "modality", None),
        "text_only_answerable": getattr(case, "text_only_answerable", None),
        "correct_letter": row["correct_letter"],
        "predicted_letter": predicted,
        "parse_status": parse_status,
        "extra": {"harness_status": status, "file": file, "line": line},
    }
    for name in _RAW_FIELDS:
        if name in row and row[name] is not None:
            raw = row[name]
            record["raw_response"] = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, sort_keys=True)
            break
    if isinstance(row.get("retries"), int) and not isinstance(row["retries"], bool) and row["retries"] >= 0:
        record["retries"] = row["retries"]
    return record, []


def _read_one(path: Path, cases, probes, check, condition: str, out: HarnessRecords) -> list[Problem]:
    model = model_from_filename(path)
    file = str(path)
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    skipped = out.skipped.setdefault(model, {})
    # regular file, bounded (medvigil.input_files); decoding stays line by line as before
    with open_regular(path, file) as raw, io.TextIOWrapper(raw, encoding="utf-8") as handle:
        for line_no, text in enumerate(handle, start=1):
            if not text.strip():
                skipped["blank_line"] = skipped.get("blank_line", 0) + 1
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                row_problems = [Problem(file=file, row=line_no, message=f"not valid JSON: {exc.msg} (column {exc.colno})")]
            else:
                if not isinstance(row, dict):
                    row_problems = [Problem(file=file, row=line_no, message=f"must be a JSON object, got {type(row).__name__}")]
                else:
                    row_problems = check(row, file, line_no)
                    if not row_problems:
                        pid = row["probe_id"]
                        if pid in seen:
                            row_problems = [
                                Problem(
                                    file=file,
                                    row=line_no,
                                    field="probe_id",
                                    message=f"duplicate probe {pid!r} (first at line {seen[pid]})",
                                )
                            ]
                        else:
                            seen[pid] = line_no
                            record, row_problems = _convert(row, model, file, line_no, cases, probes, condition)
                            if record is not None:
                                out.append(record)
            if row_problems:
                problems.extend(row_problems)
                skipped["invalid_row"] = skipped.get("invalid_row", 0) + 1
    if not skipped:
        del out.skipped[model]
    out.files[file] = model
    return problems


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.glob(f"*{HARNESS_SUFFIX}"))
            if not found:
                raise FileNotFoundError(f"no *{HARNESS_SUFFIX} files in folder {str(p)!r}")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise FileNotFoundError(f"harness output {str(p)!r} does not exist")
    return out


def read_harness_files(
    paths: Iterable[str | Path] | str | Path,
    release: Any = None,
    *,
    strict: bool = True,
    condition: str = "default",
) -> HarnessRecords:
    """Read harness outputs into probe records (scoring conventions: paper Appendix L).

    Args:
        paths: ``<model>__mcq.jsonl`` files and/or folders holding them
            (e.g. ``results/baselines``).
        release: the release root (read with :func:`medvigil.release.load_release`), an
            already loaded release (anything with a ``cases`` mapping of objects with
            ``risk_tier, source_dataset, modality, text_only_answerable``, and optionally
            ``probes_mcq``), or ``None`` (records then lack tiers etc.; a warning says so).
        strict: raise one :class:`~medvigil.errors.DataError` listing every bad row
            (default); with ``False`` skip bad rows and count them.
        condition: the records' ``condition`` (``"default"`` for the headline audit).

    Returns:
        :class:`HarnessRecords`, a list of probe-record dicts.

    Raises:
        FileNotFoundError: a path does not exist.
        ValueError: a file is not named ``<model>__mcq.jsonl``, or two files share a model.
        DataError: (``strict``) bad rows, each named by file, line and field.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files = _expand(paths)
    models: dict[str, Path] = {}
    for f in files:
        m = model_from_filename(f)
        if m in models and models[m].resolve() != f.resolve():
            raise ValueError(f"two harness files for model {m!r}: {str(models[m])!r} and {str(f)!r}")
        models[m] = f
    cases, probes = _release_lookup(release)
    check = _schema_checker()
    out = HarnessRecords()
    problems: list[Problem] = []
    unique = {f.resolve(): f for f in reversed(files)}  # first spelling of each file wins
    for f in dict.fromkeys(f.resolve() for f in files):
        problems.extend(_read_one(unique[f], cases, probes, check, condition, out))
    if problems and strict:
        raise DataError(problems)
    out.problems = problems
    if cases is None:
        out.warnings.append("no release given: records have no risk tier, source, modality or text-only flag")
    return out


def read_harness_file(
    path: str | Path, release: Any = None, *, strict: bool = True, condition: str = "default"
) -> HarnessRecords:
    """One ``<model>__mcq.jsonl`` file; see :func:`read_harness_files`."""
    return read_harness_files([path], release, strict=strict, condition=condition)
