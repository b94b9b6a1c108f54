"""``medvigil judge``: run an open-ended judge over answers and check it against their labels.

ANSWERS is a JSON object in the shape of the MedVIGIL authors' calibration file
(``llm_judge_calibration.json``), or a JSONL file of such samples (one object a line, as
``medvigil/suites/medvigil/scoring/judge_sets/eval_set.jsonl``): ``samples``, a list of objects with
``question`` and ``answer`` (strings; nothing else is required) and optionally ``_model`` (or
``model``), the probe fields ``probe_kind``, ``expected_behavior``, ``expected_answer_or_set`` (list
or string), ``halluc_explanation``, ``degradation`` and ``text_only_answerable``, the authors'
labels ``_rule_is_refusal``, ``_rule_is_critical``, ``_llm_is_refusal``, ``_llm_is_critical`` (true,
false or null), and human labels ``label_is_refusal``, ``label_is_critical`` with ``class`` (or
``style``) and ``split``. ``probe_kind`` may also be ``no_image`` (a should-refuse kind); any other
key is kept in the output. At most 100,000 samples (``MAX_SAMPLES``: all are held in memory); a
larger file is refused before it is parsed -- split it.

``--judge`` picks the offline judge: ``grammar`` (default; logistic regressions over the refusal
grammar's and the NegEx finding reader's outputs, the probe kind and n-grams, fitted when first used
from the shipped labelled sets) or ``authors-rule`` (the authors' rule, to reproduce their numbers).
``--cross-validate`` prints, instead, the default judge's leave-one-set-out table: each labelled set
judged by the judge fitted on all the other sets. Answers of the shipped sets are the default
judge's training data: the output counts them (``in_training``), figures on them being in-sample.
Every sample gets ``is_refusal``, ``is_critical``, ``verdict``, ``verdict_method`` and ``judge``
(:func:`medvigil.suites.medvigil.scoring.open_ended.judge`); with ``--llm ENDPOINT`` also
``llm_is_refusal``, ``llm_is_critical`` and ``llm_raw`` from the authors' calibration prompt, and,
for a sample with a ``probe_kind`` whose verdict the rule left to its fallback, the verdict of the
authors' open-ended scorer prompt (``verdict_method`` ``llm``, the rule's in ``rule_verdict``; an
unreadable reply is ``hedged``/``llm_failed``, as theirs)
(:mod:`medvigil.suites.medvigil.scoring.llm_judge`). The summary, per model and ``__overall__``,
gives the agreement of our rule with every label the file carries and Cohen's kappa of the rule
against each LLM labelling, over the samples that LLM labelled (null labels are left out and
counted, as in the authors' summary). With human labels, ``validation`` gives precision and recall
per flag with bootstrap 95% CIs, per split, false refusals among answers labelled not a refusal and
false criticals among those that name a tier-4 finding (negated, hedged, educational), and flag
counts per class or style (:mod:`medvigil.suites.medvigil.scoring.judge_validation`). For
credentialed answers, point ``--llm`` at a server on your machine (vLLM, llama.cpp, Ollama:
``tests/fixtures/open_judge/README.md``); the client never follows a redirect.
"""

import argparse
import json
import sys
from collections import Counter, defaultdict

from medvigil.files.output_guard import declare
from medvigil.suites.medvigil.scoring.answer_files import MAX_SAMPLES, read_answers

__all__ = ["MAX_SAMPLES", "add_parser", "judge_samples", "read_answers", "run"]

