"""The MedVIGIL report's tables in the paper's layouts: Tables 1 (with Doctors), 6, 7, 8, 10, 16,
17, the ablations' (:mod:`.ablation_tables`) and the seed-variance taxonomy; the figures are
:mod:`.figures`.
"""

import math
from collections.abc import Mapping
from typing import Any

from medvigil.report.render import Table, fmt, fmt_ci
from medvigil.suites.medvigil.release.release_format import PROBE_KINDS, TIERS
from medvigil.suites.medvigil.scoring.ablation_tables import ablation_tables, protocol_tables
from medvigil.suites.medvigil.scoring.abstention import abstention_table
from medvigil.suites.medvigil.scoring.clinician import DOCTORS
from medvigil.suites.medvigil.scoring.seed_variance import CLASSES

__all__ = ["KIND_LABELS", "tables", "with_doctors"]


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


def with_doctors(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
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
    """The report's tables of an audit result, in the paper's order; what was scored last."""
    m = with_doctors(result)
    out = _headline_tables(m) + [_tier_table(m)] + _source_table(m)
    out += _clinician_table(result)
    out += _ci_table(result, m)
    out += _sensitivity_tables(result)
    out += ablation_tables(result)
    out += protocol_tables(result)
    out += _seed_variance_tables(result)
    if result.get("selective"):  # open-ended condition: refusal as abstention
        out.append(abstention_table(result["selective"]))
    out.append(_counts_table(result, m))
    return out


def _headline_tables(m: Mapping[str, Mapping[str, Any]]) -> list[Table]:
    """Table 1, the MCS components and Table 6 of the model blocks ``m``."""
    return [
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


def _tier_table(m: Mapping[str, Mapping[str, Any]]) -> Table:
    """Table 7: original accuracy and trap SFR per risk tier."""
    tier_rows = []
    for n, b in m.items():
        tiers = (b.get("strata") or {}).get("risk_tier") or {}
        orig = [fmt((tiers.get(t) or {}).get("accuracy", {}).get("original")) for t in TIERS]
        sfr = [fmt(b.get("sfr_by_tier", {}).get(t)) for t in TIERS]
        tier_rows.append([n] + orig + sfr + [fmt(b["metrics"].get("sfr_w"))])
    return Table(
        "Clinical risk tiers (Table 7 layout): original accuracy and trap SFR by tier",
        ["Model"] + [f"Orig {t}" for t in TIERS] + [f"SFR {t}" for t in TIERS] + ["SFR_w ↓"],
        tier_rows,
    )


def _source_table(m: Mapping[str, Mapping[str, Any]]) -> list[Table]:
    """Table 8: Overall per source dataset, when the strata have sources."""
    sources = sorted(
        {
            level
            for b in m.values()
            for level in ((b.get("strata") or {}).get("source_dataset") or {})
        }
    )
    if not sources:
        return []
    return [
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
    ]


def _ci_table(result: Mapping[str, Any], m: Mapping[str, Mapping[str, Any]]) -> list[Table]:
    """Table 16: the bootstrap intervals, when the audit drew them."""
    if not any(b.get("ci") for b in m.values()):
        return []
    params = result.get("params") or {}
    return [
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
    ]


def _counts_table(result: Mapping[str, Any], m: Mapping[str, Mapping[str, Any]]) -> Table:
    """What was scored: records, scored, parse failures, errors, rows skipped and cases per model
    (dashes for the clinician row)."""
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
    return Table(
        "What was scored",
        ["Model", "records", "scored", "parse failures", "errors", "skipped on input", "cases"],
        counts,
        "Parse failures and errors count as wrong, and "
        "as silent failures on traps (paper semantics).",
    )


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
