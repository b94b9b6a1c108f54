"""``medvigil score``: score model outputs and print a table or write JSON.

``--suite mediconfusion``: ``--release`` is the authors' ``dataset.json`` and each FILE one
of their per-sample result files (``Results/<model>_<mode>.json``) or an lmms-eval
``--log_samples`` file of the ``mediconfusion_*`` tasks (one run per model and mode). Per run: set,
individual, confused and invalid counts and rates, pairs scored, pairs of the release
missing from the file, and the per-category breakdown; per model, the best over modes.

``--suite medvigil``: ``--release`` is a release root and the FILEs are harness outputs
(``results/baselines/<model>__mcq.jsonl``) or lmms-eval ``--log_samples`` files of the
``medvigil_*`` tasks, read by ``medvigil.adapters.model_outputs`` and scored by
``medvigil.scoring.audit``.

``--suite medqdeg|readiness|cbd``: the FILEs are lmms-eval ``--log_samples`` files (or run
folders searched for them) of the ``tasks/medqdeg``, ``tasks/readiness`` and ``tasks/cbd``
packs, scored by :mod:`medvigil.suite_scores`; no ``--release`` (the records carry the gold).

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

from medvigil.atomic_output import write_text_atomic

SUITES = ("mediconfusion", "medvigil", "medqdeg", "readiness", "cbd")
NEEDS_RELEASE = ("mediconfusion", "medvigil")


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
        help="mediconfusion: the authors' dataset.json; medvigil: the release root folder (other suites: not used)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="result files to score (medqdeg/readiness/cbd: also run folders)")
    parser.add_argument("--json", metavar="OUT", help="write JSON to OUT ('-' = stdout, no table)")
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
    medvigil.add_argument("--n-resamples", type=int, default=500, help="case-clustered bootstrap resamples (0 = none; paper: 500)")
    medvigil.add_argument("--seed", type=int, default=20260505, help="bootstrap seed (paper Appendix M: 20260505)")
    medvigil.add_argument(
        "--harness-compatible",
        action="store_true",
        help="reproduce the official harness scripts where they differ from the paper (see metrics/mcs/README.md)",
    )
    medvigil.add_argument("--condition", default="default", help="condition scored as the headline audit (default: default)")
    suites = parser.add_argument_group("medqdeg / readiness / cbd options")
    suites.add_argument("--accuracy-rule", choices=("trial_mean", "plurality"), default="trial_mean",
                        help="medqdeg: accuracy as the mean over the T trials (default) or of the plurality answer")
    suites.add_argument("--invalid-policy", choices=("extra_bin", "drop"), default="extra_bin",
                        help="medqdeg: unparsable answers are an extra entropy bin (default) or dropped")
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
    from medvigil.adapters.lmms_eval import is_samples_file
    from medvigil.adapters.mediconfusion import read_release, read_results, runs_from_lmms_eval
    from medvigil.scoring.mediconfusion import (
        MODE_LABELS,
        RANDOM_INDIVIDUAL_ACCURACY,
        RANDOM_SET_ACCURACY,
        best_over_modes,
    )

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


def score_medvigil(release_root: str, files: list[str], **audit_options) -> dict:
    """Score MedVIGIL outputs (official harness JSONL or lmms-eval --log_samples files)."""
    from medvigil.adapters.model_outputs import read_model_outputs
    from medvigil.scoring import audit

    records = read_model_outputs(files, release_root)
    for warning in getattr(records, "warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    return _clean(audit(records, **audit_options))


def format_medvigil(result: dict) -> str:
    """The headline tables of the report (Table 1 layout and the MCS components)."""
    from medvigil.report import tables

    return "\n\n".join(t.markdown() for t in tables(result)[:2])


# -- entry point -----------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from medvigil.errors import DataError

    if (args.release is None) == (args.suite in NEEDS_RELEASE):
        need = "needs" if args.suite in NEEDS_RELEASE else "does not take"
        print(f"error: --suite {args.suite} {need} --release", file=sys.stderr)
        return 2
    try:
        if args.suite not in NEEDS_RELEASE:
            from medvigil.suite_scores import format_suite, score_suite

            options = {"medqdeg": {"accuracy_rule": args.accuracy_rule, "invalid_policy": args.invalid_policy},
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
            )
            table = format_medvigil(result)
    except DataError:
        raise  # reported by medvigil.cli with one line per problem, exit 2
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = _json_text(result) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
        return 0
    if args.json:
        write_text_atomic(Path(args.json), text)
    print(table)
    if args.json:
        print(f"\nJSON written to {args.json}")
    return 0
