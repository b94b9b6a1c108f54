"""MedVIGIL in the suite registry: score result files against a release; the report's tables.

``files``: official-harness outputs or lmms-eval ``--log_samples`` files
(:mod:`medvigil.suites.medvigil.harness.model_outputs`). ``release``: a release folder, built
dataset folder or Hub repo id; a folder adds the Doctors row (``clinician_baseline.csv``) and
triplets. Release findings that do not touch scoring are warnings.
"""

import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from medvigil.constants import IMAGE_PROBE_KINDS
from medvigil.errors import DataError
from medvigil.files.json_text import finite
from medvigil.records.sent_inputs import no_image_models
from medvigil.records.suite_logs import result_models
from medvigil.runs.lmms_run import is_samples_file, samples_files
from medvigil.suites.medvigil.harness.model_outputs import read_model_outputs
from medvigil.suites.medvigil.release.release_format import DEFAULT_TIER_WEIGHTS
from medvigil.suites.medvigil.release.release_loading import load_for_scoring
from medvigil.suites.medvigil.scoring.abstention import open_abstention
from medvigil.suites.medvigil.scoring.clinician import release_clinician_scores
from medvigil.suites.medvigil.scoring.compare import compare_models
from medvigil.suites.medvigil.scoring.figures import figures
from medvigil.suites.medvigil.scoring.open_ended import DEFAULT_JUDGE, open_judges
from medvigil.suites.medvigil.scoring.report_inputs import REPORT
from medvigil.suites.medvigil.scoring.scoring import audit
from medvigil.suites.medvigil.scoring.tables import tables
from medvigil.suites.medvigil.scoring.triplets import release_triplet_report

__all__ = [
    "REPORT",
    "headline",
    "compare",
    "figures",
    "format_table",
    "models",
    "n_scored",
    "score",
    "tables",
]

_SHOWN_WARNINGS = 20  # release warnings printed on stderr; all of them are in the JSON


def score(
    files: list[str],
    *,
    release: str | None = None,
    skip_invalid_rows: bool = False,
    allow_empty: bool = False,
    open_judge: str | None = None,
    text_only: Iterable[str] = (),
    **audit_options,
) -> dict:
    """``audit`` (:mod:`.scoring.scoring`) of ``files`` plus ``inputs`` (release, warnings, files,
    error rows, rows left out). ``open_judge`` for ``__open.jsonl`` (default: ``authors-rule`` with
    ``harness_compatible``, as the authors' numbers were made, else ``grammar``). ``text_only``:
    models left out of Table 17 (``--text-only``), beside those whose logs show no image sent on an
    image probe."""
    if open_judge is None:
        open_judge = "authors-rule" if audit_options.get("harness_compatible") else DEFAULT_JUDGE
    records, reference, warnings = _read(files, release, skip_invalid_rows, allow_empty, open_judge)
    result = _audit(records, text_only, warnings, audit_options)
    error_rows = {m: dict(sorted(k.items())) for m, k in sorted(records.error_rows.items())}
    handling = result["params"]["error_rows"]
    for model, kinds in error_rows.items():
        listed = ", ".join(f"{kind} {n}" for kind, n in kinds.items())
        print(
            f"note: {model}: {sum(kinds.values())} error "
            f"row(s) (failed calls; {handling}): {listed}",
            file=sys.stderr,
        )
    if reference is not None and reference.kind == "release":
        _add_release_blocks(result, reference.location)
    if result["params"].get("open_judge"):  # open-ended answers: refusal as abstention
        result["selective"] = open_abstention(records, result["params"]["condition"])
    result["inputs"] = {
        "release": None if reference is None else reference.location,
        "release_kind": None if reference is None else reference.kind,
        "gold_letters": "release probes_mcq"
        if reference is not None and reference.probes_mcq is not None
        else "result rows",
        "files": [str(f) for f in files],
        "n_records": len(records),
        "error_rows": error_rows,
        "error_row_handling": handling,
        "skipped_rows": {m: dict(v) for m, v in sorted(records.skipped.items())},
        "warnings": warnings,
        "release_warnings": [
            p.to_dict() for p in ([] if reference is None else reference.warnings)
        ],
    }
    return finite(result)


