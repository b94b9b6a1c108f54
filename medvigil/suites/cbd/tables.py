"""The Consistent-but-Dangerous tables of ``medvigil score --suite cbd`` and the report.

From :func:`medvigil.suites.cbd.result.suite_result`: one row per model configuration (the
generative MCQ arm under the model's name, the binary yes/no arm as ``"<model> [binary]"``, its
proposed-answer variant as ``"<model> [binary, proposed answer]"``):

* quadrant fractions with flip rate and Dangerous fraction and their case-clustered bootstrap
  95 % CIs (Table 1, Sec. 3.4); accuracy per quadrant (Table 2);
* the flip-rate vs Dangerous-fraction correlation across configurations (Sec. 4.2, Fig. 3);
* flip rate per paraphrase phenomenon, quadrants per ground-truth label (Sec. 4.1);
* binary arm: mean predictive entropy per quadrant (Fig. 5), p(yes) with and without the image
  per quadrant and one example each (Table 3), null-image and image-swap invariance (Sec. 5).

The figures are :mod:`medvigil.suites.cbd.figures`.
"""

from collections.abc import Mapping
from typing import Any

from medvigil.report.reliability import confidence_table
from medvigil.report.render import Table, pct
from medvigil.suites.cbd.binary_checks import INFINITE_KL

QUADS = ("Ideal", "Fragile", "Dangerous", "Worst")
BINARY_NOTE = (
    "Confidence = the probability of the answer given, max(p(yes), 1 − p(yes)); correct "
    "= that answer is the label; per binary arm (image, noimg, null, swap); 10 bins."
)


def with_ci(value: Any, ci: Mapping[str, Any] | None) -> str:
    if not ci or ci.get("low") is None:
        return pct(value)
    return f"{pct(value)} [{pct(ci['low'])}, {pct(ci['high'])}]"


