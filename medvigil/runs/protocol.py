"""The protocol each scored run actually ran: the ``protocol`` list of every score JSON.

One entry per run and task (an lmms-eval samples file) or per result file of another format (the
authors' files: what is known, the rest marked unknown)::

    {"model", "task", "source", "adapter": {"name", "class", "kind"}, "system_instruction",
     "generation": {setting: value}, "prompt_sha256", "parser", "judge",
     "fingerprint", "deviations": ["temperature 0.5 (protocol 0)", ...], "unknown": [...]}

``fingerprint`` is the sha256 (hex) of the canonical JSON of everything but the model's name, the
source and the deviations: two runs with one fingerprint ran one protocol, whatever the model.
``prompt_sha256`` covers the prompt kwargs lmms-eval resolved for the run (its results file's
``configs.<task>.lmms_eval_specific_kwargs``) and the source of the task's prompt hooks in the
installed task pack (:func:`medvigil.task_pack.hook_sources`). ``deviations`` name each departure
from the paper's protocol: generation settings that differ from the task's (:mod:`.generation`), a
reasoning variant's budget, an lmms-eval ``--system_instruction``, and what the adapter class does
to the prompt (:mod:`.adapters`). A suite may add its own (``protocol_details`` in its registry
entry).
"""

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.runs.adapters import prompt_deviations
from medvigil.runs.generation import SETTINGS, differences, listed, task_protocol
from medvigil.runs.lmms_run import LmmsRun, is_samples_file, samples_files
from medvigil.task_pack import hook_sources, reasoning_base, task_config

UNKNOWN = "unknown"
LETTER_PARSER = (
    "medvigil.scoring.letters"  # every letter-answer task's process_results parses with it
)
_NOT_HASHED = ("model", "source", "fingerprint", "deviations", "unknown")


def fingerprint(entry: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of ``entry`` without the model, source and deviations."""
    kept = {k: v for k, v in entry.items() if k not in _NOT_HASHED}
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _prompt_sha256(run: LmmsRun) -> str:
    config = ((run.results or {}).get("configs") or {}).get(run.task) or {}
    kwargs = config.get("lmms_eval_specific_kwargs") or {}
    resolved = {k: v for k, v in kwargs.items() if not isinstance(v, dict)}  # the per-model tables
    keys = ("description", "target_delimiter", "fewshot_delimiter", "num_fewshot")
    template = {
        "kwargs": resolved,
        "hooks": hook_sources(run.task),
        **{k: config.get(k) for k in keys},
    }
    text = json.dumps(template, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _parser(task: str) -> str:
    found = task_config(task)
    config = found[1] if found else {}
    output = config.get("output_type") or UNKNOWN
    results = config.get("process_results") or UNKNOWN
    parser = LETTER_PARSER if output.startswith("generate") else "log-likelihoods"
    return f"{results} ({output}; {parser})"


def _run_deviations(run: LmmsRun, used: dict, entry: dict) -> list[str]:
    task = run.task
    protocol = task_protocol(task, run.adapter["name"])
    deviations = listed(differences(used, protocol)) if used else []
    base = reasoning_base(task)
    if base and task_config(base):
        budget = task_protocol(base).get("max_new_tokens")
        deviations.append(
            f"max_new_tokens {used.get('max_new_tokens')} (reasoning variant of {base}; "
            f"protocol {budget})"
        )
    if run.system_instruction:
        deviations.append("lmms-eval --system_instruction adds a system text to every request")
    sends_system = '"system"' in hook_sources(task).get("doc_to_messages", "")
    adapter = entry["adapter"]
    deviations += prompt_deviations(adapter["class"], adapter["kind"], sends_system)
    return deviations


def run_entry(run: LmmsRun) -> dict[str, Any]:
    """The protocol entry of one lmms-eval run's task."""
    used = run.generation_kwargs()
    entry: dict[str, Any] = {
        "model": run.label,
        "task": run.task,
        "source": "lmms-eval",
        "adapter": run.adapter,
        "system_instruction": run.system_instruction,
        "generation": {k: used[k] for k in SETTINGS if k in used},
        "prompt_sha256": _prompt_sha256(run),
        "parser": _parser(run.task),
        "judge": None,
    }
    entry["deviations"] = _run_deviations(run, used, entry)
    entry["unknown"] = [
        what
        for what, known in (("adapter class", run.adapter["class"]), ("generation settings", used))
        if not known
    ]
    return entry


def file_entry(path: Path, models: Iterable[str]) -> dict[str, Any]:
    """The protocol entry of a result file of another format (the authors' files): the model its
    name gives, the rest unknown; the parser and judge are the scorer's (a suite may fill them)."""
    names = sorted((m for m in models if m and m in path.name), key=len, reverse=True)
    return {
        "model": names[0] if names else UNKNOWN,
        "task": path.name.replace(names[0], "<model>", 1) if names else path.name,
        "source": "result file",
        "adapter": {"name": UNKNOWN, "class": None, "kind": None},
        "system_instruction": None,
        "generation": UNKNOWN,
        "prompt_sha256": UNKNOWN,
        "parser": UNKNOWN,
        "judge": None,
        "deviations": [],
        "unknown": ["adapter", "generation settings", "prompt"],
    }


def protocol_entries(
    files: Iterable[str | Path], prefix: str, models: Iterable[str]
) -> list[dict[str, Any]]:
    """One entry per lmms-eval run's task among ``files`` (folders searched for tasks
    ``<prefix>...``) and per other result file; ``models``: the models the score names. Call
    :func:`sealed` once a suite has added its details."""
    entries = [run_entry(LmmsRun.of(p)) for p in samples_files(files, prefix)]
    models = list(models)
    for path in map(Path, files):
        if path.is_file() and not is_samples_file(path):
            entries.append(file_entry(path, models))
        elif path.is_dir() and not samples_files([path], prefix):  # a folder of result files
            found = [p for p in sorted(path.rglob("*")) if p.is_file()]
            entries += [file_entry(p, models) for p in found if any(m in p.name for m in models)]
    return entries


def sealed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` with their fingerprints, in the order the JSON shows."""
    return [{**e, "fingerprint": fingerprint(e)} for e in entries]


def mismatches(entries: list[Mapping[str, Any]]) -> list[str]:
    """Warnings for the entries of one task whose fingerprints differ, naming what differs."""
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for entry in entries:
        by_task.setdefault(str(entry.get("task")), []).append(entry)
    warnings = []
    for task, group in by_task.items():
        first = group[0]
        for other in group[1:]:
            if other.get("fingerprint") == first.get("fingerprint"):
                continue
            keys = [
                k
                for k in sorted(set(first) | set(other))
                if k not in _NOT_HASHED and first.get(k) != other.get(k)
            ]
            said = "; ".join(f"{k}: {first.get(k)!r} vs {other.get(k)!r}" for k in keys)
            warnings.append(
                f"{task}: {first.get('model')} and {other.get('model')} ran different protocols "
                f"(fingerprints {str(first.get('fingerprint'))[:12]} vs "
                f"{str(other.get('fingerprint'))[:12]}): {said}"
            )
    return warnings
