"""How much of each task an lmms-eval run asked: the ``partial`` statement of ``medvigil score``.

lmms-eval's ``--limit N`` keeps the first N docs of every task; ``<stamp>_results.json`` records the
limit (``config.limit``) and per task the docs it had and asked (``n-samples``: ``original``,
``effective``). Scores of such a *partial* run rest on a slice of the task (units the slice cut, a
circular group or a CbD case, are left out and counted by scoring). :func:`run_coverage` says so per
task, with the cases of the asked probes, and as one sentence for the table, the JSON and the
report, e.g. ``partial run (lmms-eval --limit 8): medvigil_mcq 8 of 318 probes, 3 of 40 cases``. The
total of cases comes from the build the run used (``--release`` when it is a build or a Hub repo id,
else ``MEDVIGIL_DATA``), read with the task's own ``process_docs``, and is given only when that
build has the run's doc total and its docs carry ``case_id``; otherwise the cases asked alone (``8
of 318 probes (3 cases)``) and the JSON says why (``cases_of_unknown``).
"""

import io
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from medvigil.data_location import ENV_VAR, DataLocationExit, DataNotFoundError, locate_release
from medvigil.errors import DataError
from medvigil.files.input_files import loads_json, open_regular
from medvigil.runs.lmms_run import record_of, runs_of
from medvigil.task_pack import task_config, task_hooks


def _case_ids(path: Path) -> set[str]:
    """The distinct ``case_id`` of the records (or docs) a samples file holds."""
    cases: set[str] = set()
    with open_regular(path, str(path)) as raw:
        for row, line in enumerate(raw, start=1):
            if not line.strip():
                continue
            sample = loads_json(line, str(path), row, allow_non_finite=True)
            record = record_of(sample) or sample.get("doc") or {}
            case = record.get("case_id") or record.get("pair_id") or record.get("sample_id")
            if case is not None:
                cases.add(str(case))
    return cases


@contextmanager
def _data_at(location: str | None) -> Iterator[None]:
    """``MEDVIGIL_DATA`` set to ``location`` (unchanged when None), restored afterwards."""
    if location is None:
        yield
        return
    saved = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = location
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = saved


def _build_of(release: str | None) -> tuple[str | None, str]:
    """The build the totals are read from: ``--release`` when it is a build or a Hub repo id, else
    ``MEDVIGIL_DATA`` (a release folder is not loadable by the task hooks: its build is), and how it
    was chosen."""
    if release is not None:
        try:
            kind, location = locate_release(release)
        except DataNotFoundError:
            kind, location = "", ""
        if kind in ("build", "hub"):
            return location, f"--release {release}"
    return None, f"{ENV_VAR}={os.environ.get(ENV_VAR) or '(default build)'}"


def total_cases(task: str, probes: Any, release: str | None = None) -> tuple[int | None, str]:
    """The number of cases of ``task`` in the build the run used, and where it was read (or why it
    cannot be known). The docs are loaded by the task's own ``process_docs`` from the build
    (:func:`_build_of`); the count is given only when the docs carry ``case_id`` (MedVIGIL-built
    tasks) and the build has as many docs as the run had (``n-samples.original``: else it is not
    the run's build)."""
    if task_config(task) is None:
        return None, f"{task} is not a MedVIGIL-built task of this pack"
    location, source = _build_of(release)
    try:
        # the loaders' notes and progress bars belong to the run, not to the score's output
        with _data_at(location), redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
            docs = task_hooks(task)[0](None)
    except DataLocationExit as exc:
        return None, f"{source}: {exc.error}"
    except (DataNotFoundError, DataError, OSError, ValueError) as exc:
        return None, f"{source}: {exc}"
    columns = getattr(docs, "column_names", None)  # a datasets.Dataset, else a list of dicts
    if not (
        "case_id" in columns
        if columns is not None
        else all(isinstance(d, dict) and "case_id" in d for d in docs)
    ):
        return None, f"{source}: the docs of {task} carry no case_id"
    cases = docs.unique("case_id") if columns is not None else {d["case_id"] for d in docs}
    if isinstance(probes, int) and len(docs) != probes:
        return (
            None,
            f"{source}: its {task} has {len(docs)} docs, the "
            f"run had {probes} (not the build the run used)",
        )
    return len({str(c) for c in cases}), source


def run_coverage(
    paths: Iterable[str | Path],
    prefix: str = "",
    release: str | None = None,
    *,
    case_totals: bool = True,
) -> dict[str, Any] | None:
    """Per task of a limited run among ``paths``: the limit, probes asked of the task's probes and
    the cases they belong to, of the task's cases when the build the run used is at hand
    (:func:`total_cases`: ``release`` preferred, else ``MEDVIGIL_DATA``; ``case_totals`` False:
    the suite's docs are not cases of a MedVIGIL build, never looked up); None when no file comes
    from a limited run."""
    tasks: dict[str, dict[str, Any]] = {}
    totals: dict[str, tuple[int | None, str]] = {}
    for run in runs_of(paths, prefix):
        limit = run.config.get("limit")
        if limit is None:
            continue
        path, task, counts = run.samples, run.task, run.n_samples()
        cases = _case_ids(path)
        if task not in totals:
            totals[task] = (
                (None, "no case ids")
                if not cases
                else total_cases(task, counts.get("original"), release)
                if case_totals
                else (None, f"{task} is not a MedVIGIL-built task of this pack")
            )
        total, source = totals[task]
        entry = {
            "file": str(path),
            "limit": limit,
            "probes": counts.get("effective"),
            "of": counts.get("original"),
            "cases": len(cases),
        }
        if total is not None and len(cases) <= total:
            entry |= {"cases_of": total, "cases_of_source": source}
        else:
            entry["cases_of_unknown"] = (
                source if total is None else f"{source}: {total} cases, fewer than the run's"
            )
        tasks[f"{task} ({run.label})" if task in tasks else task] = entry
    if not tasks:
        return None
    limits = sorted({_number(t["limit"]) for t in tasks.values()})
    parts = [
        f"{task} {t['probes']} of {t['of']} probes, {t['cases']} of {t['cases_of']} cases"
        if "cases_of" in t
        else f"{task} {t['probes']} of {t['of']} probes ({t['cases']} "
        f"case{'' if t['cases'] == 1 else 's'})"
        for task, t in tasks.items()
    ]
    statement = (
        f"partial run (lmms-eval --limit {', '.join(limits)}): "
        + "; ".join(parts)
        + "; units the limit cut (a circular group, a case's arms, a pair) are left out"
    )
    return {"partial": True, "statement": statement, "tasks": tasks}


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
