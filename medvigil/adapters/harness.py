"""Read official-harness outputs (``results/baselines/<model>__mcq.jsonl``) into probe records.

One JSON object per line, as ``scripts/bench_run_baseline.py`` of the authors' harness writes
them (``schemas/harness_result_row.schema.json``). Every row has ``probe_id, case_id,
probe_kind, status``; an answered row (``status == "ok"``) also ``model_letter`` and
``correct_letter``; a call that failed after the runner's retries is written as
``status: "error: <message>"``, ``model_answer: ""`` and *no* letters. Each row becomes a
record of ``schemas/probe_record.schema.json``:

==============================  =========================================================
harness row                     probe record
==============================  =========================================================
file name ``<m>__mcq.jsonl``    ``model = m`` (a ``model``/``model_id`` field is ignored)
``status != "ok"`` (error row)  ``parse_status = "error"``, ``predicted_letter = null``
``status == "ok"``, letter      ``parse_status = "ok"``, ``predicted_letter`` = the letter
``status == "ok"``, empty       ``parse_status = "parse_failure"``, ``predicted_letter = null``
or null ``model_letter``
gold letter                     the release's ``probes_mcq.csv`` when given, else the row's
                                ``correct_letter``, else (error rows) the ``correct_letter``
                                another file gives for the same probe
``raw_response`` / ``response``  ``raw_response`` (first present; an object is JSON-encoded)
/ ``raw`` / ``model_answer``
``retries``                     ``retries``
release manifest                ``risk_tier, modality, text_only_answerable`` and
                                ``source_dataset`` (canonical name, see
                                :func:`medvigil.release_format.canonical_source`; the
                                spelling of the release is kept in ``extra``)
==============================  =========================================================

How the scoring core treats error rows is its business (paper: a failure, on a trap a silent
failure; ``harness_compatible``: dropped, as ``bench_aggregate.py`` and ``bootstrap_mcs.py``
keep ``status == "ok"`` rows only). This reader counts them per model and probe kind
(``HarnessRecords.error_rows``).

Speed: a file is decoded in one ``json.loads`` of all its lines; rows are checked with the
compiled form of the row schema (:func:`medvigil.release.schema_predicate`) and only rows it
does not accept go through ``jsonschema``, to describe what is wrong.

Problems name the file, the 1-based line and the field: bytes that are not UTF-8, lines that
are not JSON objects, schema violations, a letter that is not one capital letter, a case or
probe unknown to the release or disagreeing with it, a probe twice in one file, an error
row whose gold letter nobody gives, a file with no rows. They are raised together as one
:class:`~medvigil.errors.DataError` after every file has been read. With ``strict=False``
bad rows are skipped instead and counted (``invalid_row``); with ``allow_empty=True`` a
file without rows is a warning. Blank lines are skipped and counted (``blank_line``).
Nothing is dropped without being counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.input_files import read_bytes
from medvigil.release_format import HARNESS_OK_STATUS, source_label

__all__ = ["HARNESS_SUFFIX", "HarnessRecords", "model_from_filename", "read_harness_file", "read_harness_files"]

HARNESS_SUFFIX = "__mcq.jsonl"
_RAW_FIELDS = ("raw_response", "response", "raw", "model_answer")
_SCHEMA = "harness_result_row"


class HarnessRecords(list):
    """Probe records (a ``list`` of dicts) read from harness files, with bookkeeping.

    Attributes:
        files: ``{path: model}`` of the files read.
        skipped: ``{model: {reason: count}}`` of lines not turned into records
            (``blank_line``; ``invalid_row`` with ``strict=False``; ``empty_file`` with
            ``allow_empty=True``). :func:`medvigil.scoring.audit` copies it into each model's
            ``skipped``.
        error_rows: ``{model: {probe_kind: count}}`` of failed calls (``status != "ok"``), read
            as records with ``parse_status = "error"``.
        problems: the problems of skipped invalid rows (``strict=False``).
        warnings: e.g. scoring without a release (no tiers, so no SFR_w), an empty file.
    """

    def __init__(self, records: Iterable[dict] = ()):
        super().__init__(records)
        self.files: dict[str, str] = {}
        self.skipped: dict[str, dict[str, int]] = {}
        self.error_rows: dict[str, dict[str, int]] = {}
        self.problems: list[Problem] = []
        self.warnings: list[str] = []


def model_from_filename(path: str | Path) -> str:
    """``results/baselines/gpt-4o__mcq.jsonl`` -> ``"gpt-4o"``."""
    name = Path(path).name
    if not name.endswith(HARNESS_SUFFIX) or len(name) == len(HARNESS_SUFFIX):
        raise ValueError(f"harness output file must be named <model>{HARNESS_SUFFIX}, got {name!r}")
    return name[: -len(HARNESS_SUFFIX)]


def _release_lookup(release: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(cases, probes)`` from a release location, a Release-like object or None."""
    if release is None:
        return None, None
    if isinstance(release, (str, Path)):
        from medvigil.release import load_for_scoring  # lazy: reading a release pulls in the validator

        release = load_for_scoring(release)
    cases = getattr(release, "cases", None)
    if not isinstance(cases, Mapping):
        raise TypeError(f"release must be a release folder or have a 'cases' mapping, got {type(release).__name__}")
    probes_list = getattr(release, "probes_mcq", None)
    probes = None if probes_list is None else {p.probe_id: p for p in probes_list}
    return dict(cases), probes


