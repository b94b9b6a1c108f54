"""The Illusion of Readiness tables and figure of ``medvigil score --suite readiness`` and the
report.

From a :func:`medvigil.suites.readiness.records.readiness_from_records` result: robustness per
stress test and R(m) (Sec. 2, Appendix A), the accuracies behind T2/T5 (Ext. Data Tables 3, 6),
format perturbation (Ext. Data Table 4), distractor variants Base/UNK/1R-4R (Ext. Data Table 5) and
the T6 reasoning measures.
"""

from collections.abc import Mapping
from functools import partial
from typing import Any

from medvigil.report.render import FigureMaker, Table, fmt, png, pyplot

TESTS = ("T1", "T2", "T3", "T4", "T5")
T5_NOTE = (
    "T5: each item shown with another case's image, one that supports a distractor "
    "(Stress Test 5); the original accuracy is the image arm's on the same items."
)
VARIANTS = ("unk", "1r", "2r", "3r", "4r")


def robustness_table(models: Mapping[str, Any]) -> Table:
    rows = [
        [name]
        + [fmt(None if m["robustness"].get(t) is None else 100 * m["robustness"][t]) for t in TESTS]
        + [
            fmt(None if m.get("R") is None else 100 * m["R"])
            + (" (partial)" if m.get("partial") else ""),
            ", ".join(m.get("missing_tests") or []) or "—",
        ]
        for name, m in models.items()
    ]
    return Table(
        "Illusion of Readiness: robustness per stress test and R(m) (×100)",
        ["Model", *TESTS, "R(m)", "tests missing"],
        rows,
        "Robustness = 1 − fragility; R(m) = mean over T1–T5 (seed 003, Sec. 2). "
        "Higher is more robust, but a model at chance has nothing to lose and scores "
        "as robust: read R(m) beside the accuracies. A test is missing when its "
        "arms were not run; R(m) is then empty unless --allow-partial.",
    )


def accuracy_table(models: Mapping[str, Any]) -> Table:
    rows = []
    for name, m in models.items():
        a = m["accuracies"]
        rows.append(
            [
                name,
                fmt((a.get("T2") or {}).get("text_visually_required")),
                fmt((a.get("T5") or {}).get("original")),
                fmt((a.get("T5") or {}).get("substituted")),
            ]
        )
    return Table(
        "Readiness accuracies: text only on visually required items "
        "(T2) and visual substitution (T5, Ext. Data Table 6; %)",
        ["Model", "text-only (vis. req.)", "T5 original", "T5 substituted"],
        rows,
        T5_NOTE,
    )


def format_table(models: Mapping[str, Any]) -> Table:
    rows = [
        [name]
        + [
            fmt((m["accuracies"].get("T3") or {}).get(k))
            for k in ("text_orig", "text_reordered", "image_orig", "image_reordered")
        ]
        for name, m in models.items()
    ]
    return Table(
        "T3 format perturbation (Ext. Data Table 4 layout; %)",
        ["Model", "Text (orig)", "Text (reord)", "Img+Txt (orig)", "Img+Txt (reord)"],
        rows,
        "Orig = the options in the source's order on the same items; "
        "reord = that order permuted by a seeded shuffle.",
    )


def distractor_table(models: Mapping[str, Any]) -> Table:
    rows = []
    for name, m in models.items():
        v = m["accuracies"].get("T4_variants") or {}
        for mode, label in (("text", "Text only"), ("image", "Image + Text")):
            bases = [v[f"{mode}_{x}"]["base"] for x in VARIANTS if f"{mode}_{x}" in v]
            rows.append(
                [name, label, fmt(bases[0] if bases else None)]
                + [fmt((v.get(f"{mode}_{x}") or {}).get("accuracy")) for x in VARIANTS]
            )
    return Table(
        "T4 distractor replacement (Ext. Data Table 5 layout; %)",
        ["Model", "input", "Base", "UNK", "1R", "2R", "3R", "4R"],
        rows,
        "nR: n distractors replaced by options of other items of the same source, "
        "never the safe option (so with a safe option 4R replaces at most the other "
        "three); Base is the base arm on the visually required items (each variant "
        "is compared with the base on its own items in the JSON).",
    )


def reasoning_table(models: Mapping[str, Any]) -> Table | None:
    rows = []
    for name, m in models.items():
        t6 = m["accuracies"].get("T6")
        if t6:
            rows.append(
                [
                    name,
                    str(t6["n"]),
                    fmt(t6["direct"]),
                    fmt(t6["cot"]),
                    fmt(t6["cot_minus_direct"], signed=True),
                    fmt(t6["answer_change"]),
                    f"{t6['right_to_wrong']} / {t6['wrong_to_right']}",
                    fmt(t6["well_formed"]),
                    fmt(t6["reasoning_answer_agreement"]),
                ]
            )
    if not rows:
        return None
    return Table(
        "T6 reasoning signal: chain-of-thought vs direct answer (image + text; %)",
        [
            "Model",
            "items",
            "direct",
            "CoT",
            "CoT − direct (pp)",
            "answer changed",
            "right→wrong / wrong→right",
            "well-formed tags",
            "thinking agrees with answer",
        ],
        rows,
        "Thinking agrees with answer: the last option the <thinking> part names "
        "is the final answer (over responses whose thinking names one). Factuality "
        "and visual grounding of the reasoning need a manual audit.",
    )


def readiness_tables(result: Mapping[str, Any]) -> list[Table]:
    models = result["models"]
    tables = [
        robustness_table(models),
        accuracy_table(models),
        format_table(models),
        distractor_table(models),
        reasoning_table(models),
    ]
    return [t for t in tables if t is not None]


def readiness_figures(result: Mapping[str, Any]) -> dict[str, FigureMaker]:
    """The figure by name, a function drawing it (:func:`~medvigil.report.render.draw_figures`)."""
    return {"readiness_robustness": partial(_robustness_figure, result)}


def _robustness_figure(result: Mapping[str, Any]) -> bytes:
    """Robustness per stress test and model, R(m) in the legend."""
    import numpy as np

    models = sorted(result["models"])
    fig, ax = pyplot().subplots(figsize=(max(6.0, 1.2 * len(TESTS) * max(1, len(models)) / 2), 3.6))
    width = 0.8 / max(1, len(models))
    for i, name in enumerate(models):
        m = result["models"][name]
        r = "—" if m.get("R") is None else f"{100 * m['R']:.1f}"
        ax.bar(
            np.arange(len(TESTS)) + (i - (len(models) - 1) / 2) * width,
            [
                float("nan") if m["robustness"].get(t) is None else 100 * m["robustness"][t]
                for t in TESTS
            ],
            width,
            label=f"{name} (R = {r})",
        )
    ax.set_xticks(range(len(TESTS)), list(TESTS))
    ax.set_ylim(0, 100)
    ax.set_ylabel("robustness (1 − fragility) ×100")
    ax.set_title("Illusion of Readiness: robustness per stress test")
    ax.legend(
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.25),
        ncol=min(3, max(1, len(models))),
    )
    return png(fig)
