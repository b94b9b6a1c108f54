"""The lmms-eval task pack (``tasks/``, installed as ``medvigil.tasks``) as the core reads it, never importing it:
its folder, each task's YAML (read as data), the hooks a YAML names (loaded by name, as lmms-eval loads them).

Generation settings (:func:`generation_report`): lmms-eval records each task's ``generation_kwargs``, after any
``--gen_kwargs`` override, in ``<stamp>_results.json``. The protocols fix them (MedVIGIL Appendix L: greedy,
temperature 0, top-p 1, at most 8 new tokens); a run that changed them is scored, with a warning per changed
setting. Replies cut inside a reasoning block (``<think>`` never closed: the budget ran out while thinking) are
parse failures, counted with the fix. A reasoning variant's 4096-token budget is its own protocol (no deviation).

``--predict_only`` runs (:func:`scorable`): lmms-eval 0.7.3 replaces the metrics by ``bypass`` and drops
``process_results``, so it logs each doc's id, target and responses but not our record. :func:`rebuild` builds it with the task's own
hooks, on the docs of the build the run used (``MEDVIGIL_DATA`` / ``MEDICONFUSION_DATA``; every doc's target is
checked against the logged one), into a normal-shaped log in a scratch folder beside a copy of the results file.
"""

import functools
import importlib.util  # (binds importlib too)
import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular

PACKAGE = "medvigil.tasks"
# located like lmms-eval locates a plugin's tasks (find_spec imports the parent package only)
TASKS_ROOT = Path(importlib.util.find_spec(PACKAGE).submodule_search_locations[0]).resolve()

# Reasoning variants: a tiny protocol budget (8 new tokens for MedVIGIL's MCQ) leaves a thinking model no room.
# ``<task>_reasoning`` is the same task (docs, prompts, scoring) with 4096 new tokens: room for the reasoning blocks
# of common thinking models on a short MCQ (Qwen3, DeepSeek-R1 distills, QwQ), bounding a run's cost.
REASONING_SUFFIX = "_reasoning"
REASONING_MAX_NEW_TOKENS = 4096


def reasoning_name(name: str) -> str:
    """The reasoning variant's task (or group) name of ``name``."""
    return f"{name}{REASONING_SUFFIX}"


def reasoning_base(name: str) -> str | None:
    """The base task a reasoning variant's name comes from (None: not a reasoning variant)."""
    return name.removesuffix(REASONING_SUFFIX) if name.endswith(REASONING_SUFFIX) else None


def _yaml(path: Path) -> dict:
    """A task YAML (``!function`` values kept as their dotted names) merged over its ``include``."""
    import yaml

    Loader = type(
        "Loader", (yaml.SafeLoader,), {}
    )  # a loader of our own: the constructor below stays here
    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
    if "include" in config:
        config = {**_yaml(path.parent / config.pop("include")), **config}
    return config


@functools.cache  # read once per process: a score reads every run's task (read-only; callers never change it)
def task_config(task: str) -> tuple[Path, dict] | None:
    """The YAML file and the configuration (template merged) of a task of this pack, or None."""
    found = sorted(TASKS_ROOT.glob(f"*/{task}.yaml"))
    return (found[0], _yaml(found[0])) if len(found) == 1 else None


def task_hooks(task: str) -> tuple[Any, Any, dict]:
    """``(process_docs, process_results, config)`` of an lmms-eval task of this pack."""
    found = task_config(task)
    if found is None:
        raise DataError(
            Problem(
                task,
                "not a task of the medvigil task pack; cannot rebuild its --predict_only records",
                field="task",
            )
        )
    path, config = found
    utils = importlib.import_module(f"{PACKAGE}.{path.parent.name}.utils")

    def hook(name: str):
        value = config.get(name)
        if not isinstance(value, str) or not value.startswith("utils."):
            raise DataError(
                Problem(str(path), f"no {name} hook to rebuild --predict_only records", field=name)
            )
        return getattr(utils, value.removeprefix("utils."))

    return hook("process_docs"), hook("process_results"), config


# --------------------------------------------------------------------------- generation settings
_SETTINGS = ("max_new_tokens", "temperature", "top_p", "num_beams", "do_sample")


def _same(a: Any, b: Any) -> bool:
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return float(a) == float(b)
    return a == b


def _cut_while_thinking(path: Path) -> int:
    """Records whose reply opens a reasoning block it never closes (and so gives no letter)."""
    from medvigil.records.lmms_eval_logs import _record_of
    from medvigil.scoring.letters import REASONING_TAGS

    n = 0
    openings = [o.encode() for o, _ in REASONING_TAGS]
    with open_regular(path, str(path)) as raw:
        for line in raw:
            lowered = line.lower()
            if not any(o in lowered for o in openings):
                continue  # (most lines: no reasoning block, nothing to parse)
            record = _record_of(json.loads(line)) or {}
            reply = str(record.get("raw_response") or "").lower()
            if record.get("predicted_letter") is None and any(
                o in reply and c not in reply for o, c in REASONING_TAGS
            ):
                n += 1
    return n


