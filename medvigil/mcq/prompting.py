"""The MCQ prompt of the MedVIGIL paper (Appendix L) and its letter parser.

Prompt: the probe question, a newline, ``Options:`` on its own line, then five lines
``A.`` .. ``E.`` with the option texts in stored order. The system message is
:data:`medvigil.suites.medvigil.release.release_format.SYSTEM_PROMPT`.

Parser: strip the response and take the first *standalone* letter in {A..E}
("standalone" = not part of a longer word, so "B" in "Both" does not count).
Appendix L says the response is lower-cased before matching a capital letter, which
cannot both hold; we match upper-case letters by default (``case_sensitive=True``)
so that the article "a" in free text is not read as option A. Pass
``case_sensitive=False`` to also accept a lone lower-case letter.

>>> build_mcq_prompt("Is there a nodule?", ["Yes", "No", "Cannot say", "Maybe", "Refuse"])
'Is there a nodule?\\nOptions:\\nA. Yes\\nB. No\\nC. Cannot say\\nD. Maybe\\nE. Refuse'
>>> parse_letter("  B. No")
'B'
>>> parse_letter("Both are wrong") is None
True
>>> parse_letter("answer: (c)", case_sensitive=False)
'C'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from medvigil.constants import LETTERS, SYSTEM_PROMPT

_STANDALONE = {
    True: re.compile(r"(?<![A-Za-z0-9])([A-E])(?![A-Za-z0-9])"),
    False: re.compile(r"(?<![A-Za-z0-9])([A-Ea-e])(?![A-Za-z0-9])"),
}
MAX_PARSE_RETRIES = 3  # Appendix L: parse failures are retried up to three times


def build_mcq_prompt(question: str, options: Sequence[str]) -> str:
    """Render the Appendix L user message for one probe."""
    if len(options) != len(LETTERS):
        raise ValueError(f"options must have {len(LETTERS)} entries (A-E), got {len(options)}")
    return build_k_option_prompt(question, options)


def build_k_option_prompt(question: str, options: Sequence[str]) -> str:
    """The same layout for K = 2..26 options (A., B., ...), for datasets other than MedVIGIL.

    >>> build_k_option_prompt("Left or right?", ["left", "right"])
    'Left or right?\\nOptions:\\nA. left\\nB. right'
    """
    if not isinstance(question, str):
        raise TypeError(f"question must be a str, got {type(question).__name__}")
    if not 2 <= len(options) <= 26:
        raise ValueError(f"options must have 2 to 26 entries, got {len(options)}")
    lines = [question.strip(), "Options:"]
    lines += [f"{chr(65 + i)}. {str(text).strip()}" for i, text in enumerate(options)]
    return "\n".join(lines)


def parse_option_letter(response: str | None, n_options: int) -> str | None:
    """:func:`parse_letter` for K options: the first standalone capital among the first K letters.

    >>> parse_option_letter("D. maybe", 3) is None, parse_option_letter("so B", 3)
    (True, 'B')
    """
    if response is None:
        return None
    if not isinstance(response, str):
        raise TypeError(f"response must be a str or None, got {type(response).__name__}")
    letters = "".join(chr(65 + i) for i in range(n_options))
    match = re.search(rf"(?<![A-Za-z0-9])([{letters}])(?![A-Za-z0-9])", response.strip())
    return match.group(1) if match else None


def parse_letter(response: str | None, *, case_sensitive: bool = True) -> str | None:
    """Return the first standalone option letter in ``response``, or None (parse failure)."""
    if response is None:
        return None
    if not isinstance(response, str):
        raise TypeError(f"response must be a str or None, got {type(response).__name__}")
    match = _STANDALONE[case_sensitive].search(response.strip())
    return match.group(1).upper() if match else None


_OPTION_LINE = re.compile(r"^([A-Z])[.)]\s?(.*)$")  # "A. text" (Appendix L) or "A) text" (the authors' runner)


def parse_mcq_prompt(prompt: str) -> tuple[str, dict[str, str]]:
    """Split an Appendix-L style prompt back into (question, {letter: option text}).

    The inverse of :func:`build_mcq_prompt`, for baselines that, like a real model, see
    only the rendered prompt. Any number of lettered options is accepted (MediConfusion
    uses two). Raises ValueError when no ``Options:`` block is present.

    >>> parse_mcq_prompt(build_mcq_prompt("Q?", ["a", "b", "c", "d", "e"]))[1]["E"]
    'e'
    """
    lines = prompt.splitlines()
    headed = [i for i, line in enumerate(lines) if line.strip() == "Options:"]
    # MedQ-Deg's prompt (App. B) and the MedVIGIL authors' runner have no "Options:" header: the block
    # starts at its "A." / "A)" line
    bare = [i - 1 for i, line in enumerate(lines) if line.strip().startswith(("A. ", "A) "))]
    if not headed and not bare:
        raise ValueError("prompt has no 'Options:' line and no 'A.' option line")
    start = max(headed) if headed else bare[-1]
    question = "\n".join(lines[:start + (0 if headed else 1)]).strip()
    # simple (non-chat) lmms-eval models receive the system text as a pre-prompt
    question = question.removeprefix(SYSTEM_PROMPT).strip()
    options: dict[str, str] = {}
    for line in lines[start + 1 :]:
        match = _OPTION_LINE.match(line.strip())
        if match:
            options[match.group(1)] = match.group(2).strip()
        elif line.strip() and options:
            break  # trailing instructions after the options block
    if not options:
        raise ValueError("prompt has an 'Options:' line but no lettered options")
    return question, options
