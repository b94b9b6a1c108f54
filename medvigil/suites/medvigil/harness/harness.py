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
                                :func:`medvigil.suites.medvigil.release.release_format.canonical_source`;
                                the spelling of the release is kept in ``extra``)
==============================  =========================================================

Error rows are counted per model and probe kind (``HarnessRecords.error_rows``); the scoring
core scores them as failures (paper) or drops them (``harness_compatible``, as
``bench_aggregate.py`` and ``bootstrap_mcs.py`` keep ``status == "ok"`` rows only).

Every file is read by :func:`~medvigil.suites.medvigil.harness.harness_rows.file_rows`: UTF-8,
one JSON object per line with no key twice, each row checked against the row schema. Problems
name file, 1-based line and field (also: a letter that is not one capital letter, a case or
probe unknown to the release or disagreeing with it, a probe twice in one file, an error row
whose gold letter nobody gives, a file with no rows); they are raised together as one
:class:`~medvigil.errors.DataError` after every file is read. ``strict=False`` skips and counts
bad rows (``invalid_row``); ``allow_empty=True`` makes a file without rows a warning; blank lines
are skipped and counted (``blank_line``). Nothing is dropped without being counted.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes

# the reader's public types are re-exported here
from medvigil.suites.medvigil.harness.harness_rows import (
    HARNESS_SUFFIX,
    ID_COLUMNS,
    HarnessColumns,
    HarnessRecords,
    Reference,
    bump,
    convert_columns,
    drop_duplicates,
    expand,
    file_rows,
    model_from_filename,
    record,
    release_lookup,
)

__all__ = [
    "HARNESS_SUFFIX",
    "HarnessColumns",
    "HarnessRecords",
    "model_from_filename",
    "read_harness_files",
]


def read_harness_files(
    paths: Iterable[str | Path] | str | Path,
    release: Any = None,
    *,
    strict: bool = True,
    allow_empty: bool = False,
    condition: str = "default",
    as_table: bool = False,
) -> HarnessRecords | HarnessColumns:
    """Read harness outputs into probe records (scoring conventions: paper Appendix L).

    Args:
        paths: ``<model>__mcq.jsonl`` files and/or folders holding them (e.g.
            ``results/baselines``).
        release: a release location (folder, built dataset folder or Hub id, read with
            :func:`medvigil.suites.medvigil.release.release_loading.load_for_scoring`), a loaded
            release (a ``cases`` mapping of objects with ``risk_tier, source_dataset, modality,
            text_only_answerable``, optionally ``probes_mcq``), a function that loads one, or
            ``None`` (records then lack tiers etc.; a warning says so).
        strict, allow_empty: see the module docstring.
        condition: the records' ``condition`` (``"default"`` for the headline audit).
        as_table: the records as columns (:class:`HarnessColumns`, no dict per row: the scoring
            path) instead of dicts (:class:`HarnessRecords`, with each row's raw response,
            retries, file and line).

    Returns:
        The records with the bookkeeping ``files, skipped, error_rows, problems, warnings``.

    Raises FileNotFoundError (a path does not exist), ValueError (a file not named
    ``<model>__mcq.jsonl``, or two files of one model) and DataError (module docstring).
    """
    paths_once = _files_once([paths] if isinstance(paths, (str, Path)) else paths)
    cases, probes = release_lookup(release() if callable(release) else release)
    ref = Reference(cases, probes)
    out = HarnessRecords()
    parts, golds, gold_from, fatal = _read_files(paths_once, ref, out, not as_table, allow_empty)
    converted, order, problems = _convert(parts, ref, golds, gold_from, out)
    if fatal or (problems and strict):
        raise DataError(fatal + (problems if strict else []))
    out.problems = problems
    if cases is None:
        out.warnings.append(
            "no release given: records have no risk tier, source, modality or text-only flag"
        )
    kept = _good_rows(parts, converted, order, out)
    if as_table:
        return HarnessColumns(_table(parts, converted, kept, ref, condition), out)
    for k, idx, _ in kept:
        model, file, _cols, lines, rows = parts[k][:5]
        for i in idx:
            case = ref.case_of(rows[i]["case_id"])
            out.append(record(model, file, lines[i], rows[i], case, converted[k], i, condition))
    return out


