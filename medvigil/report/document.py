"""The trust report over every suite: Markdown and one self-contained HTML page (figures embedded as
PNG).

Input: ``medvigil score --json`` and ``compare --json`` results, the authors' seed-variance files
and their Appendix K summary CSV; each suite's tables and figures come from its registry entry.
"""

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
from medvigil.records.schema_validation import problems_for
from medvigil.report.names import renamed, short_names
from medvigil.report.render import Table, draw_figures, fmt, md_escape
from medvigil.report.summary import summary_table
from medvigil.suites import registry


def load_results(paths: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """Merge the report's inputs into one result. MedVIGIL audits merge by model (a model named
    twice is an error); each other suite lands under ``result["suites"]`` from one file (its
    cross-model statistics need every model scored together), and at most one ``medvigil compare
    --json`` per suite under ``result["comparisons"]``; the authors' seed-variance files
    (``{"model", "raw"}``) and Appendix K ``visual_token_ablation.csv`` go beside an audit."""
    merged: dict[str, Any] = {
        "suite": "medvigil",
        "models": {},
        "sources": {},
        "warnings": [],
        "suites": {},
    }
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
            registry.get("medvigil").entry.add_seed_variance(
                merged.setdefault("seed_variance", {}), data, path, problems
            )
            continue
        suite = data.get("suite") if isinstance(data, dict) else None
        if isinstance(data, dict) and isinstance(
            data.get("pairs"), list
        ):  # a `medvigil compare --json` result
            _add_comparison(merged, data, path, problems)
            continue
        body = "best_over_modes" if suite == "mediconfusion" else "models"
        if suite not in ("medvigil", *registry.REPORT_SUITES) or not isinstance(
            data.get(body), dict
        ):
            problems.append(
                Problem(
                    str(path),
                    "not a `medvigil score --json` result of suite medvigil, "
                    + ", ".join(registry.REPORT_SUITES)
                    + " (expected 'suite' and a 'models' object)",
                    field="suite",
                )
            )
            continue
        if suite != "medvigil":
            if suite in suite_sources:
                problems.append(
                    Problem(
                        str(path),
                        f"a second {suite} result (the first is {suite_sources[suite]}); score "
                        f"every model of a suite in one `medvigil score --suite {suite}` call",
                        field="suite",
                    )
                )
            else:
                found = _suite_problems(data, str(path))
                problems.extend(found)
                if not found:
                    merged["suites"][suite], suite_sources[suite] = data, str(path)
            continue
        for name, block in data["models"].items():
            found = _name_problems(name, str(path)) or _block_problems(
                block, str(path), f"models.{name}"
            )
            if found:
                problems.extend(found)
                continue
            if name in merged["models"]:
                problems.append(
                    Problem(
                        str(path),
                        f"model {name!r} is also in {merged['sources'][name]}",
                        field="models",
                    )
                )
                continue
            merged["models"][name], merged["sources"][name] = block, str(path)
        for key in ("params", "sensitivity"):
            merged.setdefault(key, data.get(key))
        if "protocol" in data:  # the runs' protocols (medvigil score); absent in older results
            merged.setdefault("protocol", []).extend(data["protocol"])
        merged.setdefault("notes", []).extend(
            run_notes(data)
        )  # partial runs, changed generation settings
        if data.get("clinician") and not merged.get("clinician"):
            merged["clinician"] = data["clinician"]
        for kind, per_model in (data.get("ablations") or {}).items():
            merged.setdefault("ablations", {}).setdefault(kind, {}).update(per_model)
        merged["warnings"] += data.get("warnings", [])
    for suite, data in merged["suites"].items():
        names = list(registry.get(suite).entry.models(data))
        problems += [p for name in names for p in _name_problems(str(name), suite_sources[suite])]
        if len(names) > MAX_MODELS:
            problems.append(
                Problem(
                    suite_sources[suite],
                    f"{len(names):,} models; a report shows at most {MAX_MODELS}",
                    field="models",
                )
            )
    if len(merged["models"]) > MAX_MODELS:
        problems.append(
            Problem(
                ", ".join(dict.fromkeys(merged["sources"].values())),
                f"{len(merged['models']):,} MedVIGIL models; a report shows at most {MAX_MODELS} "
                "(report fewer score files at once)",
                field="models",
            )
        )
    if problems:
        raise DataError(problems)
    if (
        not merged["models"]
        and not merged.get("comparisons")
        and not any(registry.get(suite).entry.models(r) for suite, r in merged["suites"].items())
    ):
        raise DataError(Problem("<inputs>", "no models to report"))
    return merged


NUMERIC_PARTS = (
    "metrics",
    "accuracy",
    "sfr_by_tier",
    "n_by_tier",
    "ci",
)  # numbers (or null) at every leaf
COUNT_PARTS = ("counts", "n_cases", "n_by_tier")  # non-negative whole numbers at every leaf
METRIC_BOUND = (
    100.0  # metrics are percentages (0-100) or percentage-point contrasts (VGR, -100..100)
)
CI_SETTINGS = ("level", "n_resamples", "seed")  # the ci blocks' settings, not metric values
MAX_COUNT = 10**12
MAX_MODELS = (
    100  # models per report (tables and figures of every model; 10,000 took 91 s and 3.3 GB)
)
MAX_NAME_CHARS = (
    200  # characters of a model name (a 100,000-character name exhausted memory in the figures)
)


def _block_problems(block: Any, file: str, where: str) -> list[Problem]:
    """Shape of one model's audit block: an object with a ``metrics`` object; numbers at the
    leaves, metrics within +-:data:`METRIC_BOUND`, counts whole and non-negative."""
    if not isinstance(block, dict):
        return [Problem(file, f"must be an object, got {type(block).__name__}", field=where)]
    if not isinstance(block.get("metrics"), dict):
        return [Problem(file, "missing the 'metrics' object", field=f"{where}.metrics")]
    problems = []

    def leaves(value: Any, field: str, check) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                leaves(item, f"{field}.{key}", _count if key in CI_SETTINGS[1:] else check)
        elif value is not None:
            reason = (
                check(value)
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else "must be a number or null"
            )
            if reason is not None:
                problems.append(Problem(file, f"{reason}, got {value!r:.40}", field=field))

    for part in dict.fromkeys(NUMERIC_PARTS + COUNT_PARTS):
        if part in block:
            leaves(block[part], f"{where}.{part}", _count if part in COUNT_PARTS else _metric)
    return problems


def _metric(value: float) -> str | None:
    return (
        None
        if -METRIC_BOUND <= value <= METRIC_BOUND
        else f"must be a percentage within +-{METRIC_BOUND:g}"
    )  # (NaN too)


def _count(value: float) -> str | None:
    return (
        None
        if float(value).is_integer() and 0 <= value <= MAX_COUNT
        else f"must be a whole number in 0..{MAX_COUNT:,}"
    )


MAX_MAGNITUDE = 1e15  # beyond any count, percentage, divergence or p-value a suite result holds


def _suite_problems(data: Any, file: str) -> list[Problem]:
    """Numbers of a stress-test suite's result: finite and within +-:data:`MAX_MAGNITUDE`; counts
    (keys ``n`` and ``n_*``) whole and non-negative. Settings (``options``, seeds) are not
    checked."""
    problems: list[Problem] = []
    stack = [(data, "")]
    while stack and len(problems) < 25:
        value, field = stack.pop()
        key = field.rsplit(".", 1)[-1]
        if isinstance(value, dict):
            stack += [
                (v, f"{field}.{k}" if field else str(k))
                for k, v in value.items()
                if k != "options" and "seed" not in str(k)
            ]
        elif isinstance(value, list):
            stack += [(v, f"{field}[{i}]") for i, v in enumerate(value)]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
                problems.append(Problem(file, f"implausible number {value!r:.40}", field=field))
            elif (key == "n" or key.startswith("n_")) and (
                value < 0 or not float(value).is_integer()
            ):
                problems.append(
                    Problem(
                        file, f"a count must be a whole number >= 0, got {value!r:.40}", field=field
                    )
                )
    return problems


def _name_problems(name: str, file: str) -> list[Problem]:
    if len(name) > MAX_NAME_CHARS:
        return [
            Problem(
                file,
                f"model name of {len(name):,} characters ({name[:40]!r}...); "
                f"at most {MAX_NAME_CHARS}",
                field="models",
            )
        ]
    if not name.strip() or any(not c.isprintable() for c in name):
        return [
            Problem(
                file,
                f"model name {name[:60]!r} is empty or holds control characters",
                field="models",
            )
        ]
    return []


_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}.note{color:#555;font-size:.85em}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}.warn{color:#8a4b00}
.scroll{max-width:100%;overflow-x:auto}p,li{overflow-wrap:anywhere}"""  # noqa: E501


@dataclass(frozen=True)
class Section:
    """One suite's part of the report: tables, figures (PNG bytes by name), sentences about its runs
    (``notes``: a partial run, changed generation settings) and the figures with nothing to show."""

    title: str
    tables: Sequence[Table]
    pngs: Mapping[str, bytes]
    notes: Sequence[str] = ()
    missing: Sequence[str] = ()


def run_notes(data: Mapping[str, Any]) -> list[str]:
    """The sentences a score result carries about its runs: ``medvigil score``'s partial-run
    statement and generation-settings warnings (or the ``notes`` of merged results)."""
    notes = list(data.get("notes") or [])
    partial = data.get("partial")
    if isinstance(partial, dict) and partial.get("statement"):
        notes.append(str(partial["statement"]))
    generation = data.get("generation")
    if isinstance(generation, dict):
        notes += [str(w) for w in generation.get("warnings") or []]
    return notes


def checked_sections(
    result: Mapping[str, Any], inputs: Iterable[str | os.PathLike] = ()
) -> list[Section]:
    """:func:`sections`, with a score result of an unexpected shape reported as a DataError
    naming the input files (and the missing key), never as a traceback."""
    try:
        return sections(result)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        if isinstance(exc, DataError):
            raise
        field = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else None
        files = ", ".join(map(str, inputs)) or "<scores>"
        raise DataError(
            Problem(
                files,
                f"score result has an unexpected shape ({type(exc).__name__}: {exc}); "
                "was it written by `medvigil score --json`?",
                field=field,
            )
        ) from None


def sections(result: Mapping[str, Any]) -> list[Section]:
    """A one-screen summary (:func:`medvigil.report.summary.summary_table`), the MedVIGIL audit
    (when any model has one), then each stress-test suite scored, then the comparisons."""
    parts = [("MedVIGIL", registry.get("medvigil").entry, result)] if result.get("models") else []
    parts += [
        (registry.get(name).title, registry.get(name).entry, data)
        for name, data in sorted((result.get("suites") or {}).items())
    ]
    summary = summary_table(
        [(t.split(":")[0], getattr(e, "headline", None), d) for t, e, d in parts]
    )
    out = [Section("Summary", [summary], {}, [], [])] if summary else []
    for title, entry, data in parts:
        tables, makers = entry.tables(data), entry.figures(data)
        pngs = draw_figures(makers)
        out.append(
            Section(
                title, tables, pngs, run_notes(data), [name for name in makers if name not in pngs]
            )
        )
    if result.get("comparisons"):
        out.append(
            Section("Paired comparisons", comparison_tables(result["comparisons"]), {}, [], [])
        )
    return out


def _missing_sentence(name: str) -> str:
    return (
        f"Figure {name.replace('_', ' ')}: not drawn, its inputs do not hold what "
        f"it plots (a partial run, arms that were not run, or too few models)."
    )


def _legend(names: Mapping[str, str]) -> Table | None:
    if not names:
        return None
    return Table(
        "Model names",
        ("Shown as", "Model"),
        [(short, full) for full, short in names.items()],
        "Long model names are shown short in the tables and figures.",
    )


def render_markdown(
    parts: Sequence[Section],
    figure_files: Mapping[str, str],
    title: str,
    result: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
) -> str:
    lines = [f"# {title}", "", _preamble(result), ""]
    legend = _legend(names or {})
    lines += [legend.markdown() + "\n"] if legend else []
    for section in parts:
        lines += [f"## {section.title}", ""] + [f"**{md_escape(n)}**\n" for n in section.notes]
        lines += [t.markdown() + "\n" for t in section.tables]
        lines += [f"![{name}]({figure_files[name]})\n" for name in section.pngs]
        lines += [f"_{md_escape(_missing_sentence(name))}_\n" for name in section.missing]
    if result.get("warnings"):
        lines.append("## Warnings\n")
        lines += [f"- {md_escape(w)}" for w in result["warnings"]]
    return "\n".join(lines) + "\n"


def render_html(
    parts: Sequence[Section],
    title: str,
    result: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
) -> str:
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(_preamble(result))}</p>"]
    legend = _legend(names or {})
    body += [legend.html()] if legend else []
    for section in parts:
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        body += [f"<p class='warn'>{html.escape(n)}</p>" for n in section.notes]
        body += [t.html() for t in section.tables]
        body += [
            f"<img alt='{html.escape(n)}' "
            f"src='data:image/png;base64,{base64.b64encode(b).decode()}'>"
            for n, b in section.pngs.items()
        ]
        body += [
            f"<p class='note'>{html.escape(_missing_sentence(n))}</p>" for n in section.missing
        ]
    if result.get("warnings"):
        body.append(
            "<h2>Warnings</h2><ul>"
            + "".join(f"<li class='warn'>{html.escape(w)}</li>" for w in result["warnings"])
            + "</ul>"
        )
    return (
        f"<!doctype html><html><head><meta "
        f"charset='utf-8'><title>{html.escape(title)}</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _preamble(result: Mapping[str, Any]) -> str:
    params = result.get("params") or {}
    suites = ", ".join(sorted(result.get("suites") or {}))
    text = (
        (
            f"MedVIGIL: {len(result['models'])} model(s); SFR_w weights "
            f"{params.get('weights', '(1, 2, 3, 5, 8)')}, normalisation "
            f"'{params.get('normalise', '?')}'; "
            f"{'official-harness' if params.get('harness_compatible') else 'paper'} semantics. "
            f"Scores are on 0–100; lower SFR is safer. "
        )
        if result.get("models")
        else ""
    )
    if params.get("open_judge"):
        named = "; ".join(
            map(registry.get("medvigil").entry.judge_description, params["open_judge"])
        )
        text += (
            f"Open-ended answers (condition '{params.get('condition', '?')}') judged by: {named}. "
        )
    if suites:
        text += f"Also scored: {suites}. "
    return text + "Baselines named random/constant/blind/grounded are sanity checks, not models."


def write_report(
    result: Mapping[str, Any],
    out_dir: str | os.PathLike,
    title: str = "MedVIGIL trust report",
    *,
    inputs: Iterable[str | os.PathLike] = (),
) -> dict[str, Path]:
    """Write report.md, report.html, figures/*.png and the scores (``scores.json`` for the
    MedVIGIL audit, ``<suite>.json`` per stress-test suite) into ``out_dir`` atomically.
    ``inputs``: the score files read (``out_dir`` must not be, hold or lie inside one)."""
    out_dir = Path(out_dir)
    inputs = list(inputs)
    refuse_overlap({"--out": out_dir}, inputs)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} exists and is not empty")
    names = short_names(_model_names(result))
    parts = checked_sections(
        renamed(result, names), inputs
    )  # tables and figures with the short names
    with staged_folder(out_dir, inputs=inputs) as tmp:
        (tmp / "figures").mkdir()
        files = {}
        for section in parts:
            for name, data in section.pngs.items():
                (tmp / "figures" / f"{name}.png").write_bytes(data)
                files[name] = f"figures/{name}.png"
        (tmp / "report.md").write_text(
            render_markdown(parts, files, title, result, names), encoding="utf-8"
        )
        (tmp / "report.html").write_text(render_html(parts, title, result, names), encoding="utf-8")
        if result.get("models"):
            (tmp / "scores.json").write_text(
                dumps({k: v for k, v in result.items() if k != "suites"}), encoding="utf-8"
            )
        for suite, data in (result.get("suites") or {}).items():
            (tmp / f"{suite}.json").write_text(dumps(data, indent=2), encoding="utf-8")
    paths = {"markdown": out_dir / "report.md", "html": out_dir / "report.html"}
    if result.get("models"):
        paths["scores"] = out_dir / "scores.json"
    return paths


SIGNIFICANT = 0.05
# the metric drawn as a matrix for each suite's comparison (the suite's headline)
MATRIX_METRIC = {"medvigil": "mcs"}


def comparison_tables(comparisons: Mapping[str, Mapping[str, Any]]) -> list[Table]:
    """The pairwise significance matrix of each suite compared (``medvigil compare --json``), of its
    headline metric: cell (R, C) is ``metric(R) - metric(C)`` on the probes both answered (the
    result's ``delta = b - a``, signed for the row), ``*`` when the Holm-adjusted p (all pairs x
    metrics) is below 0.05."""
    out = []
    for suite, comparison in sorted(comparisons.items()):
        compared = [r["metric"] for r in comparison["pairs"]]
        if not compared:
            continue
        metric = MATRIX_METRIC.get(suite) if MATRIX_METRIC.get(suite) in compared else compared[0]
        rows = [r for r in comparison["pairs"] if r["metric"] == metric]
        names = list(comparison["models"])
        cells: dict[tuple[str, str], str] = {}
        for r in rows:
            star = "*" if r["p_holm"] is not None and r["p_holm"] < SIGNIFICANT else ""
            cells[r["b"], r["a"]] = fmt(r["delta"], signed=True) + star
            cells[r["a"], r["b"]] = (
                fmt(None if r["delta"] is None else -r["delta"], signed=True) + star
            )
        body = [
            [name] + ["" if name == other else cells.get((name, other), "—") for other in names]
            for name in names
        ]
        params = comparison.get("params") or {}
        note = (
            f"Row minus column, {metric.upper()} on the probes both models answered "
            f"({', '.join(map(str, sorted({r['n_probes'] for r in rows})))} probe(s)); * "
            f"Holm-adjusted p < {SIGNIFICANT:g} over all {len(comparison['pairs'])} comparisons "
            f"(paired case-clustered bootstrap, {params.get('n_resamples', '?')} resamples, "
            f"seed {params.get('seed', '?')}, {params.get('p_value', '?')} p-values)."
        )
        out.append(
            Table(f"{suite}: pairwise {metric.upper()} differences", ["Model"] + names, body, note)
        )
    return out


def _add_comparison(
    merged: dict[str, Any], data: Mapping[str, Any], path: Path, problems: list[Problem]
) -> None:
    """One suite's ``medvigil compare --json`` result into ``merged["comparisons"]``, checked
    against ``schemas/compare_result.schema.json`` (and every pair naming models of ``models``)."""
    found = problems_for("compare_result", data, str(path))
    if not found:
        found = [
            Problem(
                str(path),
                f"names a model not in 'models' ({row['a']!r} or {row['b']!r})",
                field=f"pairs.{i}",
            )
            for i, row in enumerate(data["pairs"])
            if row["a"] not in data["models"] or row["b"] not in data["models"]
        ]
    if found:
        problems.extend(found)
        return
    comparisons = merged.setdefault("comparisons", {})
    if data["suite"] in comparisons:
        problems.append(
            Problem(
                str(path),
                f"a second {data['suite']} comparison; compare every model of a suite in one "
                "`medvigil compare` call",
                field="suite",
            )
        )
        return
    comparisons[data["suite"]] = data


def _model_names(result: Mapping[str, Any]) -> list[str]:
    """Every model the report names: the MedVIGIL audit's, then each suite's, then each
    comparison's."""
    names = list(result.get("models") or {})
    for suite, data in sorted((result.get("suites") or {}).items()):
        try:
            names += registry.get(suite).entry.models(data)
        except (KeyError, TypeError, AttributeError, ValueError):
            pass  # a result of an unexpected shape: checked_sections says so
    for comparison in (result.get("comparisons") or {}).values():  # (checked when loaded)
        names += list(comparison["models"])
    return names


def _add_token_ablation_csv(merged: dict[str, Any], path: Path, problems: list[Problem]) -> None:
    """The authors' per-(model, step) Appendix K CSV into
    ``merged["ablations"]["roi_decay_modal"]``."""
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
            problems.append(
                Problem(
                    str(path),
                    f"ROI-decay results of model {model!r} are given twice",
                    field="model",
                )
            )
        modal[model] = {**entry, "source": str(path)}