def _add_release_blocks(result: dict, release: str) -> None:
    """What a release folder adds: the Doctors row (Table 10) and, for models with triplet arms,
    the triplets left unasked (their TR-coh)."""
    weights = (result.get("params") or {}).get("weights", DEFAULT_TIER_WEIGHTS)
    clinician = release_clinician_scores(release, weights=weights)
    if clinician is not None:
        result["clinician"] = clinician  # the Doctors row of the report (Table 10)
    with_triplets = [
        b
        for b in result["models"].values()
        if (b.get("counts") or {}).get("triplets_complete", 0)
        + (b.get("counts") or {}).get("triplets_incomplete", 0)
    ]
    if with_triplets:  # TR-coh of models with triplet arms: what stayed unasked
        result["triplets"] = release_triplet_report(release)
        for block in with_triplets:
            block["counts"]["triplets_unmatched"] = sum(result["triplets"]["unmatched"].values())


def _audit(records, text_only: Iterable[str], warnings: list[str], options: dict) -> dict:
    """The audit, Table 17 without the text-only models (said on stderr), and the judges named."""
    blind = _text_only(records, text_only, options.get("condition", "default"))
    result = audit(records, text_only=blind, **options)
    _say_text_only(result, text_only, warnings)
    judges = open_judges(records, result["params"]["condition"])
    if judges:  # the report says which judge produced an open-ended SFR
        result["params"]["open_judge"] = judges
        from medvigil.suites.medvigil.scoring.judge_correction import N_RESAMPLES, open_rates

        result["open_judge_rates"] = open_rates(
            records,
            result["params"]["condition"],
            n_resamples=options.get("n_resamples", N_RESAMPLES),
        )
    return result


def _text_only(records, named: Iterable[str], condition: str) -> dict[str, str]:
    """Model -> why it is text-only: named by ``--text-only``, or sent no image on any image probe
    (ROI-only, ROI-masked, L/R-flip) of ``condition`` (:func:`no_image_models`)."""
    reasons = {name: "text-only (--text-only)" for name in named}
    rows = records if isinstance(records, list) else (getattr(records, "records", None) or [])

    def image_probe(record) -> bool:
        shown = record.get("condition", "default")
        return shown == condition != "noimg" and record.get("probe_kind") in IMAGE_PROBE_KINDS

    for model, n in no_image_models(rows, image_probe).items():
        reasons.setdefault(model, f"text-only: no image sent on its {n} image probe(s)")
    return reasons


def _say_text_only(result: dict, named: Iterable[str], warnings: list[str]) -> None:
    """The models Table 17 leaves out as text-only, on stderr; a ``--text-only`` name that is no
    model of the score, as a warning."""
    excluded = (result.get("sensitivity") or {}).get("excluded") or {}
    for model, why in excluded.items():
        if why.startswith("text-only"):
            print(f"note: Table 17 (MCS sensitivity) leaves out {model}: {why}", file=sys.stderr)
    models = {m.lower() for m in result["models"]}
    for name in named:
        if name.lower() not in models:
            warning = f"--text-only {name}: no model of that name in the input"
            warnings.append(warning)
            print(f"warning: {warning}", file=sys.stderr)


def run_folder_files(files: list[str]) -> list[str]:
    """``files`` with each folder holding lmms-eval runs of MedVIGIL tasks replaced by their
    samples files (searched recursively); other folders (the authors' result folders) stay."""
    out: list[str] = []
    for name in files:
        found = samples_files([name], "medvigil_") if Path(name).is_dir() else []
        out += [str(p) for p in found] or [name]
    return out


