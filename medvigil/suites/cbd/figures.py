"""The Consistent-but-Dangerous figures of the report (from
:func:`medvigil.suites.cbd.result.suite_result`): the quadrant fractions per model, flip rate
against the Dangerous fraction (Fig. 3), the binary arm's entropy per quadrant (Fig. 5) and the
reliability of its p(yes)."""

from collections.abc import Mapping
from functools import partial
from typing import Any

from medvigil.report.reliability import reliability_figure
from medvigil.report.render import FigureMaker, png, pyplot
from medvigil.suites.cbd.tables import QUADS, binary_confidence, number

QUADRANT_COLOURS = {
    "Ideal": "#2e7d32",
    "Fragile": "#f9a825",
    "Dangerous": "#e65100",
    "Worst": "#b71c1c",
}


def cbd_figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figures by name, each a function drawing it
    (:func:`~medvigil.report.render.draw_figures`)."""
    return {
        "cbd_quadrants": partial(_quadrants_figure, result),
        "cbd_flip_vs_dangerous": partial(_flip_figure, result),
        "cbd_entropy": partial(_entropy_figure, result),
        "cbd_reliability": partial(
            reliability_figure,
            "Binary arm: reliability of p(yes)",
            binary_confidence(result["models"]),
        ),
    }


def _quadrants_figure(result: Mapping[str, Any]) -> bytes:
    """The quadrant fractions per model, stacked."""
    models = sorted(result["models"])
    fig, ax = pyplot().subplots(figsize=(7, 0.45 * len(models) + 1.4))
    left = [0.0] * len(models)
    for q, colour in QUADRANT_COLOURS.items():
        widths = [
            float("nan")
            if result["models"][n]["fractions"][q] is None
            else 100 * result["models"][n]["fractions"][q]
            for n in models
        ]
        ax.barh(models, widths, left=left, color=colour, label=q)
        left = [a + (0 if b != b else b) for a, b in zip(left, widths)]
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of samples")
    ax.set_title("Consistent but Dangerous quadrants", pad=24)
    ax.legend(ncol=4, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    return png(fig)


def _flip_figure(result: Mapping[str, Any]) -> bytes:
    """Fig. 3: flip rate against the Dangerous fraction, with their CIs."""
    fig, ax = pyplot().subplots(figsize=(4.8, 3.8))
    for n in sorted(result["models"]):
        m = result["models"][n]
        if m["flip_rate"] is None or m["dangerous_fraction"] is None:
            continue
        ci = m.get("ci") or {}
        fx, dy = ci.get("flip_rate") or {}, ci.get("dangerous_fraction") or {}
        x, y = 100 * m["flip_rate"], 100 * m["dangerous_fraction"]
        xerr = (
            [[x - 100 * fx["low"]], [100 * fx["high"] - x]] if fx.get("low") is not None else None
        )
        yerr = (
            [[y - 100 * dy["low"]], [100 * dy["high"] - y]] if dy.get("low") is not None else None
        )
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", capsize=3, label=n)
    corr = result.get("correlation") or {}
    ax.set_xlabel("flip rate %")
    ax.set_ylabel("Dangerous fraction %")
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_title(f"Flip rate vs Dangerous (Spearman ρ = {number(corr.get('spearman'))})")
    ax.legend(fontsize=6)
    return png(fig)


def _entropy_figure(result: Mapping[str, Any]) -> bytes | None:
    """Fig. 5: mean predictive entropy per quadrant of the binary arm (None without one)."""
    binary = [n for n in sorted(result["models"]) if result["models"][n].get("binary_by_quadrant")]
    if not binary:
        return None
    import numpy as np

    fig, ax = pyplot().subplots(figsize=(6, 3.2))
    width = 0.8 / len(binary)
    for i, n in enumerate(binary):
        h = result["models"][n].get("mean_entropy_by_quadrant") or {}
        ax.bar(
            np.arange(4) + (i - (len(binary) - 1) / 2) * width,
            [float("nan") if h.get(q) is None else h[q] for q in QUADS],
            width,
            label=n,
        )
    ax.set_xticks(range(4), QUADS)
    ax.set_ylabel("mean entropy (nats)")
    ax.set_title("Predictive entropy per quadrant (binary arm)")
    ax.legend(fontsize=7)
    return png(fig)
