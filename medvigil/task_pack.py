"""The lmms-eval task pack (``tasks/``, installed as ``medvigil.tasks``) as the core reads it, never
importing it: its folder, each task's YAML (read as data), the hooks a YAML names (loaded by name,
as lmms-eval loads them).

What a run of these tasks says (generation settings, ``--predict_only`` rebuild, protocol) is read
in :mod:`medvigil.runs`, which uses this module; this module reads no run.
"""

import functools
import importlib.util  # (binds importlib too)
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem

PACKAGE = "medvigil.tasks"
# located like lmms-eval locates a plugin's tasks (find_spec imports the parent package only)
TASKS_ROOT = Path(importlib.util.find_spec(PACKAGE).submodule_search_locations[0]).resolve()

# Reasoning variants: a tiny protocol budget (8 new tokens for MedVIGIL's MCQ) leaves a thinking
# model no room. ``<task>_reasoning`` is the same task (docs, prompts, scoring) with 4096 new
# tokens: room for the reasoning blocks of common thinking models on a short MCQ (Qwen3, DeepSeek-R1
# distills, QwQ), bounding a run's cost.
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


# read once per process: a score reads every run's task (read-only; callers never change it)
@functools.cache
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


@functools.cache
def hook_sources(task: str) -> dict[str, str]:
    """The source text of the prompt hooks a task's YAML names (``doc_to_text``,
    ``doc_to_messages``, ``doc_to_visual``), read from its ``utils.py`` as text (nothing is
    imported); {} for a task not of this pack. A helper the hooks call is not included."""
    import ast

    found = task_config(task)
    if found is None:
        return {}
    path, config = found
    utils = path.parent / "utils.py"
    text = utils.read_text(encoding="utf-8") if utils.is_file() else ""
    functions = {
        node.name: ast.get_source_segment(text, node) or ""
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef)
    }
    sources = {}
    for key in ("doc_to_text", "doc_to_messages", "doc_to_visual"):
        name = config.get(key)
        if isinstance(name, str) and name.startswith("utils."):
            sources[key] = functions.get(name.removeprefix("utils."), name)
        elif name is not None:
            sources[key] = str(name)
    return sources