AXES = ("refusal", "critical")
# summary block -> the labels our rule is compared with (a pattern over the axis); all but vs_llm
# come with the file (answer_files.FILE_LABELS)
COMPARISONS = {
    "vs_file_rule": "_rule_is_{}",
    "vs_file_llm": "_llm_is_{}",
    "vs_llm": "llm_is_{}",
    "vs_human": "label_is_{}",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "judge",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="judge open-ended answers offline (and optionally with "
        "an LLM), with agreement, kappa, precision/recall",
    )
    from medvigil.suites.medvigil.scoring.open_ended import DEFAULT_JUDGE, JUDGES

    parser.add_argument(
        "answers",
        metavar="ANSWERS.json",
        nargs="?",
        help="answers in the calibration file's shape (or JSONL)",
    )
    parser.add_argument(
        "--cross-validate",
        action="store_true",
        help="instead of judging ANSWERS: the default judge's leave-one-set-out table over its "
        "labelled sets (each set judged by the judge fitted on all the others)",
    )
    parser.add_argument(
        "--judge",
        choices=JUDGES,
        default=DEFAULT_JUDGE,
        help=f"offline judge (default {DEFAULT_JUDGE}; authors-rule "
        f"reproduces the authors' numbers)",
    )
    parser.add_argument(
        "--llm",
        metavar="ENDPOINT",
        help="OpenAI-compatible API base URL, e.g. http://127.0.0.1:8000/v1",
    )
    parser.add_argument(
        "--llm-model", default=None, help="model name sent to the endpoint (default gpt-4o)"
    )
    parser.add_argument(
        "--llm-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="per-request timeout (default 60)",
    )
    parser.add_argument(
        "--llm-deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="overall time for all LLM requests (default 3600); later samples are marked failed",
    )
    parser.add_argument(
        "--llm-attempts", type=int, default=None, help="tries per request, with backoff (default 3)"
    )
    parser.add_argument(
        "--json", metavar="OUT", help="write samples and summary to OUT ('-' = stdout, no table)"
    )
    declare(
        parser, inputs=("answers",), outputs=("json",)
    )  # the output guard checks these (medvigil.cli)


def judge_samples(samples: list[dict], llm=None, judge_name: str | None = None) -> list[dict]:
    from medvigil.suites.medvigil.scoring.open_ended import (
        DEFAULT_JUDGE,
        EXPECTED_BEHAVIOURS,
        judge,
    )

    rows = []
    for s in samples:
        degradation = s.get("degradation")
        degraded = (
            bool(degradation)
            and degradation != "clean"
            and not s.get("text_only_answerable", False)
        )
        j = judge(
            s["answer"],
            probe_kind=s.get("probe_kind", ""),
            expected_behavior=s.get("expected_behavior", ""),
            expected=s["_expected"],
            degraded=degraded,
            judge_name=judge_name or DEFAULT_JUDGE,
            question=s["question"],
        )
        row = {k: v for k, v in s.items() if k != "_expected"}
        row.update(
            is_refusal=j.is_refusal,
            is_critical=j.is_critical,
            verdict=j.verdict,
            verdict_method=j.method,
            judge=j.judge,
        )
        if (
            s.get("label_is_critical") is False
        ):  # for the false-critical count among negated answers
            from medvigil.suites.medvigil.scoring.finding_assertion import findings

            row["names_critical"] = bool(findings(s["answer"]))
        behaviour = s.get("expected_behavior", "")
        if behaviour and behaviour not in EXPECTED_BEHAVIOURS:
            row["unknown_expected_behavior"] = True
        if llm is not None:
            _ask_llm(llm, s, j, row)
        rows.append(row)
    return rows


def _ask_llm(llm, s: dict, j, row: dict) -> None:
    """The LLM's labels of one sample into ``row``, and its verdict where the rule left it to the
    fallback."""
    refusal, critical, asked = llm.ask(s["question"], s["answer"])
    row.update(llm_is_refusal=refusal, llm_is_critical=critical, llm_raw=asked.raw)
    if asked.error:
        row["llm_error"] = asked.error
    if j.method != "fallback" or not s.get("probe_kind"):  # where the authors' scorer asks its LLM
        return
    from medvigil.suites.medvigil.scoring.llm_judge import verdict_message

    message = verdict_message(
        s["probe_kind"],
        s["question"],
        s["answer"],
        "; ".join(s["_expected"]),
        s.get("halluc_explanation", ""),
    )
    verdict, asked_verdict = llm.ask_verdict(message)
    row.update(
        rule_verdict=j.verdict,
        verdict=verdict or "hedged",
        verdict_method="llm" if verdict else "llm_failed",
        llm_verdict_raw=asked_verdict.raw,
    )
    if asked_verdict.error:
        row["llm_verdict_error"] = asked_verdict.error


