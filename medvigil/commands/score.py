"""``medvigil score``: score model outputs and print a table or write JSON.

``--suite mediconfusion``: ``--release`` is the authors' ``dataset.json`` and each FILE one
of their per-sample result files (``Results/<model>_<mode>.json``) or an lmms-eval
``--log_samples`` file of the ``mediconfusion_*`` tasks (one run per model and mode). Per run: set,
individual, confused and invalid counts and rates, pairs scored, pairs of the release
missing from the file, and the per-category breakdown; per model, the best over modes.

``--suite medvigil``: ``--release`` is a release folder (only ``manifest.csv`` is needed;
``probes_mcq.csv`` is used when present), a built dataset folder or a Hub repo id (resolved
as ``MEDVIGIL_DATA`` is), and the FILEs are harness outputs
(``results/baselines/<model>__mcq.jsonl``, error rows included) or lmms-eval
``--log_samples`` files of the ``medvigil_*`` tasks, read by ``medvigil.suites.medvigil.model_outputs``
and scored by ``medvigil.suites.medvigil.scoring.audit``. Release findings that do not touch scoring are
warnings (stderr and ``inputs.release_warnings`` in the JSON). Error rows (failed calls) are
counted per model and kind (stderr, table, ``inputs.error_rows``): a failure by default,
dropped with ``--harness-compatible``. A bad result row or an empty result file is an error;
``--skip-invalid-rows`` / ``--allow-empty`` leave them out instead, counted and reported.
When ``--release`` is a release folder, its ``clinician_baseline.csv`` is scored too
(:mod:`medvigil.suites.medvigil.clinician`, the Doctors row of the report) and, for models with
triplet arms, its triplets are matched to options (:func:`medvigil.suites.medvigil.triplets.release_triplet_report`)
and the unmatched ones counted in ``triplets`` and in those models' ``counts``.

``--suite medqdeg|readiness|cbd``: the FILEs are lmms-eval ``--log_samples`` files (or run
folders searched for them) of the ``tasks/medqdeg``, ``tasks/readiness`` and ``tasks/cbd``
packs, scored by :mod:`medvigil.suites.stress_logs`; no ``--release`` (the records carry the gold).

Output: a readable table on stdout, unless ``--json -`` (JSON on stdout, nothing else).
``--json OUT`` also writes the JSON to OUT, atomically (temporary file + rename), and
only after every input has been read and scored, so bad input leaves no partial output.
Bad input exits with status 2 and an ``error:`` line per problem.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from medvigil.commands.arg_types import int_range
from medvigil.files.atomic_output import write_text_atomic
from medvigil.files.output_guard import refuse_overlap

SUITES = ("mediconfusion", "medvigil", "medqdeg", "readiness", "cbd")
NEEDS_RELEASE = ("mediconfusion",)
TAKES_RELEASE = ("mediconfusion", "medvigil")  # medvigil: optional (lmms-eval records carry tier and source)


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"margin must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"margin must be a finite number >= 0, got {text!r}")
    return int(value) if value.is_integer() else value


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "score",
        help="score model outputs (MediConfusion result files or MedVIGIL harness outputs)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--suite", required=True, choices=SUITES, help="which suite the FILEs belong to")
    parser.add_argument(
        "--release",
        metavar="PATH",
        help="mediconfusion: the authors' dataset.json (required); medvigil: a release folder, a built dataset folder "
        "or a Hub repo id (optional: lmms-eval records carry tier and source; harness files without it have no "
        "tiers, so no SFR_w, and take gold letters from their rows) (other suites: not used)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="result files to score (medqdeg/readiness/cbd: also run folders)")
    parser.add_argument("--json", metavar="OUT", help="write JSON to OUT ('-' = stdout, no table)")
    parser.add_argument("--allow-empty", action="store_true",
                        help="accept empty input: a result file without rows is a warning, and no record to score at all "
                        "exits 0 (default: both are errors, exit 2)")
    parser.add_argument(
        "--margin",
        type=_margin,
        default=3,
        help="mediconfusion vote margin: an answer is the option whose votes exceed the other's by at least this (default 3)",
    )
    parser.add_argument(
        "--confusion-denominator",
        choices=("both_valid", "all_pairs"),
        default="both_valid",
        help="mediconfusion confusion score over pairs with two valid answers (paper, default) or over all pairs",
    )
    medvigil = parser.add_argument_group("medvigil audit options")
    medvigil.add_argument("--n-resamples", type=int_range(0), default=500, help="case-clustered bootstrap resamples (0 = none; paper: 500)")
    medvigil.add_argument("--seed", type=int, default=20260505, help="bootstrap seed (paper Appendix M: 20260505)")
    medvigil.add_argument(
        "--harness-compatible",
        action="store_true",
        help="reproduce the official harness scripts where they differ from the paper, bootstrap included: the models "
        "take bootstrap_mcs.py's random stream in the order of their FILEs, so give them in its MODEL_FILES order "
        "(see metrics/mcs/README.md)",
    )
    medvigil.add_argument("--condition", default="default", help="condition scored as the headline audit (default: default)")
    medvigil.add_argument(
        "--skip-invalid-rows",
        action="store_true",
        help="leave out result rows that fail their checks (counted per model as invalid_row, listed as warnings), "
        "and release rows of manifest.csv / probes_mcq.csv with errors, instead of stopping",
    )
    suites = parser.add_argument_group("medqdeg / readiness / cbd options")
    suites.add_argument("--accuracy-rule", choices=("trial_mean", "plurality"), default="trial_mean",
                        help="medqdeg: accuracy as the mean over the T trials (default) or of the plurality answer")
    suites.add_argument("--invalid-policy", choices=("extra_bin", "drop"), default="extra_bin",
                        help="medqdeg: unparsable answers are an extra entropy bin (default) or dropped")
    suites.add_argument("--all-invalid", choices=("zero", "exclude", "extra_bin"), default="zero",
                        help="medqdeg: a sample whose T trials are all invalid gets confidence 0 (default), is left out, "
                             "or gets what --invalid-policy gives (extra_bin: confidence 1)")
    suites.add_argument("--allow-partial", action="store_true",
                        help="readiness: average R(m) over the tests present (not the paper's R) instead of leaving it empty")
    suites.add_argument("--cbd-invalid", choices=("exclude", "as_answer"), default="exclude",
                        help="cbd: samples with an unparsable answer are excluded (default) or the failure counts as an answer")
    parser.set_defaults(func=run)
    return parser


def _clean(value: Any) -> Any:
    """Replace NaN/inf by None so the output is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _json_text(value: Any, depth: int = 3, indent: str = "") -> str:
    """Strict JSON, indented for its first ``depth`` levels only: deeper values are written by
    the C encoder on one line (``indent=`` everywhere takes the pure-Python encoder, several
    times slower on an 18-model audit)."""
    if depth == 0 or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_json_text(v, depth - 1, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return "[\n" + ",\n".join(f"{inner}{_json_text(v, depth - 1, inner)}" for v in value) + f"\n{indent}]"


# -- mediconfusion ---------------------------------------------------------------------


def score_mediconfusion(release_path: str, files: list[str], *, margin: float = 3, confusion_denominator: str = "both_valid") -> dict:
    """Read, score and summarise MediConfusion result files (JSON-serialisable dict)."""
    from medvigil.records.lmms_eval_logs import is_samples_file
    from medvigil.suites.mediconfusion.authors_results import read_release, read_results, runs_from_lmms_eval
    from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS, best_over_modes
    from medvigil.suites.mediconfusion.scoring import RANDOM_INDIVIDUAL_ACCURACY, RANDOM_SET_ACCURACY

    release = read_release(release_path)
    logs = [f for f in files if is_samples_file(Path(f))]
    # every file read before scoring; lmms-eval logs carry their own answers (margin inside)
    runs = [read_results(path, release, margin=margin) for path in files if path not in logs]
    if logs:
        runs += runs_from_lmms_eval(logs, release)
    out_runs = []
    by_model: dict[str, dict[str, Any]] = {}
    for run in runs:
        score = run.score(confusion_denominator=confusion_denominator)
        entry = {
            "file": run.path,
            "model": run.model,
            "mode": run.mode,
            "mode_label": MODE_LABELS.get(run.mode),
            "n_missing_pairs": len(run.missing_pairs),
            "missing_pairs": list(run.missing_pairs),
            **score.to_dict(),
        }
        out_runs.append(entry)
        modes = by_model.setdefault(run.model, {})
        key = run.mode if run.mode not in modes else f"{run.mode} ({Path(run.path).name})"
        modes[key] = score
    return _clean(
        {
            "suite": "mediconfusion",
            "release": release.path,
            "n_release_pairs": len(release.pairs),
            "margin": margin,
            "confusion_denominator": confusion_denominator,
            "random_guessing": {"set_accuracy": RANDOM_SET_ACCURACY, "individual_accuracy": RANDOM_INDIVIDUAL_ACCURACY},
            "runs": out_runs,
            "best_over_modes": {model: best_over_modes(modes) for model, modes in by_model.items()},
        }
    )


def _pct(value: float | None) -> str:
    return "    n/a" if value is None else f"{100 * value:6.2f}%"


def _cell(count: int | str, rate: float | None) -> str:
    return f"{count:>5} ({_pct(rate)})"


def format_mediconfusion(result: dict) -> str:
    """Render the result of :func:`score_mediconfusion` as plain-text tables."""
    lines = [
        f"MediConfusion: release {result['release']} ({result['n_release_pairs']} pairs); "
        f"vote margin {result['margin']}; confusion over "
        + ("pairs with two valid answers" if result["confusion_denominator"] == "both_valid" else "all pairs"),
        "",
    ]
    head = f"{'model':<16} {'mode':<8} {'pairs':>5} {'missing':>7}  {'set':>14}  {'individual':>14}  {'confused':>14}  {'invalid':>14}"
    lines += [head, "-" * len(head)]
    for r in result["runs"]:
        lines.append(
            f"{r['model']:<16} {r['mode']:<8} {r['n_pairs']:>5} {r['n_missing_pairs']:>7}  "
            f"{_cell(r['set_correct'], r['set_accuracy'])}  "
            f"{_cell(r['individual_correct'], r['individual_accuracy'])}  "
            f"{_cell(r['confused'], r['confusion'])}  "
            f"{_cell(r['invalid'], r['invalid_rate'])}"
        )
    rg = result["random_guessing"]
    lines.append(f"{'random guessing':<16} {'':<8} {'':>5} {'':>7}  {_cell('', rg['set_accuracy'])}  {_cell('', rg['individual_accuracy'])}")
    lines.append("Percentages: set and confused over pairs (confused: see header), individual and invalid over images.")
    for r in result["runs"]:
        lines += ["", f"{r['model']} / {r['mode']} ({Path(r['file']).name}) by category (counts, % of the category's images)"]
        sub = f"  {'category':<18} {'images':>6}  {'set':>14}  {'individual':>14}  {'confused':>14}  {'invalid':>14}"
        lines += [sub, "  " + "-" * (len(sub) - 2)]
        for cat, c in r["per_category"].items():
            lines.append(
                f"  {cat:<18} {c['images']:>6}  {_cell(c['set_correct'], c['set_accuracy'])}  "
                f"{_cell(c['individual_correct'], c['individual_accuracy'])}  "
                f"{_cell(c['confused'], c['confusion'])}  {_cell(c['invalid'], c['invalid_rate'])}"
            )
    if any(len(b["modes"]) > 1 for b in result["best_over_modes"].values()):
        lines += ["", "Best over modes (Table 1 'Best')"]
        for model, b in result["best_over_modes"].items():
            lines.append(
                f"  {model:<16} set {_pct(b['best_set_accuracy'])} ({b['best_set_mode']})  "
                f"individual {_pct(b['best_individual_accuracy'])} ({b['best_individual_mode']})"
            )
    return "\n".join(lines)


# -- medvigil --------------------------------------------------------------------------


_SHOWN_WARNINGS = 20  # release warnings printed on stderr; all of them are in the JSON


def score_medvigil(
    release: str, files: list[str], *, skip_invalid_rows: bool = False, allow_empty: bool = False, **audit_options
) -> dict:
    """Score MedVIGIL outputs (official harness JSONL or lmms-eval --log_samples files).

    ``release``: a release folder, a built dataset folder or a Hub repo id
    (:func:`medvigil.suites.medvigil.release.load_for_scoring`). The result is :func:`medvigil.suites.medvigil.scoring.audit`'s
    plus ``inputs``: where the release came from, its warnings, the files read, error rows per
    model and kind, and the rows left out.
    """
    from medvigil.suites.medvigil.clinician import release_clinician_scores
    from medvigil.suites.medvigil.model_outputs import read_model_outputs
    from medvigil.suites.medvigil.release import load_for_scoring
    from medvigil.suites.medvigil.release_format import DEFAULT_TIER_WEIGHTS
    from medvigil.suites.medvigil.scoring import audit
    from medvigil.suites.medvigil.triplets import release_triplet_report

    reference = None if release is None else load_for_scoring(release, skip_invalid_rows=skip_invalid_rows)
    records = read_model_outputs(files, reference, strict=not skip_invalid_rows, allow_empty=allow_empty)
    problems = list(getattr(records, "problems", []))
    release_warnings = [] if reference is None else reference.warnings
    warnings = [str(p) for p in release_warnings] + list(records.warnings) + [f"row left out: {p}" for p in problems]
    for warning in warnings[:_SHOWN_WARNINGS]:
        print(f"warning: {warning}", file=sys.stderr)
    if len(warnings) > _SHOWN_WARNINGS:
        print(f"warning: ... and {len(warnings) - _SHOWN_WARNINGS} more (all in the JSON under inputs.warnings)", file=sys.stderr)
    result = audit(records, **audit_options)
    error_rows = {m: dict(sorted(k.items())) for m, k in sorted(records.error_rows.items())}
    handling = result["params"]["error_rows"]
    for model, kinds in error_rows.items():
        listed = ", ".join(f"{kind} {n}" for kind, n in kinds.items())
        print(f"note: {model}: {sum(kinds.values())} error row(s) (failed calls; {handling}): {listed}", file=sys.stderr)
    if reference is not None and reference.kind == "release":
        weights = (result.get("params") or {}).get("weights", DEFAULT_TIER_WEIGHTS)
        clinician = release_clinician_scores(reference.location, weights=weights)
        if clinician is not None:
            result["clinician"] = clinician  # the Doctors row of the report (Table 10)
        with_triplets = [b for b in result["models"].values()
                         if (b.get("counts") or {}).get("triplets_complete", 0) + (b.get("counts") or {}).get("triplets_incomplete", 0)]
        if with_triplets:  # TR-coh of models with triplet arms: what stayed unasked
            result["triplets"] = release_triplet_report(reference.location)
            for block in with_triplets:
                block["counts"]["triplets_unmatched"] = sum(result["triplets"]["unmatched"].values())
    result["inputs"] = {
        "release": None if reference is None else reference.location,
        "release_kind": None if reference is None else reference.kind,
        "gold_letters": "release probes_mcq" if reference is not None and reference.probes_mcq is not None else "result rows",
        "files": [str(f) for f in files],
        "n_records": len(records),
        "error_rows": error_rows,
        "error_row_handling": handling,
        "skipped_rows": {m: dict(v) for m, v in sorted(records.skipped.items())},
        "warnings": warnings,
        "release_warnings": [p.to_dict() for p in release_warnings],
    }
    return _clean(result)


def format_medvigil(result: dict) -> str:
    """The headline tables of the report (Table 1 layout and the MCS components), then error rows."""
    from medvigil.report import tables

    text = "\n\n".join(t.markdown() for t in tables(result)[:2])
    inputs = result.get("inputs", {})
    if inputs.get("error_rows"):
        lines = [f"Error rows (failed calls; {inputs['error_row_handling']}):"]
        for model, kinds in inputs["error_rows"].items():
            lines.append(f"  {model}: {sum(kinds.values())} ({', '.join(f'{k} {n}' for k, n in kinds.items())})")
        text += "\n\n" + "\n".join(lines)
    skipped = {m: v for m, v in inputs.get("skipped_rows", {}).items() if set(v) - {"blank_line"}}
    if skipped:
        text += "\n\nLeft out: " + "; ".join(f"{m}: " + ", ".join(f"{k} {n}" for k, n in v.items()) for m, v in skipped.items())
    return text


# -- entry point -----------------------------------------------------------------------


def n_scored(suite: str, result: dict) -> int:
    """How many records (pairs for MediConfusion) a score result rests on."""
    if suite == "mediconfusion":
        return sum(int(run.get("n_pairs") or 0) for run in result["runs"])
    if suite == "medvigil":  # records read, ablation-only arms (e.g. ROI decay) included
        return int((result.get("inputs") or {}).get("n_records") or 0)
    return int(result.get("n_records") or 0)


def run(args: argparse.Namespace) -> int:
    from medvigil.errors import DataError, Problem

    if (args.release is None and args.suite in NEEDS_RELEASE) or (args.release is not None and args.suite not in TAKES_RELEASE):
        need = "needs" if args.suite in NEEDS_RELEASE else "does not take"
        print(f"error: --suite {args.suite} {need} --release", file=sys.stderr)
        return 2
    inputs = {**({"--release": args.release} if args.release else {}), **{f"FILE {f}": f for f in args.files}}
    if args.json and args.json != "-":
        refuse_overlap({"--json": args.json}, inputs)  # before reading: nothing is written next to an input
    try:
        if args.suite not in TAKES_RELEASE:
            from medvigil.suites.stress_logs import format_suite, score_suite

            options = {"medqdeg": {"accuracy_rule": args.accuracy_rule, "invalid_policy": args.invalid_policy,
                                   "all_invalid": args.all_invalid},
                       "readiness": {"allow_partial": args.allow_partial}, "cbd": {"invalid": args.cbd_invalid}}[args.suite]
            result = _clean(score_suite(args.suite, list(args.files), **options))
            table = format_suite(result)
        elif args.suite == "mediconfusion":
            result = score_mediconfusion(
                args.release, list(args.files), margin=args.margin, confusion_denominator=args.confusion_denominator
            )
            table = format_mediconfusion(result)
        else:
            result = score_medvigil(
                args.release,
                list(args.files),
                n_resamples=args.n_resamples,
                seed=args.seed,
                harness_compatible=args.harness_compatible,
                condition=args.condition,
                skip_invalid_rows=args.skip_invalid_rows,
                allow_empty=args.allow_empty,
            )
            table = format_medvigil(result)
    except DataError:
        raise  # reported by medvigil.cli with one line per problem, exit 2
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if n_scored(args.suite, result) == 0 and not args.allow_empty:
        raise DataError(Problem(", ".join(args.files), "no record to score in the input file(s) (empty or only skipped "
                                                      "lines); pass --allow-empty to accept an empty result"))
    text = _json_text(result) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
        return 0
    if args.json:
        write_text_atomic(Path(args.json), text, inputs=inputs, option="--json")
    print(table)
    if args.json:
        print(f"\nJSON written to {args.json}")
    return 0
