"""Score lmms-eval logs of the MedQ-Deg, Readiness and Consistent-but-Dangerous task packs.

``medvigil score --suite medqdeg|readiness|cbd FILE_OR_FOLDER...`` reads ``--log_samples``
output (files, or folders searched for them), checks that no probe is answered twice,
and hands the records to the suite's scoring core:

* ``medqdeg``: :func:`medvigil.suites.medqdeg.scoring.score_records` (tasks ``medqdeg_L0/L1/L2``);
* ``readiness``: :func:`medvigil.suites.readiness.protocol.readiness_from_records` (tasks ``readiness_*``);
* ``cbd``: :func:`medvigil.suites.cbd.protocol.quadrant_table` (tasks ``cbd_image`` + ``cbd_noimg``,
  or ``cbd_quadrants``, which asks both arms in one task).

One lmms-eval run of ``--tasks cbd,cbd_quadrants`` logs every probe twice (once in the
arm task, once in ``cbd_quadrants``); from such a run only ``cbd_quadrants`` is read and
the arm files are listed as skipped. Any other probe seen twice for one model is an error
naming both files: pass one run per model.

The records carry everything the scores need (gold letter, tier, source, votes), so no
release is read. Model names come from each run's ``*_results.json`` (``model(args)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.records.lmms_eval_logs import SAMPLES, read_samples
from medvigil.report import Table, fmt, png, pyplot

SUITE_TASKS = {"medqdeg": r"medqdeg_(acc_)?L[0-2]", "readiness": r"readiness_\w+", "cbd": r"cbd_(image|noimg|quadrants|binary)"}
CBD_BOTH_ARMS = "cbd_quadrants"
CBD_ARM_TASKS = ("cbd_image", "cbd_noimg")  # what cbd_quadrants repeats (cbd_binary is another arm)
SUITE_TITLES = {"mediconfusion": "MediConfusion: image pairs that share a question",
                "medqdeg": "MedQ-Deg: image degradation and calibration",
                "readiness": "Illusion of Readiness: stress tests T1–T6",
                "cbd": "Consistent but Dangerous: paraphrase consistency × image reliance"}
REPORT_SUITES = tuple(SUITE_TITLES)  # suites `medvigil report` shows beside the MedVIGIL audit


def _task_of(path: Path) -> str | None:
    match = SAMPLES.match(path.name)
    return match.group("task") if match else None


def find_samples(paths: Iterable[str | Path], suite: str) -> tuple[list[Path], list[dict[str, str]]]:
    """The samples files of ``suite`` among ``paths`` (folders searched recursively), and the
    files skipped with the reason. A path that is neither is an error."""
    pattern = re.compile(SUITE_TASKS[suite])
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(p for p in path.rglob("*_samples_*.jsonl") if pattern.fullmatch(_task_of(p) or ""))
            if not found:
                raise DataError(Problem(str(path), f"no lmms-eval samples files of the {suite} tasks under this folder"))
            files += found
        elif path.is_file() and pattern.fullmatch(_task_of(path) or ""):
            files.append(path)
        elif path.is_file():
            raise DataError(Problem(str(path), f"not an lmms-eval samples file of a {suite} task (*_samples_<task>.jsonl, "
                                               f"task matching {SUITE_TASKS[suite]})"))
        elif path.exists():  # a FIFO, device or socket (perhaps through a symbolic link)
            raise DataError(Problem(str(path), "not a regular file or folder; refusing to read it"))
        else:
            raise DataError(Problem(str(path), "no such file or folder"))
    files = list(dict.fromkeys(files))
    skipped: list[dict[str, str]] = []
    if suite == "cbd":
        runs_with_both = {(p.parent, SAMPLES.match(p.name).group("stamp")) for p in files if _task_of(p) == CBD_BOTH_ARMS}
        kept = []
        for p in files:
            if _task_of(p) in CBD_ARM_TASKS and (p.parent, SAMPLES.match(p.name).group("stamp")) in runs_with_both:
                skipped.append({"file": str(p), "reason": f"same run's {CBD_BOTH_ARMS} log holds these probes"})
            else:
                kept.append(p)
        files = kept
    return files, skipped


def _record_key(suite: str) -> Callable[[Mapping[str, Any]], tuple]:
    if suite == "medqdeg":  # L1/L2 ask one probe once per degradation type
        return lambda r: (r["model"], r.get("condition"), r["probe_id"], (r.get("extra") or {}).get("degradation"),
                          (r.get("extra") or {}).get("experiment"))
    return lambda r: (r["model"], r.get("condition"), r["probe_id"])


def read_suite_records(files: list[Path], suite: str) -> list[dict]:
    """Records of every file (schema-checked by :func:`read_samples`); a probe answered twice
    for one model is a :class:`DataError` naming both files."""
    key = _record_key(suite)
    seen: dict[tuple, str] = {}
    records: list[dict] = []
    problems: list[Problem] = []
    for path in files:
        for row, record in enumerate(read_samples([path]), start=1):
            if record.get("suite") != suite:
                problems.append(Problem(str(path), f"record of suite {record.get('suite')!r}, not {suite!r}", row=row, field="suite"))
                continue
            k = key(record)
            if k in seen:
                problems.append(Problem(str(path), f"probe {record['probe_id']!r} of model {record['model']!r} under condition "
                                                   f"{record.get('condition')!r} is also in {seen[k]}; pass one run per model",
                                        row=row, field="probe_id"))
                continue
            seen[k] = str(path)
            records.append(record)
    if problems:
        raise DataError(problems)
    return records


def score_suite(suite: str, paths: Iterable[str | Path], **options: Any) -> dict[str, Any]:
    """Find, read and score the logs of ``suite``; a JSON-serialisable dict."""
    files, skipped = find_samples(paths, suite)
    records = read_suite_records(files, suite)
    try:
        scores = _score(suite, records, options)
    except (ValueError, TypeError, KeyError) as exc:
        if isinstance(exc, DataError):
            raise
        # the scoring cores name the record and field; the files are named here
        raise DataError(Problem(", ".join(map(str, files)), f"cannot score: {exc}")) from None
    return {"suite": suite, "files": [str(p) for p in files], "skipped_files": skipped, "n_records": len(records),
            "options": dict(options), **scores}


def _score(suite: str, records: list[dict], options: Mapping[str, Any]) -> dict[str, Any]:
    if suite == "medqdeg":
        from medvigil.suites.medqdeg.scoring import score_records

        scores = score_records(records, accuracy_rule=options.get("accuracy_rule", "trial_mean"),
                               invalid_policy=options.get("invalid_policy", "extra_bin"),
                               all_invalid=options.get("all_invalid", "zero"))
    elif suite == "readiness":
        from medvigil.suites.readiness.protocol import readiness_from_records

        scores = {"models": readiness_from_records(records, allow_partial=options.get("allow_partial", False))}
    elif suite == "cbd":
        from medvigil.suites.cbd.protocol import suite_result

        scores = suite_result(records, invalid=options.get("invalid", "exclude"), n_resamples=options.get("n_resamples", 1000),
                              seed=options.get("seed", 0))
    else:
        raise ValueError(f"unknown suite {suite!r}; one of {', '.join(SUITE_TASKS)}")
    return scores


# -- tables ----------------------------------------------------------------------------


def _pct(value: Any, signed: bool = False) -> str:
    return fmt(None if value is None else 100.0 * value, signed=signed)


def _medqdeg_tables(result: Mapping[str, Any]) -> list[Table]:
    from medvigil.suites.medqdeg.tables import medqdeg_tables

    return medqdeg_tables(result)


def _readiness_tables(result: Mapping[str, Any]) -> list[Table]:
    from medvigil.suites.readiness.tables import readiness_tables

    return readiness_tables(result)


def _cbd_tables(result: Mapping[str, Any]) -> list[Table]:
    from medvigil.suites.cbd.tables import cbd_tables

    return cbd_tables(result)


def _mediconfusion_tables(result: Mapping[str, Any]) -> list[Table]:
    from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS

    rg = result["random_guessing"]
    rows = [[r["model"], r["mode_label"] or r["mode"], str(r["n_pairs"]), _pct(r["set_accuracy"]), _pct(r["individual_accuracy"]),
             _pct(r["confusion"]), _pct(r["invalid_rate"])] for r in sorted(result["runs"], key=lambda r: (r["model"], r["mode"]))]
    rows.append(["random guessing", "", "", _pct(rg["set_accuracy"]), _pct(rg["individual_accuracy"]), "", ""])
    best = result["best_over_modes"]
    return [
        Table("MediConfusion per answering mode (Table 1 layout; %)",
              ["Model", "mode", "pairs", "set acc ↑", "individual acc ↑", "confusion ↓", "invalid ↓"], rows,
              "Set accuracy: both images of a pair right; confusion: the same answer for both images, over pairs with two "
              f"valid answers ({result['confusion_denominator']}); an image's answer needs a vote margin of {result['margin']}."),
        Table("Best over modes (Table 1 'Best'; %)", ["Model", "best set acc", "mode", "best individual acc", "mode"],
              [[m, _pct(b["best_set_accuracy"]), MODE_LABELS.get(b["best_set_mode"], str(b["best_set_mode"])),
                _pct(b["best_individual_accuracy"]), MODE_LABELS.get(b["best_individual_mode"], str(b["best_individual_mode"]))]
               for m, b in sorted(best.items())]),
        _mediconfusion_table3(best),
    ]


def _mediconfusion_table3(best: Mapping[str, Any]) -> Table:
    """Table 3 of the paper: per category, each model's best set and individual accuracy over
    its modes (each maximised on its own), categories in the paper's order, two decimals."""
    from medvigil.suites.mediconfusion.categories import CATEGORIES, CATEGORY_SHORT_NAMES

    seen = {c for b in best.values() for c in b.get("per_category", {})}
    categories = [c for c in CATEGORIES if c in seen] + sorted(seen - set(CATEGORIES))

    def cell(b: Mapping[str, Any], cat: str, key: str) -> str:
        value = (b.get("per_category", {}).get(cat) or {}).get(key)
        return "—" if value is None or value != value else f"{100 * value:.2f}"

    headers = ["Model"] + [f"{CATEGORY_SHORT_NAMES.get(c, c)} {part}" for c in categories for part in ("set", "indiv.")]
    rows = [[m] + [cell(b, c, k) for c in categories for k in ("best_set_accuracy", "best_individual_accuracy")]
            for m, b in sorted(best.items())]
    return Table("Results by category (Table 3 layout; best over modes, %)", headers, rows,
                 "Per category: set accuracy = pairs right on both images / the category's images, individual = "
                 "images right / the category's images (a pair counts for every category of its two images, as in "
                 "the authors' code); each maximised over the model's modes separately, as in Table 3.")


