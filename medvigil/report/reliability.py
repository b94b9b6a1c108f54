"""Report pieces for confidence scores (any suite): a table of calibration and selective-risk
values and a reliability diagram, both from :func:`medvigil.scoring.confidence.confidence_summary`
results."""

from collections.abc import Mapping
from typing import Any

from medvigil.report.render import Table, png, pyplot

NOTE = (
    "ECE = Σ_b (n_b/N)|acc_b − conf_b| over equal-width right-closed bins (Naeini et "
    "al. 2015; Guo et al. 2017), MCE = the largest gap of a non-empty bin, Brier = "
    "mean (conf − correct)² (Brier 1950); AURC = mean selective risk over coverages "
    "k/N with answers ranked by confidence (Geifman & El-Yaniv 2017), e-AURC = AURC "
    "minus the oracle ranking's (Geifman et al. 2019). All lower is better."
)


def _number(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def confidence_table(
    title: str, rows: Mapping[str, Mapping[str, Any] | None], note: str = ""
) -> Table | None:
    """One row per labelled summary (None summaries left out); None when no row is left."""
    kept = {label: s for label, s in rows.items() if s}
    if not kept:
        return None
    keys = ("ece", "mce", "brier", "aurc", "e_aurc")
    return Table(
        title,
        ["", "N", "ECE", "MCE", "Brier", "AURC", "e-AURC"],
        [[label, str(s["n"])] + [_number(s.get(k)) for k in keys] for label, s in kept.items()],
        " ".join(x for x in (note, NOTE) if x),
    )


def reliability_figure(title: str, curves: Mapping[str, Mapping[str, Any] | None]) -> bytes | None:
    """Accuracy against mean confidence of each non-empty bin, one line per labelled summary, with
    the diagonal of perfect calibration; None when no summary has a bin."""
    kept = {label: s for label, s in curves.items() if s and any(s["bins"]["count"])}
    if not kept:
        return None
    fig, ax = pyplot().subplots(figsize=(5.2, 4.2))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
    for label, s in kept.items():
        bins = s["bins"]
        points = [
            (c, a)
            for c, a, n in zip(bins["confidence"], bins["accuracy"], bins["count"])
            if n and c is not None
        ]
        ax.plot(
            [c for c, _ in points],
            [a for _, a in points],
            marker="o",
            label=f"{label} (ECE {s['ece']:.3f})",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean confidence in bin")
    ax.set_ylabel("accuracy in bin")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    return png(fig)
