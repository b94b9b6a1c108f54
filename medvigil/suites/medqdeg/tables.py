"""The MedQ-Deg tables and figures of ``medvigil score --suite medqdeg`` and ``medvigil report``.

Each reads a :func:`medvigil.suites.medqdeg.scoring.score_records` result (``result["models"]``):

* by severity: accuracy L0/L1/L2 with the drops L1−L0 and L2−L0 (Table 6 / Fig. 3), perceived
  confidence and Calibration Shift (Fig. 4), the intra-model DKE flag (Eq. 5);
* by degradation category at L1&L2 pooled with the paired drop from L0 (Table 3 layout);
* by capability at L1&L2 pooled with the paired drop (Table 2 layout; only when the records
  carry capability labels: MedVIGIL probes have none);
* by modality and severity (Fig. 7, as a table and a figure);
* per model by degradation type, with paired drops (Fig. 8a/b, as a table and a heatmap), and the
  capability heatmap (Fig. 8c/d, by mid-level capability: the paper's are fine-grained skills);
* inter-model DKE pairs (Eq. 6) with Spearman's ρ(accuracy, Δcalib).

Accuracy columns read the T = 3 accuracy experiment when a model has one
(:func:`medvigil.suites.medqdeg.scoring.accuracy_scores`); confidence and Calibration Shift the
calibration experiment. Drops are in percentage points, negative = worse (Table 6 sign).
"""

from collections.abc import Mapping
from functools import partial
from typing import Any

from medvigil.report.reliability import confidence_table, reliability_figure
from medvigil.report.render import FigureMaker, Table, fmt, pct, png, pyplot
from medvigil.suites.medqdeg.breakdowns import OTHER_GROUP
from medvigil.suites.medqdeg.breakdowns import capability_group as _group
from medvigil.suites.medqdeg.categories import TABLE3_COLUMNS
from medvigil.suites.medqdeg.scoring import accuracy_scores

LEVELS = ("L0", "L1", "L2")
CATEGORY_ORDER = TABLE3_COLUMNS
GROUP_ORDER = ("Medical Perception", "Clinical Reasoning", OTHER_GROUP)


def with_drop(entry: Mapping[str, Any] | None, level: str = "L1&L2") -> str:
    """``acc (drop)`` of one breakdown cell, e.g. ``62.5 (−4.0)``; ``—`` when absent."""
    cell = (entry or {}).get(level)
    if not cell:
        return "—"
    return f"{pct(cell['accuracy'])} ({pct(cell.get(f'{level}-L0'), signed=True)})"


def _experiment_note(models: Mapping[str, Any]) -> str:
    split = [n for n, m in models.items() if m.get("accuracy_experiment")]
    if not split:
        return "Accuracy and confidence come from the same runs."
    return (
        f"Accuracy of {', '.join(sorted(split))} from the accuracy experiment "
        f"(medqdeg_acc_*, T = 3), confidence and Calibration Shift from the "
        f"calibration experiment (medqdeg_L*, T = 10), as in Section 3.4."
    )


def severity_table(models: Mapping[str, Any]) -> Table:
    rows = []
    for name, m in models.items():
        acc, sev = accuracy_scores(m)["by_severity"], m["by_severity"]
        drops = accuracy_scores(m).get("drops") or {}
        rows.append(
            [name]
            + [pct((acc.get(lv) or {}).get("accuracy")) for lv in LEVELS]
            + [pct(drops.get(f"{lv}-L0"), signed=True) for lv in ("L1", "L2")]
            + [pct((sev.get(lv) or {}).get("mean_confidence")) for lv in LEVELS]
            + [pct((sev.get(lv) or {}).get("calibration_shift"), signed=True) for lv in LEVELS]
            + [{True: "yes", False: "no"}.get(m.get("intra_model_dke"), "—")]  # None: no L0 or L2
        )
    excluded = sum(m.get("n_excluded_all_invalid", 0) for m in models.values())
    return Table(
        "MedQ-Deg by severity (accuracy and perceived confidence "
        "%, drops and Calibration Shift in pp)",
        [
            "Model",
            *(f"Acc {lv}" for lv in LEVELS),
            "L1−L0",
            "L2−L0",
            *(f"Conf {lv}" for lv in LEVELS),
            *(f"CS {lv}" for lv in LEVELS),
            "intra-model DKE",
        ],
        rows,
        "Confidence C(x) = 1 − H(x)/log K over the T repeated answers; "
        "CS = mean confidence − accuracy (positive = overconfident). L0 "
        "clean, L1 mild, L2 severe; L1−L0 and L2−L0 as in Table 6. "
        + _experiment_note(models)
        + (
            f" {excluded} sample(s) with only invalid trials left out (--all-invalid exclude)."
            if excluded
            else ""
        ),
    )


