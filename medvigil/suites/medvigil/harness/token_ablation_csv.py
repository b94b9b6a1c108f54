"""The authors' aggregate ``data/medvigil_v1/visual_token_ablation.csv`` (one row per model and
step of the ROI token decay, Appendix K) in the shape of
:func:`medvigil.suites.medvigil.scoring.roi_decay.roi_decay_modal`."""

import csv
import io
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular
from medvigil.suites.medvigil.scoring.roi_decay import modal_decay_entry

_PERCENT_COLUMNS = (
    "refusal_pct",
    "switch_from_s0_pct",
    "letter_stability_pct",
    "mean_confidence_pct",
)


def read_token_ablation_csv(
    path: str | Path, *, ci_from: str = "percent"
) -> dict[str, dict[str, Any]]:
    """The authors' ``visual_token_ablation.csv`` (per model and step) as Appendix K results.

    Columns ``model, step, step_label, n_cases, refusal_pct, switch_from_s0_pct,
    letter_stability_pct`` (``mean_confidence_pct`` when their runner's own writer made it).
    ``ci_from``: ``"percent"`` (default) computes the Wilson 95% intervals from the file's
    rounded percentages, as their figure script does (so the intervals printed in Appendix K
    are reproduced: GPT-5.5 step 3, 58.8% of 80 -> [47.9, 68.9]); ``"counts"`` from the
    counts ``round(pct * n / 100)`` (47 of 80 -> [47.8, 68.9]).
    """
    if ci_from not in ("percent", "counts"):
        raise ValueError(f"ci_from must be 'percent' or 'counts', got {ci_from!r}")
    file = str(path)
    problems: list[Problem] = []
    steps: dict[str, dict[int, dict[str, Any]]] = {}
    with (
        open_regular(path, file) as raw,
        io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle,
    ):
        reader = csv.DictReader(handle)
        missing = {"model", "step", "n_cases"} - set(reader.fieldnames or ())
        if missing:
            raise DataError(Problem(file, f"missing column(s) {sorted(missing)}", row=None))
        for line, row in enumerate(reader, start=1):
            try:
                step, n = int(row["step"]), int(row["n_cases"])
                values = {
                    k: float(row[k]) for k in _PERCENT_COLUMNS if row.get(k) not in (None, "")
                }
            except (TypeError, ValueError) as exc:
                problems.append(Problem(file, f"not a number: {exc}", row=line))
                continue
            if step in steps.setdefault(row["model"], {}):
                problems.append(
                    Problem(
                        file, f"model {row['model']!r} step {step} twice", row=line, field="step"
                    )
                )
                continue
            steps[row["model"]][step] = _step_counts(values, n, ci_from)
    if problems:
        raise DataError(problems)
    return {model: modal_decay_entry(dict(sorted(per.items()))) for model, per in steps.items()}


def _step_counts(values: dict[str, float], n: int, ci_from: str) -> dict[str, Any]:
    """One step's cases and its refused, switched and stable counts from the percentages."""
    counts = {
        k: (v * n / 100 if ci_from == "percent" else round(v * n / 100))
        for k, v in values.items()
        if k != "mean_confidence_pct"
    }
    return {
        "n": n,
        "refused": counts.get("refusal_pct"),
        "switched": counts.get("switch_from_s0_pct"),
        "stable": counts.get("letter_stability_pct"),
        "mean_modal_share": values.get("mean_confidence_pct"),
    }
