"""The four MediConfusion evaluation modes (paper Sec. 3.1): answer extraction and judges.

Each mode turns one image's output into *votes* for the two options, read by the authors' margin
rule (:func:`~medvigil.suites.mediconfusion.answers.vote_answers`). MC: 10 votes for the letter
parsed (:func:`mc_votes`). GD: 10 for the likelier of "A" / "B" (:func:`gd_scores`). PS: the same on
the option texts' normalised log-likelihoods (:func:`prefix_scores`; Xu et al., LVLM-eHub 2023: mean
log-probability per token). FF: a judge's 1-10 closeness score per option (:func:`judge_response`;
paper Appendix A.4), an LLM at T = 0.7 (the authors' GPT-4o protocol, :func:`endpoint_judge`) or
offline :func:`token_f1_judge`.

Why ``value_kind="auto"`` reads log-likelihoods by their sign: lmms-eval 0.7.3's HuggingFace models
return ``outputs.loss``, a mean NLL per token, not the log-probability its contract names
(EvolvingLMMs-Lab/lmms-eval#370); a mean NLL is never negative, a log-probability never positive
(``"mean_nll"`` / ``"sum_logprob"`` force one reading). PS normalisation: ``"per_token"`` (a mean
NLL ``v`` gives ``-v``; a total log-probability, with no token count, is used as is:
``normalisation_applied: "none"``), ``"per_char"`` (total / characters, lm-eval's ``acc_norm``) or
``"none"``.

>>> mc_votes('A") Left'), mc_votes("A or B"), mc_votes("A or B", "first_letter")
((10, 0), (0, 0), (10, 0))
>>> mc_votes("B. Right")
(0, 10)
>>> prefix_scores([0.9, 1.7], ["Left", "Right"]).votes       # mean NLLs: Left is likelier
(10, 0)
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

from medvigil.chat_client import chat
from medvigil.mcq.prompting import parse_letter
from medvigil.scoring import loglikelihood
from medvigil.scoring.letters import decode_letters
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN, OPTION_LETTERS, vote_answers

__all__ = [
    "JUDGE_ENTRY_POINT_GROUP",
    "JUDGE_PROMPT",
    "JUDGE_PROMPT_CODE",
    "JUDGE_PROMPT_LAYOUTS",
    "JUDGE_SYSTEM_MESSAGE",
    "NEGATION_FACTOR",
    "NORMALISATIONS",
    "VALUE_KINDS",
    "VOTE",
    "MC_PARSERS",
    "JudgeResult",
    "JudgeScores",
    "LikelihoodChoice",
    "authors_letter",
    "available_judges",
    "endpoint_judge",
    "gd_scores",
    "get_judge",
    "judge_prompt",
    "judge_response",
    "letter_from_votes",
    "make_llm_judge",
    "mc_votes",
    "parse_judge_reply",
    "prefix_scores",
    "register_judge",
    "token_f1_judge",
]

#: Votes given to a chosen option (the other gets 0), as in the authors' result files.
VOTE = 10
NORMALISATIONS = ("per_token", "per_char", "none")
VALUE_KINDS = loglikelihood.VALUE_KINDS
#: MC answer parsers: the authors' (default) and medvigil 0.1's.
MC_PARSERS = ("authors", "first_letter")


def letter_from_votes(votes: Sequence[float], margin: float = DEFAULT_MARGIN) -> str | None:
    """The authors' vote rule for one image (``None`` = invalid)."""
    return decode_letters(vote_answers([list(votes)], margin=margin))[0]


def _check_choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _votes_for(best: int | None) -> tuple[int, int]:
    """VOTE for option ``best``, 0 for the other; 0/0 when ``best`` is None."""
    return tuple(VOTE if i == best else 0 for i in range(len(OPTION_LETTERS)))  # type: ignore[return-value]


# The words that name a letter in the authors' clean_up_manual (their two forms with a newline
# can never match, since they replace newlines by spaces first).
_AUTHORS_FORMS = {
    letter: frozenset(
        [
            letter,
            f"{letter}:",
            f".{letter}",
            f".{letter}:",
            f"{letter}.",
            f'{letter}")',
            f'("{letter}":',
            f'("{letter}")',
            f'("{letter}").',
        ]
    )
    for letter in OPTION_LETTERS
}


def authors_letter(response: str | None) -> str | None:
    """The letter the authors' MC parser reads: the only letter (none or both: None, invalid) for
    which a word of the text (split at single spaces, newlines as spaces) is exactly ``A``, ``A:``,
    ``.A``, ``.A:``, ``A.``, ``A")``, ``("A":``, ``("A")`` or ``("A").`` (likewise for B).

    >>> authors_letter('A") Left'), authors_letter("The answer is B."), authors_letter("A or B")
    ('A', 'B', None)
    >>> authors_letter("(A)"), authors_letter("A,"), authors_letter(None)
    (None, None, None)
    """
    if response is None:
        return None
    words = set(response.replace("\n", " ").split(" "))
    found = [letter for letter in OPTION_LETTERS if words & _AUTHORS_FORMS[letter]]
    return found[0] if len(found) == 1 else None