# --------------------------------------------------------------------------- decoding


def _decode_file(path: Path, file: str) -> tuple[list[tuple[int, Any]], list[Problem], int, list[str]]:
    """``([(line, value), ...], problems, blank lines, warnings)`` of one JSONL file."""
    data = read_bytes(path, file)  # a regular file, bounded in size
    warnings = []
    if data.startswith(b"\xef\xbb\xbf"):
        warnings.append(f"{file}: starts with a UTF-8 byte-order mark (ignored)")
        data = data[3:]
    problems: list[Problem] = []
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = []
        for number, raw in enumerate(data.split(b"\n"), start=1):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                problems.append(
                    Problem(file, f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}", row=number)
                )
                lines.append("")  # reported; keeps line numbers aligned, not counted as blank
    bad = {p.row for p in problems}
    numbered = [(n, text) for n, text in enumerate(lines, start=1) if n not in bad]
    blank = sum(1 for _, text in numbered if not text.strip())
    if lines and not lines[-1].strip() and (len(lines) not in bad):
        blank -= 1  # the newline that ends the last line is not a blank line
    numbered = [(n, text) for n, text in numbered if text.strip()]
    values: list[Any] | None = None
    if numbered:
        try:  # one decoder call for the whole file; falls back per line to say where
            values = json.loads("[" + ",".join(text for _, text in numbered) + "]")
        except ValueError:
            values = None
        if values is not None and len(values) != len(numbered):
            values = None  # a line held more than one value: judge line by line
    if values is None:
        out = []
        for n, text in numbered:
            try:
                out.append((n, json.loads(text)))
            except ValueError as exc:
                column = getattr(exc, "colno", None)
                message = f"not valid JSON: {getattr(exc, 'msg', exc)}" + (f" (column {column})" if column else "")
                problems.append(Problem(file, message, row=n))
        return out, problems, blank, warnings
    return [(n, v) for (n, _), v in zip(numbered, values)], problems, blank, warnings


def _schema_problems(rows: list[tuple[int, Any]], file: str) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """Rows that pass the harness-row schema, and the problems of the others."""
    from medvigil.release import schema_predicate
    from medvigil.schema_validation import problems_for

    accept = schema_predicate(_SCHEMA)
    good, problems = [], []
    for line, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(file, f"must be a JSON object, got {type(row).__name__}", row=line))
        elif accept is not None and accept(row):
            good.append((line, row))
        else:
            found = problems_for(_SCHEMA, row, file, line)
            if found:
                problems.extend(found)
            else:
                good.append((line, row))
    return good, problems


# --------------------------------------------------------------------------- conversion


