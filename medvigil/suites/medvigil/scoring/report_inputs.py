"""MedVIGIL's block of the report (``REPORT`` of its entry): its score results merged by model (a
model named twice is an error), the authors' seed-variance files (``{"model", "raw"}``) and their
Appendix K ``visual_token_ablation.csv`` beside them, and the sentence opening the report."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.report.blocks import ReportBlock, name_problems, run_notes

NUMERIC_PARTS = (
    "metrics",
    "accuracy",
    "sfr_by_tier",
    "n_by_tier",
    "ci",
)  # numbers (or null) at every leaf
COUNT_PARTS = ("counts", "n_cases", "n_by_tier")  # non-negative whole numbers at every leaf
# metrics are percentages (0-100) or percentage-point contrasts (VGR, -100..100)
METRIC_BOUND = 100.0
CI_SETTINGS = ("level", "n_resamples", "seed")  # the ci blocks' settings, not metric values
MAX_COUNT = 10**12


def _start(block: dict[str, Any]) -> None:
    """The keys every MedVIGIL block opens with (in ``scores.json``'s order)."""
    block.setdefault("suite", "medvigil")
    block.setdefault("models", {})
    block.setdefault("sources", {})
    block.setdefault("warnings", [])


def merge(block: dict[str, Any], data: Mapping[str, Any], file: str, problems: list) -> None:
    """One ``medvigil score --json`` result into ``block``: its models (each checked), settings,
    protocols, run notes, Doctors row, ablations and warnings."""
    _start(block)
    for name, model in data["models"].items():
        found = name_problems(name, file) or _block_problems(model, file, f"models.{name}")
        if found:
            problems.extend(found)
        elif name in block["models"]:
            problems.append(
                Problem(file, f"model {name!r} is also in {block['sources'][name]}", field="models")
            )
        else:
            block["models"][name], block["sources"][name] = model, file
    for key in ("params", "sensitivity"):
        block.setdefault(key, data.get(key))
    if "protocol" in data:  # the runs' protocols (medvigil score); absent in older results
        block.setdefault("protocol", []).extend(data["protocol"])
    block.setdefault("notes", []).extend(run_notes(data))  # partial runs, changed settings
    if data.get("clinician") and not block.get("clinician"):
        block["clinician"] = data["clinician"]
    for kind, per_model in (data.get("ablations") or {}).items():
        block.setdefault("ablations", {}).setdefault(kind, {}).update(per_model)
    block["warnings"] += data.get("warnings", [])


def side_input(block: dict[str, Any], path: Path, data: Any, problems: list) -> bool:
    """The authors' Appendix K CSV (``data`` None) or a seed-variance file into ``block``; False
    for anything else."""
    if data is None:
        _start(block)
        _add_token_ablation_csv(block, path, problems)
        return True
    if isinstance(data, dict) and isinstance(data.get("raw"), dict):
        from medvigil.suites.medvigil.scoring.seed_variance import add_seed_variance

        _start(block)
        add_seed_variance(block.setdefault("seed_variance", {}), data, path, problems)
        return True
    return False


def preamble(block: Mapping[str, Any]) -> str:
    """The report's opening on the audit: models, SFR_w weights, semantics, open-ended judges."""
    from medvigil.suites.medvigil.scoring.open_ended import JUDGE_DESCRIPTIONS

    params = block.get("params") or {}
    text = (
        f"MedVIGIL: {len(block['models'])} model(s); SFR_w weights "
        f"{params.get('weights', '(1, 2, 3, 5, 8)')}, normalisation "
        f"'{params.get('normalise', '?')}'; "
        f"{'official-harness' if params.get('harness_compatible') else 'paper'} semantics. "
        f"Scores are on 0–100; lower SFR is safer. "
    )
    if params.get("open_judge"):
        named = "; ".join(JUDGE_DESCRIPTIONS.get(j, j) for j in params["open_judge"])
        text += (
            f"Open-ended answers (condition '{params.get('condition', '?')}') judged by: {named}. "
        )
    return text


def _block_problems(block: Any, file: str, where: str) -> list[Problem]:
    """Shape of one model's audit block: an object with a ``metrics`` object; numbers at the
    leaves, metrics within +-:data:`METRIC_BOUND`, counts whole and non-negative."""
    if not isinstance(block, dict):
        return [Problem(file, f"must be an object, got {type(block).__name__}", field=where)]
    if not isinstance(block.get("metrics"), dict):
        return [Problem(file, "missing the 'metrics' object", field=f"{where}.metrics")]
    problems = []

    def leaves(value: Any, field: str, check) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                leaves(item, f"{field}.{key}", _count if key in CI_SETTINGS[1:] else check)
        elif value is not None:
            reason = (
                check(value)
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else "must be a number or null"
            )
            if reason is not None:
                problems.append(Problem(file, f"{reason}, got {value!r:.40}", field=field))

    for part in dict.fromkeys(NUMERIC_PARTS + COUNT_PARTS):
        if part in block:
            leaves(block[part], f"{where}.{part}", _count if part in COUNT_PARTS else _metric)
    return problems


def _metric(value: float) -> str | None:
    return (
        None
        if -METRIC_BOUND <= value <= METRIC_BOUND
        else f"must be a percentage within +-{METRIC_BOUND:g}"
    )  # (NaN too)


def _count(value: float) -> str | None:
    return (
        None
        if float(value).is_integer() and 0 <= value <= MAX_COUNT
        else f"must be a whole number in 0..{MAX_COUNT:,}"
    )


def _add_token_ablation_csv(block: dict[str, Any], path: Path, problems: list) -> None:
    """The authors' per-(model, step) Appendix K CSV into ``block["ablations"]["roi_decay_modal"]``
    (:mod:`medvigil.suites.medvigil.harness.harness_ablations`)."""
    from medvigil.suites.medvigil.harness.token_ablation_csv import read_token_ablation_csv

    try:
        table = read_token_ablation_csv(path)
    except OSError as exc:
        problems.append(Problem(str(path), f"not readable: {exc}"))
        return
    except DataError as exc:
        problems.extend(exc.problems)
        return
    modal = block.setdefault("ablations", {}).setdefault("roi_decay_modal", {})
    for model, entry in table.items():
        if model in modal:
            problems.append(
                Problem(
                    str(path),
                    f"ROI-decay results of model {model!r} are given twice",
                    field="model",
                )
            )
        modal[model] = {**entry, "source": str(path)}


REPORT = ReportBlock(
    merge=merge,
    side_input=side_input,
    preamble=preamble,
    file="scores.json",
    indent=None,
    matrix_metric="mcs",
    lead=True,
)
