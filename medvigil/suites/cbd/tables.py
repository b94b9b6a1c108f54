"""The Consistent-but-Dangerous tables and figures of ``medvigil score --suite cbd`` and the report.

From :func:`medvigil.suites.cbd.protocol.suite_result`: one row per model configuration (the
generative MCQ arm under the model's name, the binary yes/no arm as ``"<model> [binary]"``, its
proposed-answer variant as ``"<model> [binary, proposed answer]"``):

* quadrant fractions with flip rate and Dangerous fraction and their case-clustered bootstrap
  95 % CIs (Table 1, Sec. 3.4); accuracy per quadrant (Table 2);
* the flip-rate vs Dangerous-fraction correlation across configurations (Sec. 4.2, Fig. 3);
* flip rate per paraphrase phenomenon, quadrants per ground-truth label (Sec. 4.1);
* binary arm: mean predictive entropy per quadrant (Fig. 5), p(yes) with and without the image
  per quadrant and one example each (Table 3), null-image and image-swap invariance (Sec. 5).
"""

from collections.abc import Mapping
from functools import partial
from typing import Any

from medvigil.report.reliability import confidence_table, reliability_figure
from medvigil.report.render import FigureMaker, Table, pct, png, pyplot
from medvigil.suites.cbd.protocol import INFINITE_KL

QUADS = ("Ideal", "Fragile", "Dangerous", "Worst")
QUADRANT_COLOURS = {
    "Ideal": "#2e7d32",
    "Fragile": "#f9a825",
    "Dangerous": "#e65100",
    "Worst": "#b71c1c",
}


def with_ci(value: Any, ci: Mapping[str, Any] | None) -> str:
    if not ci or ci.get("low") is None:
        return pct(value)
    return f"{pct(value)} [{pct(ci['low'])}, {pct(ci['high'])}]"


def _num(value: Any, digits: int = 2) -> str:
    if value == INFINITE_KL:  # an infinite mean KL (protocol.kl_check)
        return "∞"
    return "—" if value is None else f"{value:.{digits}f}"


def _phenomenon(model: Mapping[str, Any], phenomenon: str) -> Mapping[str, Any]:
    """One model's flip-rate entry for one paraphrase phenomenon ({} when absent)."""
    return (model.get("flip_rate_by_phenomenon") or {}).get(phenomenon) or {}


