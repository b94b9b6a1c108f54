"""Option letters: read from a model's reply, and as small integer codes (``A`` = 0, invalid = -1),
shared by the suites that score multiple-choice answers (MedVIGIL, MediConfusion, MedQ-Deg,
Readiness, Consistent-but-Dangerous).

Reading a reply (:func:`read_option_letter`), after the MedVIGIL paper's Appendix L rule (the first
standalone capital letter among the options), with three choices of ours for replies that rule was
not written for (reasoning models, free text):

1. reasoning is removed first (:func:`strip_reasoning`): ``<think>...</think>`` and the like; an
   unclosed opening tag (the token budget ran out while thinking) leaves no answer, and a lone
   closing tag (models whose template opens the block) drops what precedes it;
2. an explicit final answer (``answer is B``, ``Answer: (B)``, ``\boxed{B}``) wins, the last one
   when there are several (a reply that weighs options before concluding);
3. otherwise the first standalone letter, where ``A`` (or ``a``) used as an article (followed by a
   space and a word, as in "A patient with...", "A 45-year-old") is not an option;
4. given the option texts (``options=``, for prompts that ask for "the index and content of the
   option", Illusion of Readiness Appendix E), a reply that *is* one option's text (case, spaces and
   end punctuation aside) gives that option before rules 2 and 3, and a reply with no letter gives
   the one option whose text it names (:func:`option_mentions`; an option named only inside a longer
   named option does not count, two or more named options give none).

>>> decode_letters(encode_letters(["B", None, "A"]))
['B', None, 'A']
>>> read_option_letter("<think>maybe A</think>B", 5)
'B'
>>> read_option_letter("A patient with this finding needs (C).", 5)
'C'
"""

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "INVALID",
    "REASONING_TAGS",
    "decode_letters",
    "encode_letters",
    "option_mentions",
    "read_option_letter",
    "strip_reasoning",
]

#: (opening, closing) markers of a reasoning block, as reasoning models write them
REASONING_TAGS = (
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<analysis>", "</analysis>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
)


def strip_reasoning(text: str) -> str:
    """``text`` without its reasoning blocks (:data:`REASONING_TAGS`, any case).

    >>> strip_reasoning("<think>A or B?</think> B")
    ' B'
    >>> strip_reasoning("<think>A is likely, but"), strip_reasoning("so A...</think>C")
    ('', 'C')
    """
    for opening, closing in REASONING_TAGS:
        o, c = re.escape(opening), re.escape(closing)
        text = re.sub(rf"{o}.*?{c}", "", text, flags=re.S | re.I)
        text = re.sub(rf"^.*?{c}", "", text, flags=re.S | re.I)  # the template opened the block
        text = re.sub(rf"{o}.*$", "", text, flags=re.S | re.I)  # cut while thinking: no answer
    return text


# after "A" and a space: a word that makes it an article, i.e. not one that follows an option letter
# in prose ("A or B", "A is wrong", "A and C", "A because...")
_ARTICLE = re.compile(
    r"[ \t]+(?!(?:or|and|is|was|seems|appears|looks|fits|matches|would|could|might|may|because|"
    r"since|as|but|then|vs|versus|nor)\b)[A-Za-z0-9]",
    re.I,
)
_MARKUP = re.compile(r"[*_`#]+")  # Markdown emphasis around a letter ("**B**")


def _explicit(letters: str, flags: int) -> re.Pattern:
    return re.compile(
        rf"\\boxed\{{\s*([{letters}])\s*\}}|\banswer\b\s*(?:is|:|=|-)?\s*(?:option\s+|choice\s+)?"
        rf"\(?([{letters}])\)?(?![A-Za-z0-9])",
        flags,
    )


def read_option_letter(
    response: str | None,
    n_options: int,
    *,
    case_sensitive: bool = True,
    options: Sequence[str] | None = None,
) -> str | None:
    """The option letter a reply gives among the first ``n_options`` letters, or None (see the
    module text); ``options``: the option texts, for replies that give an option's content (rule 4).

    >>> read_option_letter("Answer: D. Maybe; no, the answer is B", 5), read_option_letter("D", 3)
    ('B', None)
    >>> read_option_letter("Right parietal lobe.", 2,
    ...                    options=["Left parietal lobe", "Right parietal lobe"])
    'B'
    """
    if response is None:
        return None
    if not isinstance(response, str):
        raise TypeError(f"response must be a str or None, got {type(response).__name__}")
    if not 1 <= n_options <= 26:
        raise ValueError(f"n_options must be 1..26, got {n_options}")
    if options is not None and len(options) != n_options:
        raise ValueError(f"options must hold n_options = {n_options} texts, got {len(options)}")
    text = _MARKUP.sub("", strip_reasoning(response)).strip()
    if options is not None:
        exact = [i for i, o in enumerate(options) if _plain(o) and _plain(o) == _plain(text)]
        if len(exact) == 1:
            return _ALPHABET[exact[0]]
    letter = _letter(text, n_options, case_sensitive)
    if letter is None and options is not None:
        named = {letter for _, _, letter in option_mentions(text, options)}
        return named.pop() if len(named) == 1 else None
    return letter