def _compare(rows: list[dict], key: str) -> dict | None:
    """Our rule vs the labels under ``key`` (a format pattern over the axis)."""
    from medvigil.scoring.agreement import agreement, cohen_kappa

    out = {}
    for axis in AXES:
        label = key.format(axis)
        pairs = [(r[f"is_{axis}"], r[label]) for r in rows if isinstance(r.get(label), bool)]
        if not any(label in r for r in rows):
            continue
        ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
        out[axis] = {
            "n_rated": len(pairs),
            "n_unlabelled": len(rows) - len(pairs),
            "n_agree": sum(a == b for a, b in pairs),
            "agreement": agreement(ours, theirs),
            "kappa": cohen_kappa(ours, theirs),
            "rule_rate": sum(ours) / len(pairs) if pairs else None,
            "label_rate": sum(theirs) / len(pairs) if pairs else None,
        }
    return out or None


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row.get("_model") or row.get("model") or "(unnamed)"].append(row)
    groups["__overall__"] = rows
    summary = []
    for model, group in groups.items():
        block = {
            "model": model,
            "n": len(group),
            "verdicts": dict(Counter(r["verdict"] or "no_gold" for r in group)),
            "unknown_expected_behavior": sum(
                bool(r.get("unknown_expected_behavior")) for r in group
            ),
        }
        block.update(
            {
                name: compared
                for name, key in COMPARISONS.items()
                if (compared := _compare(group, key))
            }
        )
        summary.append(block)
    return summary


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_summary(summary: list[dict]) -> str:
    lines = [f"{'model':18s} {'n':>4s} {'comparison':13s} {'axis':9s} {'agree':>9s} {'kappa':>7s}"]
    for block in summary:
        for name in COMPARISONS:
            for axis, c in block.get(name, {}).items():
                lines.append(
                    f"{block['model']:18s} {block['n']:>4d} {name:13s} {axis:9s} "
                    f"{c['n_agree']:>4d}/{c['n_rated']:<4d} {_fmt(c['kappa']):>7s}"
                )
        lines.append(
            f"{block['model']:18s} {block['n']:>4d} verdicts      "
            + ", ".join(f"{k} {v}" for k, v in sorted(block["verdicts"].items()))
        )
    return "\n".join(lines)


def _ci(value, interval) -> str:
    if value is None:
        return "-"
    low, high = interval or (None, None)
    return f"{value:.3f} [{_fmt(low)}, {_fmt(high)}]"


def format_validation(validation: dict) -> str:
    """Precision and recall per split and flag, then per class how many were flagged of how many
    labelled."""
    lines = [
        f"{'split':9s} {'flag':9s} {'n':>4s} {'precision [95% CI]':>24s} {'recall [95% CI]':>24s}"
    ]
    for split, block in validation.items():
        for axis in ("refusal", "critical"):
            if axis in block:
                c = block[axis]
                lines.append(
                    f"{split:9s} {axis:9s} {c['n']:>4d} "
                    f"{_ci(c['precision'], c['precision_ci']):>24s} "
                    f"{_ci(c['recall'], c['recall_ci']):>24s}"
                )
    split = "held_out" if "held_out" in validation else "all"
    false = validation[split]["false_flags"]
    refusal, critical = false["refusal"], false["critical"]
    lines.append(
        f"\n{split}: false refusals {refusal['flagged']} of {refusal['labelled_negative']} "
        f"answers labelled not a refusal; false criticals {critical['flagged']} of "
        f"{critical['labelled_negative']} labelled not critical ({critical['naming_flagged']} "
        f"of the {critical['naming']} that name a tier-4 finding: negated, hedged or educational)"
    )
    lines.append(
        f"\n{split}: per class, flagged / labelled positive (of n), and "
        f"the share judged as labelled (recall or specificity) [95% CI]"
    )
    for name, c in validation[split]["by_class"].items():
        lines.append(
            f"  {name:34s} n {c['n']:>3d}  refusal "
            f"{c['refusal_flagged']:>3d}/{c['refusal_labelled']:<3d} "
            f"{_ci(c['refusal_agreement'], c['refusal_agreement_ci']):>22s}  critical "
            f"{c['critical_flagged']:>3d}/{c['critical_labelled']:<3d} "
            f"{_ci(c['critical_agreement'], c['critical_agreement_ci']):>22s}"
        )
    return "\n".join(lines)


