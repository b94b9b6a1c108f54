"""MedQ-Deg per-sample scores from ``T`` repeated answers: accuracy and perceived confidence.

Definitions (Liu et al., seed 002, Section 3.4), numbered as in the paper:

* Eq. (2) accuracy ``Acc(f, D) = (1/|D|) sum_x 1[y_hat(x) = y*(x)]``; :func:`sample_accuracy` gives
  each summand.
* Perceived confidence from ``T`` repeated answers (temperature 1.0; ``T = 10`` in the calibration
  experiment): the vote distribution ``p_i(x) = (1/T) sum_t 1[y^(t) = i]`` over the ``K`` options,
  its entropy ``H(x) = -sum_i p_i log p_i`` (``0 log 0 = 0``) and Eq. (3) ``C(x) = 1 - H(x) / log
  K`` in [0, 1].

Choices where the paper is silent (project spec ``docs/medqdeg-degradations.md``; each a parameter):

* **K** is the number of options *of each question* (2 to 5+), so ``C`` is normalised per sample;
  ``K >= 2``.
* **T** is the number of trials *of each sample* (valid + invalid); with ``T = 1`` every ``C`` is 1.
* **Log base**: natural; ``H / log K`` is the same in every base (the ``1/ln b`` cancels).
* **Invalid trials** (no letter found; the paper counts them as incorrect, App. B):
  ``invalid_policy="extra_bin"`` (default, spec) adds them as one more outcome in ``H`` and clips
  ``C`` to [0, 1] (``T`` invalid answers give ``C = 1``: consistently unanswerable); ``"drop"``
  renormalises ``p`` over the valid trials. Without invalid trials both equal Eq. (3).
* **A sample whose trials are all invalid** voted for no option, so shows no confidence in any
  answer: ``all_invalid="zero"`` (default) sets ``C = 0`` (its accuracy is 0 too, so it adds 0 to
  Eq. 4; the literal extra-bin reading would give ``C = 1`` and an always-refusing model
  ``Delta_calib = +1``); ``"exclude"`` leaves such samples out of every score and counts them
  (``n_excluded_all_invalid``); ``"extra_bin"`` keeps what ``invalid_policy`` gives.
* **Which answer is y_hat** (Eq. 2 has one prediction, the experiment ``T``): ``accuracy_rule=
  "trial_mean"`` (default, spec) averages correctness over the trials, ``p_{y*}(x)`` with invalid
  trials wrong; ``"plurality"`` takes the most voted letter, ties to the lowest, no valid trial =
  wrong.

Vectorised over samples (votes as an (n, K) count matrix).

>>> counts, invalid = vote_counts([["A"] * 7 + ["B"] * 2 + ["C"]], n_options=4)
>>> round(float(perceived_confidence(counts, 4, invalid)[0]), 4)   # spec example 1
0.4216
"""

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from medvigil.scoring.letters import encode_letters

__all__ = [
    "ACCURACY_RULES",
    "ALL_INVALID_RULES",
    "INVALID_POLICIES",
    "perceived_confidence",
    "sample_accuracy",
    "vote_counts",
]

ACCURACY_RULES = ("trial_mean", "plurality")
INVALID_POLICIES = ("extra_bin", "drop")
ALL_INVALID_RULES = ("zero", "exclude", "extra_bin")


def _check_choice(value: str, allowed: Sequence[str], name: str) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _options_vector(n_options: Any, n: int) -> np.ndarray:
    k = np.asarray(n_options)
    if k.ndim == 0:
        k = np.full(n, k)
    if k.shape != (n,):
        raise ValueError(
            f"n_options must be a scalar or have one entry per "
            f"sample ({n}), got shape {np.shape(n_options)}"
        )
    if k.dtype.kind not in "iu" and (k.dtype.kind != "f" or not np.all(np.mod(k, 1) == 0)):
        raise TypeError(f"n_options must be integers, got {k.dtype}")
    k = k.astype(np.int64)
    if n and k.min() < 2:
        raise ValueError(
            f"n_options must be >= 2 for every sample (log K = 0 otherwise), got {int(k.min())}"
        )
    return k


