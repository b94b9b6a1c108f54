"""MediConfusion runs from lmms-eval ``--log_samples`` files of the ``mediconfusion_*`` tasks, whose
records carry gold letters, answers and categories (written by ``tasks/mediconfusion/utils.py``)."""

import sys
from collections.abc import Sequence
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.records.lmms_eval_logs import EMPTY_LOG, read_samples
from medvigil.runs.lmms_run import run_limit
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN
from medvigil.suites.mediconfusion.record_scoring import pair_inputs, pair_slots
from medvigil.suites.mediconfusion.release import Release
from medvigil.suites.mediconfusion.run import MediConfusionRun, category_names

__all__ = ["runs_from_lmms_eval"]


def _read_logs(paths: Sequence[str | Path]) -> tuple[list[dict], list[int]]:
    """Every record of ``paths`` and the file of each (its index in ``paths``); an empty log is left
    out with a warning; DataError listing the problems of every file."""
    records: list[dict] = []
    origins: list[int] = []
    problems: list[Problem] = []
    for index, path in enumerate(paths):
        empty: list[Path] = []
        try:
            found = read_samples([path], empty=empty)
        except DataError as exc:
            problems += exc.problems
            continue
        if empty:
            print(f"warning: {path}: {EMPTY_LOG}; left out", file=sys.stderr)
        records += found
        origins += [index] * len(found)
    if problems:
        raise DataError(problems)
    return records, origins


def _check_belonging(records: list[dict], release: Release, where: str) -> None:
    """DataError unless every record is a MediConfusion record of a pair of ``release``."""
    problems = [
        Problem(
            where,
            f"record {r['probe_id']!r} belongs to suite {r['suite']!r}, not mediconfusion",
            field="suite",
        )
        for r in records
        if r.get("suite") != "mediconfusion"
    ]
    problems += [
        Problem(
            where, f"pair {r['case_id']!r} is not in the release {release.path}", field="case_id"
        )
        for r in records
        if r.get("suite") == "mediconfusion" and str(r["case_id"]) not in release.pairs
    ]
    if problems:
        raise DataError(problems)


def runs_from_lmms_eval(paths: Sequence[str | Path], release: Release) -> list[MediConfusionRun]:
    """Runs from lmms-eval ``--log_samples`` files: one run per (model, mode), in the order of their
    first records, each naming the files holding its records. Every pair of a run must be in
    ``release``; its pairs absent are missing."""
    records, origins = _read_logs(paths)
    where = ", ".join(map(str, paths))
    _check_belonging(records, release, where)
    groups: dict[tuple[str, str], list[dict]] = {}
    files: dict[tuple[str, str], dict[int, None]] = {}
    for record, origin in zip(records, origins):
        key = (record["model"], record.get("condition", "default"))
        groups.setdefault(key, []).append(record)
        files.setdefault(key, {})[origin] = None
    # a run cut by lmms-eval's --limit may end inside a pair: that pair is left out (the score says
    # the run is partial)
    limited = all(run_limit(Path(p)) is not None for p in paths)
    slots = {
        key: pair_slots(recs, incomplete="drop" if limited else "error")
        for key, recs in groups.items()
    }
    problems = [
        Problem(where, f"run {model!r} / {mode!r}: {message}", field="probe_id")
        for (model, mode), (_, found) in slots.items()
        for message in found
    ]
    if problems:
        raise DataError(problems)
    names = category_names(release)
    runs = []
    for (model, mode), recs in groups.items():
        by_pair = slots[(model, mode)][0]
        run_files = tuple(str(paths[i]) for i in files[(model, mode)])
        margins = {(r.get("extra") or {}).get("margin") for r in recs} - {None}
        runs.append(
            MediConfusionRun(
                path=", ".join(run_files),
                files=run_files,
                model=model,
                mode=mode,
                margin=margins.pop() if len(margins) == 1 else DEFAULT_MARGIN,
                records=tuple(recs),
                pair_ids=tuple(by_pair),
                missing_pairs=tuple(p for p in release.pairs if p not in by_pair),
                category_names=names,
                pairs=pair_inputs(by_pair),
            )
        )
    return runs
