"""MediConfusion in the suite registry: score result files against the authors' ``dataset.json``.

``files``: the authors' ``Results/<model>_<mode>.json`` or lmms-eval ``--log_samples`` files of the
``mediconfusion_*`` tasks (one run per model and mode).
"""

from pathlib import Path
from typing import Any

from medvigil.files.json_text import finite
from medvigil.report.blocks import ReportBlock
from medvigil.runs.lmms_run import is_samples_file
from medvigil.suites.mediconfusion.authors_results import read_results
from medvigil.suites.mediconfusion.lmms_eval_runs import runs_from_lmms_eval
from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS, best_over_modes
from medvigil.suites.mediconfusion.release import Release, read_release
from medvigil.suites.mediconfusion.run import MediConfusionRun
from medvigil.suites.mediconfusion.scoring import (
    RANDOM_INDIVIDUAL_ACCURACY,
    RANDOM_SET_ACCURACY,
    MediConfusionScore,
)
from medvigil.suites.mediconfusion.tables import figures, tables

__all__ = ["REPORT", "headline", "figures", "format_table", "models", "n_scored", "score", "tables"]

REPORT = ReportBlock(body="best_over_modes")  # one result, its models' best mode


def score(
    files: list[str], *, release: str, margin: float = 3, confusion_denominator: str = "both_valid"
) -> dict:
    """Read, score and summarise MediConfusion result files (JSON-serialisable dict)."""
    release = read_release(release)  # the path, then the parsed release
    logs = [f for f in files if is_samples_file(Path(f))]
    # every file read before scoring; lmms-eval logs carry their own answers (margin inside)
    runs = [read_results(path, release, margin=margin) for path in files if path not in logs]
    scored = _scored(runs, confusion_denominator)
    if logs:
        scored += _scored_logs(logs, release, confusion_denominator)
    by_model: dict[str, dict[str, Any]] = {}
    for entry, run_score in scored:
        modes = by_model.setdefault(entry["model"], {})
        key = (
            entry["mode"]
            if entry["mode"] not in modes
            else f"{entry['mode']} ({Path(entry['file']).name})"
        )
        modes[key] = run_score
    return finite(
        {
            "suite": "mediconfusion",
            "release": release.path,
            "n_release_pairs": len(release.pairs),
            "margin": margin,
            "confusion_denominator": confusion_denominator,
            "random_guessing": {
                "set_accuracy": RANDOM_SET_ACCURACY,
                "individual_accuracy": RANDOM_INDIVIDUAL_ACCURACY,
            },
            "runs": [entry for entry, _ in scored],
            "best_over_modes": {model: best_over_modes(modes) for model, modes in by_model.items()},
        }
    )


def _scored(
    runs: list[MediConfusionRun], confusion_denominator: str
) -> list[tuple[dict[str, Any], MediConfusionScore]]:
    """Each run's entry of the result, with its scores."""
    out = []
    for run in runs:
        run_score = run.score(confusion_denominator=confusion_denominator)
        out.append(
            (
                {
                    "file": run.path,
                    "model": run.model,
                    "mode": run.mode,
                    "mode_label": MODE_LABELS.get(run.mode),
                    "n_missing_pairs": len(run.missing_pairs),
                    "missing_pairs": list(run.missing_pairs),
                    **run_score.to_dict(),
                },
                run_score,
            )
        )
    return out


def _scored_logs(
    logs: list[str], release: Release, confusion_denominator: str
) -> list[tuple[dict[str, Any], MediConfusionScore]]:
    """:func:`_scored` of the runs of lmms-eval logs, in the order of the runs' first files."""
    runs = runs_from_lmms_eval(logs, release)
    first_file = {path: i for i, path in reversed(list(enumerate(map(str, logs))))}
    return [
        item
        for _, item in sorted(
            zip(runs, _scored(runs, confusion_denominator)),
            key=lambda pair: first_file[str(pair[0].files[0])],
        )
    ]


def _pct(value: float | None) -> str:
    return "    n/a" if value is None else f"{100 * value:6.2f}%"


