"""A run's generation settings against its task's protocol (``medvigil score``'s ``generation``).

lmms-eval records each task's ``generation_kwargs``, after any ``--gen_kwargs`` override, in
``<stamp>_results.json`` (:meth:`medvigil.runs.lmms_run.LmmsRun.generation_kwargs`). The protocols
fix them (MedVIGIL Appendix L: greedy, temperature 0, top-p 1, at most 8 new tokens); a run that
changed them is scored, with a warning per changed setting. Replies cut inside a reasoning block
(``<think>`` never closed: the budget ran out while thinking) are parse failures, counted with the
fix. A reasoning variant's 4096-token budget is its own protocol (no warning).
"""

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.files.input_files import open_regular
from medvigil.runs.lmms_run import record_of, runs_of
from medvigil.scoring.letters import REASONING_TAGS
from medvigil.task_pack import (
    REASONING_MAX_NEW_TOKENS,
    reasoning_base,
    reasoning_name,
    task_config,
)

SETTINGS = ("max_new_tokens", "temperature", "top_p", "num_beams", "do_sample")


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
    n = 0
    openings = [o.encode() for o, _ in REASONING_TAGS]
    with open_regular(path, str(path)) as raw:
        for line in raw:
            lowered = line.lower()
            if not any(o in lowered for o in openings):
                continue  # (most lines: no reasoning block, nothing to parse)
            record = record_of(json.loads(line)) or {}
            reply = str(record.get("raw_response") or "").lower()
            if record.get("predicted_letter") is None and any(
                o in reply and c not in reply for o, c in REASONING_TAGS
            ):
                n += 1
    return n


def task_protocol(task: str, model: str | None = None) -> dict[str, Any]:
    """The protocol's generation settings in a task's YAML (:func:`task_config`; {} when none),
    with what its ``model_specific_generation_kwargs`` set for lmms-eval model ``model`` (as
    lmms-eval applies them)."""
    found = task_config(task)
    kwargs = dict((found[1].get("generation_kwargs") or {}) if found else {})
    per_model = (found[1].get("model_specific_generation_kwargs") or {}) if found else {}
    if kwargs and per_model:
        kwargs.update(per_model.get(model) or per_model.get("default") or {})
    return {k: kwargs[k] for k in SETTINGS if k in kwargs}


def differences(used: dict[str, Any], protocol: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The settings of ``protocol`` that ``used`` changed: ``{name: {"used", "protocol"}}``."""
    return {
        k: {"used": used.get(k), "protocol": v}
        for k, v in protocol.items()
        if not _same(used.get(k), v)
    }


def listed(differs: dict[str, dict[str, Any]]) -> list[str]:
    """Each difference as ``"temperature 0.5 (protocol 0)"``."""
    return [f"{k} {v['used']} (protocol {v['protocol']})" for k, v in differs.items()]


def _more_room(task: str, base: str | None) -> str:
    """How to give a reasoning model more new tokens than ``task`` has (``base``: the task it is a
    variant of)."""
    if base:
        return f"--gen_kwargs max_new_tokens=N above {REASONING_MAX_NEW_TOKENS}"
    if task_config(reasoning_name(task)):
        return (
            f"the task {reasoning_name(task)} ({REASONING_MAX_NEW_TOKENS} "
            f"new tokens) or --gen_kwargs max_new_tokens=4096"
        )
    return "--gen_kwargs max_new_tokens=4096"


def generation_report(paths: Iterable[str | Path], prefix: str = "") -> dict[str, Any] | None:
    """Per task of the samples files among ``paths``: the settings used, the protocol's, those that
    differ, and the replies cut while thinking; plus the warnings. None: no generation task."""
    tasks: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for run in runs_of(paths, prefix):
        path, task = run.samples, run.task
        protocol = task_protocol(task, run.adapter["name"])
        if not protocol:
            continue  # log-likelihood tasks generate nothing
        used = run.generation_kwargs()
        differs = differences(used, protocol)
        entry = {
            "used": {k: used[k] for k in SETTINGS if k in used},
            "protocol": protocol,
            "differs": differs,
            "cut_while_thinking": _cut_while_thinking(path),
        }
        base = reasoning_base(task)
        if base and task_config(base):  # a reasoning variant: its own budget is its protocol
            # (no warning); the base task's beside it
            entry["reasoning_variant_of"] = {"task": base, "protocol": task_protocol(base)}
        tasks[task if task not in tasks else f"{task} ({path})"] = entry
        if differs and used:
            warnings.append(
                f"{task}: generation settings differ from the protocol's: "
                f"{', '.join(listed(differs))}; the scores are not comparable with the paper's"
            )
        if entry["cut_while_thinking"]:
            warnings.append(
                f"{task}: {entry['cut_while_thinking']} repl(ies) ended inside "
                f"a reasoning block (no answer, counted as parse failures); give "
                f"a reasoning model more room: {_more_room(task, base)}"
            )
    return {"tasks": tasks, "warnings": warnings} if tasks else None