def mc_votes(response: str | None, parser: str = "authors") -> tuple[int, int]:
    """Votes from a generated MC answer: 10 for the parsed letter, 0/0 when none is found.
    ``parser``: ``"authors"`` (:func:`authors_letter`) or ``"first_letter"`` (medvigil 0.1: the
    first standalone capital letter, :func:`medvigil.mcq.prompting.parse_letter`, so "A or B" reads
    as A; a letter other than A/B is invalid).
    """
    _check_choice("parser", parser, MC_PARSERS)
    letter = authors_letter(response) if parser == "authors" else parse_letter(response)
    return _votes_for(OPTION_LETTERS.index(letter) if letter in OPTION_LETTERS else None)


@dataclass(frozen=True)
class LikelihoodChoice:
    """How one image's log-likelihood results became votes (recorded in ``extra``)."""

    votes: tuple[int, int]
    scores: tuple[float | None, float | None]  # higher is better; None = unusable
    value_kinds: tuple[str, str]
    normalisation_applied: str
    note: str | None = None


def _likelihood_choice(
    values: Sequence[float], continuations: Sequence[str], value_kind: str, normalisation: str
) -> LikelihoodChoice:
    """Votes from one log-likelihood value per option; ``normalisation`` ``single_token`` is GD."""
    _check_choice("value_kind", value_kind, VALUE_KINDS)
    if len(values) != len(OPTION_LETTERS):
        raise ValueError(f"need one value per option ({len(OPTION_LETTERS)}), got {len(values)}")
    if len(continuations) != len(values):
        raise ValueError(f"need one continuation per option, got {len(continuations)}")
    scores: list[float | None] = []
    kinds: list[str] = []
    notes: list[str] = []
    applied = normalisation
    for value, text in zip(map(float, values), continuations):
        kind = loglikelihood.value_kind(value, value_kind)
        kinds.append(kind)
        score = None
        if not loglikelihood.valid(value, kind):
            notes.append(f"value {value!r} is not a valid {kind.replace('not finite', 'number')}")
        elif normalisation == "single_token":
            score = loglikelihood.oriented(value, kind)
        elif kind == "certain":
            score = 0.0
        elif kind == "mean_nll":
            if normalisation == "per_token":
                score = -value
            else:
                notes.append(
                    f"a mean per-token NLL cannot be normalised {normalisation!r} (no token count)"
                )
        elif normalisation == "per_char":
            score = value / max(1, len(text))
        else:
            if normalisation == "per_token":
                applied = "none"
                notes.append("total log-probability used as is: lmms-eval reports no token count")
            score = value
        scores.append(score)
    if loglikelihood.mixed(kinds):
        # auto read one value as a loss and another as a log-probability: not one model's output
        notes.append("values of both signs (a loss and a log-probability) for one image")
        scores = [None] * len(scores)
    tie = None not in scores and len(set(scores)) == 1
    if tie:
        notes.append("tie")
    best = None if tie or None in scores else max(range(len(scores)), key=lambda i: scores[i])
    return LikelihoodChoice(
        votes=_votes_for(best),
        scores=tuple(scores),
        value_kinds=tuple(kinds),  # type: ignore[arg-type]
        normalisation_applied=applied,
        note="; ".join(dict.fromkeys(notes)) or None,
    )


def prefix_scores(
    values: Sequence[float],
    continuations: Sequence[str],
    *,
    normalisation: str = "per_token",
    value_kind: str = "auto",
) -> LikelihoodChoice:
    """PS votes for options A and B from the model's value for each option's continuation (the
    option texts, whose lengths serve ``per_char``); see the module docstring."""
    _check_choice("normalisation", normalisation, NORMALISATIONS)
    return _likelihood_choice(values, continuations, value_kind, normalisation)


def gd_scores(values: Sequence[float], *, value_kind: str = "auto") -> LikelihoodChoice:
    """GD votes for letters A and B from the log-likelihoods of the one-token continuations (one
    token: a mean NLL ``v`` and a log-probability ``-v`` say the same; ``normalisation_applied:
    "single_token"``)."""
    return _likelihood_choice(values, OPTION_LETTERS, value_kind, "single_token")


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