def cbd_tables(result: Mapping[str, Any]) -> list[Table]:
    models = result["models"]
    rows, acc_rows = [], []
    for name, m in models.items():
        ci = m.get("ci") or {}
        rows.append(
            [name, str(m["n_evaluable"]), str(m["n_excluded"])]
            + [pct(m["fractions"][q]) for q in QUADS]
            + [
                with_ci(m["flip_rate"], ci.get("flip_rate")),
                with_ci(m["dangerous_fraction"], ci.get("dangerous_fraction")),
                pct(m["image_reliance_rate"]),
                pct(m["accuracy"]),
            ]
        )
        acc_rows.append(
            [name] + [f"{pct(m['accuracy_by_quadrant'][q])} (n={m['counts'][q]})" for q in QUADS]
        )
    n_res = next(
        (
            m["ci"]["flip_rate"].get("n_resamples")
            for m in models.values()
            if (m.get("ci") or {}).get("flip_rate", {}).get("low") is not None
        ),
        None,
    )
    out = [
        Table(
            "Consistent but Dangerous: quadrants (% of samples)",
            [
                "Model",
                "samples",
                "excluded",
                *QUADS,
                "flip rate [95% CI]",
                "Dangerous [95% CI]",
                "image reliance",
                "accuracy",
            ],
            rows,
            "Consistent = no paraphrase flips the answer (Eq. 1); image-reliant = "
            "the answer changes without the image (Eq. 2). Dangerous = consistent "
            "but not image-reliant (Eq. 4). CIs: percentile bootstrap over cases"
            + (f" ({n_res} resamples)." if n_res else ".")
            + " '[binary]' rows: the yes/no arm, \"Is there [finding]?\" (p(yes) from "
            "log-likelihoods; answers to a negated paraphrase read in the original question's "
            "polarity); '[binary, proposed answer]': its variant on the MCQ with a proposed "
            "option.",
        ),
        Table("Accuracy per quadrant (%)", ["Model", *QUADS], acc_rows),
    ]
    corr = result.get("correlation") or {}
    if corr:
        out.append(
            Table(
                "Flip rate vs Dangerous fraction across model configurations (Sec. 4.2, Fig. 3)",
                ["configurations", "Pearson r", "Spearman ρ"],
                [[str(corr.get("n")), _num(corr.get("pearson")), _num(corr.get("spearman"))]],
                "Negative = the more consistent configurations are the more Dangerous (the "
                "consistency–safety paradox). Needs at least three configurations.",
            )
        )
    phenomena = sorted(
        {p for m in models.values() for p in (m.get("flip_rate_by_phenomenon") or {})}
    )
    if phenomena:
        out.append(
            Table(
                "Flip rate per paraphrase phenomenon (%; share of "
                "samples a paraphrase of that phenomenon flips)",
                ["Model", *phenomena],
                [
                    [name]
                    + [
                        f"{pct(_phenomenon(m, p).get('flip_rate'))} "
                        f"(n={_phenomenon(m, p).get('n', 0)})"
                        for p in phenomena
                    ]
                    for name, m in models.items()
                ],
            )
        )
    label_rows = [
        [name, label, str(s["n_evaluable"])]
        + [pct(s["fractions"][q]) for q in QUADS]
        + [pct(s["flip_rate"])]
        for name, m in models.items()
        for key in ("by_label", "by_finding")
        for label, s in (m.get(key) or {}).items()
    ]
    if label_rows:
        out.append(
            Table(
                "Quadrants per ground-truth label / finding (%)",
                ["Model", "label", "samples", *QUADS, "flip rate"],
                label_rows,
            )
        )
    binary = {n: m for n, m in models.items() if m.get("binary_by_quadrant")}
    if binary:
        out.append(
            Table(
                "Binary arm: mean predictive entropy per quadrant (nats; Fig. 5)",
                ["Model", *QUADS, "all"],
                [
                    [
                        n,
                        *(_num((m.get("mean_entropy_by_quadrant") or {}).get(q), 3) for q in QUADS),
                        _num(m.get("mean_entropy"), 3),
                    ]
                    for n, m in binary.items()
                ],
                "Entropy of the softmax over yes/no for (image, q). Dangerous "
                "samples with low entropy evade uncertainty-based screening.",
            )
        )
        out.append(
            Table(
                "Binary arm: p(yes) with and without the image per quadrant (Table 3)",
                [
                    "Model",
                    "quadrant",
                    "n",
                    "mean p(yes) img",
                    "mean p(yes) text",
                    "example question",
                    "img",
                    "text",
                    "p(yes) img",
                    "p(yes) text",
                    "GT",
                ],
                [
                    [n, q, str(e["n"]), _num(e["mean_p_yes_image"]), _num(e["mean_p_yes_text"])]
                    + (
                        [
                            (e["example"]["question"] or "")[:60],
                            e["example"]["image"],
                            e["example"]["text"],
                            _num(e["example"]["p_yes_image"]),
                            _num(e["example"]["p_yes_text"]),
                            e["example"]["gt"],
                        ]
                        if e.get("example")
                        else ["—"] * 6
                    )
                    for n, m in binary.items()
                    for q, e in m["binary_by_quadrant"].items()
                ],
            )
        )
        out.append(
            Table(
                "Binary arm: null-image and image-swap checks (% of "
                "samples whose answer to q is unchanged; Sec. 5)",
                ["Model", *(f"{q} null" for q in QUADS), *(f"{q} swap" for q in QUADS)],
                [
                    [
                        n,
                        *(pct(m["binary_by_quadrant"][q]["null_invariant"]) for q in QUADS),
                        *(pct(m["binary_by_quadrant"][q]["swap_invariant"]) for q in QUADS),
                    ]
                    for n, m in binary.items()
                ],
                "Null image: a black 224×224 image; swap: the images of five other cases "
                "per sample (Sec. 5), a sample invariant when its answer is unchanged under "
                "all five. Text-reliant (Dangerous) samples should be invariant.",
            )
        )
        out.append(
            Table(
                "Binary arm: KL image-reliance check (Sec. 5; KL(image "
                "‖ text) of the yes/no distributions, nats)",
                [
                    "Model",
                    *(f"mean KL {q}" for q in QUADS),
                    "AUROC Dangerous vs Ideal",
                    "AUROC Dangerous vs rest",
                ],
                [
                    [
                        n,
                        *(
                            _num(((m.get("kl_check") or {}).get("mean_kl") or {}).get(q), 3)
                            for q in QUADS
                        ),
                        _num((m.get("kl_check") or {}).get("auroc_dangerous_vs_ideal"), 3),
                        _num((m.get("kl_check") or {}).get("auroc_dangerous_vs_rest"), 3),
                    ]
                    for n, m in binary.items()
                ],
                "AUROC of a low KL for telling Dangerous samples from Ideal ones "
                "(the paper's comparison) and from all others; a text-reliant "
                "sample's distribution barely moves without the image.",
            )
        )
    table = confidence_table(
        "Binary arm: calibration and selective risk of p(yes)",
        _binary_confidence(models),
        BINARY_NOTE,
    )
    return out + ([table] if table else [])


BINARY_NOTE = (
    "Confidence = the probability of the answer given, max(p(yes), 1 − p(yes)); correct "
    "= that answer is the label; per binary arm (image, noimg, null, swap); 10 bins."
)


def _binary_confidence(models: Mapping[str, Any]) -> dict[str, Any]:
    """``"<model> [binary] · <arm>"`` -> its confidence summary (binary configurations only)."""
    return {
        f"{name} · {arm}": summary
        for name, m in models.items()
        for arm, summary in (m.get("confidence_metrics") or {}).items()
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
            _binary_confidence(result["models"]),
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
    ax.set_title(f"Flip rate vs Dangerous (Spearman ρ = {_num(corr.get('spearman'))})")
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
