"""The MCQ prompt of the MedVIGIL paper (Appendix L) and its letter parser.

Prompt: the question, ``Options:`` on its own line, then lines ``A.`` .. ``E.`` with the option
texts. Parser: the first *standalone* letter in {A..E} (not "B" in "Both"), as
:func:`medvigil.scoring.letters.read_option_letter` documents. Appendix L lower-cases the response
before matching a capital letter, which cannot both hold; we match upper-case letters by default so
that the article "a" is not option A (``case_sensitive=False`` also accepts a lone lower-case
letter).

>>> build_mcq_prompt("Is there a nodule?", ["Yes", "No", "Cannot say", "Maybe", "Refuse"])
'Is there a nodule?\\nOptions:\\nA. Yes\\nB. No\\nC. Cannot say\\nD. Maybe\\nE. Refuse'
>>> parse_letter("  B. No")
'B'
>>> parse_letter("Both are wrong") is None
True
>>> parse_letter("answer: (c)", case_sensitive=False)
'C'
"""

import re
from collections.abc import Sequence

from medvigil.constants import LETTERS, SYSTEM_PROMPT
from medvigil.scoring.letters import read_option_letter


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


def parse_option_letter(
    response: str | None, n_options: int, options: Sequence[str] | None = None
) -> str | None:
    """:func:`parse_letter` for K options (:func:`medvigil.scoring.letters.read_option_letter`);
    with the option texts, a reply giving an option's content instead of its letter reads as that
    option.

    >>> parse_option_letter("D. maybe", 3) is None, parse_option_letter("so B", 3)
    (True, 'B')
    >>> parse_option_letter("Right parietal lobe", 2, ["Left parietal lobe", "Right parietal lobe"])
    'B'
    """
    return read_option_letter(response, n_options, options=options)


def parse_letter(response: str | None, *, case_sensitive: bool = True) -> str | None:
    """The option letter (A-E) of a reply, or None (parse failure):
    :func:`medvigil.scoring.letters.read_option_letter`."""
    return read_option_letter(response, len(LETTERS), case_sensitive=case_sensitive)


_OPTION_LINE = re.compile(
    r"^([A-Z])[.)]\s?(.*)$"
)  # "A. text" (Appendix L) or "A) text" (the authors' runner)


def parse_mcq_prompt(prompt: str) -> tuple[str, dict[str, str]]:
    """Split an Appendix-L style prompt (any number of options) back into (question, {letter: option
    text}), for baselines that, like a real model, see only the rendered prompt. ValueError without
    an options block.

    >>> parse_mcq_prompt(build_mcq_prompt("Q?", ["a", "b", "c", "d", "e"]))[1]["E"]
    'e'
    """
    lines = prompt.splitlines()
    headed = [i for i, line in enumerate(lines) if line.strip() == "Options:"]
    # MedQ-Deg's prompt (App. B) and the MedVIGIL authors' runner have no "Options:" header: the
    # block starts at its "A." / "A)" line
    bare = [i - 1 for i, line in enumerate(lines) if line.strip().startswith(("A. ", "A) "))]
    if not headed and not bare:
        raise ValueError("prompt has no 'Options:' line and no 'A.' option line")
    start = max(headed) if headed else bare[-1]
    question = "\n".join(lines[: start + (0 if headed else 1)]).strip()
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