# The paper's GPT-4o judge (Appendix A.4; the authors' configs/prompts/answering.json).
JUDGE_SYSTEM_MESSAGE = (
    "You are a helpful and precise assistant for checking the quality of the answer."
)
_JUDGE_INSTRUCTION = (
    "We would like to request your feedback on the performance of an AI assistant in response "
    "to the user question displayed above. The user asks the question on observing an image. "
    "We have provided two possible answers, [Answer A] and [Answer B] to the question. Your "
    "job is to evaluate how close the AI assistant's answer is to each of the answers. You "
    "don't have to decide whether the answers are correct or not. Each answer should receive "
    "an overall score on a scale of 1 to 10, where a higher score indicates the AI assistant's "
    "answer is closer to the specific answer. After providing the scores, concisely provide "
    "your explanation for the given scores. Remember, you don't need to comment on the "
    "correctness of the answers. Please provide your answer in the following format:\nA: "
    "<SCORE>\nB: <SCORE>\nYour explanation: <EXPLANATION>"
)
#: The prompt as printed in the paper (Appendix A.4): one line break between sections.
JUDGE_PROMPT = (
    "[Question]\n{question}\n[Answer A]\n{option_a}\n[Answer B]\n{option_b}\n"
    "[Assistant]\n{response}\n[End of Assistant]\n[System]\n" + _JUDGE_INSTRUCTION
)
#: The prompt as the authors' code builds it (``get_clean_up_prompt``): blank lines between
#: sections, the role named "AI Assistant", and a blank line at the end.
JUDGE_PROMPT_CODE = (
    "[Question]\n{question}\n\n[Answer A]\n{option_a}\n\n[Answer B]\n{option_b}\n\n"
    "[AI Assistant]\n{response}\n\n[End of AI Assistant]\n\n[System]\n"
    + _JUDGE_INSTRUCTION
    + "\n\n"
)
JUDGE_PROMPT_LAYOUTS = {"paper": JUDGE_PROMPT, "code": JUDGE_PROMPT_CODE}
#: The authors' judge settings: GPT-4o (their Azure deployment "gpt4o") at temperature 0.7,
#: three attempts per request.
JUDGE_MODEL = "gpt-4o"
JUDGE_TEMPERATURE = 0.7
JUDGE_ATTEMPTS = 3
_REPLY_SCORE = re.compile(
    r"^\s*\**\s*([AB])\s*\**\s*:\s*\**\s*(10|[1-9](?:\.\d+)?)\b", re.MULTILINE
)


def judge_prompt(
    question: str, option_a: str, option_b: str, response: str, layout: str = "paper"
) -> str:
    """The Appendix A.4 user prompt for one response (``layout``: ``paper`` or ``code``)."""
    _check_choice("layout", layout, tuple(JUDGE_PROMPT_LAYOUTS))
    return JUDGE_PROMPT_LAYOUTS[layout].format(
        question=question, option_a=option_a, option_b=option_b, response=response
    )


def parse_judge_reply(text: str) -> tuple[float, float]:
    """``(A, B)`` from a reply in the Appendix A.4 format (``A: <SCORE>`` / ``B: <SCORE>`` lines).

    >>> parse_judge_reply("A: 8\\nB: 2\\nYour explanation: ...")
    (8.0, 2.0)
    """
    found: dict[str, float] = {}
    for letter, value in _REPLY_SCORE.findall(text or ""):
        found.setdefault(letter, float(value))
    if set(found) != set(OPTION_LETTERS):
        raise ValueError(f"judge reply has no 'A: <score>' and 'B: <score>' lines: {text!r:.200}")
    return found["A"], found["B"]


def make_llm_judge(complete: Callable[[str, str], str], layout: str = "paper") -> Judge:
    """Wrap ``complete(system_message, prompt) -> reply text`` as a judge using the paper's prompt,
    e.g. ``register_judge("gpt4o", make_llm_judge(lambda system, prompt: my_client(system,
    prompt)))``."""
    if not callable(complete):
        raise TypeError(f"complete must be callable, got {type(complete).__name__}")
    _check_choice("layout", layout, tuple(JUDGE_PROMPT_LAYOUTS))

    def judge(question: str, option_a: str, option_b: str, response: str) -> JudgeScores:
        reply = complete(
            JUDGE_SYSTEM_MESSAGE, judge_prompt(question, option_a, option_b, response, layout)
        )
        return JudgeScores(parse_judge_reply(reply), reply)

    return judge


def endpoint_judge(
    base_url: str,
    *,
    model: str = JUDGE_MODEL,
    temperature: float = JUDGE_TEMPERATURE,
    api_key: str | None = None,
    layout: str = "paper",
    attempts: int = JUDGE_ATTEMPTS,
) -> Judge:
    """The authors' FF judge (paper's system message and prompt ``layout``; ``gpt-4o`` at 0.7)
    through any OpenAI-compatible ``/chat/completions`` endpoint; ``base_url`` is the API root
    (``https://api.openai.com/v1``, a vLLM server's ``.../v1``); up to ``attempts`` tries, like the
    authors' client (then a RuntimeError naming the endpoint and the last error)."""
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"judge endpoint must be an http(s) URL, got {base_url!r}")

    def complete(system: str, prompt: str) -> str:
        body = {
            "model": model,
            "temperature": temperature,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
        }
        return chat(base_url, body, api_key=api_key, attempts=attempts)

    return make_llm_judge(complete, layout)
