"""The part of a model answer the open-ended judge reads, in one spelling.

Reasoning blocks (``<think>...</think>``, ``<thinking>``, ``<reasoning>``) are the model's
scratchpad, not its answer: they are dropped (text before a lone closing tag too; an answer that is
*only* an unclosed block keeps its text, there being nothing else). Curly quotes are straightened
and informal contractions without an apostrophe (``cant``, ``dont``, ``Im``, ``pls``) spelled out,
so the clause grammar and NegEx see one form. Every pattern is linear in the text (no nested
unbounded quantifiers).

>>> plain("<think>Maybe a pneumothorax?</think>\\nNo acute findings.")
'No acute findings.'
>>> plain("i cant see it, pls upload. Im sorry")
"i can't see it, please upload. I'm sorry"
"""

import re
from collections.abc import Sequence

_TAG = re.compile(r"<(/?)(?:think|thinking|reasoning|reflection)>", re.I)
_CONTRACTION = re.compile(
    r"\b(can|don|doesn|didn|isn|aren|wasn|weren|won|couldn|wouldn|shouldn|haven|hasn|hadn)t\b", re.I
)
_IM = re.compile(r"\bIm\b|\bim(?= (?:not|unable|sorry|afraid|an? )\b)")
_PLEASE = re.compile(r"\b(?:pls|plz)\b", re.I)


def split_reasoning(text: str) -> tuple[str, str]:
    """(answer, reasoning): ``text`` without its reasoning blocks, and their text (module
    docstring)."""
    kept, dropped, depth, start, tail = [], [], 0, 0, ""
    for tag in _TAG.finditer(text):
        if tag.group(1):  # a closing tag
            if depth:
                depth -= 1
            else:  # closes a block opened before the text (only the close was printed)
                dropped, kept = dropped + kept, []
            if not depth:
                dropped.append(text[start : tag.start()])
                start = tag.end()
        else:
            if not depth:
                kept.append(text[start : tag.start()])
                start = tag.end()
            depth += 1
    if depth:  # an unclosed block: the answer is what came before it, if anything did
        tail = text[start:]
    else:
        kept.append(text[start:])
    answer = " ".join(kept).strip()
    if not answer:
        return _TAG.sub(" ", tail).strip(), " ".join(dropped).strip()
    return answer, " ".join(dropped + [tail]).strip()


def drop_reasoning(text: str) -> str:
    """``text`` without its reasoning blocks (module docstring); one pass over the tags."""
    return split_reasoning(text)[0]


def reasoning(text: str | None) -> str:
    """The text of ``text``'s reasoning blocks, spelled as :func:`plain` spells the answer."""
    return _spell(split_reasoning(text or "")[1])


def plain(text: str | None) -> str:
    """The answer as the judge reads it (module docstring)."""
    return _spell(drop_reasoning(text or ""))


def _spell(text: str) -> str:
    out = text.replace("\u2019", "'").replace("\u2018", "'")
    out = _CONTRACTION.sub(lambda m: m.group(1) + "'t", out)
    out = _IM.sub("I'm", out)
    return _PLEASE.sub("please", out)


def any_of(patterns: Sequence[str]) -> re.Pattern:
    """One case-insensitive pattern matching any of ``patterns``."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)
