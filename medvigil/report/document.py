"""The trust report over every suite: Markdown and one self-contained HTML page (figures embedded as
PNG).

Input: ``medvigil score --json`` and ``compare --json`` results and the files a suite reads beside
them; each suite's block, tables and figures come from its registry entry (``REPORT``,
:class:`~medvigil.report.blocks.ReportBlock`), so this room names no suite.
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
from medvigil.report.blocks import MAX_MODELS, ReportBlock, name_problems, run_notes
from medvigil.report.names import renamed, short_names
from medvigil.report.render import Table, draw_figures, fmt, md_escape
from medvigil.report.summary import summary_table
from medvigil.suites import registry


def load_results(paths: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """Merge the report's inputs into ``{"suites": {suite: block}, "comparisons": {suite: ...}}``.
    Each suite's results make its block as its entry's ``REPORT`` says
    (:class:`~medvigil.report.blocks.ReportBlock`): merged by the suite (MedVIGIL: by model, a model
    named twice is an error), else one result per suite (its cross-model statistics need every
    model scored together); at most one ``medvigil compare --json`` per suite; files beside the
    results (a CSV, a JSON without ``suite``) go to the suite that takes them. A block with an
    empty body is left out."""
    merged: dict[str, Any] = {"suites": {}}
    sources: dict[str, list[str]] = {}
    problems: list[Problem] = []
    for path in map(Path, paths):
        _add_input(merged, sources, path, problems)
    problems += _model_count_problems(merged["suites"], sources)
    if problems:
        raise DataError(problems)
    merged["suites"] = {n: b for n, b in merged["suites"].items() if b.get(_block(n).body)}
    if not merged["suites"] and not merged.get("comparisons"):
        raise DataError(Problem("<inputs>", "no models to report"))
    return merged


def _block(suite: str) -> ReportBlock:
    """The report block ``suite``'s entry declares (``REPORT``), else the default one."""
    return getattr(registry.get(suite).entry, "REPORT", ReportBlock())


def _add_input(
    merged: dict[str, Any], sources: dict[str, list[str]], path: Path, problems: list[Problem]
) -> None:
    """One input file into ``merged`` (:func:`load_results`); its problems into ``problems``."""
    data = None
    if path.suffix != ".csv":  # a CSV is a table a suite reads beside its results
        try:
            data = read_json(path, str(path))  # regular file, bounded, strict UTF-8 JSON
        except DataError as exc:
            problems.extend(exc.problems)
            return
    if data is None or (isinstance(data, dict) and "suite" not in data):
        for name in registry.SUITES:
            taker = _block(name).side_input
            block = merged["suites"].get(name, {})
            if taker is not None and taker(block, path, data, problems):
                merged["suites"][name] = block
                return
    if isinstance(data, dict) and isinstance(data.get("pairs"), list):
        _add_comparison(merged, data, path, problems)  # a `medvigil compare --json` result
        return
    name = data.get("suite") if isinstance(data, dict) else None
    block = _block(name) if isinstance(name, str) and name in registry.SUITES else None
    if block is None or not isinstance(data.get(block.body), dict):
        problems.append(
            Problem(
                str(path),
                f"not a `medvigil score --json` result of suite {', '.join(registry.SUITES)} "
                "(expected 'suite' and a 'models' object)",
                field="suite",
            )
        )
    elif block.merge is not None:
        block.merge(merged["suites"].setdefault(name, {}), data, str(path), problems)
        sources.setdefault(name, []).append(str(path))
    elif name in merged["suites"]:
        problems.append(
            Problem(
                str(path),
                f"a second {name} result (the first is {sources[name][0]}); score "
                f"every model of a suite in one `medvigil score --suite {name}` call",
                field="suite",
            )
        )
    elif not (found := _suite_problems(data, str(path))):
        merged["suites"][name], sources[name] = data, [str(path)]
    else:
        problems.extend(found)