def suite_tables(result: Mapping[str, Any]) -> list[Table]:
    """The tables of a :func:`score_suite` (or MediConfusion score) result."""
    return {"mediconfusion": _mediconfusion_tables, "medqdeg": _medqdeg_tables, "readiness": _readiness_tables,
            "cbd": _cbd_tables}[result["suite"]](result)


def suite_models(result: Mapping[str, Any]) -> list[str]:
    """The models a suite result scores."""
    return sorted(result["best_over_modes"] if result["suite"] == "mediconfusion" else result["models"])


def format_suite(result: Mapping[str, Any]) -> str:
    """Plain-text (Markdown) tables of a :func:`score_suite` result."""
    head = f"{result['suite']}: {result['n_records']} records from {len(result['files'])} file(s)"
    if result["skipped_files"]:
        head += f"; skipped {len(result['skipped_files'])} file(s): " + "; ".join(
            f"{Path(s['file']).name} ({s['reason']})" for s in result["skipped_files"])
    return "\n\n".join([head] + [t.markdown() for t in suite_tables(result)])


# -- figures ---------------------------------------------------------------------------


def _nan(value: Any, scale: float = 100.0) -> float:
    return float("nan") if value is None else scale * float(value)


def _medqdeg_figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    from medvigil.suites.medqdeg.tables import medqdeg_figures

    return medqdeg_figures(result)


