"""MediConfusion's free-form (FF) judges (paper Sec. 3.1, Appendix A.4): a judge scores how close a
free-form response is to each option, 1 to 10, and the authors' margin rule reads the two scores as
votes (:func:`judge_response`). Judges by name: the offline :func:`token_f1_judge` (default), any
registered with :func:`register_judge` (such as the paper's GPT-4o judge,
:mod:`medvigil.suites.mediconfusion.llm_judge`), installed through :data:`JUDGE_ENTRY_POINT_GROUP`,
or ``"package.module:function"``.

>>> judge_response("Which side?", "Left", "Right", "The lesion is on the left.").scores
(7, 1)
"""

import importlib
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from importlib.metadata import entry_points

from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN
from medvigil.suites.mediconfusion.modes import letter_from_votes

__all__ = [
    "JUDGE_ENTRY_POINT_GROUP",
    "NEGATION_FACTOR",
    "Judge",
    "JudgeResult",
    "JudgeScores",
    "available_judges",
    "get_judge",
    "judge_response",
    "register_judge",
    "token_f1_judge",
]

#: A judge: ``(question, option_A, option_B, response) -> (score_A, score_B)``, each 1..10.
Judge = Callable[[str, str, str, str], Sequence[float]]

_WORD = re.compile(r"[a-z0-9]+")
# Function words (and the words every radiology answer uses to point at the image) carry no
# answer; negations are kept on purpose, so "effaced" and "not effaced" stay distinguishable.
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "i",
        "we",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "which",
        "what",
        "where",
        "how",
        "image",
        "shows",
        "showing",
        "shown",
        "seen",
        "visible",
        "see",
    ]
)
_NEGATIONS = frozenset(
    ["no", "not", "without", "absent", "absence", "none", "never", "negative", "nor"]
)
NEGATION_FACTOR = 0.5  # F1 multiplier when exactly one of response and option is negated


def _tokens(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return {w for w in _WORD.findall(folded) if w not in _STOP}


def token_f1_judge(question: str, option_a: str, option_b: str, response: str) -> tuple[int, int]:
    """The default free-form judge: token-set F1 between response and option, scaled to 1..10.

    Words: lower-cased, accents removed, runs of letters and digits, function words dropped
    (negations kept), and response words echoing the question but in neither option. With ``W`` the
    response words and ``O`` the option's: ``F1 = 2PR / (P + R)``, ``P = |W & O| / |W|``, ``R = |W &
    O| / |O|`` (0 when nothing is shared), times :data:`NEGATION_FACTOR` when exactly one of them
    holds a negation. Score ``1 + floor(9 * F1 + 0.5)``, 1 to 10 as the paper's GPT-4 judge
    (Appendix A.4). Every option of the real release, given verbatim as the response, is judged as
    that option.

    >>> token_f1_judge("Is the lesion bright or dark?", "Bright (hyperdense)", "Dark (hypodense)",
    ...                "hyperdense bleed")
    (6, 1)
    >>> token_f1_judge("Fourth ventricle?", "Effaced", "Not effaced", "not effaced")
    (4, 10)
    >>> token_f1_judge("Fourth ventricle?", "No effacement", "Effacement",
    ...                "effacement of the fourth ventricle")
    (4, 10)
    """
    options = (_tokens(option_a), _tokens(option_b))
    echo = _tokens(question) - options[0] - options[1]
    words = _tokens(response) - echo
    negated = bool(words & _NEGATIONS)
    scores = []
    for option in options:
        shared = len(words & option)
        if not shared:
            scores.append(1)
            continue
        precision, recall = shared / len(words), shared / len(option)
        f1 = 2 * precision * recall / (precision + recall)
        if negated != bool(option & _NEGATIONS):
            f1 *= NEGATION_FACTOR
        scores.append(1 + math.floor(9 * f1 + 0.5))
    return scores[0], scores[1]


_JUDGES: dict[str, Judge] = {"token_f1": token_f1_judge}
#: Entry-point group through which installed packages can add judges by name.
JUDGE_ENTRY_POINT_GROUP = "medvigil.mediconfusion_judges"


def register_judge(name: str, judge: Judge, *, overwrite: bool = False) -> None:
    """Make ``judge`` selectable as ``name`` (e.g. ``MEDICONFUSION_FF_JUDGE=name``)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"judge name must be letters, digits, '_', '.' or '-', got {name!r}")
    if not callable(judge):
        raise TypeError(f"judge must be callable, got {type(judge).__name__}")
    if name in _JUDGES and not overwrite:
        raise ValueError(
            f"a judge named {name!r} is already registered (pass overwrite=True to replace it)"
        )
    _JUDGES[name] = judge


def _entry_point_judges() -> dict:
    return {ep.name: ep for ep in entry_points(group=JUDGE_ENTRY_POINT_GROUP)}


def available_judges() -> list[str]:
    """Registered judge names plus those installed through :data:`JUDGE_ENTRY_POINT_GROUP`."""
    return sorted(set(_JUDGES) | set(_entry_point_judges()))


def get_judge(name: str) -> Judge:
    """Look a judge up: registered name, installed entry point, or ``"package.module:function"``."""
    if not isinstance(name, str):
        raise TypeError(f"judge name must be a str, got {type(name).__name__}")
    if name in _JUDGES:
        return _JUDGES[name]
    installed = _entry_point_judges()
    if name in installed:
        judge = installed[name].load()
    elif ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            judge = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load judge {name!r}: {exc}") from exc
    else:
        known = available_judges()
        near = get_close_matches(name, known, n=1)
        hint = f" Did you mean {near[0]!r}?" if near else ""
        raise ValueError(
            f"unknown judge {name!r}.{hint} Available: {', '.join(known)}; "
            f"or give 'package.module:function'."
        )
    if not callable(judge):
        raise TypeError(f"judge {name!r} is not callable")
    _JUDGES[name] = judge
    return judge


@dataclass(frozen=True)
class JudgeResult:
    scores: tuple[float, float]
    letter: str | None  # None = invalid (gap below the margin)
    judge: str
    reply: str | None = None  # an LLM judge's full reply (the authors keep its explanation)


class JudgeScores(tuple):
    """``(score_A, score_B)`` as an LLM judge returns them, carrying the judge's ``reply`` text."""

    reply: str

    def __new__(cls, scores: Sequence[float], reply: str):
        out = super().__new__(cls, scores)
        out.reply = reply
        return out


def judge_response(
    question: str,
    option_a: str,
    option_b: str,
    response: str | None,
    *,
    judge: str = "token_f1",
    margin: float = DEFAULT_MARGIN,
) -> JudgeResult:
    """Score a free-form response against both options and apply the gap rule (ValueError unless the
    judge returns two numbers in [1, 10])."""
    returned = get_judge(judge)(question, option_a, option_b, response or "")
    scores = tuple(returned)
    in_range = all(
        isinstance(s, (int, float))
        and not isinstance(s, bool)
        and math.isfinite(s)
        and 1 <= s <= 10
        for s in scores
    )
    if len(scores) != 2 or not in_range:
        raise ValueError(f"judge {judge!r} must return two scores in [1, 10], got {scores!r}")
    return JudgeResult(
        scores=scores,
        letter=letter_from_votes(scores, margin),
        judge=judge,  # type: ignore[arg-type]
        reply=getattr(returned, "reply", None),
    )