def _cell(count: int | str, rate: float | None) -> str:
    return f"{count:>5} ({_pct(rate)})"


def _cells(counts: dict) -> str:
    """The set, individual, confused and invalid cells of a run or a category."""
    keys = (
        ("set_correct", "set_accuracy"),
        ("individual_correct", "individual_accuracy"),
        ("confused", "confusion"),
        ("invalid", "invalid_rate"),
    )
    return "  ".join(_cell(counts[count], counts[rate]) for count, rate in keys)


def format_table(result: dict) -> str:
    """Render the result of :func:`score` as plain-text tables."""
    lines = [
        f"MediConfusion: release {result['release']} ({result['n_release_pairs']} pairs); "
        f"vote margin {result['margin']}; confusion over "
        + (
            "pairs with two valid answers"
            if result["confusion_denominator"] == "both_valid"
            else "all pairs"
        ),
        "",
    ]
    head = (
        f"{'model':<16} {'mode':<8} {'pairs':>5} {'missing':>7}  {'set':>14} "
        f" {'individual':>14}  {'confused':>14}  {'invalid':>14}"
    )
    lines += [head, "-" * len(head)]
    for r in result["runs"]:
        lines.append(
            f"{r['model']:<16} {r['mode']:<8} {r['n_pairs']:>5} "
            f"{r['n_missing_pairs']:>7}  {_cells(r)}"
        )
    rg = result["random_guessing"]
    lines.append(
        f"{'random guessing':<16} {'':<8} {'':>5} {'':>7}  {_cell('', rg['set_accuracy'])} "
        f" {_cell('', rg['individual_accuracy'])}"
    )
    lines.append(
        "Percentages: set and confused over pairs (confused: "
        "see header), individual and invalid over images."
    )
    for r in result["runs"]:
        lines += [
            "",
            f"{r['model']} / {r['mode']} ({Path(r['file']).name}) "
            f"by category (counts, % of the category's images)",
        ]
        sub = (
            f"  {'category':<18} {'images':>6}  {'set':>14}  {'individual':>14} "
            f" {'confused':>14}  {'invalid':>14}"
        )
        lines += [sub, "  " + "-" * (len(sub) - 2)]
        for cat, c in r["per_category"].items():
            lines.append(f"  {cat:<18} {c['images']:>6}  {_cells(c)}")
    if any(len(b["modes"]) > 1 for b in result["best_over_modes"].values()):
        lines += ["", "Best over modes (Table 1 'Best')"]
        for model, b in result["best_over_modes"].items():
            lines.append(
                f"  {model:<16} set {_pct(b['best_set_accuracy'])} ({b['best_set_mode']})  "
                f"individual {_pct(b['best_individual_accuracy'])} ({b['best_individual_mode']})"
            )
    return "\n".join(lines)


def n_scored(result: dict) -> int:
    """Pairs scored over every run."""
    return sum(int(run.get("n_pairs") or 0) for run in result["runs"])


def models(result: dict) -> list[str]:
    return sorted(result["best_over_modes"])


def headline(result: dict) -> list[dict]:
    """The report summary's number per model: set accuracy (%) of its best mode, no CI."""
    out = []
    for model, block in sorted((result.get("best_over_modes") or {}).items()):
        best = block.get("best_set_accuracy")
        value = None if best is None else 100.0 * best
        out.append({"model": model, "metric": "set accuracy (%)", "value": value, "ci": None})
    return out


def protocol_details(entry: dict, result: dict) -> dict:
    """What the lmms-eval adapter of a run of one of the authors'-prompt tasks
    (``mediconfusion_{mc,gd,ps,ff}``) cannot send as the authors' client does
    (:func:`medvigil.suites.mediconfusion.prompts.adapter_deviations`)."""
    from medvigil.suites.mediconfusion.prompts import adapter_deviations

    mode = str(entry.get("task", "")).removeprefix("mediconfusion_")
    adapter = (entry.get("adapter") or {}).get("name")
    if mode not in ("mc", "gd", "ps", "ff") or not isinstance(adapter, str):
        return {}
    return {"deviations": adapter_deviations(adapter, mode)}
