"""The per-probe records of Consistent but Dangerous (``schemas/probe_record.schema.json``, suite
``cbd``): made from an lmms-eval doc and its answer, and checked when read back from the logs."""

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from medvigil.mcq.prompting import parse_option_letter
from medvigil.records.probe_record import probe_record
from medvigil.scoring import loglikelihood
from medvigil.suites.cbd.arms import ARMS, BINARY_ARMS, BINARY_CHOICES, PROPOSED_ARMS, SUITE
from medvigil.suites.cbd.paraphrases import PHENOMENA


def make_record(
    doc: Mapping[str, Any], response: str | None, attempts: list[str] | None = None
) -> dict:
    """The per-probe record (``schemas/probe_record.schema.json``, suite ``cbd``) of one doc."""
    letter = parse_option_letter(response, len(doc["options"]))
    extra = {
        "condition_source": "lmms-eval",
        "paraphrase_index": int(doc["paraphrase_index"]),
        "paraphrase_source": doc["paraphrase_source"],
        "phenomenon": PHENOMENA.get(doc["paraphrase_source"]),
    }
    if doc.get("finding"):
        extra["finding"] = doc["finding"]
    return probe_record(
        SUITE,
        doc,
        condition=doc["condition"],
        predicted_letter=letter,
        raw_response=response,
        attempts=attempts,
        extra=extra,
    )


def p_yes(loglikelihoods: Sequence[Any]) -> float:
    """p(yes): softmax over the log-likelihoods of yes and no (lmms-eval's ``(loglikelihood,
    is_greedy)``), oriented by :func:`medvigil.scoring.loglikelihood.log_probabilities` (a mean loss
    gives the same p(yes))."""
    if len(loglikelihoods) != 2:
        raise ValueError(f"need two finite log-likelihoods (yes, no), got {loglikelihoods!r}")
    (yes, no), _ = loglikelihood.log_probabilities(loglikelihoods)
    return 1.0 / (1.0 + math.exp(min(700.0, no - yes)))


def make_binary_record(doc: Mapping[str, Any], loglikelihoods: Sequence[Any]) -> dict:
    """The record of one binary doc: the answer as asked is yes when p(yes) >= 0.5;
    ``predicted_letter`` is A (yes) or B (no) *in the polarity of q*, so inverted for a negated
    paraphrase (``polarity`` ``"negated"``; :mod:`medvigil.suites.cbd.presence`), as
    ``correct_letter`` is."""
    py = p_yes(loglikelihoods)
    as_asked = BINARY_CHOICES[0] if py >= 0.5 else BINARY_CHOICES[1]
    negated = doc.get("polarity") == "negated"
    letter = "A" if (as_asked == BINARY_CHOICES[0]) != negated else "B"
    record = make_record({**doc, "options": list(BINARY_CHOICES)}, letter)
    record["raw_response"] = as_asked
    record["extra"].update(
        p_yes=py,
        probabilities=[py, 1.0 - py],
        loglikelihoods=[loglikelihood.result_value(v) for v in loglikelihoods],
        candidate=doc["binary_candidate"],
        label=doc["binary_label"],
        polarity=doc.get("polarity") or "asked",
        answer_as_asked=as_asked,
        arm="binary",
        question=str(doc["question"]).split("\nProposed answer:")[0],
    )
    if doc.get("source_case"):
        record["extra"]["source_case"] = doc["source_case"]
    if doc.get("swap_from"):
        record["extra"].update(swap_from=doc["swap_from"], swap_index=int(doc["swap_index"]))
    return record


def check_records(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records as a list, each checked to be a cbd record of a known arm with its
    ``extra.paraphrase_index`` (else an error naming the probe and the field)."""
    out = list(records)
    conditions = (*ARMS.values(), *BINARY_ARMS.values(), *PROPOSED_ARMS.values())
    for r in out:
        if r.get("suite") != SUITE:
            raise ValueError(
                f"record {r.get('probe_id')!r}: field 'suite' is {r.get('suite')!r}, "
                f"not {SUITE!r} (is this a cbd task log?)"
            )
        if not isinstance((r.get("extra") or {}).get("paraphrase_index"), int):
            raise ValueError(
                f"record {r.get('probe_id')!r}: field 'extra.paraphrase_index' is missing"
            )
        if r.get("condition") not in conditions:
            raise ValueError(
                f"record {r.get('probe_id')!r}: field 'condition' is {r.get('condition')!r}, "
                f"not one of {', '.join(conditions)}"
            )
    return out
