"""How a suite's results enter the report: the :class:`ReportBlock` a suite's entry declares
(``REPORT``; a suite that declares none gets the default), and the checks every block shares."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.errors import Problem

MAX_MODELS = 100  # models per report (tables and figures of every model; 10,000 took 91 s, 3.3 GB)
# characters of a model name (a 100,000-character name exhausted memory in the figures)
MAX_NAME_CHARS = 200

# ``merge(block, data, file, problems)``: one score result into the suite's block (created empty)
Merge = Callable[[dict[str, Any], Mapping[str, Any], str, list[Problem]], None]
# ``side_input(block, path, data, problems) -> bool``: a file beside the results (``data`` None
# for a CSV, else its JSON without a ``suite``) taken into the block, or False when not its own
SideInput = Callable[[dict[str, Any], Path, Any, list[Problem]], bool]


@dataclass(frozen=True)
class ReportBlock:
    """A suite's block of the report.

    ``body``: the object every score result of the suite has. ``merge``: several results merged
    into one block (e.g. by model), else one result per suite, its numbers checked by the report.
    ``side_input``: other files the suite reads beside its results. ``preamble``: its sentence
    opening the report (the others are listed as "Also scored"). ``file``: its name in the report
    folder (default ``<suite>.json``), written with ``indent``. ``matrix_metric``: the metric its
    comparison's matrix shows (default the first compared). ``lead``: its section comes first (the
    others follow by name)."""

    body: str = "models"
    merge: Merge | None = None
    side_input: SideInput | None = None
    preamble: Callable[[Mapping[str, Any]], str] | None = None
    file: str | None = None
    indent: int | None = 2
    matrix_metric: str | None = None
    lead: bool = False


def run_notes(data: Mapping[str, Any]) -> list[str]:
    """The sentences a score result carries about its runs: ``medvigil score``'s partial-run
    statement and generation-settings warnings (or the ``notes`` of merged results)."""
    notes = list(data.get("notes") or [])
    partial = data.get("partial")
    if isinstance(partial, dict) and partial.get("statement"):
        notes.append(str(partial["statement"]))
    generation = data.get("generation")
    if isinstance(generation, dict):
        notes += [str(w) for w in generation.get("warnings") or []]
    return notes


def name_problems(name: str, file: str) -> list[Problem]:
    """A model name too long to draw, empty or holding control characters."""
    if len(name) > MAX_NAME_CHARS:
        return [
            Problem(
                file,
                f"model name of {len(name):,} characters ({name[:40]!r}...); "
                f"at most {MAX_NAME_CHARS}",
                field="models",
            )
        ]
    if not name.strip() or any(not c.isprintable() for c in name):
        return [
            Problem(
                file,
                f"model name {name[:60]!r} is empty or holds control characters",
                field="models",
            )
        ]
    return []