def _files_once(paths: Iterable[str | Path]) -> list[Path]:
    """Each result file once, spelt as it first appears; two files of one model are an error."""
    files = expand(paths)
    models: dict[str, Path] = {}
    for f in files:
        m = model_from_filename(f)
        if m in models and models[m].resolve() != f.resolve():
            raise ValueError(
                f"two harness files for model {m!r}: {str(models[m])!r} and {str(f)!r}"
            )
        models[m] = f
    first_spelt = {f.resolve(): f for f in reversed(files)}
    return [first_spelt[r] for r in dict.fromkeys(f.resolve() for f in files)]


def _read_files(
    paths: list[Path], ref: Reference, out: HarnessRecords, as_dicts: bool, allow_empty: bool
) -> tuple[list[tuple], dict[str, str], dict[str, int], list[Problem]]:
    """``(parts, golds, gold_from, fatal)``: per file ``(model, file, columns, lines, rows or None,
    file problems, duplicate problems)``; without the release's gold letters, each probe's gold
    letter from the first answered row giving it and that file's index; the fatal problems."""
    fatal: list[Problem] = []
    pool = {i: i for i in ref.ids()}  # one string object per distinct id: the release's if it has
    last: dict[str, list] = {}  # the last file's id columns
    golds: dict[str, str] = {}  # probe_id -> correct_letter of an answered row in any file
    gold_from: dict[str, int] = {}  # probe_id -> the file (index into parts) that gave it
    parts: list[tuple] = []
    for path in paths:
        model, file = model_from_filename(path), str(path)
        out.files[file] = model
        data = read_bytes(path, file)  # a regular file, bounded in size
        cols, lines, rows, file_problems = file_rows(
            data,
            model,
            file,
            out,
            fatal,
            as_dicts=as_dicts,
            allow_empty=allow_empty,
            pool=pool,
            last=last,
        )
        del data
        if ref.probe_fields is None:  # without the release's gold letters, another file's
            for pid, answered, gold in zip(
                cols["probe_id"], cols["answered"], cols["correct_letter"]
            ):
                if gold is not None and answered and pid not in golds:
                    golds[pid], gold_from[pid] = gold, len(parts)
        cols, lines, rows, row_problems = drop_duplicates(cols, lines, rows, model, file, out)
        parts.append((model, file, cols, lines, rows, file_problems, row_problems))
    return parts, golds, gold_from, fatal


def _convert(
    parts: list[tuple],
    ref: Reference,
    golds: dict[str, str],
    gold_from: dict[str, int],
    out: HarnessRecords,
) -> tuple[list[dict], list[tuple[int, list[int]]], list[Problem]]:
    """``(converted, order, problems)``: each file's :func:`convert_columns`, the record order as
    ``(part, row indices)`` (error rows whose gold letter only a later file gives come last), and
    the problems in the order the rows are read. Runs after every file is read."""
    order: list[tuple[int, list[int]]] = []
    pending: list[tuple[int, list[int]]] = []
    converted: list[dict] = []
    problems: list[Problem] = []
    for k, (model, file, cols, lines, _rows, file_problems, row_problems) in enumerate(parts):
        conv, found = convert_columns(cols, lines, file, ref, golds)
        converted.append(conv)
        late: list[int] = []
        if ref.probe_fields is None:
            late = [
                i
                for i, (g, pid) in enumerate(zip(cols["correct_letter"], cols["probe_id"]))
                if g is None and gold_from.get(pid, k + 1) > k
            ]
        late_set = set(late)
        order.append((k, [i for i in range(len(lines)) if i not in late_set]))
        pending.append((k, late))
        problems.extend(file_problems)  # the file's own, then row by row
        problems.extend(
            sorted(row_problems + [p for i, p in found if i not in late_set], key=lambda p: p.row)
        )
        bad = sum(1 for i, ok in enumerate(conv["ok"]) if not ok and i not in late_set)
        if bad:
            bump(out.skipped, model, "invalid_row", bad)
        conv["late_problems"] = [(i, p) for i, p in found if i in late_set]
    for k, late in pending:
        problems.extend(_resolve_late(parts[k], converted[k], late, out))
        order.append((k, late))
    return converted, order, problems


