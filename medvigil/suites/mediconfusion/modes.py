"""The answer extraction of the MediConfusion evaluation modes (paper Sec. 3.1).

Each mode turns one image's output into *votes* for the two options, read by the authors' margin
rule (:func:`~medvigil.suites.mediconfusion.answers.vote_answers`). MC: 10 votes for the letter
parsed (:func:`mc_votes`). GD: 10 for the likelier of "A" / "B" (:func:`gd_scores`). PS: the same on
the option texts' normalised log-likelihoods (:func:`prefix_scores`; Xu et al., LVLM-eHub 2023: mean
log-probability per token). FF: a judge's 1-10 closeness score per option
(:func:`medvigil.suites.mediconfusion.judges.judge_response`; paper Appendix A.4).

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
"""

from collections.abc import Sequence
from dataclasses import dataclass

from medvigil.mcq.prompting import parse_letter
from medvigil.scoring import loglikelihood
from medvigil.scoring.letters import decode_letters
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN, OPTION_LETTERS, vote_answers

__all__ = [
    "MC_PARSERS",
    "NORMALISATIONS",
    "VALUE_KINDS",
    "VOTE",
    "LikelihoodChoice",
    "authors_letter",
    "check_choice",
    "gd_scores",
    "letter_from_votes",
    "mc_votes",
    "prefix_scores",
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


def check_choice(name: str, value: str, allowed: Sequence[str]) -> None:
    """TypeError unless ``value`` is a str, ValueError unless it is one of ``allowed``."""
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
    check_choice("parser", parser, MC_PARSERS)
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
    check_choice("value_kind", value_kind, VALUE_KINDS)
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
    check_choice("normalisation", normalisation, NORMALISATIONS)
    return _likelihood_choice(values, continuations, value_kind, normalisation)


def gd_scores(values: Sequence[float], *, value_kind: str = "auto") -> LikelihoodChoice:
    """GD votes for letters A and B from the log-likelihoods of the one-token continuations (one
    token: a mean NLL ``v`` and a log-probability ``-v`` say the same; ``normalisation_applied:
    "single_token"``)."""
    return _likelihood_choice(values, OPTION_LETTERS, value_kind, "single_token")
