"""Read lmms-eval ``--log_samples`` output of the medvigil tasks back into probe records.

lmms-eval writes ``<stamp>_samples_<task>.jsonl`` next to ``<stamp>_results.json``.
Every sample line of a medvigil or mediconfusion task carries our per-probe record under
each metric key (see ``tasks/*/utils.py``); the model is named from the results file's
``config.model`` and ``config.model_args`` (e.g. ``constant(letter=A)``), because the
task hook cannot know it. CircularEval rotations are collapsed per probe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from medvigil.circular import collapse_circular
from medvigil.errors import DataError, Problem
from medvigil.input_files import loads_json, read_json, read_text
from medvigil.record_checks import extra_problems
from medvigil.schema_validation import problems_for

SAMPLES = re.compile(r"^(?P<stamp>.+)_samples_(?P<task>[A-Za-z0-9_]+)\.jsonl$")
RECORD_KEY = "mcs"  # every medvigil task emits the record under this metric key


def _record_of(sample) -> dict | None:
    """The per-probe record of one sample line: under ``mcs`` (MedVIGIL tasks) or under
    any metric key (MediConfusion tasks emit it under each of theirs)."""
    if not isinstance(sample, dict):
        return None
    record = sample.get(RECORD_KEY)
    if isinstance(record, dict):
        return record
    for value in sample.values():
        if isinstance(value, dict) and "suite" in value and "probe_id" in value:
            return value
    return None


def is_samples_file(path: Path) -> bool:
    return bool(SAMPLES.match(path.name))


def model_name(samples_path: Path) -> str:
    """``model(args)`` from the sibling ``<stamp>_results.json``."""
    stamp = SAMPLES.match(samples_path.name).group("stamp")
    results = samples_path.with_name(f"{stamp}_results.json")
    if not results.exists():  # anything else there (a FIFO, a device) is refused by read_json
        raise DataError(Problem(str(samples_path), f"no {results.name} beside it to name the model", field="model"))
    data = read_json(results, str(results), allow_non_finite=True)  # lmms-eval writes NaN for missing stderrs
    config = data.get("config") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise DataError(Problem(str(results), "not an lmms-eval results file: no 'config' object", field="config"))
    model, args = config.get("model") or "", str(config.get("model_args") or "").strip()
    if not isinstance(model, str):
        raise DataError(Problem(str(results), f"config.model must be a string, got {type(model).__name__}", field="config.model"))
    if not model:
        raise DataError(Problem(str(results), "config.model is empty", field="config.model"))
    return f"{model}({args})" if args else model


def read_samples(paths: Iterable[str | Path], *, model: str | None = None) -> list[dict]:
    """Probe records from lmms-eval samples files; every bad line is reported at once."""
    records: list[dict] = []
    problems: list[Problem] = []
    for path in map(Path, paths):
        name = model or model_name(path)
        for line_no, line in enumerate(read_text(path, str(path)).split("\n"), start=1):
            if not line.strip():
                continue
            try:
                sample = loads_json(line, str(path), row=line_no, allow_non_finite=True)  # lmms-eval's own NaNs
            except DataError as exc:
                problems.extend(exc.problems)
                continue
            record = _record_of(sample)
            if record is None:
                problems.append(Problem(str(path), "no per-probe record in the sample; is this a log of a medvigil or mediconfusion task?", row=line_no, field=RECORD_KEY))
                continue
            record = {**record, "model": name}
            found = problems_for("probe_record", record, str(path), line_no) + extra_problems(record, str(path), line_no)
            if found:
                problems.extend(found)
                continue
            records.append(record)
    if problems:
        raise DataError(problems)
    return collapse_circular(records)
