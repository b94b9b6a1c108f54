"""The MediConfusion tables (Table 1 per mode and best over modes, Table 3 by category) and figure
of ``medvigil score --suite mediconfusion`` and the report."""

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from medvigil.report.render import FigureMaker, Table, fmt, png, pyplot
from medvigil.suites.mediconfusion.categories import CATEGORIES, CATEGORY_SHORT_NAMES
from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS


def _pct(value: Any) -> str:
    return fmt(None if value is None else 100.0 * value)


def _nan(value: Any) -> float:
    return float("nan") if value is None else 100.0 * float(value)


def tables(result: Mapping[str, Any]) -> list[Table]:
    rg = result["random_guessing"]
    rows = [
        [
            r["model"],
            r["mode_label"] or r["mode"],
            str(r["n_pairs"]),
            _pct(r["set_accuracy"]),
            _pct(r["individual_accuracy"]),
            _pct(r["confusion"]),
            _pct(r["invalid_rate"]),
        ]
        for r in sorted(result["runs"], key=lambda r: (r["model"], r["mode"]))
    ]
    rows.append(
        [
            "random guessing",
            "",
            "",
            _pct(rg["set_accuracy"]),
            _pct(rg["individual_accuracy"]),
            "",
            "",
        ]
    )
    best = result["best_over_modes"]
    return [
        Table(
            "MediConfusion per answering mode (Table 1 layout; %)",
            ["Model", "mode", "pairs", "set acc ↑", "individual acc ↑", "confusion ↓", "invalid ↓"],
            rows,
            f"Set accuracy: both images of a pair right; confusion: the same answer for "
            f"both images, over pairs with two valid answers "
            f"({result['confusion_denominator']}); an image's answer needs a vote margin of "
            f"{result['margin']}.",
        ),
        Table(
            "Best over modes (Table 1 'Best'; %)",
            ["Model", "best set acc", "mode", "best individual acc", "mode"],
            [
                [
                    m,
                    _pct(b["best_set_accuracy"]),
                    MODE_LABELS.get(b["best_set_mode"], str(b["best_set_mode"])),
                    _pct(b["best_individual_accuracy"]),
                    MODE_LABELS.get(b["best_individual_mode"], str(b["best_individual_mode"])),
                ]
                for m, b in sorted(best.items())
            ],
        ),
        table3(best),
    ]


def table3(best: Mapping[str, Any]) -> Table:
    """Table 3 of the paper: per category, each model's best set and individual accuracy over
    its modes (each maximised on its own), categories in the paper's order, two decimals."""
    seen = {c for b in best.values() for c in b.get("per_category", {})}
    categories = [c for c in CATEGORIES if c in seen] + sorted(seen - set(CATEGORIES))

    def cell(b: Mapping[str, Any], cat: str, key: str) -> str:
        value = (b.get("per_category", {}).get(cat) or {}).get(key)
        return "—" if value is None or value != value else f"{100 * value:.2f}"

    headers = ["Model"] + [
        f"{CATEGORY_SHORT_NAMES.get(c, c)} {part}" for c in categories for part in ("set", "indiv.")
    ]
    rows = [
        [m]
        + [
            cell(b, c, k)
            for c in categories
            for k in ("best_set_accuracy", "best_individual_accuracy")
        ]
        for m, b in sorted(best.items())
    ]
    return Table(
        "Results by category (Table 3 layout; best over modes, %)",
        headers,
        rows,
        "Per category: set accuracy = pairs right on both images / the category's "
        "images, individual = images right / the category's images (a pair counts "
        "for every category of its two images, as in the authors' code); each "
        "maximised over the model's modes separately, as in Table 3.",
    )


def figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figure by name, a function drawing it (:func:`~medvigil.report.render.draw_figures`)."""
    return {"mediconfusion_set_accuracy": partial(_set_accuracy_figure, result)}


def _set_accuracy_figure(result: Mapping[str, Any]) -> bytes:
    """Set accuracy per model and answering mode, beside random guessing."""
    models = sorted(result["best_over_modes"])
    modes = sorted({r["mode_label"] or r["mode"] for r in result["runs"]})
    cell = {(r["model"], r["mode_label"] or r["mode"]): r["set_accuracy"] for r in result["runs"]}
    fig, ax = pyplot().subplots(figsize=(max(5.0, 1.1 * len(models) + 2), 3.4))
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        ax.bar(
            np.arange(len(models)) + (i - (len(modes) - 1) / 2) * width,
            [_nan(cell.get((m, mode))) for m in models],
            width,
            label=mode,
        )
    ax.axhline(
        100 * result["random_guessing"]["set_accuracy"],
        color="grey",
        ls="--",
        lw=1,
        label="random guessing",
    )
    ax.set_xticks(range(len(models)), models, rotation=20, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("set accuracy %")
    ax.set_title("MediConfusion set accuracy by answering mode")
    ax.legend(fontsize=7, ncol=3)
    return png(fig)
