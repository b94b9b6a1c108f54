"""Find and read one task pack's lmms-eval ``--log_samples`` files (the stress suites' input).

A suite's logs are the ``*_samples_<task>.jsonl`` files whose task matches the suite's
pattern, given as files or as run folders searched recursively. Their records must belong to
the suite, and no probe may be answered twice for one model (one run per model); both are
:class:`~medvigil.errors.DataError` problems naming file, line and field.
"""

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.json_text import finite
from medvigil.records.lmms_eval_logs import EMPTY_LOG, read_samples
from medvigil.runs.lmms_quirks import SAMPLES_GLOB
from medvigil.runs.lmms_run import LmmsRun, task_of

RecordKey = Callable[[Mapping[str, Any]], tuple]


def run_of(path: Path) -> tuple[Path, str]:
    """The run a samples file belongs to: its folder and lmms-eval's date stamp."""
    run = LmmsRun.of(path)
    return run.folder, run.stamp


def find_samples(paths: Iterable[str | Path], suite: str, task_pattern: str) -> list[Path]:
    """The samples files of ``suite`` (tasks matching ``task_pattern``) among ``paths``;
    folders are searched recursively. A path that is neither is an error."""
    pattern = re.compile(task_pattern)
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(
                p for p in path.rglob(SAMPLES_GLOB) if pattern.fullmatch(task_of(p) or "")
            )
            if not found:
                raise DataError(
                    Problem(
                        str(path),
                        f"no lmms-eval samples files of the {suite} tasks under this folder",
                    )
                )
            files += found
        elif path.is_file() and pattern.fullmatch(task_of(path) or ""):
            files.append(path)
        elif path.is_file():
            raise DataError(
                Problem(
                    str(path),
                    f"not an lmms-eval samples file of a {suite} task (*_samples_<task>.jsonl, "
                    f"task matching {task_pattern})",
                )
            )
        elif path.exists():  # a FIFO, device or socket (perhaps through a symbolic link)
            raise DataError(Problem(str(path), "not a regular file or folder; refusing to read it"))
        else:
            raise DataError(Problem(str(path), "no such file or folder"))
    return list(dict.fromkeys(files))


def probe_key(record: Mapping[str, Any]) -> tuple:
    """A probe asked once per model and condition."""
    return record["model"], record.get("condition"), record["probe_id"]


def read_suite_records(
    files: list[Path], suite: str, key: RecordKey = probe_key, empty: list[Path] | None = None
) -> list[dict]:
    """Records of every file (schema-checked by :func:`read_samples`); a record of another
    suite, or a probe answered twice for one model (same ``key``), is a :class:`DataError`
    naming the file, line and field. ``empty``: files without a record are appended to it."""
    seen: dict[tuple, str] = {}
    records: list[dict] = []
    problems: list[Problem] = []
    for path in files:
        file = str(path)
        for row, record in enumerate(read_samples([path], empty=empty), start=1):
            if record.get("suite") != suite:
                problems.append(
                    Problem(
                        file,
                        f"record of suite {record.get('suite')!r}, not {suite!r}",
                        row=row,
                        field="suite",
                    )
                )
                continue
            k = key(record)
            if k in seen:
                problems.append(
                    Problem(
                        file,
                        f"probe {record['probe_id']!r} of model {record['model']!r} "
                        f"under condition {record.get('condition')!r} is also "
                        f"in {seen[k]}; pass one run per model",
                        row=row,
                        field="probe_id",
                    )
                )
                continue
            seen[k] = file
            records.append(record)
    if problems:
        raise DataError(problems)
    return records


def score_logs(
    suite: str,
    files: list[Path],
    skipped: list[dict[str, str]],
    score: Callable[[list[dict]], dict],
    options: Mapping[str, Any],
    key: RecordKey = probe_key,
) -> dict[str, Any]:
    """Read ``files`` and score their records with ``score``: the stress suites' result shape
    (files read, files skipped with the reason, record count, options, then the scores). A file
    without a record is skipped with a warning on stderr and listed with the reason."""
    empty: list[Path] = []
    records = read_suite_records(files, suite, key, empty)
    for path in empty:
        print(f"warning: {path}: {EMPTY_LOG}; left out", file=sys.stderr)
    skipped = [*skipped, *({"file": str(p), "reason": EMPTY_LOG} for p in empty)]
    files = [p for p in files if p not in empty]
    try:
        scores = score(records)
    except (ValueError, TypeError, KeyError) as exc:
        if isinstance(exc, DataError):
            raise
        # the scoring cores name the record and field; the files are named here
        raise DataError(Problem(", ".join(map(str, files)), f"cannot score: {exc}")) from None
    return finite(
        {
            "suite": suite,
            "files": [str(p) for p in files],
            "skipped_files": skipped,
            "n_records": len(records),
            "options": dict(options),
            **scores,
        }
    )


def inputs_line(result: Mapping[str, Any]) -> str:
    """One line saying what a stress-suite result was read from (and which files were skipped)."""
    head = f"{result['suite']}: {result['n_records']} records from {len(result['files'])} file(s)"
    if result["skipped_files"]:
        head += f"; skipped {len(result['skipped_files'])} file(s): " + "; ".join(
            f"{Path(s['file']).name} ({s['reason']})" for s in result["skipped_files"]
        )
    return head


def table_text(result: Mapping[str, Any], tables: Callable[[Mapping[str, Any]], list]) -> str:
    """What ``medvigil score`` prints for a log suite: :func:`inputs_line`, then its tables."""
    return "\n\n".join([inputs_line(result)] + [t.markdown() for t in tables(result)])


def n_records(result: Mapping[str, Any]) -> int:
    """How many records a log-suite result rests on."""
    return int(result.get("n_records") or 0)


def result_models(result: Mapping[str, Any]) -> list[str]:
    """The models a result scores (its ``models`` object)."""
    return sorted(result["models"])
