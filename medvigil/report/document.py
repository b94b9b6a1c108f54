"""The trust report over every suite: Markdown and one self-contained HTML page.

Input is one or more ``medvigil score --json`` results (MedVIGIL audits merged by model, at most
one result of each other suite), the authors' seed-variance files and their Appendix K summary
CSV. Each suite's tables and figures come from its registry entry
(:mod:`medvigil.suites.registry`); figures are embedded in the HTML as PNG data.
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.atomic_output import staged_folder
from medvigil.files.input_files import read_json
from medvigil.files.json_text import dumps
from medvigil.files.output_guard import refuse_overlap
from medvigil.report.render import Table, draw_figures, md_escape
from medvigil.suites import registry


def load_results(paths: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """Merge ``medvigil score --json`` files into one result.

    MedVIGIL audits merge by model (a model named twice is an error); the other suites
    (``mediconfusion``, ``medqdeg``, ``readiness``, ``cbd``) land under ``result["suites"]``,
    one file per suite (their cross-model statistics need every model scored together).
    The authors' seed-variance probe files (``{"model", "raw"}``) and their Appendix K
    summary ``visual_token_ablation.csv`` are accepted too, beside an audit.
    """
    merged: dict[str, Any] = {"suite": "medvigil", "models": {}, "sources": {}, "warnings": [], "suites": {}}
    suite_sources: dict[str, str] = {}
    problems: list[Problem] = []
    for path in paths:
        path = Path(path)
        if path.suffix == ".csv":  # the authors' Appendix K summary (visual_token_ablation.csv)
            _add_token_ablation_csv(merged, path, problems)
            continue
        try:
            data = read_json(path, str(path))  # regular file, bounded, strict UTF-8 JSON
        except DataError as exc:
            problems.extend(exc.problems)
            continue
        if isinstance(data, dict) and "suite" not in data and isinstance(data.get("raw"), dict):
            _add_seed_variance(merged, data, path, problems)  # the authors' seed-variance probe file
            continue
        suite = data.get("suite") if isinstance(data, dict) else None
        body = "best_over_modes" if suite == "mediconfusion" else "models"
        if suite not in ("medvigil", *registry.REPORT_SUITES) or not isinstance(data.get(body), dict):
            problems.append(Problem(str(path), "not a `medvigil score --json` result of suite medvigil, "
                                    + ", ".join(registry.REPORT_SUITES) + " (expected 'suite' and a 'models' object)", field="suite"))
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
    if not merged["models"] and not any(registry.get(suite).entry.models(r) for suite, r in merged["suites"].items()):
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
    """The MedVIGIL audit (when any model has one), then each stress-test suite scored; the
    figures of all of them drawn together (:func:`~medvigil.report.render.draw_figures`)."""
    parts = [("MedVIGIL", registry.get("medvigil").entry, result)] if result.get("models") else []
    for name, data in sorted((result.get("suites") or {}).items()):
        suite = registry.get(name)
        parts.append((suite.title, suite.entry, data))
    tables = [entry.tables(data) for _, entry, data in parts]
    makers = [entry.figures(data) for _, entry, data in parts]
    # one pool for every section's figures, keyed by (section, name): the workers stay busy to the end
    pngs = draw_figures({(i, name): make for i, named in enumerate(makers) for name, make in named.items()})
    return [Section(title, tables[i], {name: pngs[i, name] for name in makers[i] if (i, name) in pngs})
            for i, (title, _, _) in enumerate(parts)]


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
    if params.get("open_judge"):
        named = "; ".join(map(registry.get("medvigil").entry.judge_description, params["open_judge"]))
        text += f"Open-ended answers (condition '{params.get('condition', '?')}') judged by: {named}. "
    if suites:
        text += f"Also scored: {suites}. "
    return text + "Baselines named random/constant/blind/grounded are sanity checks, not models."


def write_report(result: Mapping[str, Any], out_dir: str | os.PathLike, title: str = "MedVIGIL trust report", *,
                 inputs: Iterable[str | os.PathLike] = ()) -> dict[str, Path]:
    """Write report.md, report.html, figures/*.png and the scores (``scores.json`` for the
    MedVIGIL audit, ``<suite>.json`` per stress-test suite) into ``out_dir`` atomically.
    ``inputs``: the score files read (``out_dir`` must not be, hold or lie inside one)."""
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
            (tmp / "scores.json").write_text(dumps({k: v for k, v in result.items() if k != "suites"}), encoding="utf-8")
        for suite, data in (result.get("suites") or {}).items():
            (tmp / f"{suite}.json").write_text(dumps(data, indent=2), encoding="utf-8")
    paths = {"markdown": out_dir / "report.md", "html": out_dir / "report.html"}
    if result.get("models"):
        paths["scores"] = out_dir / "scores.json"
    return paths


def _add_seed_variance(merged: dict[str, Any], data: Mapping[str, Any], path: Path, problems: list[Problem]) -> None:
    """Re-score one model's seed-variance probe file into ``merged["seed_variance"]``."""
    registry.get("medvigil").entry.add_seed_variance(merged.setdefault("seed_variance", {}), data, path, problems)


def _add_token_ablation_csv(merged: dict[str, Any], path: Path, problems: list[Problem]) -> None:
    """The authors' per-(model, step) Appendix K CSV into ``merged["ablations"]["roi_decay_modal"]``."""
    try:
        table = registry.get("medvigil").entry.read_token_ablation_csv(path)
    except OSError as exc:
        problems.append(Problem(str(path), f"not readable: {exc}"))
        return
    except DataError as exc:
        problems.extend(exc.problems)
        return
    modal = merged.setdefault("ablations", {}).setdefault("roi_decay_modal", {})
    for model, entry in table.items():
        if model in modal:
            problems.append(Problem(str(path), f"ROI-decay results of model {model!r} are given twice", field="model"))
        modal[model] = {**entry, "source": str(path)}