def _protocol(found: tuple[Path, dict] | None, model: str | None = None) -> dict[str, Any]:
    """The protocol's generation settings in a task's :func:`task_config` ({} when none), with what
    its ``model_specific_generation_kwargs`` set for lmms-eval model ``model`` (as lmms-eval does)."""
    kwargs = dict((found[1].get("generation_kwargs") or {}) if found else {})
    per_model = (found[1].get("model_specific_generation_kwargs") or {}) if found else {}
    if kwargs and per_model:
        kwargs.update(per_model.get(model) or per_model.get("default") or {})
    return {k: kwargs[k] for k in _SETTINGS if k in kwargs}


def _more_room(task: str, base: str | None) -> str:
    """How to give a reasoning model more new tokens than ``task`` has (``base``: the task it is a variant of)."""
    if base:
        return f"--gen_kwargs max_new_tokens=N above {REASONING_MAX_NEW_TOKENS}"
    if task_config(reasoning_name(task)):
        return f"the task {reasoning_name(task)} ({REASONING_MAX_NEW_TOKENS} new tokens) or --gen_kwargs max_new_tokens=4096"
    return "--gen_kwargs max_new_tokens=4096"


def generation_report(paths: Iterable[str | Path], prefix: str = "") -> dict[str, Any] | None:
    """Per task of the samples files among ``paths``: the settings used, the protocol's, those that
    differ, and the replies cut while thinking; plus the warnings. None: no generation task."""
    from medvigil.records.lmms_eval_logs import SAMPLES
    from medvigil.records.run_coverage import run_results, samples_files

    tasks: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for path in samples_files(paths, prefix):
        task = SAMPLES.match(path.name).group("task")
        results = run_results(path) or {}
        protocol = _protocol(task_config(task), (results.get("config") or {}).get("model"))
        if not protocol:
            continue  # log-likelihood tasks generate nothing
        used = ((results.get("configs") or {}).get(task) or {}).get("generation_kwargs") or {}
        differs = {
            k: {"used": used.get(k), "protocol": v}
            for k, v in protocol.items()
            if not _same(used.get(k), v)
        }
        entry = {
            "used": {k: used[k] for k in _SETTINGS if k in used},
            "protocol": protocol,
            "differs": differs,
            "cut_while_thinking": _cut_while_thinking(path),
        }
        base = reasoning_base(task)
        base_config = task_config(base) if base else None
        if base_config:  # a reasoning variant: its own budget is its protocol (no warning); the base task's beside it
            entry["reasoning_variant_of"] = {"task": base, "protocol": _protocol(base_config)}
        tasks[task if task not in tasks else f"{task} ({path})"] = entry
        if differs and used:
            listed = ", ".join(
                f"{k} {v['used']} (protocol {v['protocol']})" for k, v in differs.items()
            )
            warnings.append(
                f"{task}: generation settings differ from the protocol's: {listed}; the scores are not "
                "comparable with the paper's"
            )
        if entry["cut_while_thinking"]:
            warnings.append(
                f"{task}: {entry['cut_while_thinking']} repl(ies) ended inside a reasoning block (no answer, "
                f"counted as parse failures); give a reasoning model more room: {_more_room(task, base)}"
            )
    return {"tasks": tasks, "warnings": warnings} if tasks else None


# --------------------------------------------------------------------------- --predict_only runs
def is_predict_only(samples_path: Path) -> bool:
    """A samples file of a ``--predict_only`` run: its first line has lmms-eval's ``bypass`` entry
    and no per-probe record."""
    from medvigil.records.lmms_eval_logs import _record_of

    with open_regular(samples_path, str(samples_path)) as raw:
        for line in raw:
            if line.strip():
                sample = json.loads(line)
                return (
                    isinstance(sample, dict) and "bypass" in sample and _record_of(sample) is None
                )
    return False


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
        raise DataError(
            Problem(
                str(samples_path),
                "a --predict_only log: its records are rebuilt from the docs of the "
                f"build the run used, and {exc.error}",
                field="doc_id",
            )
        ) from None
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
                problems.append(
                    Problem(
                        file,
                        f"doc_id {doc_id!r} is not a doc of {task} in this build ({len(docs)} docs)",
                        row=row,
                        field="doc_id",
                    )
                )
                continue
            doc = docs[doc_id]
            if (
                isinstance(target_field, str)
                and target_field in doc
                and str(doc[target_field]) != str(sample.get("target"))
            ):
                problems.append(
                    Problem(
                        file,
                        f"the run's target {sample.get('target')!r} differs from the build's "
                        f"{doc[target_field]!r}: point the data variables at the build the run used",
                        row=row,
                        field="target",
                    )
                )
                continue
            record = process_results(
                doc, _results(sample.get("filtered_resps"), config.get("output_type", ""))
            )
            lines.append(
                json.dumps(
                    {**{k: v for k, v in sample.items() if k != "bypass"}, **record}, default=_plain
                )
                + "\n"
            )
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
