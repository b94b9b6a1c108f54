"""The generation settings a run actually used, against the protocol's (the task YAML's).

lmms-eval records each task's ``generation_kwargs`` in ``<stamp>_results.json`` (``configs``), after
any ``--gen_kwargs`` override. The protocols fix them (MedVIGIL Appendix L: greedy, temperature 0,
top-p 1, at most 8 new tokens); a run that changed them (a reasoning model given room to think,
a sampled run) is scored, with a warning per changed setting. Replies that end inside a reasoning
block (``<think>`` never closed: the token budget ran out while thinking) are parse failures and
are counted, with the fix: a larger ``--gen_kwargs max_new_tokens=N``.

A reasoning variant (``<task>_reasoning``, :func:`medvigil.tasks.task_yaml.reasoning_variant`) is
its own protocol: its 4096-token budget is what its YAML ships, so it is no deviation; its entry
also records the base task's protocol (``reasoning_variant_of``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.files.input_files import open_regular
from medvigil.scoring.letters import REASONING_TAGS
from medvigil.tasks.predictions import task_config
from medvigil.tasks.task_yaml import REASONING_MAX_NEW_TOKENS, reasoning_base, reasoning_name

_SETTINGS = ("max_new_tokens", "temperature", "top_p", "num_beams", "do_sample")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return a == b


def _cut_while_thinking(path: Path) -> int:
    """Records whose reply opens a reasoning block it never closes (and so gives no letter)."""
    from medvigil.records.lmms_eval_logs import _record_of

    n = 0
    openings = [o.encode() for o, _ in REASONING_TAGS]
    with open_regular(path, str(path)) as raw:
        for line in raw:
            if not any(o in line.lower() for o in openings):
                continue  # (most lines: no reasoning block, nothing to parse)
            record = _record_of(json.loads(line)) or {}
            reply = str(record.get("raw_response") or "").lower()
            if record.get("predicted_letter") is None and any(o in reply and c not in reply for o, c in REASONING_TAGS):
                n += 1
    return n


def generation_report(paths: Iterable[str | Path], prefix: str = "") -> dict[str, Any] | None:
    """Per task of the samples files among ``paths``: the settings used, the protocol's, those that
    differ, and the replies cut while thinking; plus the warnings. None: no generation task."""
    from medvigil.records.run_coverage import run_results, samples_files

    tasks: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for path in samples_files(paths, prefix):
        from medvigil.records.lmms_eval_logs import SAMPLES

        task = SAMPLES.match(path.name).group("task")
        shipped = task_config(task)
        protocol = (shipped[1].get("generation_kwargs") or {}) if shipped else {}
        if not protocol:
            continue  # log-likelihood tasks generate nothing
        used = (((run_results(path) or {}).get("configs") or {}).get(task) or {}).get("generation_kwargs") or {}
        differs = {k: {"used": used.get(k), "protocol": protocol[k]} for k in _SETTINGS
                   if k in protocol and not _same(used.get(k), protocol[k])}
        entry = {"used": {k: used.get(k) for k in _SETTINGS if k in used}, "protocol": {k: protocol[k] for k in _SETTINGS
                 if k in protocol}, "differs": differs, "cut_while_thinking": _cut_while_thinking(path)}
        base = reasoning_base(task)
        base_config = task_config(base) if base else None
        if base_config:
            # a reasoning variant: its own budget is its protocol (no warning); the base task's is recorded beside it
            base_protocol = base_config[1].get("generation_kwargs") or {}
            entry["reasoning_variant_of"] = {"task": base, "protocol": {k: base_protocol[k] for k in _SETTINGS
                                                                        if k in base_protocol}}
        tasks[task if task not in tasks else f"{task} ({path})"] = entry
        if differs and used:
            listed = ", ".join(f"{k} {v['used']} (protocol {v['protocol']})" for k, v in differs.items())
            warnings.append(f"{task}: generation settings differ from the protocol's: {listed}; the scores are not "
                            "comparable with the paper's")
        if entry["cut_while_thinking"]:
            warnings.append(f"{task}: {entry['cut_while_thinking']} repl(ies) ended inside a reasoning block (no answer, "
                            "counted as parse failures); give a reasoning model more room: "
                            + (f"--gen_kwargs max_new_tokens=N above {REASONING_MAX_NEW_TOKENS}" if base else
                               f"the task {reasoning_name(task)} ({REASONING_MAX_NEW_TOKENS} new tokens) or "
                               "--gen_kwargs max_new_tokens=4096" if task_config(reasoning_name(task)) else
                               "--gen_kwargs max_new_tokens=4096"))
    return {"tasks": tasks, "warnings": warnings} if tasks else None