def _in_training(rows: list[dict]) -> int:
    """How many of ``rows`` (question, answer) the learned judge was fitted on."""
    from medvigil.suites.medvigil.scoring.judge_model import labelled_rows

    trained = {(r["question"], r["answer"]) for r in labelled_rows()}
    return sum((r["question"], r["answer"]) in trained for r in rows)


def _cross_validate(args: argparse.Namespace) -> int:
    """``--cross-validate``: the leave-one-set-out table (:mod:`.judge_loso`)."""
    from medvigil.commands.arg_types import emit
    from medvigil.suites.medvigil.scoring.judge_loso import cross_validate, format_table

    if args.answers or args.llm or args.judge != "grammar":
        print("error: --cross-validate takes no ANSWERS, --llm or --judge", file=sys.stderr)
        return 2
    result = {"judge": "grammar", "leave_one_set_out": cross_validate()}
    text = json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return emit(text, format_table(result["leave_one_set_out"]), args.json, {})


def run(args: argparse.Namespace) -> int:
    from medvigil.commands.arg_types import emit

    if args.cross_validate:
        return _cross_validate(args)
    if not args.answers:
        print("error: give ANSWERS.json (or --cross-validate)", file=sys.stderr)
        return 2
    samples = read_answers(args.answers)
    llm = _llm_judge(args) if args.llm else None
    if isinstance(llm, int):  # a bound that is not positive: the exit status
        return llm
    rows = judge_samples(samples, llm, args.judge)
    failed = sum("llm_error" in r or "llm_verdict_error" in r for r in rows)
    if llm is not None and failed == len(rows):
        first = next(r.get("llm_error") or r.get("llm_verdict_error") for r in rows) if rows else ""
        print(
            f"error: LLM judge: every request failed, nothing written; first error: {first}",
            file=sys.stderr,
        )
        return 2
    result, lines = _result(args, rows, failed if llm is not None else None)
    text = json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return emit(text, "\n".join(lines), args.json, {"ANSWERS": args.answers})


def _llm_judge(args: argparse.Namespace):
    """The bounded LLM judge of ``--llm``, or 2 (the exit status) when a bound is not positive."""
    from medvigil.suites.medvigil.scoring import llm_judge

    for name in ("llm_timeout", "llm_deadline", "llm_attempts"):
        value = getattr(args, name)
        if value is not None and not value > 0:
            print(f"error: --{name.replace('_', '-')} must be positive", file=sys.stderr)
            return 2
    return llm_judge.LLMJudge(
        args.llm,
        model=args.llm_model or llm_judge.DEFAULT_MODEL,
        timeout=args.llm_timeout or llm_judge.DEFAULT_TIMEOUT,
        deadline=args.llm_deadline or llm_judge.DEFAULT_DEADLINE,
        attempts=args.llm_attempts or llm_judge.DEFAULT_ATTEMPTS,
    )


def _result(args: argparse.Namespace, rows: list[dict], failed: int | None) -> tuple[dict, list]:
    """The JSON result and the printed lines of judged ``rows`` (``failed``: LLM failures, None
    without ``--llm``)."""
    from medvigil.suites.medvigil.scoring.judge_validation import validation

    result = {
        "answers": str(args.answers),
        "judge": args.judge,
        "samples": rows,
        "summary": summarise(rows),
    }
    if failed is not None:
        result["llm_failed"] = failed
    checked = validation(rows)
    if checked:
        result["validation"] = checked
    lines = [f"judge: {args.judge}", format_summary(result["summary"])]
    if checked and args.judge == "grammar":
        seen = _in_training(rows)
        result["in_training"] = seen
        if seen:
            lines.append(
                f"\nnote: {seen} of {len(rows)} answers are training data of the judge (shipped "
                f"labelled sets): figures on them are in-sample; held-out figures: "
                f"medvigil judge --cross-validate"
            )
    if failed:
        lines.append(
            f"\nLLM judge: {failed} of {len(rows)} sample(s) failed (llm_error / "
            f"llm_verdict_error); their LLM labels are null, their verdicts hedged/llm_failed"
        )
    if checked:
        lines.append("\n" + format_validation(checked))
    return result, lines