def _letter(row: dict, file: str, line: int) -> tuple[str, str | None, list[Problem]]:
    """``(parse_status, predicted_letter, problems)`` of one row."""
    status = row["status"]
    if status != HARNESS_OK_STATUS:
        return "error", None, []
    letter = row.get("model_letter")
    letter = letter.strip() if isinstance(letter, str) else letter
    if letter in (None, ""):
        return "parse_failure", None, []
    if len(letter) == 1 and "A" <= letter <= "Z":
        return "ok", letter, []
    message = f"must be one capital letter or empty, got {row.get('model_letter')!r}"
    return "ok", None, [Problem(file, message, row=line, field="model_letter")]


def _case_fields(case: Any) -> tuple:
    """``(tier, canonical source, modality, text-only flag, source as written if it differs)``."""
    source = getattr(case, "source_dataset", None)
    label = source_label(source)
    return (
        getattr(case, "risk_tier", None),
        label,
        getattr(case, "modality", None),
        getattr(case, "text_only_answerable", None),
        source if label != source else None,
    )


def _convert(
    row: dict, model: str, file: str, line: int, cases, probes, golds: dict[str, str], condition: str
) -> tuple[dict | None, list[Problem]]:
    parse_status, predicted, problems = _letter(row, file, line)
    case_id, probe_id, kind = row["case_id"], row["probe_id"], row["probe_kind"]
    case = None
    if cases is not None:
        case = cases.get(case_id)
        if case is None:
            problems.append(Problem(file, f"case {case_id!r} is not in the release manifest", row=line, field="case_id"))
    gold = row.get("correct_letter")
    if probes is not None:
        probe = probes.get(probe_id)
        if probe is None:
            message = f"probe {probe_id!r} is not in the release probes_mcq.csv"
            problems.append(Problem(file, message, row=line, field="probe_id"))
        else:
            for name, expected in (("case_id", probe.case_id), ("probe_kind", probe.probe_kind), ("correct_letter", probe.correct_letter)):
                if name in row and row[name] != expected:
                    message = f"is {row[name]!r} but the release has {expected!r} for probe {probe_id!r}"
                    problems.append(Problem(file, message, row=line, field=name))
            gold = probe.correct_letter
    if gold is None:
        gold = golds.get(probe_id)
        if gold is None:
            message = (
                "error row without correct_letter, and neither the release (no probes_mcq.csv) nor another "
                f"result file gives the gold letter of probe {probe_id!r}"
            )
            problems.append(Problem(file, message, row=line, field="correct_letter"))
    if problems:
        return None, problems
    tier, source, modality, text_only, as_written = _case_fields(case)
    extra: dict[str, Any] = {"harness_status": row["status"], "file": file, "line": line}
    if as_written is not None:
        extra["source_dataset"] = as_written  # the spelling of the release
    record: dict[str, Any] = {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": probe_id,
        "case_id": case_id,
        "probe_kind": kind,
        "risk_tier": tier,
        "source_dataset": source,
        "modality": modality,
        "text_only_answerable": text_only,
        "correct_letter": gold,
        "predicted_letter": predicted,
        "parse_status": parse_status,
        "extra": extra,
    }
    for name in _RAW_FIELDS:
        if name in row and row[name] is not None:
            raw = row[name]
            record["raw_response"] = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, sort_keys=True)
            break
    if isinstance(row.get("retries"), int) and not isinstance(row["retries"], bool) and row["retries"] >= 0:
        record["retries"] = row["retries"]
    return record, []


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
        elif p.exists():
            raise ValueError(f"harness output {str(p)!r} is not a regular file")
        else:
            raise FileNotFoundError(f"harness output {str(p)!r} does not exist")
    return out


def _bump(table: dict[str, dict[str, int]], model: str, key: str, n: int = 1) -> None:
    inner = table.setdefault(model, {})
    inner[key] = inner.get(key, 0) + n


