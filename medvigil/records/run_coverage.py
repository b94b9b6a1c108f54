"""How much of each task an lmms-eval run asked: the ``partial`` statement of ``medvigil score``.

lmms-eval's ``--limit N`` keeps the first N docs of every task; its ``<stamp>_results.json``
records the limit (``config.limit``) and, per task, the docs it had and the docs it asked
(``n-samples``: ``original``, ``effective``). A samples file of such a run is *partial*: its
scores rest on a slice of the task (the units that slice cut, a circular group or a CbD case,
are left out by scoring and counted there). :func:`run_coverage` says so per task, with the
cases the asked probes belong to, and as one sentence for the table, the JSON and the report,
e.g. ``partial run (lmms-eval --limit 8): medvigil_mcq 8 of 318 probes (3 cases)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.files.input_files import open_regular, read_json

SAMPLES_GLOB = "*_samples_*.jsonl"


def results_file(samples_path: Path) -> Path:
    """The ``<stamp>_results.json`` beside an lmms-eval samples file."""
    from medvigil.records.lmms_eval_logs import SAMPLES

    stamp = SAMPLES.match(samples_path.name).group("stamp")
    return samples_path.with_name(f"{stamp}_results.json")


def run_results(samples_path: Path) -> dict | None:
    """The parsed results file of a samples file's run (None: there is none)."""
    path = results_file(samples_path)
    if not path.is_file():
        return None
    data = read_json(path, str(path), allow_non_finite=True)  # lmms-eval writes NaN for missing stderrs
    return data if isinstance(data, dict) else None


def run_limit(samples_path: Path) -> float | None:
    """lmms-eval's ``--limit`` of the run (None: the whole task was asked)."""
    data = run_results(samples_path) or {}
    limit = (data.get("config") or {}).get("limit")
    return float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None


def _case_ids(path: Path) -> set[str]:
    """The distinct ``case_id`` of the records (or docs) a samples file holds."""
    from medvigil.records.lmms_eval_logs import _record_of

    cases: set[str] = set()
    with open_regular(path, str(path)) as raw:
        for line in raw:
            if not line.strip():
                continue
            sample = json.loads(line)
            record = _record_of(sample) or sample.get("doc") or {}
            case = record.get("case_id") or record.get("pair_id") or record.get("sample_id")
            if case is not None:
                cases.add(str(case))
    return cases


def samples_files(paths: Iterable[str | Path], prefix: str) -> list[Path]:
    """The samples files among ``paths`` (folders searched) of tasks named ``<prefix>...``."""
    from medvigil.records.lmms_eval_logs import SAMPLES

    found: list[Path] = []
    for path in map(Path, paths):
        candidates = sorted(path.rglob(SAMPLES_GLOB)) if path.is_dir() else [path]
        for p in candidates:
            match = SAMPLES.match(p.name)
            if match and match.group("task").startswith(prefix) and p.is_file():
                found.append(p)
    return list(dict.fromkeys(found))


def run_coverage(paths: Iterable[str | Path], prefix: str = "") -> dict[str, Any] | None:
    """Per task of a limited run among ``paths``: the limit, probes asked of the task's probes and
    the cases they belong to; None when no file comes from a limited run."""
    tasks: dict[str, dict[str, Any]] = {}
    for path in samples_files(paths, prefix):
        data = run_results(path) or {}
        limit = (data.get("config") or {}).get("limit")
        if limit is None:
            continue
        from medvigil.records.lmms_eval_logs import SAMPLES

        task = SAMPLES.match(path.name).group("task")
        counts = (data.get("n-samples") or {}).get(task) or {}
        from medvigil.records.lmms_eval_logs import model_name

        tasks[f"{task} ({model_name(path)})" if task in tasks else task] = {
            "file": str(path), "limit": limit, "probes": counts.get("effective"), "of": counts.get("original"),
            "cases": len(_case_ids(path)),
        }
    if not tasks:
        return None
    limits = sorted({_number(t["limit"]) for t in tasks.values()})
    parts = [f"{task} {t['probes']} of {t['of']} probes ({t['cases']} case{'' if t['cases'] == 1 else 's'})"
             for task, t in tasks.items()]
    statement = (f"partial run (lmms-eval --limit {', '.join(limits)}): " + "; ".join(parts)
                 + "; units the limit cut (a circular group, a case's arms, a pair) are left out")
    return {"partial": True, "statement": statement, "tasks": tasks}


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
