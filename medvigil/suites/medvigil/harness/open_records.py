"""One open-ended row of the authors' files as a probe record: ``__open.jsonl`` answers judged by
our rule, ``__judged.jsonl`` with the authors' verdict; the verdict becomes letters through
:func:`medvigil.suites.medvigil.scoring.open_ended.verdict_letters`."""

from medvigil.suites.medvigil.harness.ablation_records import AblationContext, RowProblems
from medvigil.suites.medvigil.scoring.open_ended import (
    VERDICTS,
    judge,
    should_refuse,
    verdict_letters,
)


def open_record(
    row: dict, kind: str, model: str, condition: str, ctx: AblationContext, found: RowProblems
) -> dict | None:
    """An open-ended row (``__open.jsonl``: our rule judges; ``__judged.jsonl``: their verdict)."""
    from medvigil.suites.medvigil.release.release_csv import _answers, _Invalid

    probe_id = found.text(row, "probe_id")
    case_id = found.text(row, "case_id")
    probe_kind = found.text(row, "probe_kind")
    status = found.text(row, "status")
    answer = row.get("model_answer", "")
    if not isinstance(answer, str):
        found.add(f"must be a string, got {answer!r}", "model_answer")
    expected_behavior = row.get("expected_behavior") or ""
    expected = row.get("expected_answer_or_set") or ""
    if not isinstance(expected_behavior, str) or not isinstance(expected, str):
        found.add("expected_behavior and expected_answer_or_set must be strings")
    if found:
        return None
    refuse = should_refuse(probe_kind, expected_behavior)
    try:  # as the release reads probes_open.csv: a JSON list, or one answer
        golds = _answers(expected)
    except _Invalid as exc:
        found.add(str(exc), "expected_answer_or_set")
        return None
    if kind == "judged":
        label, method, judge_name, flags = _their_verdict(row, found)
    else:
        label, method, judge_name, flags = _our_verdict(
            row, answer, probe_kind, expected_behavior, golds, refuse, ctx.open_judge
        )
    fields = ctx.case_fields(case_id, found)
    if found:
        return None
    correct, predicted = verdict_letters(label, refuse)
    return {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": probe_id,
        "case_id": case_id,
        "probe_kind": probe_kind,
        "correct_letter": correct,
        "predicted_letter": predicted if status == "ok" else None,
        "parse_status": "ok" if status == "ok" else "error",
        **fields,
        "raw_response": answer,
        "extra": {
            "harness_status": status,
            "file": found.file,
            "line": found.line,
            "open_label": label,
            "judge_method": method,
            "open_judge": judge_name,
            "expected_behavior": expected_behavior,
            **flags,
        },
    }


def _their_verdict(row: dict, found: RowProblems) -> tuple:
    """``(label, method, judge, flags)`` of a ``__judged.jsonl`` row: the authors' LLM verdict
    (verdict files carry no refusal or critical flags)."""
    label, method = row.get("verdict"), row.get("judge_method")
    if label not in VERDICTS:
        found.add(f"must be one of {', '.join(VERDICTS)}, got {label!r}", "verdict")
    return label, method, "authors-llm", {}


def _our_verdict(
    row: dict,
    answer: str,
    probe_kind: str,
    expected_behavior: str,
    golds: list,
    refuse: bool,
    judge_name: str,
) -> tuple:
    """``(label, method, judge, flags)`` of an ``__open.jsonl`` answer by the offline judge; the
    flags are its refusal and critical calls (read by the judge correction)."""
    question = row.get("question")
    judged = judge(
        answer,
        probe_kind=probe_kind,
        expected_behavior=expected_behavior,
        expected=golds,
        judge_name=judge_name,
        question=question if isinstance(question, str) else "",
    )
    label = judged.verdict or ("silent_failure" if refuse else "incorrect")
    flags = {"is_refusal": judged.is_refusal, "is_critical": judged.is_critical}
    return label, judged.method, judged.judge, flags
