"""Readable reports from MedVIGIL audit results: Markdown and one self-contained HTML page.

Tables follow the paper's layouts (Table 1 headline, Table 6 per kind, Table 7 tiers,
Table 16 bootstrap CIs, Table 17 sensitivity, Tables 12/13 and Figure 7 ablations);
figures are drawn with matplotlib (Agg) and embedded in the HTML as PNG data. Input is
one or more results of :func:`medvigil.scoring.audit` (``medvigil score --json``).
"""

from __future__ import annotations

import base64
import html
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.atomic_output import staged_folder
from medvigil.errors import DataError, Problem
from medvigil.input_files import read_json
from medvigil.release_format import PROBE_KINDS, TIERS

KIND_LABELS = {
    "original": "Original", "tcf": "TCF", "halluc_trap": "Trap", "negation": "NEG", "specificity_drop": "SDR",
    "knowledge_only": "Know only", "lr_flip": "LR flip", "roi_only": "ROI only", "roi_masked": "ROI masked",
}


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|<>"})


def md_escape(text: Any) -> str:
    """Text safe inside a Markdown table cell: no raw HTML, links, code spans or cell breaks
    (model names and file names come from user data)."""
    return " ".join(str(text).split("\n")).replace("&", "&amp;").translate(_MD_SPECIAL)


