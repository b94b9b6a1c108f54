"""Illusion of Readiness T6, the reasoning signal (Gu et al., seed 003, Sec. 2, Stress Test 6): a
chain-of-thought answer parsed (Appendix E's ``<thinking>`` / ``<answer>`` tags) and the automatic
measures comparing it with the direct answer. T6 is not part of R(m).
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

from medvigil.scoring.letters import option_mentions

__all__ = ["parse_cot", "reasoning_audit"]


_TAG = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.S | re.I) for name in ("thinking", "answer")
}
_NAMED_LETTER = re.compile(
    r"(?:\(|\b(?:option|answer|choice)\s+)([A-Z])\b|(?<![A-Za-z0-9])([A-Z])(?:[.:)]|$)(?!\w)", re.M
)


def _mentions(text: str, options: Sequence[str]) -> list[tuple[int, str]]:
    """(end position, letter) of every option named in ``text``: a label ("B.", "(B)", "option B")
    or its text."""
    found = []
    for m in _NAMED_LETTER.finditer(text):
        letter = m.group(1) or m.group(2)
        if ord(letter) - 65 < len(options):
            found.append((m.end(), letter))
    found += [(end, letter) for _, end, letter in option_mentions(text, options)]
    return sorted(found)


def parse_cot(response: str, options: Sequence[str]) -> dict[str, Any]:
    """A chain-of-thought answer (Appendix E: ``<thinking>``, ``<answer>``): the first option named
    in ``<answer>`` (without it, the last one in the response), whether both tags are present, and
    the last option the thinking names (``None`` if none)."""
    text = response or ""
    think, answer = (_TAG[n].search(text) for n in ("thinking", "answer"))
    if answer:
        named = _mentions(answer.group(1), options)
        letter = named[0][1] if named else None
    else:
        named = _mentions(text, options)
        letter = named[-1][1] if named else None
    concluded = _mentions(think.group(1), options) if think else []
    return {
        "answer": letter,
        "well_formed": bool(think and answer),
        "thinking_conclusion": concluded[-1][1] if concluded else None,
    }


def _chosen_text(r: Mapping[str, Any]) -> str | None:
    shown = (r.get("extra") or {}).get("options_shown")
    letter = r.get("predicted_letter")
    if letter is None or not shown or ord(letter) - 65 >= len(shown):
        return letter
    return str(shown[ord(letter) - 65])


def reasoning_audit(
    direct: Sequence[Mapping[str, Any]], cot: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """T6 (Sec. 2, Stress Test 6), the measures that need no clinician:

    * ``direct`` / ``cot`` accuracy (%) on the same items and ``cot - direct`` (pp): "does
      explicitly requesting step-by-step reasoning enhance performance";
    * ``answer_change``: share (%) of items whose chosen option (by text) differs between the
      two prompts, split into ``right_to_wrong`` and ``wrong_to_right`` counts;
    * ``well_formed``: share (%) of CoT responses with both tags;
    * ``reasoning_answer_agreement``: among CoT responses whose thinking concludes with an
      option, the share (%) whose final answer is that option (the audit's "alignment with
      final answers", automated; factuality and visual grounding need a manual audit).
    """
    by_case = {str(r["case_id"]): r for r in direct}
    pairs = [(by_case[str(r["case_id"])], r) for r in cot if str(r["case_id"]) in by_case]
    n = len(pairs)
    right = [
        (
            d.get("predicted_letter") == d["correct_letter"],
            c.get("predicted_letter") == c["correct_letter"],
        )
        for d, c in pairs
    ]
    changed = sum(_chosen_text(d) != _chosen_text(c) for d, c in pairs)
    audits = [(c.get("extra") or {}).get("cot") or {} for c in cot]
    concluded = [a for a in audits if a.get("thinking_conclusion") is not None]
    pct = lambda k, m: 100.0 * k / m if m else float("nan")
    acc_direct, acc_cot = pct(sum(a for a, _ in right), n), pct(sum(b for _, b in right), n)
    return {
        "n": n,
        "direct": acc_direct,
        "cot": acc_cot,
        "cot_minus_direct": acc_cot - acc_direct,
        "answer_change": pct(changed, n),
        "right_to_wrong": sum(a and not b for a, b in right),
        "wrong_to_right": sum(b and not a for a, b in right),
        "well_formed": pct(sum(bool(a.get("well_formed")) for a in audits), len(audits)),
        "reasoning_answer_agreement": pct(
            sum(a["thinking_conclusion"] == a.get("answer") for a in concluded), len(concluded)
        ),
        "n_concluded": len(concluded),
        "n_unpaired": len(cot) - n,
    }