def _readiness_figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    from medvigil.suites.readiness.tables import readiness_figures

    return readiness_figures(result)


def _cbd_figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    from medvigil.suites.cbd.tables import cbd_figures

    return cbd_figures(result)


def _mediconfusion_figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    import numpy as np

    plt = pyplot()
    models = suite_models(result)
    modes = sorted({r["mode_label"] or r["mode"] for r in result["runs"]})
    cell = {(r["model"], r["mode_label"] or r["mode"]): r["set_accuracy"] for r in result["runs"]}
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(models) + 2), 3.4))
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        ax.bar(np.arange(len(models)) + (i - (len(modes) - 1) / 2) * width, [_nan(cell.get((m, mode))) for m in models],
               width, label=mode)
    ax.axhline(100 * result["random_guessing"]["set_accuracy"], color="grey", ls="--", lw=1, label="random guessing")
    ax.set_xticks(range(len(models)), models, rotation=20, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("set accuracy %")
    ax.set_title("MediConfusion set accuracy by answering mode")
    ax.legend(fontsize=7, ncol=3)
    return {"mediconfusion_set_accuracy": png(fig)}


def suite_figures(result: Mapping[str, Any]) -> dict[str, bytes]:
    """PNG bytes per figure name of a :func:`score_suite` (or MediConfusion score) result."""
    return {"mediconfusion": _mediconfusion_figures, "medqdeg": _medqdeg_figures, "readiness": _readiness_figures,
            "cbd": _cbd_figures}[result["suite"]](result)