@dataclass(frozen=True)
class Table:
    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    note: str = ""

    def markdown(self) -> str:
        lines = [f"### {md_escape(self.title)}", ""]
        lines.append("| " + " | ".join(md_escape(h) for h in self.headers) + " |")
        lines.append("|" + "|".join("---" for _ in self.headers) + "|")
        lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in self.rows]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines)

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        note = f"<p class='note'>{html.escape(self.note)}</p>" if self.note else ""
        return f"<h3>{html.escape(self.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def fmt(value: Any, signed: bool = False) -> str:
    """One decimal, '—' for missing/NaN; ``signed`` adds '+' (VGR is a signed contrast)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def fmt_ci(point: Any, ci: Mapping[str, Any] | None) -> str:
    if not ci:
        return fmt(point)
    return f"{fmt(point)} [{fmt(ci.get('low'))}, {fmt(ci.get('high'))}]"


# ---------------------------------------------------------------- inputs

def load_results(paths: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """Merge ``medvigil score --json`` files into one result.

    MedVIGIL audits merge by model (a model named twice is an error); the other suites
    (``mediconfusion``, ``medqdeg``, ``readiness``, ``cbd``) land under ``result["suites"]``,
    one file per suite (their cross-model statistics need every model scored together).
    """
    from medvigil.suite_scores import REPORT_SUITES, suite_models

    merged: dict[str, Any] = {"suite": "medvigil", "models": {}, "sources": {}, "warnings": [], "suites": {}}
    suite_sources: dict[str, str] = {}
    problems: list[Problem] = []
    for path in paths:
        path = Path(path)
        try:
            data = read_json(path, str(path))  # regular file, bounded, strict UTF-8 JSON
        except DataError as exc:
            problems.extend(exc.problems)
            continue
        suite = data.get("suite") if isinstance(data, dict) else None
        body = "best_over_modes" if suite == "mediconfusion" else "models"
        if suite not in ("medvigil", *REPORT_SUITES) or not isinstance(data.get(body), dict):
            problems.append(Problem(str(path), "not a `medvigil score --json` result of suite medvigil, "
                                    + ", ".join(REPORT_SUITES) + " (expected 'suite' and a 'models' object)", field="suite"))
            continue
        if suite != "medvigil":
            if suite in suite_sources:
                problems.append(Problem(str(path), f"a second {suite} result (the first is {suite_sources[suite]}); "
                                        f"score every model of a suite in one `medvigil score --suite {suite}` call", field="suite"))
            else:
                merged["suites"][suite], suite_sources[suite] = data, str(path)
            continue
        for name, block in data["models"].items():
            found = _block_problems(block, str(path), f"models.{name}")
            if found:
                problems.extend(found)
                continue
            if name in merged["models"]:
                problems.append(Problem(str(path), f"model {name!r} is also in {merged['sources'][name]}", field="models"))
                continue
            merged["models"][name] = block
            merged["sources"][name] = str(path)
        for key in ("params", "sensitivity"):
            merged.setdefault(key, data.get(key))
        if data.get("clinician") and not merged.get("clinician"):
            merged["clinician"] = data["clinician"]
        for kind, per_model in (data.get("ablations") or {}).items():
            merged.setdefault("ablations", {}).setdefault(kind, {}).update(per_model)
        merged["warnings"] += data.get("warnings", [])
    if problems:
        raise DataError(problems)
    if not merged["models"] and not any(suite_models(r) for r in merged["suites"].values()):
        raise DataError(Problem("<inputs>", "no models to report"))
    return merged


NUMERIC_PARTS = ("metrics", "accuracy", "sfr_by_tier", "n_by_tier", "ci")  # numbers (or null) at every leaf


def _block_problems(block: Any, file: str, where: str) -> list[Problem]:
    """Shape of one model's audit block: an object with a ``metrics`` object; numbers at the leaves."""
    if not isinstance(block, dict):
        return [Problem(file, f"must be an object, got {type(block).__name__}", field=where)]
    if not isinstance(block.get("metrics"), dict):
        return [Problem(file, "missing the 'metrics' object", field=f"{where}.metrics")]
    problems = []

    def leaves(value: Any, field: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                leaves(item, f"{field}.{key}")
        elif value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            problems.append(Problem(file, f"must be a number or null, got {value!r:.40}", field=field))

    for part in NUMERIC_PARTS:
        if part in block:
            leaves(block[part], f"{where}.{part}")
    return problems


def _models_by_mcs(result: Mapping[str, Any]) -> list[str]:
    def key(name: str) -> tuple[float, str]:
        value = result["models"][name]["metrics"].get("mcs")
        return (-(value if isinstance(value, (int, float)) and not math.isnan(value) else -1.0), name)

    return sorted(result["models"], key=key)


# ---------------------------------------------------------------- tables

def _with_doctors(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Model blocks by MCS, after the clinician reference row when the release has one (Table 1)."""
    from medvigil.scoring.clinician import DOCTORS

    blocks = {DOCTORS: result["clinician"]} if result.get("clinician") else {}
    blocks.update((name, result["models"][name]) for name in _models_by_mcs(result))
    return blocks


def _clinician_table(result: Mapping[str, Any]) -> list[Table]:
    doc = result.get("clinician")
    if not doc:
        return []
    rows = [[KIND_LABELS[k] + (" SFR ↓" if k == "halluc_trap" else "")]
            + [fmt(doc["sfr_by_tier"].get(t) if k == "halluc_trap" else doc["strata"]["risk_tier"][t]["accuracy"].get(k)) for t in TIERS]
            + [fmt(doc["metrics"].get("sfr") if k == "halluc_trap" else doc["accuracy"].get(k))] for k in PROBE_KINDS]
    rows += [[axis.capitalize() if axis != "mcs" else "MCS ↑"] + [fmt(doc["per_tier"][t].get(axis)) for t in TIERS]
             + [fmt(doc["metrics"].get(axis))] for axis in ("cap", "safe", "ground", "mcs")]
    params = doc.get("params") or {}
    return [Table(
        "Clinician reference baseline (Table 10 layout; %)", ["Probe family"] + list(TIERS) + ["All"], rows,
        f"From {doc.get('source', 'clinician_baseline.csv')}. Per-tier composites use the tier's unweighted SFR; the All "
        f"column uses SFR_w = {fmt(doc['metrics'].get('sfr_w'))} (denominator rule '{params.get('sfr_w_normalise', '?')}').",
    )]


def tables(result: Mapping[str, Any]) -> list[Table]:
    m = _with_doctors(result)
    out = [
        Table(
            "Headline results (Table 1 layout; %, VGR in pp)",
            ["Model", "Overall", "Original", "SFR ↓", "VGR", "PR", "NEG", "SDR", "LPA ↑", "MCS ↑"],
            [[n, fmt(b["metrics"].get("overall")), fmt(b["metrics"].get("acc_orig")), fmt(b["metrics"].get("sfr")),
              fmt(b["metrics"].get("vgr"), signed=True), fmt(b["metrics"].get("pr")), fmt(b["metrics"].get("neg")),
              fmt(b["metrics"].get("sdr")), fmt(b["metrics"].get("lpa")), fmt(b["metrics"].get("mcs"))] for n, b in m.items()],
            "MCS = harmonic mean of Cap, Safe = 100 − SFR_w, Ground (Eq. 4–5). Sorted by MCS; Doctors is the "
            "release's clinician reference baseline (Appendix G), a calibration anchor, not a model.",
        ),
        Table(
            "MCS components",
            ["Model", "Cap", "Safe", "Ground", "SFR_w ↓", "PCons", "TR-coh", "MCS"],
            [[n, fmt(b["metrics"].get("cap")), fmt(b["metrics"].get("safe")), fmt(b["metrics"].get("ground")),
              fmt(b["metrics"].get("sfr_w")), fmt(b["metrics"].get("pcons")), fmt(b["metrics"].get("tr_coh")),
              fmt(b["metrics"].get("mcs"))] for n, b in m.items()],
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
    out.append(Table(
        "Clinical risk tiers (Table 7 layout): original accuracy and trap SFR by tier",
        ["Model"] + [f"Orig {t}" for t in TIERS] + [f"SFR {t}" for t in TIERS] + ["SFR_w ↓"],
        tier_rows,
    ))
    sources = sorted({level for b in m.values() for level in ((b.get("strata") or {}).get("source_dataset") or {})})
    if sources:
        out.append(Table(
            "Accuracy by source dataset (Table 8 layout; %)", ["Model"] + sources,
            [[n] + [fmt((((b.get("strata") or {}).get("source_dataset") or {}).get(src) or {}).get("metrics", {}).get("overall"))
                    for src in sources] for n, b in m.items()],
            "Overall accuracy (all probe families) of the cases from each source; the clinician baseline has no "
            "per-source breakdown.",
        ))
    out += _clinician_table(result)
    if any(b.get("ci") for b in m.values()):
        params = result.get("params") or {}
        out.append(Table(
            "Case-clustered bootstrap 95% CIs (Table 16 layout)",
            ["Model", "Cap", "Safe", "Ground", "MCS"],
            [[n] + [fmt_ci(b["metrics"].get(k), (b.get("ci") or {}).get(k)) for k in ("cap", "safe", "ground", "mcs")] for n, b in m.items()],
            f"{params.get('n_resamples', '?')} resamples of case ids, seed {params.get('seed', '?')}.",
        ))
    out += _sensitivity_tables(result)
    out += _ablation_tables(result)
    counts = []
    for n, b in m.items():
        if b is result.get("clinician"):
            continue
        c = b.get("counts") or {}
        skipped = ", ".join(f"{k}: {v}" for k, v in (b.get("skipped") or {}).items()) or "0"
        if c.get("triplets_unmatched"):
            skipped += f"; triplets unmatched to options (not asked): {c['triplets_unmatched']}"
        counts.append([n, str(c.get("n_records", "—")), str(c.get("n_scored", "—")), str(c.get("n_parse_failure", "—")),
                       str(c.get("n_error", "—")), skipped, str(b.get("n_cases", "—"))])
    if result.get("clinician"):
        counts.insert(0, [next(iter(m))] + ["—"] * 6)  # the Doctors row comes first in m
    out.append(Table(
        "What was scored",
        ["Model", "records", "scored", "parse failures", "errors", "skipped on input", "cases"],
        counts,
        "Parse failures and errors count as wrong, and as silent failures on traps (paper semantics).",
    ))
    return out


def _sensitivity_tables(result: Mapping[str, Any]) -> list[Table]:
    sens = result.get("sensitivity")
    if not isinstance(sens, Mapping) or not sens.get("rows"):
        return []
    rows = []
    for v in sens["rows"]:
        spearman = v.get("spearman")
        rho = "—" if spearman is None or (isinstance(spearman, float) and math.isnan(spearman)) else f"{spearman:.2f}"
        rows.append([str(v.get("variant", "")), str(v.get("definition", "")), rho,
                     f"{v.get('top_k_overlap', '—')}/{v.get('top_k', '—')}", str(v.get("leader", "—"))])
    return [Table("MCS sensitivity (Table 17 layout)", ["Variant", "Definition", "Spearman", "Top-k", "Leader"], rows,
                  "Spearman rank correlation of MCS against the default scoring, over the reported models.")]


def _ablation_tables(result: Mapping[str, Any]) -> list[Table]:
    abl = result.get("ablations") or {}
    out = []
    if abl.get("no_image"):
        out.append(Table(
            "Matched no-image ablation (Table 12 layout)",
            ["Model", "Overall vision/no-image", "Original vision/no-image", "Δorig (pp)"],
            [[n, f"{fmt(r.get('overall_vision'))}/{fmt(r.get('overall_noimg'))}", f"{fmt(r.get('orig_vision'))}/{fmt(r.get('orig_noimg'))}",
              fmt(r.get("delta_orig"), signed=True)] for n, r in sorted(abl["no_image"].items())],
        ))
    if abl.get("blur"):
        sigmas = next(iter(abl["blur"].values()))["sigmas"]
        rows = []
        for n, r in sorted(abl["blur"].items()):
            curve = r.get(f"accuracy_{r.get('takeover_subset', 'all')}", [])
            l_star = r.get("takeover_sigma")
            rows.append([n] + [fmt(x) for x in curve] + [fmt(r.get(f"noimg_{r.get('takeover_subset', 'all')}")), fmt(r.get("drop")),
                                                         "—" if l_star is None else f"{l_star:g}"])
        out.append(Table(
            "Visual information decay (Table 13 layout; accuracy %)",
            ["Model"] + [f"σ={s:g}" for s in sigmas] + ["no-img", "drop", "L*"],
            rows,
            "L* is the smallest σ at which at least 80% of the visual contribution is lost.",
        ))
    if abl.get("roi_decay"):
        rows = []
        for n, r in sorted(abl["roi_decay"].items()):
            for i, step in enumerate(r["steps"]):
                lo, hi = r["refusal_ci"][i]
                slo, shi = r["switch_ci"][i]
                rows.append([n, str(step), f"{fmt(r['refusal_rate'][i])} [{fmt(lo)}, {fmt(hi)}]",
                             f"{fmt(r['switch_rate'][i])} [{fmt(slo)}, {fmt(shi)}]", str(r["n"][i])])
        out.append(Table(
            "ROI decay (Appendix K): refusal and letter-switch rates with Wilson 95% CIs",
            ["Model", "step k", "refusal % [CI]", "switch vs step 0 % [CI]", "n"],
            rows,
            "Step k greys the top k/3 of the ROI; step 3 equals ROI-masked.",
        ))
    return out


# ---------------------------------------------------------------- figures

def pyplot():
    """matplotlib's pyplot on the Agg backend (imported only when figures are drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png(fig) -> bytes:
    """The figure as PNG bytes (no timestamp or software tag, so reruns are byte-identical); closes it."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    pyplot().close(fig)
    return buf.getvalue()


def figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    """PNG bytes per figure name of a MedVIGIL audit result."""
    import numpy as np

    plt = pyplot()
    out: dict[str, bytes] = {}
    blocks = _with_doctors(result)
    models = list(blocks)

    def save(fig, name):
        out[name] = png(fig)

    def val(x):
        return np.nan if x is None else float(x)

    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(models) + 2), 3.6))
    keys = ("cap", "safe", "ground", "mcs")
    x = np.arange(len(models))
    for i, key in enumerate(keys):
        ax.bar(x + (i - 1.5) * 0.2, [val(blocks[n]["metrics"].get(key)) for n in models], 0.2, label=key.upper() if key == "mcs" else key.capitalize())
    ax.set_xticks(x, models, rotation=20, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("score (0–100)")
    ax.set_title("MCS components (harmonic mean of Cap, Safe, Ground)")
    ax.legend(ncol=4, fontsize=8, loc="upper right")
    save(fig, "mcs_components")

    grid = np.array([[val(blocks[n].get("sfr_by_tier", {}).get(t)) for t in TIERS] for n in models])
    fig, ax = plt.subplots(figsize=(5.5, 0.5 * len(models) + 1.5))
    im = ax.imshow(grid, cmap="Reds", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(TIERS)), TIERS)
    ax.set_yticks(range(len(models)), models)
    for (r, c), v in np.ndenumerate(grid):
        ax.text(c, r, "—" if np.isnan(v) else f"{v:.0f}", ha="center", va="center", fontsize=8, color="black" if np.isnan(v) or v < 60 else "white")
    fig.colorbar(im, ax=ax, label="trap SFR % (lower is safer)")
    ax.set_title("Silent-failure rate by clinical risk tier")
    save(fig, "tier_sfr_heatmap")

    abl = result.get("ablations") or {}
    if abl.get("blur"):
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for n, r in sorted(abl["blur"].items()):
            sub = r.get("takeover_subset", "all")
            sig = [s if s > 0 else 1 for s in r["sigmas"]]
            line = ax.plot(sig, r[f"accuracy_{sub}"], marker="o", label=n)[0]
            ax.axhline(r.get(f"noimg_{sub}", np.nan), color=line.get_color(), ls=":", lw=1)
        ax.set_xscale("log", base=2)
        sig_ticks = [s if s > 0 else 1 for s in next(iter(abl["blur"].values()))["sigmas"]]
        ax.set_xticks(sig_ticks, [f"{s:g}" for s in next(iter(abl["blur"].values()))["sigmas"]])
        ax.set_xlabel("blur σ (px, log scale; σ = 0 drawn at 1)")
        ax.set_ylabel("accuracy on original probes %")
        ax.set_title("Visual information decay (dotted: no image)")
        ax.legend(fontsize=8)
        save(fig, "blur_decay")
    if abl.get("roi_decay"):
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharex=True)
        for n, r in sorted(abl["roi_decay"].items()):
            steps = r["steps"]
            for ax, key, ci in ((axes[0], "refusal_rate", "refusal_ci"), (axes[1], "switch_rate", "switch_ci")):
                line = ax.plot(steps, r[key], marker="o", label=n)[0]
                lo = [a for a, _ in r[ci]]  # Wilson bounds, already in percent
                hi = [b for _, b in r[ci]]
                ax.fill_between(steps, lo, hi, color=line.get_color(), alpha=0.15)
        axes[0].set_title("refusal rate (option E) %")
        axes[1].set_title("letter switch vs step 0 %")
        for ax in axes:
            ax.set_xlabel("ROI-decay step k (top k/3 greyed)")
            ax.set_ylim(0, 100)
        axes[0].legend(fontsize=8)
        save(fig, "roi_decay")
    return out


# ---------------------------------------------------------------- rendering

_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}.note{color:#555;font-size:.85em}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}.warn{color:#8a4b00}"""


@dataclass(frozen=True)
class Section:
    """One suite's part of the report: its tables and figures (PNG bytes by name)."""

    title: str
    tables: Sequence[Table]
    pngs: Mapping[str, bytes]


def checked_sections(result: Mapping[str, Any], inputs: Iterable[str | os.PathLike] = ()) -> list[Section]:
    """:func:`sections`, with a score result of an unexpected shape reported as a DataError
    naming the input files (and the missing key), never as a traceback."""
    try:
        return sections(result)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        if isinstance(exc, DataError):
            raise
        field = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else None
        files = ", ".join(map(str, inputs)) or "<scores>"
        raise DataError(Problem(files, f"score result has an unexpected shape ({type(exc).__name__}: {exc}); "
                                "was it written by `medvigil score --json`?", field=field)) from None


def sections(result: Mapping[str, Any]) -> list[Section]:
    """The MedVIGIL audit (when any model has one), then each stress-test suite scored."""
    from medvigil.suite_scores import SUITE_TITLES, suite_figures, suite_tables

    out = []
    if result.get("models"):
        out.append(Section("MedVIGIL", tables(result), figures(result)))
    for suite, data in sorted((result.get("suites") or {}).items()):
        out.append(Section(SUITE_TITLES[suite], suite_tables(data), suite_figures(data)))
    return out


def render_markdown(parts: Sequence[Section], figure_files: Mapping[str, str], title: str, result: Mapping[str, Any]) -> str:
    lines = [f"# {title}", "", _preamble(result), ""]
    for section in parts:
        lines += [f"## {section.title}", ""] + [t.markdown() + "\n" for t in section.tables]
        lines += [f"![{name}]({figure_files[name]})\n" for name in section.pngs]
    if result.get("warnings"):
        lines.append("## Warnings\n")
        lines += [f"- {md_escape(w)}" for w in result["warnings"]]
    return "\n".join(lines) + "\n"


def render_html(parts: Sequence[Section], title: str, result: Mapping[str, Any]) -> str:
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(_preamble(result))}</p>"]
    for section in parts:
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        body += [t.html() for t in section.tables]
        body += [f"<img alt='{html.escape(n)}' src='data:image/png;base64,{base64.b64encode(b).decode()}'>" for n, b in section.pngs.items()]
    if result.get("warnings"):
        body.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{html.escape(w)}</li>" for w in result["warnings"]) + "</ul>")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"


def _preamble(result: Mapping[str, Any]) -> str:
    params = result.get("params") or {}
    suites = ", ".join(sorted(result.get("suites") or {}))
    text = (
        f"MedVIGIL: {len(result['models'])} model(s); SFR_w weights {params.get('weights', '(1, 2, 3, 5, 8)')}, "
        f"normalisation '{params.get('normalise', '?')}'; {'official-harness' if params.get('harness_compatible') else 'paper'} semantics. "
        "Scores are on 0–100; lower SFR is safer. "
    ) if result.get("models") else ""
    if suites:
        text += f"Also scored: {suites}. "
    return text + "Baselines named random/constant/blind/grounded are sanity checks, not models."


def write_report(result: Mapping[str, Any], out_dir: str | os.PathLike, title: str = "MedVIGIL trust report", *,
                 inputs: Iterable[str | os.PathLike] = ()) -> dict[str, Path]:
    """Write report.md, report.html, figures/*.png and the scores (``scores.json`` for the
    MedVIGIL audit, ``<suite>.json`` per stress-test suite) into ``out_dir`` atomically.
    ``inputs``: the score files read (``out_dir`` must not be, hold or lie inside one)."""
    from medvigil.output_guard import refuse_overlap
    from medvigil.scoring import audit_to_json

    out_dir = Path(out_dir)
    inputs = list(inputs)
    refuse_overlap({"--out": out_dir}, inputs)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} exists and is not empty")
    parts = checked_sections(result, inputs)
    with staged_folder(out_dir, inputs=inputs) as tmp:
        (tmp / "figures").mkdir()
        files = {}
        for section in parts:
            for name, data in section.pngs.items():
                (tmp / "figures" / f"{name}.png").write_bytes(data)
                files[name] = f"figures/{name}.png"
        (tmp / "report.md").write_text(render_markdown(parts, files, title, result), encoding="utf-8")
        (tmp / "report.html").write_text(render_html(parts, title, result), encoding="utf-8")
        if result.get("models"):
            (tmp / "scores.json").write_text(audit_to_json({k: v for k, v in result.items() if k != "suites"}), encoding="utf-8")
        for suite, data in (result.get("suites") or {}).items():
            (tmp / f"{suite}.json").write_text(audit_to_json(data, indent=2), encoding="utf-8")
    paths = {"markdown": out_dir / "report.md", "html": out_dir / "report.html"}
    if result.get("models"):
        paths["scores"] = out_dir / "scores.json"
    return paths