def _read(
    files: list[str],
    release: str | None,
    skip_invalid_rows: bool,
    allow_empty: bool,
    open_judge: str = DEFAULT_JUDGE,
):
    """``(records, release or None, warnings)`` of ``files``; the warnings are also printed on
    stderr."""
    files = run_folder_files(files)
    # lmms-eval logs carry every field scoring needs, so their problems come first, and a
    # release's problems come first otherwise
    logs_only = all(Path(f).is_file() and is_samples_file(Path(f)) for f in files)
    loaded: dict = {}

    def load_release():
        """The release, loaded on the first call; with logs only, its problems wait for theirs."""
        if not loaded:
            try:
                loaded["reference"] = load_for_scoring(release, skip_invalid_rows=skip_invalid_rows)
            except DataError as exc:
                if not logs_only:
                    raise
                loaded["error"] = exc
        return loaded.get("reference")

    records = read_model_outputs(
        files,
        None if release is None else load_release,
        strict=not skip_invalid_rows,
        allow_empty=allow_empty,
        open_judge=open_judge,
    )
    if "error" in loaded:
        raise loaded["error"]
    reference = None if release is None else load_release()
    if reference is not None:  # its cases and probes served the reading; the audit needs the memory
        reference = replace(
            reference, cases={}, probes_mcq=None if reference.probes_mcq is None else []
        )
    problems = list(getattr(records, "problems", []))
    release_warnings = [] if reference is None else reference.warnings
    warnings = (
        [str(p) for p in release_warnings]
        + list(records.warnings)
        + [f"row left out: {p}" for p in problems]
    )
    for warning in warnings[:_SHOWN_WARNINGS]:
        print(f"warning: {warning}", file=sys.stderr)
    if len(warnings) > _SHOWN_WARNINGS:
        print(
            f"warning: ... and {len(warnings) - _SHOWN_WARNINGS} "
            f"more (all in the JSON under inputs.warnings)",
            file=sys.stderr,
        )
    return records, reference, warnings


def compare(
    files: list[str],
    *,
    release: str | None = None,
    skip_invalid_rows: bool = False,
    allow_empty: bool = False,
    **compare_options,
) -> dict:
    """Every pair of models of ``files`` compared
    (:func:`medvigil.suites.medvigil.scoring.compare.compare_models`)."""
    records, reference, warnings = _read(files, release, skip_invalid_rows, allow_empty)
    result = compare_models(records, **compare_options)
    return {
        "suite": "medvigil",
        **result,
        "inputs": {
            "release": None if reference is None else reference.location,
            "files": [str(f) for f in files],
            "n_records": len(records),
            "error_rows": {
                m: dict(sorted(k.items())) for m, k in sorted(records.error_rows.items())
            },
            "skipped_rows": {m: dict(v) for m, v in sorted(records.skipped.items())},
            "warnings": warnings,
        },
    }


def format_table(result: dict) -> str:
    """The headline tables of the report (Table 1 layout and the MCS components), then error
    rows."""
    text = "\n\n".join(t.markdown() for t in tables(result)[:2])
    if result.get("open_judge_rates"):
        from medvigil.suites.medvigil.scoring.judge_correction import format_rates

        text += "\n\n" + format_rates(result["open_judge_rates"])
    inputs = result.get("inputs", {})
    if inputs.get("error_rows"):
        lines = [f"Error rows (failed calls; {inputs['error_row_handling']}):"]
        for model, kinds in inputs["error_rows"].items():
            lines.append(
                f"  {model}: {sum(kinds.values())} "
                f"({', '.join(f'{k} {n}' for k, n in kinds.items())})"
            )
        text += "\n\n" + "\n".join(lines)
    skipped = {m: v for m, v in inputs.get("skipped_rows", {}).items() if set(v) - {"blank_line"}}
    if skipped:
        text += "\n\nLeft out: " + "; ".join(
            f"{m}: " + ", ".join(f"{k} {n}" for k, n in v.items()) for m, v in skipped.items()
        )
    return text


def n_scored(result: dict) -> int:
    """Records read, ablation-only arms (e.g. ROI decay) included."""
    return int((result.get("inputs") or {}).get("n_records") or 0)


models = result_models


def headline(result: dict) -> list[dict]:
    """The report summary's number per model: MCS (Eq. 5) with its bootstrap CI when scored."""
    out = []
    for model, block in sorted((result.get("models") or {}).items()):
        ci = (block.get("ci") or {}).get("mcs") or {}
        value = (block.get("metrics") or {}).get("mcs")
        out.append(
            {
                "model": model,
                "metric": "MCS",
                "value": value,
                "ci": _pair(ci.get("low"), ci.get("high")),
            }
        )
    return out


def _pair(low, high) -> list | None:
    return [low, high] if low is not None and high is not None else None


def protocol_details(entry: dict, result: dict) -> dict:
    """The open-ended judge of an open-ended run or file (the audit's ``params.open_judge``)."""
    judges = (result.get("params") or {}).get("open_judge")
    task = str(entry.get("task", ""))
    if judges and ("open" in task or "judged" in task):
        return {"judge": ", ".join(judges)}
    return {}
