"""Per-probe records of an lmms-eval ``--predict_only`` run, for ``medvigil score``.

With ``--predict_only`` lmms-eval 0.7.3 replaces every task's metrics by ``bypass`` and drops its
``process_results`` hook, so the samples log holds each doc's id, target and filtered responses but
not the record our hooks build. This module builds it with those same hooks: the task's YAML names
its ``process_docs`` and ``process_results`` (``tasks/<suite>/<task>.yaml`` and its template), the
docs are loaded as in the run (``MEDVIGIL_DATA`` / ``MEDICONFUSION_DATA`` must name the build the run
used; every doc's target is checked against the logged one), and each line's responses are handed
to ``process_results`` as lmms-eval hands them. The lines are written, in the normal log's shape,
to a scratch folder beside a copy of the run's results file.
"""

from __future__ import annotations

import importlib
import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular
from medvigil.tasks import TASKS_ROOT


def is_predict_only(samples_path: Path) -> bool:
    """A samples file of a ``--predict_only`` run: its first line has lmms-eval's ``bypass`` entry
    and no per-probe record."""
    from medvigil.records.lmms_eval_logs import _record_of

    with open_regular(samples_path, str(samples_path)) as raw:
        for line in raw:
            if line.strip():
                sample = json.loads(line)
                return isinstance(sample, dict) and "bypass" in sample and _record_of(sample) is None
    return False


def _yaml(path: Path) -> dict:
    """A task YAML (``!function`` values kept as their dotted names) merged over its ``include``."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
    if "include" in config:
        config = {**_yaml(path.parent / config.pop("include")), **config}
    return config


def task_config(task: str) -> tuple[Path, dict] | None:
    """The YAML file and the configuration (template merged) of a task of this pack, or None."""
    found = sorted(TASKS_ROOT.glob(f"*/{task}.yaml"))
    return (found[0], _yaml(found[0])) if len(found) == 1 else None


def task_hooks(task: str) -> tuple[Any, Any, dict]:
    """``(process_docs, process_results, config)`` of an lmms-eval task of this pack."""
    found = task_config(task)
    if found is None:
        raise DataError(Problem(task, "not a task of the medvigil task pack; cannot rebuild its --predict_only records",
                                field="task"))
    path, config = found
    found = [path]
    utils = importlib.import_module(f"medvigil.tasks.{path.parent.name}.utils")

    def hook(name: str):
        value = config.get(name)
        if not isinstance(value, str) or not value.startswith("utils."):
            raise DataError(Problem(str(found[0]), f"no {name} hook to rebuild --predict_only records", field=name))
        return getattr(utils, value.removeprefix("utils."))

    return hook("process_docs"), hook("process_results"), config


def _results(value: Any, output_type: str) -> list:
    """What lmms-eval hands ``process_results`` for a logged ``filtered_resps``."""
    if output_type in ("generate_until", "generate_visual_cot"):
        values = [value] if isinstance(value, str) or value is None else value
        return ["" if v is None else str(v).strip() for v in values]
    return list(value) if isinstance(value, list) else [value]


def rebuild(samples_path: Path, task: str, out_folder: Path) -> Path:
    """The samples file ``samples_path`` of a ``--predict_only`` run with each line's record, written to
    ``out_folder`` (with a copy of the run's results file); returns the new samples file."""
    from medvigil.data_location import DataLocationExit
    from medvigil.records.run_coverage import results_file

    process_docs, process_results, config = task_hooks(task)
    try:
        docs = process_docs(None)
    except DataLocationExit as exc:
        raise DataError(Problem(str(samples_path), "a --predict_only log: its records are rebuilt from the docs of the "
                                                   f"build the run used, and {exc.error}", field="doc_id")) from None
    target_field = config.get("doc_to_target")
    file = str(samples_path)
    lines: list[str] = []
    problems: list[Problem] = []
    with open_regular(samples_path, file) as raw:
        for row, data in enumerate(raw, start=1):
            if not data.strip():
                continue
            sample = json.loads(data)
            doc_id = sample.get("doc_id")
            if not isinstance(doc_id, int) or not 0 <= doc_id < len(docs):
                problems.append(Problem(file, f"doc_id {doc_id!r} is not a doc of {task} in this build ({len(docs)} docs)",
                                        row=row, field="doc_id"))
                continue
            doc = docs[doc_id]
            if isinstance(target_field, str) and target_field in doc and str(doc[target_field]) != str(sample.get("target")):
                problems.append(Problem(file, f"the run's target {sample.get('target')!r} differs from the build's "
                                              f"{doc[target_field]!r}: point the data variables at the build the run used",
                                        row=row, field="target"))
                continue
            record = process_results(doc, _results(sample.get("filtered_resps"), config.get("output_type", "")))
            lines.append(json.dumps({**{k: v for k, v in sample.items() if k != "bypass"}, **record}, default=_plain) + "\n")
    if problems:
        raise DataError(problems)
    out_folder.mkdir(parents=True, exist_ok=True)
    out = out_folder / samples_path.name
    out.write_text("".join(lines), encoding="utf-8")
    results = results_file(samples_path)
    if results.is_file():
        shutil.copyfile(results, out_folder / results.name)
    return out


def _plain(value: Any) -> Any:
    """NumPy scalars in a record as Python numbers (what lmms-eval's own log writer does)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


@contextmanager
def scorable(files: Sequence[str], prefix: str) -> Iterator[tuple[list[str], dict[str, str]]]:
    """``files`` with every ``--predict_only`` samples file of tasks ``<prefix>...`` (folders searched)
    replaced by its :func:`rebuild` in a scratch folder (removed afterwards), and a map from each
    rebuilt file back to the original; the rebuilt files keep the original run's model name."""
    from medvigil.records import lmms_eval_logs
    from medvigil.records.run_coverage import samples_files

    found = [p for p in samples_files(files, prefix) if is_predict_only(p)]
    if not found:
        yield list(files), {}
        return
    saved = dict(lmms_eval_logs.RUN_LABELS)
    with tempfile.TemporaryDirectory(prefix="medvigil-predict-only-") as scratch:
        runs: dict[Path, Path] = {}
        replaced: dict[Path, Path] = {}
        for path in found:
            folder = runs.setdefault(path.parent.resolve(), Path(scratch) / str(len(runs)))
            task = lmms_eval_logs.SAMPLES.match(path.name).group("task")
            replaced[path] = rebuild(path, task, folder)
            lmms_eval_logs.RUN_LABELS[str(replaced[path])] = lmms_eval_logs.model_name(path)
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
            lmms_eval_logs.RUN_LABELS.clear()
            lmms_eval_logs.RUN_LABELS.update(saved)