def _resolve_late(part: tuple, conv: dict, late: list[int], out: HarnessRecords) -> list[Problem]:
    """The problems of one file's error rows read last (:func:`_convert`): their own, and a gold
    letter that no file gives."""
    model, file, cols, lines = part[:4]
    by_row: dict[int, list[Problem]] = {}
    for i, p in conv.pop("late_problems"):
        by_row.setdefault(i, []).append(p)
    problems: list[Problem] = []
    for i in late:
        problems.extend(by_row.get(i, ()))
        if conv["correct_letter"][i] is None:
            problems.append(
                Problem(
                    file,
                    f"error row without correct_letter, and neither the release "
                    f"(no probes_mcq.csv) nor another result file gives the "
                    f"gold letter of probe {cols['probe_id'][i]!r}",
                    row=lines[i],
                    field="correct_letter",
                )
            )
            conv["ok"][i] = False
        if not conv["ok"][i]:
            bump(out.skipped, model, "invalid_row")
    return problems


def _good_rows(
    parts: list[tuple], converted: list[dict], order: list[tuple[int, list[int]]], out
) -> list[tuple[int, list[int], bool]]:
    """``order`` with only the good rows, each with whether they are the whole file in file order;
    the error rows among them counted per model and probe kind (``out.error_rows``)."""
    kept = []
    for k, idx in order:
        ok, status = converted[k]["ok"], converted[k]["parse_status"]
        whole = len(idx) == len(ok) and all(ok)
        if not whole:
            idx = [i for i in idx if ok[i]]
        errors = _positions(status, "error") if whole else (i for i in idx if status[i] == "error")
        for i in errors:
            bump(out.error_rows, parts[k][0], parts[k][2]["probe_kind"][i])
        kept.append((k, idx, whole))
    return kept


def _positions(values: list, value: Any) -> list[int]:
    """Where ``value`` is in ``values`` (the list's own search: the few error rows of a file)."""
    found, i = [], -1
    for _ in range(values.count(value)):
        i = values.index(value, i + 1)
        found.append(i)
    return found


def _table(
    parts: list[tuple],
    converted: list[dict],
    kept: list[tuple[int, list[int], bool]],
    ref: Reference,
    condition: str,
):
    """The good rows as a :class:`~medvigil.scoring.table.RecordTable`: ids coded once per
    distinct id list (files in one probe order share theirs), the release's fields looked up once
    per case."""
    import numpy as np

    from medvigil.scoring.categorical import Categorical, factorize
    from medvigil.scoring.table import RecordTable

    names = ("model", *ID_COLUMNS, "correct_letter", "predicted_letter", "parse_status")
    columns: dict[str, list] = {name: [] for name in names}
    index: dict[str, dict[str, int]] = {name: {} for name in ("model", *ID_COLUMNS)}
    coded: dict[int, np.ndarray] = {}  # id of a file's id list -> its codes
    for k, idx, whole in kept:
        model, cols, conv = parts[k][0], parts[k][2], converted[k]
        code = index["model"].setdefault(model, len(index["model"]))
        columns["model"].append(np.full(len(idx), code, dtype=np.int32))
        for name in ID_COLUMNS:
            if id(cols[name]) not in coded:
                for value in cols[name]:
                    index[name].setdefault(value, len(index[name]))
                coded[id(cols[name])] = np.fromiter(
                    map(index[name].__getitem__, cols[name]), np.int32, len(cols[name])
                )
            columns[name].append(coded[id(cols[name])] if whole else coded[id(cols[name])][idx])
        for name in ("correct_letter", "predicted_letter", "parse_status"):
            columns[name] += conv[name] if whole else [conv[name][i] for i in idx]
    for name, codes in index.items():
        columns[name] = Categorical(
            np.concatenate(columns[name] or [np.zeros(0, np.int32)]), tuple(codes)
        )
    case = columns.pop("case_id")
    fields = [ref.case_of(case_id) for case_id in case.levels]

    def of_case(k: int) -> Categorical:
        per_case = factorize([f[k] for f in fields])
        return Categorical(per_case.codes[case.codes], per_case.levels)

    return RecordTable.from_columns(
        **columns,
        case_id=case,
        risk_tier=of_case(0),
        source_dataset=of_case(1),
        modality=of_case(2),
        text_only_answerable=np.array([f[3] for f in fields], dtype=object)[case.codes].tolist(),
        condition=condition,
        suite="medvigil",
        source="harness result files",
    )