def category_table(models: Mapping[str, Any]) -> Table:
    rows = [
        [name, with_drop(accuracy_scores(m).get("category_mean"))]
        + [with_drop((accuracy_scores(m).get("by_category") or {}).get(c)) for c in CATEGORY_ORDER]
        for name, m in models.items()
    ]
    return Table(
        "Accuracy by degradation category at L1&L2 (Table 3 layout; %, paired drop from L0 in pp)",
        ["Model", "Avg.", *CATEGORY_ORDER],
        rows,
        "Each cell: accuracy over the L1 and L2 docs of the category (drop = "
        "mean of accuracy − the same question's L0 accuracy). Avg.: the plain "
        "mean of the row's category cells, as in Table 3 (not the pooled accuracy "
        "of its docs). Categories follow Table 5's parent categories.",
    )


def capability_table(models: Mapping[str, Any]) -> Table | None:
    caps = sorted(
        {c for m in models.values() for c in (accuracy_scores(m).get("by_capability") or {})},
        key=lambda c: (GROUP_ORDER.index(_group(c)), c),
    )
    if not caps:
        return None
    groups = [g for g in GROUP_ORDER if any(_group(c) == g for c in caps)]
    rows = [
        [name, with_drop(accuracy_scores(m).get("capability_mean"))]
        + [with_drop((accuracy_scores(m).get("by_capability_group") or {}).get(g)) for g in groups]
        + [with_drop((accuracy_scores(m).get("by_capability") or {}).get(c)) for c in caps]
        for name, m in models.items()
    ]
    return Table(
        "Accuracy by capability at L1&L2 (Table 2 layout; %, paired drop from L0 in pp)",
        ["Model", "Avg.", *groups, *caps],
        rows,
        "Avg.: the plain mean of the row's mid-level capability cells, as "
        "in Table 2. High-level capabilities (Section 3.1) pool their mid-level "
        "tasks' docs; names outside the six of Table 2 are 'other'.",
    )


def modality_table(
    models: Mapping[str, Any], key: str = "modality", title: str = ""
) -> Table | None:
    """Accuracy by ``by_<key>`` label and severity (Fig. 7 for modality; MedQ-DEG-Bench: also
    source)."""
    labels = sorted(
        {k for m in models.values() for k in (accuracy_scores(m).get(f"by_{key}") or {})}
    )
    if not labels:
        return None
    rows = []
    for name, m in models.items():
        by = accuracy_scores(m).get(f"by_{key}") or {}
        for label in labels:
            e = by.get(label) or {}
            rows.append(
                [name, label]
                + [pct((e.get(lv) or {}).get("accuracy")) for lv in LEVELS]
                + [pct((e.get(lv) or {}).get(f"{lv}-L0"), signed=True) for lv in ("L1", "L2")]
            )
    return Table(
        title or "Accuracy by modality and severity (Fig. 7; %, paired drops in pp)",
        ["Model", key.capitalize(), *(f"Acc {lv}" for lv in LEVELS), "L1−L0", "L2−L0"],
        rows,
    )


def type_tables(models: Mapping[str, Any]) -> list[Table]:
    out = []
    for name, m in models.items():
        a = accuracy_scores(m)
        by, drops = a["by_degradation_severity"], a.get("drops_by_degradation") or {}
        rows = []
        for kind in sorted(k for k in by if k != "clean"):
            cells = []
            for lv in ("L1", "L2"):
                e = by[kind].get(lv) or {}
                cs = (m["by_degradation_severity"].get(kind, {}).get(lv) or {}).get(
                    "calibration_shift"
                )
                cells += [
                    str(e.get("n", 0)),
                    pct(e.get("accuracy")),
                    pct((drops.get(kind) or {}).get(f"{lv}-L0"), signed=True),
                    pct(cs, signed=True),
                ]
            rows.append([kind, *cells])
        out.append(
            Table(
                f"{name}: by degradation type (Fig. 8a/b)",
                [
                    "Degradation",
                    "n L1",
                    "Acc L1",
                    "L1−L0",
                    "CS L1",
                    "n L2",
                    "Acc L2",
                    "L2−L0",
                    "CS L2",
                ],
                rows,
                "L1−L0 and L2−L0: paired on the same questions "
                "(a type that changes no answer shows 0).",
            )
        )
    return out


def inter_model_table(result: Mapping[str, Any]) -> Table | None:
    inter = result.get("inter_model_dke") or {}
    if not inter:
        return None
    return Table(
        "Inter-model Dunning–Kruger pairs (Eq. 6: 'A over B' "
        "= A is less accurate yet more confident than B)",
        ["Level", "pairs compared", "DKE pairs", "fraction", "Spearman ρ(accuracy, Δcalib)"],
        [
            [
                lv,
                str(d.get("n_pairs_compared")),
                "; ".join(f"{a} over {b}" for a, b in d.get("pairs", [])) or "—",
                pct(d.get("fraction")),
                fmt(d.get("spearman_rho"))
                if d.get("spearman_rho") is None
                else f"{d['spearman_rho']:+.2f}",
            ]
            for lv, d in inter.items()
        ],
        "ρ < 0: the less accurate models are the more overconfident "
        "(the inter-model Dunning–Kruger trend).",
    )