def vote_counts(trials: Iterable[Sequence[Any]], n_options: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, invalid)`` of ``trials`` (per sample, the ``T`` answers as letters; ``None`` or
    ``""`` = invalid) with ``n_options`` = ``K`` (a scalar or one per sample): an (n, max K) integer
    matrix of votes per option and the number of invalid trials per sample."""
    rows = [t if type(t) is list else list(t) for t in trials]
    n = len(rows)
    k = _options_vector(n_options, n)
    width = int(k.max()) if n else 0
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    if n and lengths.min() == 0:
        raise ValueError(f"sample {int(np.argmin(lengths))} has no trials")
    codes = (
        encode_letters(list(chain.from_iterable(rows)), name="trials")
        if n
        else np.zeros(0, np.int8)
    )
    sample = np.repeat(np.arange(n), lengths)
    bad = codes >= k[sample]
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"sample {int(sample[i])} has answer {chr(65 + int(codes[i]))!r} "
            f"beyond its {int(k[sample[i]])} options"
        )
    valid = codes >= 0
    counts = np.zeros((n, width), dtype=np.int64)
    np.add.at(counts, (sample[valid], codes[valid].astype(np.intp)), 1)
    invalid = np.bincount(sample[~valid], minlength=n).astype(np.int64)
    return counts, invalid


def _xlogx(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def perceived_confidence(
    counts: Any,
    n_options: Any,
    invalid: Any = None,
    *,
    invalid_policy: str = "extra_bin",
    all_invalid: str = "zero",
) -> np.ndarray:
    """Eq. (3): ``C(x) = 1 - H(x) / log K`` per sample from (n, K_max) vote ``counts`` and
    ``invalid`` trials per sample (default none); ``invalid_policy``, ``all_invalid`` as in the
    module docstring (``"exclude"``: NaN)."""
    _check_choice(all_invalid, ALL_INVALID_RULES, "all_invalid")
    conf = _confidence(counts, n_options, invalid, invalid_policy)
    if all_invalid == "extra_bin":
        return conf
    none_valid = np.asarray(counts, dtype=np.float64).sum(axis=1) == 0
    return np.where(none_valid, 0.0 if all_invalid == "zero" else np.nan, conf)


def _confidence(counts: Any, n_options: Any, invalid: Any, invalid_policy: str) -> np.ndarray:
    _check_choice(invalid_policy, INVALID_POLICIES, "invalid_policy")
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError(f"counts must be a 2-D (samples x options) array, got shape {c.shape}")
    n = c.shape[0]
    k = _options_vector(n_options, n)
    bad = (
        np.zeros(n, dtype=bool)
        if c.shape[1] == 0
        else (c * (np.arange(c.shape[1])[None, :] >= k[:, None])).sum(1) > 0
    )
    if np.any(bad):
        raise ValueError(f"sample {int(np.flatnonzero(bad)[0])} has votes beyond its n_options")
    if np.any(c < 0):
        raise ValueError("counts must be >= 0")
    inv = np.zeros(n) if invalid is None else np.asarray(invalid, dtype=np.float64).reshape(n)
    if np.any(inv < 0):
        raise ValueError("invalid counts must be >= 0")
    valid_total = c.sum(axis=1)
    if invalid_policy == "extra_bin":
        total = valid_total + inv
        if np.any(total <= 0):
            raise ValueError(f"sample {int(np.flatnonzero(total <= 0)[0])} has no trials")
        p = c / total[:, None]
        q = inv / total
        h = -(_xlogx(p).sum(axis=1) + _xlogx(q))
        return np.clip(1.0 - h / np.log(k), 0.0, 1.0)
    if np.any(valid_total + inv <= 0):
        raise ValueError(f"sample {int(np.flatnonzero(valid_total + inv <= 0)[0])} has no trials")
    has = valid_total > 0
    p = np.divide(c, valid_total[:, None], out=np.zeros_like(c), where=has[:, None])
    h = -_xlogx(p).sum(axis=1)
    return np.where(has, np.clip(1.0 - h / np.log(k), 0.0, 1.0), 0.0)


def sample_accuracy(
    counts: Any, correct: Any, invalid: Any = None, *, accuracy_rule: str = "trial_mean"
) -> np.ndarray:
    """Per-sample correctness in [0, 1] (Eq. 2 summand, by ``accuracy_rule``); ``correct``: gold
    letters or codes (A = 0)."""
    _check_choice(accuracy_rule, ACCURACY_RULES, "accuracy_rule")
    c = np.asarray(counts, dtype=np.float64)
    n = c.shape[0]
    gold = (
        np.asarray(correct)
        if isinstance(correct, np.ndarray) and correct.dtype.kind in "iu"
        else encode_letters(correct, name="correct")
    )
    if gold.shape != (n,):
        raise ValueError(f"correct must have one entry per sample ({n}), got {gold.shape[0]}")
    if np.any(gold < 0) or (n and gold.max() >= c.shape[1]):
        raise ValueError("every correct letter must be one of the sample's options")
    inv = np.zeros(n) if invalid is None else np.asarray(invalid, dtype=np.float64).reshape(n)
    valid_total = c.sum(axis=1)
    if accuracy_rule == "trial_mean":
        total = valid_total + inv
        if np.any(total <= 0):
            raise ValueError("every sample needs at least one trial")
        return c[np.arange(n), gold.astype(np.intp)] / total
    winner = np.argmax(c, axis=1) if c.shape[1] else np.zeros(n, np.intp)
    return ((winner == gold) & (valid_total > 0)).astype(np.float64)