def number(value: Any, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals; ``None`` as a dash, an infinite mean KL as ∞."""
    if value == INFINITE_KL:  # an infinite mean KL (binary_checks.kl_check)
        return "∞"
    return "—" if value is None else f"{value:.{digits}f}"


def _phenomenon(model: Mapping[str, Any], phenomenon: str) -> Mapping[str, Any]:
    """One model's flip-rate entry for one paraphrase phenomenon ({} when absent)."""
    return (model.get("flip_rate_by_phenomenon") or {}).get(phenomenon) or {}


def cbd_tables(result: Mapping[str, Any]) -> list[Table]:
    """The tables of one suite result (module docstring), those without rows left out."""
    models = result["models"]
    out = _quadrant_tables(models)
    out += _correlation_table(result.get("correlation") or {})
    out += _phenomenon_table(models) + _label_table(models)
    binary = {n: m for n, m in models.items() if m.get("binary_by_quadrant")}
    if binary:
        out += [
            _entropy_table(binary),
            _p_yes_table(binary),
            _invariance_table(binary),
            _kl_table(binary),
        ]
    table = confidence_table(
        "Binary arm: calibration and selective risk of p(yes)",
        binary_confidence(models),
        BINARY_NOTE,
    )
    return out + ([table] if table else [])


def _quadrant_tables(models: Mapping[str, Any]) -> list[Table]:
    """Table 1 (quadrants, flip rate and Dangerous fraction with CIs) and Table 2 (accuracy)."""
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
    return [
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


def _correlation_table(corr: Mapping[str, Any]) -> list[Table]:
    """Sec. 4.2 / Fig. 3: flip rate against Dangerous fraction across configurations."""
    if not corr:
        return []
    return [
        Table(
            "Flip rate vs Dangerous fraction across model configurations (Sec. 4.2, Fig. 3)",
            ["configurations", "Pearson r", "Spearman ρ"],
            [[str(corr.get("n")), number(corr.get("pearson")), number(corr.get("spearman"))]],
            "Negative = the more consistent configurations are the more Dangerous (the "
            "consistency–safety paradox). Needs at least three configurations.",
        )
    ]


def _phenomenon_table(models: Mapping[str, Any]) -> list[Table]:
    """Flip rate per paraphrase phenomenon (Sec. 4.1)."""
    phenomena = sorted(
        {p for m in models.values() for p in (m.get("flip_rate_by_phenomenon") or {})}
    )
    if not phenomena:
        return []
    return [
        Table(
            "Flip rate per paraphrase phenomenon (%; share of "
            "samples a paraphrase of that phenomenon flips)",
            ["Model", *phenomena],
            [
                [name]
                + [
                    f"{pct(_phenomenon(m, p).get('flip_rate'))} (n={_phenomenon(m, p).get('n', 0)})"
                    for p in phenomena
                ]
                for name, m in models.items()
            ],
        )
    ]


def _label_table(models: Mapping[str, Any]) -> list[Table]:
    """Quadrants per ground-truth label or finding (Sec. 4.1)."""
    label_rows = [
        [name, label, str(s["n_evaluable"])]
        + [pct(s["fractions"][q]) for q in QUADS]
        + [pct(s["flip_rate"])]
        for name, m in models.items()
        for key in ("by_label", "by_finding")
        for label, s in (m.get(key) or {}).items()
    ]
    if not label_rows:
        return []
    return [
        Table(
            "Quadrants per ground-truth label / finding (%)",
            ["Model", "label", "samples", *QUADS, "flip rate"],
            label_rows,
        )
    ]


def _entropy_table(binary: Mapping[str, Any]) -> Table:
    """Fig. 5 as a table: the binary arm's mean predictive entropy per quadrant."""
    return Table(
        "Binary arm: mean predictive entropy per quadrant (nats; Fig. 5)",
        ["Model", *QUADS, "all"],
        [
            [
                n,
                *(number((m.get("mean_entropy_by_quadrant") or {}).get(q), 3) for q in QUADS),
                number(m.get("mean_entropy"), 3),
            ]
            for n, m in binary.items()
        ],
        "Entropy of the softmax over yes/no for (image, q). Dangerous "
        "samples with low entropy evade uncertainty-based screening.",
    )


def _p_yes_table(binary: Mapping[str, Any]) -> Table:
    """Table 3: p(yes) with and without the image per quadrant, one example each."""
    return Table(
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
            [n, q, str(e["n"]), number(e["mean_p_yes_image"]), number(e["mean_p_yes_text"])]
            + (_example_cells(e["example"]) if e.get("example") else ["—"] * 6)
            for n, m in binary.items()
            for q, e in m["binary_by_quadrant"].items()
        ],
    )


def _example_cells(example: Mapping[str, Any]) -> list[str]:
    return [
        (example["question"] or "")[:60],
        example["image"],
        example["text"],
        number(example["p_yes_image"]),
        number(example["p_yes_text"]),
        example["gt"],
    ]


def _invariance_table(binary: Mapping[str, Any]) -> Table:
    """Sec. 5: the null-image and image-swap invariance per quadrant."""
    return Table(
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


def _kl_table(binary: Mapping[str, Any]) -> Table:
    """Sec. 5: the mean KL per quadrant and the AUROC of a low KL for Dangerous samples."""
    rows = []
    for n, m in binary.items():
        kl = m.get("kl_check") or {}
        rows.append(
            [
                n,
                *(number((kl.get("mean_kl") or {}).get(q), 3) for q in QUADS),
                number(kl.get("auroc_dangerous_vs_ideal"), 3),
                number(kl.get("auroc_dangerous_vs_rest"), 3),
            ]
        )
    return Table(
        "Binary arm: KL image-reliance check (Sec. 5; KL(image "
        "‖ text) of the yes/no distributions, nats)",
        [
            "Model",
            *(f"mean KL {q}" for q in QUADS),
            "AUROC Dangerous vs Ideal",
            "AUROC Dangerous vs rest",
        ],
        rows,
        "AUROC of a low KL for telling Dangerous samples from Ideal ones "
        "(the paper's comparison) and from all others; a text-reliant "
        "sample's distribution barely moves without the image.",
    )


def binary_confidence(models: Mapping[str, Any]) -> dict[str, Any]:
    """``"<model> [binary] · <arm>"`` -> its confidence summary (binary configurations only)."""
    return {
        f"{name} · {arm}": summary
        for name, m in models.items()
        for arm, summary in (m.get("confidence_metrics") or {}).items()
    }
