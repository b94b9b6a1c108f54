"""``--predict_only`` runs scored like the same run without it.

lmms-eval 0.7.3 replaces the metrics by ``bypass`` and drops ``process_results``
(:mod:`.lmms_quirks`), so it logs each doc's id, target and responses but not our record.
:func:`rebuild` builds it with the task's own hooks, on the docs of the build the run used
(``MEDVIGIL_DATA`` / ``MEDICONFUSION_DATA``; every doc's target is checked against the logged one),
into a normal-shaped log in a scratch folder beside a copy of the results file; :func:`scorable`
hands the scorers those logs.
"""

import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from medvigil.data_location import DataLocationExit
from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular
from medvigil.runs import lmms_run
from medvigil.runs.lmms_quirks import PREDICT_ONLY_KEY
from medvigil.runs.lmms_run import runs_of, samples_files
from medvigil.task_pack import task_hooks


def _results(value: Any, output_type: str) -> list:
    """What lmms-eval hands ``process_results`` for a logged ``filtered_resps``."""
    if output_type in ("generate_until", "generate_visual_cot"):
        values = [value] if isinstance(value, str) or value is None else value
        return ["" if v is None else str(v).strip() for v in values]
    return list(value) if isinstance(value, list) else [value]


def rebuild(samples_path: Path, task: str, out_folder: Path) -> Path:
    """The samples file ``samples_path`` of a ``--predict_only`` run with each line's record,
    written to ``out_folder`` (with a copy of the run's results file); returns the new samples
    file."""
    process_docs, process_results, config = task_hooks(task)
    try:
        docs = process_docs(None)
    except DataLocationExit as exc:
        raise DataError(
            Problem(
                str(samples_path),
                "a --predict_only log: its records are rebuilt from the docs of the "
                f"build the run used, and {exc.error}",
                field="doc_id",
            )
        ) from None
    file = str(samples_path)
    lines: list[str] = []
    problems: list[Problem] = []
    with open_regular(samples_path, file) as raw:
        for row, data in enumerate(raw, start=1):
            if not data.strip():
                continue
            line = _rebuilt(json.loads(data), docs, task, config, process_results)
            if isinstance(line, str):
                lines.append(line)
            else:
                problems.append(Problem(file, line[1], row=row, field=line[0]))
    if problems:
        raise DataError(problems)
    out_folder.mkdir(parents=True, exist_ok=True)
    out = out_folder / samples_path.name
    out.write_text("".join(lines), encoding="utf-8")
    results = lmms_run.results_file(samples_path)
    if results.is_file():
        shutil.copyfile(results, out_folder / results.name)
    return out


def _rebuilt(
    sample: dict, docs: Any, task: str, config: dict, process_results: Any
) -> str | tuple[str, str]:
    """One logged line with its record, or ``(field, problem)`` when it is not a doc of the
    build."""
    doc_id = sample.get("doc_id")
    if not isinstance(doc_id, int) or not 0 <= doc_id < len(docs):
        return (
            "doc_id",
            f"doc_id {doc_id!r} is not a doc of {task} in this build ({len(docs)} docs)",
        )
    doc = docs[doc_id]
    target_field = config.get("doc_to_target")
    if (
        isinstance(target_field, str)
        and target_field in doc
        and str(doc[target_field]) != str(sample.get("target"))
    ):
        return "target", (
            f"the run's target {sample.get('target')!r} differs from the build's "
            f"{doc[target_field]!r}: point the data variables at the build the run used"
        )
    responses = _results(sample.get("filtered_resps"), config.get("output_type", ""))
    record = process_results(doc, responses)
    kept = {k: v for k, v in sample.items() if k != PREDICT_ONLY_KEY}
    return json.dumps({**kept, **record}, default=_plain) + "\n"


def _plain(value: Any) -> Any:
    """NumPy scalars in a record as Python numbers (what lmms-eval's own log writer does)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


@contextmanager
def scorable(files: Sequence[str], prefix: str) -> Iterator[tuple[list[str], dict[str, str]]]:
    """``files`` with every ``--predict_only`` samples file of tasks ``<prefix>...`` (folders
    searched) replaced by its :func:`rebuild` in a scratch folder (removed afterwards), and a map
    from each rebuilt file back to the original; the rebuilt files keep the original run's model
    name."""
    found = [run.samples for run in runs_of(files, prefix) if run.predict_only]
    if not found:
        yield list(files), {}
        return
    saved = dict(lmms_run.RUN_LABELS)
    with tempfile.TemporaryDirectory(prefix="medvigil-predict-only-") as scratch:
        runs: dict[Path, Path] = {}
        replaced: dict[Path, Path] = {}
        for path in found:
            folder = runs.setdefault(path.parent.resolve(), Path(scratch) / str(len(runs)))
            run = lmms_run.LmmsRun.of(path)
            replaced[path] = rebuild(path, run.task, folder)
            lmms_run.RUN_LABELS[str(replaced[path])] = run.label
        out: list[str] = []
        for name in files:
            path = Path(name)
            if path.is_dir() and any(p.is_relative_to(path) for p in found):
                out += [str(replaced.get(p, p)) for p in samples_files([path], prefix)]
            else:
                out.append(str(replaced.get(path, path)))
        try:
            yield out, {str(new): str(old) for old, new in replaced.items()}
        finally:
            lmms_run.RUN_LABELS.clear()
            lmms_run.RUN_LABELS.update(saved)
