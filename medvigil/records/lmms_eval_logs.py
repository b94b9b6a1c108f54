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

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import (
    RepeatedKey,
    bounded_int,
    loads_json,
    no_repeated_keys,
    open_regular,
)
from medvigil.mcq.circular import CIRCULAR, collapse_circular
from medvigil.records.record_checks import extras_problems
from medvigil.records.schema_validation import problems_for_records
from medvigil.runs.lmms_run import RECORD_KEY, model_name, record_of, run_limit

_POOLED_LENGTH = 64  # longer strings (free-text answers) are rarely repeated: not pooled
_RECORD_START = (
    '{"suite": '  # how json.dumps writes our tasks' records (tasks/*/utils.py: suite first)
)
_FOLDS = (
    '"\\u0000"',
    '"\\u0001"',
    # stand for the record and the value repeated after it: decode to "\0", "\1" (only these texts
    # do)
)
_NEXT_VALUE = re.compile(r', "[^"\\]*": ')  # what json.dumps writes between two values of an object
_UNPOOLED = json.JSONDecoder(
    parse_int=bounded_int, object_pairs_hook=no_repeated_keys
)  # as loads_json decodes


def _decoder(pool: dict[str, str]) -> json.JSONDecoder:
    """:data:`_UNPOOLED` with each object's keys and short string values taken from ``pool``: one
    object per distinct string across every file read, where each line would hold its own copy of
    each."""
    get = pool.setdefault

    def pooled(pairs: list[tuple[str, object]]) -> dict:
        out = {
            get(k, k): get(v, v) if type(v) is str and len(v) <= _POOLED_LENGTH else v
            for k, v in pairs
        }
        return (
            out if len(out) == len(pairs) else no_repeated_keys(pairs)
        )  # (which names the key given twice)

    return json.JSONDecoder(parse_int=bounded_int, object_pairs_hook=pooled)


def _run(line: str, start: int, end: int, at: int) -> tuple[list[str], int, int]:
    """The copies of ``line[start:end]`` from ``start`` on, one under each next key: the text before
    each (from ``at``), where the last ends, and where the value after it starts (-1: none)."""
    copy, parts = line[start:end], []
    while line.startswith(copy, start):
        parts.append(line[at:start])
        at = start + len(copy)
        gap = _NEXT_VALUE.match(line, at)
        start = gap.end() if gap else -1
    return parts, at, start


def _folded(line: str, decoder: json.JSONDecoder) -> object:
    """``line`` decoded by ``decoder``, the record repeated under the next keys decoded once, or the
    value repeated after it (MedVIGIL's scoring row): with their copies replaced by :data:`_FOLDS`
    (then the line's only ``"\\u000``) the line must decode with as many top-level ``"\0"`` and
    ``"\1"``, so each copy was a whole top-level value (a fold inside a string would end it and
    leave ``\\u000.."`` outside) and ``line`` is that object with the values at those keys; else it
    is decoded whole."""
    start = line.find(_RECORD_START)
    if start < 0:
        return decoder.decode(line)
    record, end = decoder.raw_decode(line, start)
    parts, at, start = _run(line, start, end, 0)
    row, rows, rest = None, [], line[at:]
    if (
        start >= 0 and len(parts) == 1
    ):  # a record logged once: MedVIGIL's tasks, its scoring row under the other keys
        row, end = _UNPOOLED.raw_decode(line, start)
        rows, after, _ = _run(line, start, end, at)
        rows, rest = (rows, _FOLDS[1].join([*rows, line[after:]])) if len(rows) > 1 else ([], rest)
    text = _FOLDS[0].join([*parts, rest])
    sample = _UNPOOLED.decode(text) if text.count('"\\u000') == len(parts) + len(rows) else {}
    keys = [key for key, value in sample.items() if value == "\0"]
    row_keys = [key for key, value in sample.items() if value == "\1"] if rows else []
    if (len(keys), len(row_keys)) != (len(parts), len(rows)):
        return decoder.decode(line)
    return {**sample, **dict.fromkeys(keys, record), **dict.fromkeys(row_keys, row)}


def _by_lines(
    path: Path, file: str, name: str, decoder: json.JSONDecoder
) -> tuple[list[dict], list[Problem]]:
    """One file's records read a line at a time, and every problem of its lines."""
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
            try:
                sample = _folded(line, decoder)
            except (
                ValueError,
                RepeatedKey,
                RecursionError,
            ):  # loads_json names the problem (lmms-eval's NaNs allowed)
                try:
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
    """Probe records from lmms-eval samples files, read line by line (records share their
    repeated strings, :func:`_decoder`); every bad line is reported at once. ``empty``: the files
    with no record (empty or blank lines only) are appended to it, for the caller to report."""
    records: list[dict] = []
    problems: list[Problem] = []
    decoder = _decoder({})
    paths = list(map(Path, paths))
    for path in paths:
        found, bad = _by_lines(path, str(path), model or model_name(path), decoder)
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
