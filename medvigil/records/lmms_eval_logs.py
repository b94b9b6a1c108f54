"""Read lmms-eval ``--log_samples`` output of the medvigil tasks back into probe records.

lmms-eval writes ``<stamp>_samples_<task>.jsonl`` next to ``<stamp>_results.json``. Every sample
line of our tasks carries the per-probe record: the MedVIGIL tasks under their first metric key
``mcs`` (logs of the earlier task pack under every key, read the same), the MediConfusion and stress
tasks under each metric key (``tasks/*/utils.py``). The model is named by the run
(:class:`medvigil.runs.lmms_run.LmmsRun`: ``--label``, else the results file's ``config.model`` and
``config.model_args``, e.g. ``constant(letter=A)``): the task hook cannot know it. CircularEval
rotations are collapsed per probe.

Each line must be UTF-8 and one JSON object without repeated keys; the records of a file are
validated together (:func:`medvigil.records.schema_validation.problems_for_records` and the
``extra`` checks). Every problem names file, line and field; all are raised together.
"""

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import (
    loads_json,
    no_repeated_keys,
    open_regular,
)
from medvigil.mcq.circular import CIRCULAR, collapse_circular
from medvigil.records.record_checks import extras_problems
from medvigil.records.schema_validation import problems_for_records
from medvigil.runs.lmms_run import RECORD_KEY, model_name, record_of, run_limit

_SHORT = 64  # longer strings (free-text answers) rarely repeat: not shared


def _shared(value: Any, pool: dict[str, str]) -> Any:
    """``value`` with its keys and short strings taken from ``pool``: one object per distinct
    string across every log read, where each line holds its own copies (a kept record's memory)."""
    if type(value) is dict:
        return {pool.setdefault(k, k): _shared(v, pool) for k, v in value.items()}
    if type(value) is str and len(value) <= _SHORT:
        return pool.setdefault(value, value)
    return value


def _by_lines(
    path: Path, file: str, name: str, pool: dict[str, str]
) -> tuple[list[dict], list[Problem]]:
    """One file's records read a line at a time (strings shared through ``pool``), and every
    problem of its lines."""
    found: list[dict] = []
    lines: list[int] = []
    bad: list[Problem] = []
    # a regular file within the input cap (medvigil.files.input_files), streamed line by line
    # through a buffer of many lines (lines of several kB cross the default 8 kB buffer's end: twice
    # the time)
    with open_regular(path, file, buffer_size=1 << 16) as raw:
        for line_no, data in enumerate(raw, start=1):
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad.append(
                    Problem(
                        file,
                        f"not valid UTF-8: byte 0x{data[exc.start]:02x} "
                        f"at column {exc.start + 1} (line {line_no})",
                        row=line_no,
                    )
                )
                continue
            if line.isspace() or not line:
                continue
            try:  # a key twice is refused; NaN allowed (lmms-eval writes it, e.g. a stderr)
                sample = loads_json(
                    line,
                    file,
                    row=line_no,
                    allow_non_finite=True,
                    object_pairs_hook=no_repeated_keys,
                )
            except DataError as exc:
                bad.extend(exc.problems)
                continue
            record = record_of(sample)
            if record is None:
                bad.append(
                    Problem(
                        file,
                        "no per-probe record in the sample; is this "
                        "a log of a medvigil or mediconfusion task?",
                        row=line_no,
                        field=RECORD_KEY,
                    )
                )
                continue
            record = _shared(record, pool)
            record["model"] = name
            found.append(record)
            lines.append(line_no)
    checked = problems_for_records("probe_record", found, file, lines) + extras_problems(
        found, file, lines
    )
    return found, sorted(bad + checked, key=lambda p: p.row or 0)  # every problem in line order


EMPTY_LOG = "empty samples file (no record in it)"  # why a log is left out, said by every caller


def read_samples(
    paths: Iterable[str | Path], *, model: str | None = None, empty: list[Path] | None = None
) -> list[dict]:
    """Probe records from lmms-eval samples files, read line by line; every bad line is reported
    at once. ``empty``: the files with no record (empty or blank lines only) are appended to it,
    for the caller to report."""
    records: list[dict] = []
    problems: list[Problem] = []
    paths = list(map(Path, paths))
    pool: dict[str, str] = {}
    for path in paths:
        found, bad = _by_lines(path, str(path), model or model_name(path), pool)
        problems += bad
        records.extend(found)
        if not found and not bad and empty is not None:
            empty.append(path)
    if problems:
        raise DataError(problems)
    if any(r.get("condition") == CIRCULAR for r in records):
        # a run cut by lmms-eval's --limit may end inside a circular group: that group is left out
        # (run_coverage says the run is partial); anywhere else a missing rotation is an error
        limited = all(run_limit(p) is not None for p in paths)
        return collapse_circular(records, incomplete=Counter() if limited else None)
    return records
