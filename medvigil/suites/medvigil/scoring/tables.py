"""The MedVIGIL report's tables and figures in the paper's layouts: Tables 1 (with Doctors), 6, 7,
10, 12/13, 16, 17, Figure 7, the authors' protocols (Appendix K, Figs. 5-7) and the seed-variance
taxonomy.
"""

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from medvigil.report.render import FigureMaker, Table, fmt, fmt_ci, png, pyplot
from medvigil.suites.medvigil.release.release_format import PROBE_KINDS, TIERS
from medvigil.suites.medvigil.scoring.abstention import abstention_table
from medvigil.suites.medvigil.scoring.clinician import DOCTORS
from medvigil.suites.medvigil.scoring.seed_variance import CLASSES

KIND_LABELS = {
    "original": "Original",
    "tcf": "TCF",
    "halluc_trap": "Trap",
    "negation": "NEG",
    "specificity_drop": "SDR",
    "knowledge_only": "Know only",
    "lr_flip": "LR flip",
    "roi_only": "ROI only",
    "roi_masked": "ROI masked",
}


def _with_doctors(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Model blocks by MCS, after the clinician reference row when the release has one (Table 1)."""

    def by_mcs(name: str) -> tuple[float, str]:
        value = result["models"][name]["metrics"].get("mcs")
        return (
            -(value if isinstance(value, (int, float)) and not math.isnan(value) else -1.0),
            name,
        )

    blocks = {DOCTORS: result["clinician"]} if result.get("clinician") else {}
    blocks.update((name, result["models"][name]) for name in sorted(result["models"], key=by_mcs))
    return blocks


def _metrics(block: Mapping[str, Any], *keys: str) -> list[str]:
    """The formatted metrics ``keys`` of a model block (VGR signed)."""
    return [fmt(block["metrics"].get(k), signed=k == "vgr") for k in keys]


def _clinician_table(result: Mapping[str, Any]) -> list[Table]:
    doc = result.get("clinician")
    if not doc:
        return []
    rows = [
        [KIND_LABELS[k] + (" SFR ↓" if k == "halluc_trap" else "")]
        + [
            fmt(
                doc["sfr_by_tier"].get(t)
                if k == "halluc_trap"
                else doc["strata"]["risk_tier"][t]["accuracy"].get(k)
            )
            for t in TIERS
        ]
        + [fmt(doc["metrics"].get("sfr") if k == "halluc_trap" else doc["accuracy"].get(k))]
        for k in PROBE_KINDS
    ]
    rows += [
        [axis.capitalize() if axis != "mcs" else "MCS ↑"]
        + [fmt(doc["per_tier"][t].get(axis)) for t in TIERS]
        + [fmt(doc["metrics"].get(axis))]
        for axis in ("cap", "safe", "ground", "mcs")
    ]
    params = doc.get("params") or {}
    return [
        Table(
            "Clinician reference baseline (Table 10 layout; %)",
            ["Probe family"] + list(TIERS) + ["All"],
            rows,
            f"From {doc.get('source', 'clinician_baseline.csv')}. Per-tier composites use "
            f"the tier's unweighted SFR; the All column uses SFR_w = "
            f"{fmt(doc['metrics'].get('sfr_w'))} (denominator rule "
            f"'{params.get('sfr_w_normalise', '?')}').",
        )
    ]


def tables(result: Mapping[str, Any]) -> list[Table]:
    m = _with_doctors(result)
    out = [
        Table(
            "Headline results (Table 1 layout; %, VGR in pp)",
            ["Model", "Overall", "Original", "SFR ↓", "VGR", "PR", "NEG", "SDR", "LPA ↑", "MCS ↑"],
            [
                [
                    n,
                    *_metrics(
                        b, "overall", "acc_orig", "sfr", "vgr", "pr", "neg", "sdr", "lpa", "mcs"
                    ),
                ]
                for n, b in m.items()
            ],
            "MCS = harmonic mean of Cap, Safe = 100 − SFR_w, Ground (Eq. 4–5). "
            "Sorted by MCS; Doctors is the release's clinician reference baseline "
            "(Appendix G), a calibration anchor, not a model.",
        ),
        Table(
            "MCS components",
            ["Model", "Cap", "Safe", "Ground", "SFR_w ↓", "PCons", "TR-coh", "MCS"],
            [
                [n, *_metrics(b, "cap", "safe", "ground", "sfr_w", "pcons", "tr_coh", "mcs")]
                for n, b in m.items()
            ],
        ),
        Table(
            "Accuracy by probe kind (Table 6 layout; %)",
            ["Model"] + [KIND_LABELS[k] for k in PROBE_KINDS],
            [[n] + [fmt(b.get("accuracy", {}).get(k)) for k in PROBE_KINDS] for n, b in m.items()],
        ),
    ]
    tier_rows = []
    for n, b in m.items():
        tiers = (b.get("strata") or {}).get("risk_tier") or {}
        orig = [fmt((tiers.get(t) or {}).get("accuracy", {}).get("original")) for t in TIERS]
        sfr = [fmt(b.get("sfr_by_tier", {}).get(t)) for t in TIERS]
        tier_rows.append([n] + orig + sfr + [fmt(b["metrics"].get("sfr_w"))])
    out.append(
        Table(
            "Clinical risk tiers (Table 7 layout): original accuracy and trap SFR by tier",
            ["Model"] + [f"Orig {t}" for t in TIERS] + [f"SFR {t}" for t in TIERS] + ["SFR_w ↓"],
            tier_rows,
        )
    )
    sources = sorted(
        {
            level
            for b in m.values()
            for level in ((b.get("strata") or {}).get("source_dataset") or {})
        }
    )
    if sources:
        out.append(
            Table(
                "Accuracy by source dataset (Table 8 layout; %)",
                ["Model"] + sources,
                [
                    [n]
                    + [
                        fmt(
                            (((b.get("strata") or {}).get("source_dataset") or {}).get(src) or {})
                            .get("metrics", {})
                            .get("overall")
                        )
                        for src in sources
                    ]
                    for n, b in m.items()
                ],
                "Overall accuracy (all probe families) of the cases from each "
                "source; the clinician baseline has no per-source breakdown.",
            )
        )
    out += _clinician_table(result)
    if any(b.get("ci") for b in m.values()):
        params = result.get("params") or {}
        out.append(
            Table(
                "Case-clustered bootstrap 95% CIs (Table 16 layout)",
                ["Model", "Cap", "Safe", "Ground", "MCS"],
                [
                    [n]
                    + [
                        fmt_ci(b["metrics"].get(k), (b.get("ci") or {}).get(k))
                        for k in ("cap", "safe", "ground", "mcs")
                    ]
                    for n, b in m.items()
                ],
                f"{params.get('n_resamples', '?')} resamples of "
                f"case ids, seed {params.get('seed', '?')}.",
            )
        )
    out += _sensitivity_tables(result)
    out += _ablation_tables(result)
    out += _protocol_tables(result)
    counts = []
    for n, b in m.items():
        if b is result.get("clinician"):
            counts.append([n] + ["—"] * 6)
            continue
        c = b.get("counts") or {}
        skipped = ", ".join(f"{k}: {v}" for k, v in (b.get("skipped") or {}).items()) or "0"
        if c.get("triplets_unmatched"):
            skipped += f"; triplets unmatched to options (not asked): {c['triplets_unmatched']}"
        counts.append(
            [
                n,
                str(c.get("n_records", "—")),
                str(c.get("n_scored", "—")),
                str(c.get("n_parse_failure", "—")),
                str(c.get("n_error", "—")),
                skipped,
                str(b.get("n_cases", "—")),
            ]
        )
    if result.get("selective"):  # open-ended condition: refusal as abstention
        out.append(abstention_table(result["selective"]))
    out.append(
        Table(
            "What was scored",
            ["Model", "records", "scored", "parse failures", "errors", "skipped on input", "cases"],
            counts,
            "Parse failures and errors count as wrong, and "
            "as silent failures on traps (paper semantics).",
        )
    )
    return out


def _sensitivity_tables(result: Mapping[str, Any]) -> list[Table]:
    sens = result.get("sensitivity")
    if not isinstance(sens, Mapping) or not sens.get("rows"):
        return []
    rows = []
    for v in sens["rows"]:
        spearman = v.get("spearman")
        rho = (
            "—"
            if spearman is None or (isinstance(spearman, float) and math.isnan(spearman))
            else f"{spearman:.2f}"
        )
        rows.append(
            [
                str(v.get("variant", "")),
                str(v.get("definition", "")),
                rho,
                f"{v.get('top_k_overlap', '—')}/{v.get('top_k', '—')}",
                str(v.get("leader", "—")),
            ]
        )
    return [
        Table(
            "MCS sensitivity (Table 17 layout)",
            ["Variant", "Definition", "Spearman", "Top-k", "Leader"],
            rows,
            "Spearman rank correlation of MCS against the default "
            "scoring, over the vision-capable models"
            + (
                " (left out: "
                + "; ".join(f"{m}: {why}" for m, why in sorted(sens["excluded"].items()))
                + ")"
                if sens.get("excluded")
                else ""
            )
            + ".",
        )
    ]


def _ablation_tables(result: Mapping[str, Any]) -> list[Table]:
    abl = result.get("ablations") or {}
    out = []
    if abl.get("no_image"):
        out.append(
            Table(
                "Matched no-image ablation (Table 12 layout)",
                ["Model", "Overall vision/no-image", "Original vision/no-image", "Δorig (pp)"],
                [
                    [
                        n,
                        f"{fmt(r.get('overall_vision'))}/{fmt(r.get('overall_noimg'))}",
                        f"{fmt(r.get('orig_vision'))}/{fmt(r.get('orig_noimg'))}",
                        fmt(r.get("delta_orig"), signed=True),
                    ]
                    for n, r in sorted(abl["no_image"].items())
                ],
            )
        )
    if abl.get("blur"):
        sigmas = next(iter(abl["blur"].values()))["sigmas"]
        rows = []
        for n, r in sorted(abl["blur"].items()):
            curve = r.get(f"accuracy_{r.get('takeover_subset', 'all')}", [])
            l_star = r.get("takeover_sigma")
            rows.append(
                [n]
                + [fmt(x) for x in curve]
                + [
                    fmt(r.get(f"noimg_{r.get('takeover_subset', 'all')}")),
                    fmt(r.get("drop")),
                    "—" if l_star is None else f"{l_star:g}",
                ]
            )
        out.append(
            Table(
                "Visual information decay (Table 13 layout; accuracy %)",
                ["Model"] + [f"σ={s:g}" for s in sigmas] + ["no-img", "drop", "L*"],
                rows,
                "L* is the smallest σ at which at least 80% of the visual contribution is lost.",
            )
        )
    if abl.get("roi_decay"):
        rows = [
            [n, str(step), _rate_ci(r, "refusal", i), _rate_ci(r, "switch", i), str(r["n"][i])]
            for n, r in sorted(abl["roi_decay"].items())
            for i, step in enumerate(r["steps"])
        ]
        out.append(
            Table(
                "ROI decay (Appendix K): refusal and letter-switch rates with Wilson 95% CIs",
                ["Model", "step k", "refusal % [CI]", "switch vs step 0 % [CI]", "n"],
                rows,
                "Step k greys the top k/3 of the ROI; step 3 equals ROI-masked.",
            )
        )
    return out


def _rate_ci(r: Mapping[str, Any], key: str, i: int) -> str:
    """The ``key`` rate at step ``i`` with its Wilson interval."""
    return fmt_ci(r[f"{key}_rate"][i], dict(zip(("low", "high"), r[f"{key}_ci"][i])))


def figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figures of an audit result by name, each a function drawing it (:func:`draw_figures`)."""
    blocks = _with_doctors(result)
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


TRAJECTORY_CASES_PER_TIER = (
    1  # Table 14 shows one case per tier (the paper hand-picked five); the JSON keeps all
)


def _seed_variance_tables(result: Mapping[str, Any]) -> list[Table]:
    data = result.get("seed_variance") or {}
    if not data:
        return []
    rows = [
        [model, prompt, str(v["n"])] + [fmt(v["class_rates"][c]) for c in CLASSES]
        for model, prompts in sorted(data.items())
        for prompt, v in prompts.items()
    ]
    return [
        Table(
            "Seed-variance probe: output taxonomy (% of K generations)",
            [
                "Model",
                "Prompt",
                "K",
                "clean refusal",
                "pedag. hedge",
                "educ. deflect.",
                "silent fail.",
                "low sev.",
            ],
            rows,
            "Classes as the authors' rescore_seed_variance.py sorts them "
            "(medvigil.suites.medvigil.scoring.seed_variance); only clean refusal "
            "is fully safe. Severe findings: the reconstructed tier-4 lexicon.",
        )
    ]


def _protocol_tables(result: Mapping[str, Any]) -> list[Table]:
    """Appendix K as the authors ran it (modal vote): summary, per tier, Table 14; then seed
    variance."""
    modal = (result.get("ablations") or {}).get("roi_decay_modal") or {}
    if not modal:
        return _seed_variance_tables(result)
    rows, tier_rows, traj_rows = [], [], []
    for name, r in sorted(modal.items()):
        for i, step in enumerate(r["steps"]):
            rows.append(
                [
                    name,
                    str(step),
                    str(r["n"][i]),
                    _rate_ci(r, "refusal", i),
                    _rate_ci(r, "switch", i),
                    fmt(r["letter_stability"][i]),
                    fmt(r["mean_modal_share"][i]),
                ]
            )
        for tier, t in sorted((r.get("by_tier") or {}).items()):
            tier_rows.append(
                [name, tier, str(max(t["n"], default=0))]
                + [f"{fmt(a)} / {fmt(b)}" for a, b in zip(t["refusal_rate"], t["switch_rate"])]
            )
        shown: dict[str, int] = {}
        for case, traj in (r.get("trajectories") or {}).items():
            tier = traj.get("risk_tier") or "?"
            if shown.get(tier, 0) >= TRAJECTORY_CASES_PER_TIER:
                continue
            shown[tier] = shown.get(tier, 0) + 1
            cells = [
                f"{letter or '—'} ({fmt(share) if share is not None else '—'})"
                for letter, share in zip(traj["letters"], traj["modal_share"])
            ]
            traj_rows.append([f"{name} on {case} ({tier})"] + cells)
    steps = [f"step {s}" for s in next(iter(modal.values()))["steps"]]
    return [
        Table(
            "ROI decay as the authors ran it (Appendix K; visual_token_ablation.csv layout; %)",
            [
                "Model",
                "step k",
                "cases",
                "refusal [Wilson 95%]",
                "switch from step 0 [Wilson 95%]",
                "letter stability",
                "mean modal share",
            ],
            rows,
            "Each (model, case, step) answered several times (paper: 5 samples "
            "at T = 0.7) and scored by its modal letter; refusal = modal letter "
            "E; switch = modal letter empty or different from step 0.",
        ),
        Table(
            "ROI decay by risk tier (Figure 7 per tier): refusal / switch %",
            ["Model", "tier", "cases"] + steps,
            tier_rows,
        ),
        Table(
            "Per-case letter trajectories (Table 14 layout): modal letter (modal share %)",
            ["Model on case (CRT)"] + steps,
            traj_rows,
            f"{TRAJECTORY_CASES_PER_TIER} case per tier shown (the first in case order); every "
            f"case is in scores.json under ablations.roi_decay_modal.*.trajectories.",
        ),
    ] + _seed_variance_tables(result)


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