def _model_count_problems(
    blocks: Mapping[str, Any], sources: Mapping[str, list[str]]
) -> list[Problem]:
    """Model names a report cannot draw (a merged block checked them as it merged), and more
    than :data:`MAX_MODELS` models in one suite's block."""
    problems = []
    for name, data in blocks.items():
        block, suite = _block(name), registry.get(name)
        names = [str(n) for n in suite.entry.models(data)] if data.get(block.body) else []
        files = ", ".join(dict.fromkeys(sources.get(name, [])))
        if block.merge is None:
            problems += [p for n in names for p in name_problems(n, files)]
        if len(names) > MAX_MODELS:
            more = " (report fewer score files at once)" if block.merge else ""
            problems.append(
                Problem(
                    files,
                    f"{len(names):,} {suite.title.split(':')[0]} models; "
                    f"a report shows at most {MAX_MODELS}{more}",
                    field="models",
                )
            )
    return problems


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
    """A one-screen summary (:func:`medvigil.report.summary.summary_table`), each suite scored (the
    lead block first, :class:`~medvigil.report.blocks.ReportBlock`), then the comparisons."""
    parts = _parts(result)
    summary = summary_table(
        [(t.split(":")[0], getattr(e, "headline", None), d) for _, t, e, d in parts]
    )
    out = [Section("Summary", [summary], {}, [], [])] if summary else []
    for _, title, entry, data in parts:
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


def scored_suites(result: Mapping[str, Any]) -> list[str]:
    """The suites with a block in ``result``, in the report's order: the lead block first, then
    by name."""
    return sorted(result.get("suites") or {}, key=lambda name: (not _block(name).lead, name))


def _parts(result: Mapping[str, Any]) -> list[tuple[str, str, Any, Mapping[str, Any]]]:
    """``(suite, title, entry, block)`` of every suite scored, in the report's order."""
    blocks = result.get("suites") or {}
    suites = map(registry.get, scored_suites(result))
    return [(s.name, s.title, s.entry, blocks[s.name]) for s in suites]


def _warnings(result: Mapping[str, Any]) -> list[str]:
    """The warnings of the merged blocks (their score files'), for the report's last section."""
    return [
        w
        for name, _, _, data in _parts(result)
        if _block(name).merge is not None
        for w in data.get("warnings") or []
    ]


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
    warnings = _warnings(result)
    if warnings:
        lines.append("## Warnings\n")
        lines += [f"- {md_escape(w)}" for w in warnings]
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
    warnings = _warnings(result)
    if warnings:
        body.append(
            "<h2>Warnings</h2><ul>"
            + "".join(f"<li class='warn'>{html.escape(w)}</li>" for w in warnings)
            + "</ul>"
        )
    return (
        f"<!doctype html><html><head><meta "
        f"charset='utf-8'><title>{html.escape(title)}</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _preamble(result: Mapping[str, Any]) -> str:
    """The report's opening: each block's own sentence (``preamble``), the other suites named."""
    parts = [(name, _block(name), data) for name, _, _, data in _parts(result)]
    text = "".join(block.preamble(data) for _, block, data in parts if block.preamble)
    others = sorted(name for name, block, _ in parts if not block.preamble)
    if others:
        text += f"Also scored: {', '.join(others)}. "
    return text + "Baselines named random/constant/blind/grounded are sanity checks, not models."


def write_report(
    result: Mapping[str, Any],
    out_dir: str | os.PathLike,
    title: str = "MedVIGIL trust report",
    *,
    inputs: Iterable[str | os.PathLike] = (),
) -> dict[str, Path]:
    """Write report.md, report.html, figures/*.png and each suite's block (its ``file``, by default
    ``<suite>.json``; MedVIGIL's ``scores.json``) into ``out_dir`` atomically.
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
    paths = {"markdown": out_dir / "report.md", "html": out_dir / "report.html"}
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
        for suite, data in (result.get("suites") or {}).items():
            block = _block(suite)
            file = block.file or f"{suite}.json"
            (tmp / file).write_text(dumps(data, indent=block.indent), encoding="utf-8")
            paths[Path(file).stem] = out_dir / file
    return paths


SIGNIFICANT = 0.05


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
        headline = _block(suite).matrix_metric  # the suite's headline, when it was compared
        metric = headline if headline in compared else compared[0]
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
    """Every model the report names: each suite's (the lead block first), then each
    comparison's."""
    names = []
    for _, _, entry, data in _parts(result):
        try:
            names += entry.models(data)
        except (KeyError, TypeError, AttributeError, ValueError):
            pass  # a result of an unexpected shape: checked_sections says so
    for comparison in (result.get("comparisons") or {}).values():  # (checked when loaded)
        names += list(comparison["models"])
    return names
