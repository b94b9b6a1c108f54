"""One log-likelihood convention for every suite that reads lmms-eval log-likelihoods
(medvigil.scoring.loglikelihood): losses (lmms-eval's HF classes) and log-probabilities (our
baselines, API adapters) oriented the same way, mixed signs refused."""

import math

import pytest

from medvigil.scoring import loglikelihood
from medvigil.suites.cbd import records as cbd_records
from medvigil.suites.mediconfusion import modes

LOGPROBS = [(-0.2, True), (-1.5, False)]  # yes, no as log-probabilities
LOSSES = [(0.2, True), (1.5, False)]  # the same continuations as mean losses (one token each)


def test_cbd_p_yes_is_the_same_for_losses_and_log_probabilities():
    expected = 1.0 / (1.0 + math.exp(-1.5 + 0.2))
    assert cbd_records.p_yes(LOGPROBS) == pytest.approx(expected)
    assert cbd_records.p_yes(LOSSES) == pytest.approx(expected)
    # lmms-eval 0.7.3 hands the str form after its response filter
    assert cbd_records.p_yes([str(r) for r in LOSSES]) == pytest.approx(expected)
    # the baselines' deterministic answer: 0 for the chosen continuation, -1e4 for the other
    assert cbd_records.p_yes([(0.0, True), (-1e4, False)]) == pytest.approx(1.0)
    assert cbd_records.p_yes([(1e4, False), (0.0, True)]) == pytest.approx(0.0)


def test_mixed_signs_are_a_clear_error():
    with pytest.raises(loglikelihood.MixedConventionError, match="both signs"):
        cbd_records.p_yes([(-0.2, True), (1.5, False)])
    with pytest.raises(ValueError, match="not a loglikelihood result"):
        cbd_records.p_yes(["yes", "no"])


def test_mediconfusion_reads_the_same_convention():
    by_logprob = modes.gd_scores([v for v, _ in LOGPROBS])
    by_loss = modes.gd_scores([v for v, _ in LOSSES])
    assert by_logprob.votes == by_loss.votes and by_logprob.scores == by_loss.scores
    assert by_loss.value_kinds == (loglikelihood.MEAN_NLL,) * 2
    assert modes.gd_scores([-0.2, 1.5]).votes == (0, 0)  # one image, both signs: invalid answer


def test_declared_kind_overrides_the_sign():
    scores, kinds = loglikelihood.log_probabilities([0.0, 2.0], declared="mean_nll")
    assert scores == [0.0, -2.0] and kinds == ["mean_nll", "mean_nll"]
    with pytest.raises(ValueError, match="not a valid sum_logprob"):
        loglikelihood.log_probabilities([0.5, -1.0], declared="sum_logprob")
    with pytest.raises(ValueError, match="must be one of"):
        loglikelihood.value_kind(1.0, "loss")


def test_first_token_log_probabilities_score_one_word_continuations():
    """The OpenAI-compatible adapter's reading of ``top_logprobs`` (tasks/openai_models.py)."""

    from medvigil.scoring.loglikelihood import continuation_word, word_logprob

    assert continuation_word(" Yes") == "yes" and continuation_word("B") == "b"
    with pytest.raises(ValueError, match="mediconfusion_ps"):
        continuation_word(" a small nodule in the left lung")
    top = [("Yes", -0.2), (" yes.", -2.0), ("No", -3.0), ("yesterday", -1.0)]
    assert word_logprob(top, "yes") == pytest.approx(math.log(math.exp(-0.2) + math.exp(-2.0)))
    assert word_logprob(top, "no") == -3.0
    assert word_logprob(top, "maybe") == -3.0  # absent: the smallest listed, an upper bound
    with pytest.raises(ValueError, match="top_logprobs"):
        word_logprob([], "yes")