def medqdeg_tables(result: Mapping[str, Any]) -> list[Table]:
    models = result["models"]
    tables = [
        severity_table(models),
        category_table(models),
        capability_table(models),
        modality_table(models),
        modality_table(
            models, "source", "Accuracy by source benchmark and severity (%, paired drops in pp)"
        ),
        *type_tables(models),
        inter_model_table(result),
        confidence_table(
            "MedQ-Deg: calibration and selective risk of the trial votes",
            {name: m.get("confidence_metrics") for name, m in models.items()},
            VOTE_NOTE,
        ),
    ]
    return [t for t in tables if t is not None]


VOTE_NOTE = (
    "Confidence = perceived confidence C(x) (Eq. 3), answer = the plurality of the valid "
    "votes (ties to the lowest letter); every severity and degradation pooled; 10 bins."
)


def _nan(value: Any) -> float:
    return float("nan") if value is None else 100.0 * float(value)


def medqdeg_figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figures by name, each a function drawing it
    (:func:`~medvigil.report.render.draw_figures`)."""
    models = dict(sorted(result["models"].items()))
    return {
        "medqdeg_severity": partial(_severity_figure, models),
        "medqdeg_type_drops": partial(_drops_figure, models, "drops_by_degradation"),
        "medqdeg_capability_drops": partial(_drops_figure, models, "by_capability"),
        "medqdeg_modality": partial(_modality_figure, models),
        "medqdeg_reliability": partial(
            reliability_figure,
            "MedQ-Deg: reliability of perceived confidence",
            {name: m.get("confidence_metrics") for name, m in models.items()},
        ),
    }


def _severity_figure(models: Mapping[str, Any]) -> bytes:
    """Accuracy, perceived confidence and Calibration Shift against severity (Figs. 3-4)."""
    fig, axes = pyplot().subplots(1, 3, figsize=(11, 3.4))
    for name, m in models.items():
        for ax, key in zip(axes, ("accuracy", "mean_confidence", "calibration_shift")):
            sev = (accuracy_scores(m) if key == "accuracy" else m)["by_severity"]
            ax.plot(
                LEVELS,
                [_nan((sev.get(lv) or {}).get(key)) for lv in LEVELS],
                marker="o",
                label=name,
            )
    for ax, label in zip(
        axes, ("accuracy %", "perceived confidence %", "Calibration Shift (pp, > 0 overconfident)")
    ):
        ax.set_title(label)
        ax.set_xlabel("severity (L0 clean)")
    axes[0].set_ylim(0, 100)
    axes[1].set_ylim(0, 100)
    axes[2].axhline(0, color="grey", lw=0.8)
    axes[0].legend(fontsize=7)
    return png(fig)


def _drop(m: Mapping[str, Any], key: str, column: str, lv: str) -> Any:
    entry = (accuracy_scores(m).get(key) or {}).get(column) or {}
    return (
        entry.get(f"{lv}-L0")
        if key == "drops_by_degradation"
        else (entry.get(lv) or {}).get(f"{lv}-L0")
    )


def _drops_figure(models: Mapping[str, Any], key: str) -> bytes | None:
    """Fig. 8: L0 − degraded per model and type (a/b) or capability (c/d); red = degradation hurts;
    paired."""
    import numpy as np

    columns = sorted({k for m in models.values() for k in (accuracy_scores(m).get(key) or {})})
    if not columns:
        return None
    fig, axes = pyplot().subplots(
        1, 2, figsize=(max(7.0, 0.5 * len(columns) + 3), 0.45 * len(models) + 2.2), squeeze=False
    )
    for ax, lv in zip(axes[0], ("L1", "L2")):
        grid = np.array([[-_nan(_drop(m, key, c, lv)) for c in columns] for m in models.values()])
        limit = max(1.0, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0)
        image = ax.imshow(grid, cmap="RdYlGn_r", vmin=-limit, vmax=limit, aspect="auto")
        ax.set_xticks(range(len(columns)), columns, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(range(len(models)), list(models), fontsize=7)
        ax.set_title(f"L0 − {lv} accuracy (pp)")
        fig.colorbar(image, ax=ax, shrink=0.8)
    return png(fig)


def _modality_figure(models: Mapping[str, Any]) -> bytes | None:
    """Fig. 7: accuracy per modality at each severity."""
    import numpy as np

    mods = sorted(
        {k for m in models.values() for k in (accuracy_scores(m).get("by_modality") or {})}
    )
    if not mods:
        return None
    fig, axes = pyplot().subplots(1, len(LEVELS), figsize=(11, 3.2), sharey=True)
    width = 0.8 / max(1, len(models))
    for ax, lv in zip(axes, LEVELS):
        for i, (name, m) in enumerate(models.items()):
            by = accuracy_scores(m).get("by_modality") or {}
            ax.bar(
                np.arange(len(mods)) + (i - (len(models) - 1) / 2) * width,
                [_nan(((by.get(mod) or {}).get(lv) or {}).get("accuracy")) for mod in mods],
                width,
                label=name,
            )
        ax.set_xticks(range(len(mods)), mods, fontsize=8)
        ax.set_title(f"{lv} accuracy % by modality")
        ax.set_ylim(0, 100)
    axes[0].legend(fontsize=7)
    return png(fig)
