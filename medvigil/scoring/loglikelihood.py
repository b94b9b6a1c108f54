"""One reading of lmms-eval log-likelihood results (CbD's binary arm, MediConfusion's GD and PS
modes).

lmms-eval's ``loglikelihood`` contract is the log-probability of the continuation (higher is
better), but its HuggingFace classes in 0.7.3 (``llava_hf``, ``llava``, ``qwen_vl``, ...) return
``outputs.loss``, the mean negative log-likelihood per token (EvolvingLMMs-Lab/lmms-eval#370). A
loss is never negative, a log-probability never positive (0 is probability 1 under both), so each
value is read by its sign (``"auto"``) or a declared kind, and every score leaves here oriented
higher = more likely. Values of both signs in one request come from no single model.

An API that returns only its reply's first-token alternatives (``top_logprobs``) scores a
one-word continuation by :func:`word_logprob` (the OpenAI-compatible adapter,
``tasks/openai_models.py``, documents the approximation).
"""

import ast
import math
from collections.abc import Sequence
from typing import Any

MEAN_NLL = "mean_nll"
SUM_LOGPROB = "sum_logprob"
VALUE_KINDS = ("auto", MEAN_NLL, SUM_LOGPROB)
CERTAIN = "certain"  # a value of 0: probability 1 under both readings
NOT_FINITE = "not finite"


class MixedConventionError(ValueError):
    """Values of one request read as a loss and as a log-probability."""


def result_value(result: Any) -> float:
    """The number of one lmms-eval log-likelihood result: ``(value, is_greedy)``, a bare number,
    or (after lmms-eval's response filter) the ``str`` of either.

    >>> result_value("(-10000.0, False)"), result_value((0.25, True)), result_value(-1)
    (-10000.0, 0.25, -1.0)
    """
    if isinstance(result, str):
        try:
            result = ast.literal_eval(result.strip())
        except (ValueError, SyntaxError):
            raise ValueError(
                f"not a loglikelihood result (value, is_greedy): {result!r:.80}"
            ) from None
    if isinstance(result, (list, tuple)) and result:
        result = result[0]
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise ValueError(f"not a loglikelihood result (value, is_greedy): {result!r:.80}")
    return float(result)


def value_kind(value: float, declared: str = "auto") -> str:
    """How ``value`` reads: ``mean_nll``, ``sum_logprob``, ``certain`` (0) or ``not finite``."""
    if declared not in VALUE_KINDS:
        raise ValueError(
            f"log-likelihood kind must be one of {', '.join(VALUE_KINDS)}, got {declared!r}"
        )
    if not math.isfinite(value):
        return NOT_FINITE
    if declared != "auto":
        return declared
    if value > 0:
        return MEAN_NLL
    if value < 0:
        return SUM_LOGPROB
    return CERTAIN


def mixed(kinds: Sequence[str]) -> bool:
    """True when one request's values were read both as a loss and as a log-probability."""
    return {MEAN_NLL, SUM_LOGPROB} <= set(kinds)


def valid(value: float, kind: str) -> bool:
    """A value agrees with its kind (a declared loss is >= 0, a declared log-probability <= 0)."""
    if kind == NOT_FINITE:
        return False
    return not ((kind == MEAN_NLL and value < 0) or (kind == SUM_LOGPROB and value > 0))


def oriented(value: float, kind: str) -> float:
    """The score of a value read as ``kind``, higher = more likely (a loss is negated)."""
    return -value if kind == MEAN_NLL else value


def log_probabilities(
    results: Sequence[Any], declared: str = "auto"
) -> tuple[list[float], list[str]]:
    """The scores of one request's continuations, higher = more likely, and how each was read.

    Raises :class:`MixedConventionError` for values of both signs (under ``auto``) and
    ``ValueError`` for a value that is not finite or disagrees with a declared kind.
    """
    values = [result_value(r) for r in results]
    kinds = [value_kind(v, declared) for v in values]
    if mixed(kinds):
        raise MixedConventionError(
            f"log-likelihood values {values} have both signs: a loss (> "
            f"0) and a log-probability (< 0) cannot come from one model; "
            f"check the adapter (lmms-eval's HF classes return losses)"
        )
    for value, kind in zip(values, kinds):
        if not valid(value, kind):
            raise ValueError(
                f"log-likelihood value {value!r} is not a valid "
                f"{kind.replace(NOT_FINITE, 'number')}"
            )
    return [oriented(v, k) for v, k in zip(values, kinds)], kinds


FIRST_TOKEN_PUNCTUATION = ".,:;!?\"'()"


def word_of(text: str) -> str:
    """The word a token or continuation spells: trimmed of white space and of
    :data:`FIRST_TOKEN_PUNCTUATION`, casefolded (``" Yes."`` -> ``"yes"``)."""
    return text.strip().strip(FIRST_TOKEN_PUNCTUATION).strip().casefold()


def continuation_word(continuation: str) -> str:
    """The one word a continuation must be to be scored from first-token alternatives."""
    word = word_of(continuation)
    if not word or len(continuation.split()) != 1:
        raise ValueError(
            f"a first-token log-probability scores one-word continuations only; {continuation!r} "
            "is not one word (mediconfusion_ps scores whole option texts, which an API's "
            "top_logprobs cannot give)"
        )
    return word


def word_logprob(top: Sequence[tuple[str, float]], word: str) -> float:
    """log p(the first token spells ``word``) from an API's listed alternatives ``(token,
    log-probability)``: the probabilities of the tokens that spell it (:func:`word_of`) added; a
    word no listed token spells gets the smallest listed log-probability (an upper bound)."""
    if not top:
        raise ValueError("no first-token alternatives (top_logprobs) to score a continuation from")
    hits = [lp for token, lp in top if word_of(token) == word]
    if not hits:
        return min(lp for _, lp in top)
    peak = max(hits)
    return peak + math.log(sum(math.exp(lp - peak) for lp in hits))