def _plain(text: Any) -> str:
    """Lower case, single spaces, no surrounding spaces or end punctuation."""
    return " ".join(str(text).lower().split()).strip(" .,;:!?\"'()")


def option_mentions(text: str, options: Sequence[str]) -> list[tuple[int, int, str]]:
    """``(start, end, letter)`` of every whole-word, case-insensitive occurrence of an option's text
    in ``text``, in order; an occurrence inside a longer occurrence (another option's text) is left
    out.

    >>> option_mentions("Not the left but the right parietal lobe",
    ...                 ["Left parietal lobe", "parietal lobe", "right parietal lobe"])
    [(21, 40, 'C')]
    """
    low = text.lower()
    found = []
    for i, option in enumerate(options):
        needle = " ".join(str(option).lower().split())
        if not needle:
            continue
        pattern = r"\s+".join(map(re.escape, needle.split(" ")))
        for m in re.finditer(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])", low):
            found.append((m.start(), m.end(), _ALPHABET[i]))
    return sorted(
        f for f in found if not any(g != f and g[0] <= f[0] and f[1] <= g[1] for g in found)
    )


def _letter(text: str, n_options: int, case_sensitive: bool) -> str | None:
    """Rules 2 and 3 of the module text on a reply without reasoning blocks or markup."""
    letters = _ALPHABET[:n_options]
    if not case_sensitive:
        letters += letters.lower()
    explicit = _explicit(letters, re.I if not case_sensitive else 0).findall(
        _answer_case(text, case_sensitive)
    )
    if explicit:
        boxed, stated = explicit[-1]
        return (boxed or stated).upper()
    for match in re.finditer(rf"(?<![A-Za-z0-9])([{letters}])(?![A-Za-z0-9])", text):
        letter = match.group(1)
        if letter in "Aa" and _ARTICLE.match(text, match.end()):
            continue  # the article: "A patient with...", "a 45-year-old"
        return letter.upper()
    return None


def _answer_case(text: str, case_sensitive: bool) -> str:
    """``text`` with the word "answer" in lower case (the letter keeps its case), for the explicit
    rule."""
    return re.sub(r"(?i)\banswer\b", "answer", text) if case_sensitive else text


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INVALID = -1
_CODES = {None: INVALID, "": INVALID, **{letter: code for code, letter in enumerate(_ALPHABET)}}


def encode_letters(letters: Iterable[Any], *, name: str = "letters") -> np.ndarray:
    """Map option letters to codes 0..25 (``A`` = 0); ``None`` or ``""`` (invalid) -> -1.

    Raises ``TypeError`` for a non-string entry and ``ValueError`` for a string that is
    not one upper-case letter, naming the argument and the first bad position.

    >>> encode_letters(["A", "", None, "C"]).tolist()
    [0, -1, -1, 2]
    """
    values = letters if type(letters) is list else list(letters)
    if not values:
        return np.empty(0, dtype=np.int8)
    try:  # every value a letter, "" or None: one lookup each
        return np.fromiter(map(_CODES.__getitem__, values), dtype=np.int8, count=len(values))
    except (KeyError, TypeError):
        pass  # a bad value: say which (types first)
    for i, value in enumerate(values):
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"{name}[{i}] must be a letter string or None, got {type(value).__name__}"
            )
    i = values.index(
        min(v for v in values if v not in _CODES)
    )  # the smallest bad string, at its first row
    raise ValueError(
        f"{name}[{i}] must be one upper-case letter A-Z or empty/None, got {values[i]!r}"
    )


def decode_letters(codes: Iterable[int]) -> list[str | None]:
    """Inverse of :func:`encode_letters` (``-1`` -> ``None``)."""
    return [None if int(c) < 0 else _ALPHABET[int(c)] for c in codes]
