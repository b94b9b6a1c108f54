"""The MedVIGIL report's figures: MCS components, tier SFR heatmap, blur and ROI decay, and the
authors' protocols (Figs. 5-7)."""

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from medvigil.report.render import FigureMaker, png, pyplot
from medvigil.suites.medvigil.release.release_format import TIERS
from medvigil.suites.medvigil.scoring.tables import with_doctors

__all__ = ["figures"]


def figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figures of an audit result by name, each a function drawing it (:func:`draw_figures`)."""
    blocks = with_doctors(result)
    abl = result.get("ablations") or {}
    return {
        "mcs_components": partial(_components_figure, blocks),
        "tier_sfr_heatmap": partial(_tier_heatmap, blocks),
        "blur_decay": partial(_blur_figure, abl.get("blur") or {}),
        "roi_decay": partial(_roi_figure, abl.get("roi_decay") or {}),
        "capability_safety": partial(
            _capability_safety_figure, blocks
        ),  # the authors' protocols (Figs. 5-7)
        "blur_decay_per_tier": partial(_blur_tier_figure, abl.get("blur") or {}),
        "roi_decay_per_tier": partial(_roi_modal_tier_figure, abl.get("roi_decay_modal") or {}),
    }


def _val(x: Any) -> float:
    return math.nan if x is None else float(x)


def _components_figure(blocks: Mapping[str, Mapping[str, Any]]) -> bytes:
    """Cap, Safe, Ground and MCS per model."""
    models = list(blocks)
    fig, ax = pyplot().subplots(figsize=(max(5.0, 1.3 * len(models) + 2), 3.6))
    keys = ("cap", "safe", "ground", "mcs")
    x = np.arange(len(models))
    for i, key in enumerate(keys):
        ax.bar(
            x + (i - 1.5) * 0.2,
            [_val(blocks[n]["metrics"].get(key)) for n in models],
            0.2,
            label=key.upper() if key == "mcs" else key.capitalize(),
        )
    ax.set_xticks(x, models, rotation=20, ha="right")
    ax.set(
        ylim=(0, 100),
        ylabel="score (0–100)",
        title="MCS components (harmonic mean of Cap, Safe, Ground)",
    )
    ax.legend(ncol=4, fontsize=8, loc="upper right")
    return png(fig)


def _tier_heatmap(blocks: Mapping[str, Mapping[str, Any]]) -> bytes:
    """Trap SFR per model and risk tier."""
    models = list(blocks)
    grid = np.array(
        [[_val(blocks[n].get("sfr_by_tier", {}).get(t)) for t in TIERS] for n in models]
    )
    fig, ax = pyplot().subplots(figsize=(5.5, 0.5 * len(models) + 1.5))
    im = ax.imshow(grid, cmap="Reds", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(TIERS)), TIERS)
    ax.set_yticks(range(len(models)), models)
    for (r, c), v in np.ndenumerate(grid):
        ax.text(
            c,
            r,
            "—" if np.isnan(v) else f"{v:.0f}",
            ha="center",
            va="center",
            fontsize=8,
            color="black" if np.isnan(v) or v < 60 else "white",
        )
    fig.colorbar(im, ax=ax, label="trap SFR % (lower is safer)")
    ax.set_title("Silent-failure rate by clinical risk tier")
    return png(fig)


def _blur_figure(blur: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """Visual information decay: accuracy against blur σ per model, the no-image accuracy dotted."""
    if not blur:
        return None
    fig, ax = pyplot().subplots(figsize=(6, 3.6))
    for n, r in sorted(blur.items()):
        sub = r.get("takeover_subset", "all")
        sig = [s if s > 0 else 1 for s in r["sigmas"]]
        line = ax.plot(sig, r[f"accuracy_{sub}"], marker="o", label=n)[0]
        ax.axhline(r.get(f"noimg_{sub}", math.nan), color=line.get_color(), ls=":", lw=1)
    ax.set_xscale("log", base=2)
    sigmas = next(iter(blur.values()))["sigmas"]
    ax.set_xticks([s if s > 0 else 1 for s in sigmas], [f"{s:g}" for s in sigmas])
    ax.set(
        xlabel="blur σ (px, log scale; σ = 0 drawn at 1)",
        ylabel="accuracy on original probes %",
        title="Visual information decay (dotted: no image)",
    )
    ax.legend(fontsize=8)
    return png(fig)


def _with_band(ax, steps, rates: Mapping[str, Any], key: str, label: str, alpha: float) -> None:
    """``rates[key_rate]`` against ``steps`` with its Wilson band ``rates[key_ci]`` (already in
    percent)."""
    line = ax.plot(steps, rates[f"{key}_rate"], marker="o", label=label)[0]
    ax.fill_between(
        steps,
        [a for a, _ in rates[f"{key}_ci"]],
        [b for _, b in rates[f"{key}_ci"]],
        color=line.get_color(),
        alpha=alpha,
    )


def _roi_figure(roi: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """ROI decay: refusal and letter-switch rates per step with Wilson bands, per model."""
    if not roi:
        return None
    fig, axes = pyplot().subplots(1, 2, figsize=(9, 3.4), sharex=True)
    for n, r in sorted(roi.items()):
        steps = r["steps"]
        for ax, key in zip(axes, ("refusal", "switch")):
            _with_band(ax, steps, r, key, n, alpha=0.15)
    axes[0].set_title("refusal rate (option E) %")
    axes[1].set_title("letter switch vs step 0 %")
    for ax in axes:
        ax.set(xlabel="ROI-decay step k (top k/3 greyed)", ylim=(0, 100))
    axes[0].legend(fontsize=8)
    return png(fig)


def _pareto(xs: Sequence[float], ys: Sequence[float]) -> list[int]:
    """Indices of points no other point beats on both axes (maximising), sorted by x."""
    idx = [
        i
        for i in range(len(xs))
        if not any(
            xs[j] >= xs[i] and ys[j] >= ys[i] and (xs[j] > xs[i] or ys[j] > ys[i])
            for j in range(len(xs))
        )
    ]
    return sorted(idx, key=lambda i: xs[i])


def _capability_safety_figure(blocks: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """Figure 5: Capability vs Safety (size = Grounding) and Safety vs Grounding (size =
    Capability)."""
    pts = [
        (n, b["metrics"].get("cap"), b["metrics"].get("safe"), b["metrics"].get("ground"))
        for n, b in blocks.items()
    ]
    pts = [
        (n, float(a), float(s), float(g))
        for n, a, s, g in pts
        if all(isinstance(v, (int, float)) and math.isfinite(v) for v in (a, s, g))
    ]
    if len(pts) < 2:
        return None
    fig, axes = pyplot().subplots(1, 2, figsize=(10, 4.4))
    for ax, (xi, yi, si), (xl, yl, sl) in zip(
        axes,
        ((1, 2, 3), (2, 3, 1)),
        (
            ("Capability", "Safety = 100 − SFR_w", "Grounding"),
            ("Safety = 100 − SFR_w", "Grounding", "Capability"),
        ),
    ):
        xs, ys, sz = [p[xi] for p in pts], [p[yi] for p in pts], np.array([p[si] for p in pts])
        third = float(np.median(sz))
        grid = np.linspace(1, 100, 400)
        for level in (40, 50, 60, 70):  # MCS isolines at the median of the unshown component
            inv = 3 / level - 1 / grid - (1 / third if third > 0 else np.inf)
            iso = np.where(inv > 1e-9, 1 / np.where(inv > 1e-9, inv, 1), np.nan)
            iso[(iso <= 0) | (iso > 100)] = np.nan
            ax.plot(grid, iso, ls="--", lw=0.6, color="#aaaaaa")
            ok = np.flatnonzero(~np.isnan(iso))
            if ok.size:
                ax.text(grid[ok[-1]], iso[ok[-1]], f"MCS={level}", fontsize=6, color="#888888")
        front = _pareto(xs, ys)
        ax.plot([xs[i] for i in front], [ys[i] for i in front], color="#2c8c4d", lw=1.2)
        ax.fill_between(
            [xs[i] for i in front], [ys[i] for i in front], 0, color="#e8f5ee", alpha=0.5
        )
        span = max(float(sz.max() - sz.min()), 1e-6)
        for (name, *_), x, y, s in zip(pts, xs, ys, sz):
            ax.scatter(x, y, s=30 + (s - sz.min()) / span * 300, alpha=0.85, edgecolor="white")
            ax.annotate(name, (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7)
        ax.set(xlim=(0, 100), ylim=(0, 100), xlabel=xl, ylabel=yl)
        ax.set_title(f"size ∝ {sl}; green: Pareto frontier", fontsize=9)
    fig.suptitle("MCS components in two projections (Figure 5)")
    return png(fig)


def _blur_tier_figure(blur: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """Figure 6: accuracy per risk tier against blur σ, one panel per model; X = no image."""
    models = [(n, r) for n, r in sorted(blur.items()) if r.get("by_tier")]
    if not models:
        return None
    fig, axes = pyplot().subplots(1, len(models), figsize=(4.2 * len(models), 3.4), squeeze=False)
    for ax, (name, r) in zip(axes[0], models):
        ticks = [s if s > 0 else 1 for s in r["sigmas"]]
        x_noimg = max(ticks) * 2
        for tier, t in sorted(r["by_tier"].items()):
            line = ax.plot(ticks, t["accuracy"], marker="o", ms=3, label=tier)[0]
            ax.scatter([x_noimg], [t["noimg"]], marker="X", color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks + [x_noimg], [f"{s:g}" for s in r["sigmas"]] + ["∞"])
        ax.set(ylim=(0, 100), xlabel="blur σ (px; ∞ = no image)")
        ax.set_title(f"{name} ({r.get('takeover_subset', 'all').replace('_', ' ')})", fontsize=9)
    axes[0][0].set_ylabel("accuracy %")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Visual information decay per risk tier (Figure 6)")
    return png(fig)


def _roi_modal_tier_figure(modal: Mapping[str, Mapping[str, Any]]) -> bytes | None:
    """Figure 7 (all cases) and per tier: refusal (top) and switch from step 0 (bottom), Wilson
    bands, per model."""
    if not modal:
        return None
    tiers = ["all"] + sorted({t for r in modal.values() for t in (r.get("by_tier") or {})})
    fig, axes = pyplot().subplots(
        2, len(tiers), figsize=(3.0 * len(tiers) + 1, 5.2), sharex=True, sharey=True, squeeze=False
    )
    for col, tier in enumerate(tiers):
        for name, r in sorted(modal.items()):
            t = r if tier == "all" else (r.get("by_tier") or {}).get(tier)
            if not t:
                continue
            for row, key in enumerate(("refusal", "switch")):
                _with_band(axes[row][col], t["steps"], t, key, name, alpha=0.12)
        axes[0][col].set_title("all cases" if tier == "all" else tier)
        axes[1][col].set(xlabel="ROI-mask step k", xticks=range(4))
    axes[0][0].set(ylabel="refusal % (modal E)", ylim=(0, 100))
    axes[1][0].set_ylabel("switch vs step 0 %")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(
        "ROI decay as the authors ran it, all cases and per risk tier (Figure 7, Wilson 95% bands)"
    )
    return png(fig)