def read_harness_files(
    paths: Iterable[str | Path] | str | Path,
    release: Any = None,
    *,
    strict: bool = True,
    allow_empty: bool = False,
    condition: str = "default",
) -> HarnessRecords:
    """Read harness outputs into probe records (scoring conventions: paper Appendix L).

    Args:
        paths: ``<model>__mcq.jsonl`` files and/or folders holding them
            (e.g. ``results/baselines``).
        release: a release location (folder, built dataset folder or Hub id, read with
            :func:`medvigil.release.load_for_scoring`), an already loaded release (anything with
            a ``cases`` mapping of objects with ``risk_tier, source_dataset, modality,
            text_only_answerable``, and optionally ``probes_mcq``), or ``None`` (records then
            lack tiers etc.; a warning says so).
        strict: raise one :class:`~medvigil.errors.DataError` listing every bad row
            (default); with ``False`` skip bad rows and count them.
        allow_empty: a file without any row is a warning (counted as ``empty_file``)
            instead of an error.
        condition: the records' ``condition`` (``"default"`` for the headline audit).

    Returns:
        :class:`HarnessRecords`, a list of probe-record dicts.

    Raises:
        FileNotFoundError: a path does not exist.
        ValueError: a file is not named ``<model>__mcq.jsonl``, or two files share a model.
        DataError: (``strict``) bad rows, each named by file, line and field; an empty
            file unless ``allow_empty``.
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
    out = HarnessRecords()
    problems: list[Problem] = []
    fatal: list[Problem] = []
    unique = {f.resolve(): f for f in reversed(files)}  # first spelling of each file wins
    golds: dict[str, str] = {}  # probe_id -> correct_letter of an answered row in any file
    pending: list[tuple[str, str, int, dict]] = []  # error rows whose gold only a later file may give

    def convert(model: str, file: str, line: int, row: dict) -> None:
        record, found = _convert(row, model, file, line, cases, probes, golds, condition)
        if record is not None:
            out.append(record)
            if record["parse_status"] == "error":
                _bump(out.error_rows, model, record["probe_kind"])
        if found:
            problems.extend(found)
            _bump(out.skipped, model, "invalid_row")

    for resolved in dict.fromkeys(f.resolve() for f in files):
        path = unique[resolved]
        model, file = model_from_filename(path), str(path)
        out.files[file] = model
        rows, file_problems, blank, warnings = _decode_file(path, file)
        out.warnings += warnings
        if blank:
            _bump(out.skipped, model, "blank_line", blank)
        good, schema_problems = _schema_problems(rows, file)
        del rows  # one file's raw rows in memory at a time
        file_problems += schema_problems
        if not good and not file_problems:
            empty = Problem(file, "has no result rows: nothing to score for model " + repr(model))
            if allow_empty:
                out.warnings.append(str(empty))
                _bump(out.skipped, model, "empty_file")
            else:
                fatal.append(empty)
        problems.extend(file_problems)
        if file_problems:
            _bump(out.skipped, model, "invalid_row", len({p.row for p in file_problems if p.row is not None}) or 1)
        for _, row in good:
            if row["status"] == HARNESS_OK_STATUS and isinstance(row.get("correct_letter"), str):
                golds.setdefault(row["probe_id"], row["correct_letter"])
        seen: dict[str, int] = {}
        for line, row in good:
            pid = row["probe_id"]
            if pid in seen:
                problems.append(Problem(file, f"duplicate probe {pid!r} (first at line {seen[pid]})", row=line, field="probe_id"))
                _bump(out.skipped, model, "invalid_row")
                continue
            seen[pid] = line
            if probes is None and "correct_letter" not in row and pid not in golds:
                pending.append((model, file, line, row))
            else:
                convert(model, file, line, row)
    for model, file, line, row in pending:
        convert(model, file, line, row)
    if fatal or (problems and strict):
        raise DataError(fatal + (problems if strict else []))
    out.problems = problems
    if cases is None:
        out.warnings.append("no release given: records have no risk tier, source, modality or text-only flag")
    return out


def read_harness_file(
    path: str | Path, release: Any = None, *, strict: bool = True, allow_empty: bool = False, condition: str = "default"
) -> HarnessRecords:
    """One ``<model>__mcq.jsonl`` file; see :func:`read_harness_files`."""
    return read_harness_files([path], release, strict=strict, allow_empty=allow_empty, condition=condition)
