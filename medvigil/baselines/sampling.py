"""Optional answer sampling for the deterministic baselines (``temperature=``; 0, the default,
changes nothing).

MedQ-Deg measures confidence from ``T`` answers sampled at temperature 1.0 (Section 3.4); a
deterministic baseline would always give C = 1. So a policy can sample around its own answer: its
letter gets logit :data:`MARGIN`, every other option 0, drawn from ``softmax(logits / temperature)``
(at temperature 1 with five options its own letter comes out with probability e^2 / (e^2 + 4) =
0.65).

The n-th call with the same key (prompt text plus a digest of the images) uses the uniform number
``sha256(seed, n, key)``: reruns give the same votes, ``T`` repeats of one request ``T`` draws. The
counter lives in the policy object: lmms-eval keeps one policy for the run, whereas ``medvigil
serve-baseline`` builds one per request, so its repeats do not vary.
"""

import contextlib
import hashlib
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
from PIL import Image

MARGIN = 2.0  # logit of the policy's own letter; the others have 0


def parse_temperature(value) -> float:
    """A temperature from a number or a numeric string (lmms-eval passes model_args as strings)."""
    if isinstance(value, bool):
        raise TypeError("temperature must be a number >= 0, got a bool")
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"temperature must be a number >= 0, got {value!r}") from None
    if not np.isfinite(t) or t < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {value!r}")
    return t


def images_digest(images: Sequence[Image.Image]) -> str:
    h = hashlib.sha256()
    for image in images:
        h.update(f"{image.mode}{image.size}".encode())
        h.update(image.tobytes())
    return h.hexdigest()


class VoteSampler:
    """Draw a letter around a preferred one; one counter per key (see the module docstring)."""

    def __init__(self, temperature=0.0, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.temperature = parse_temperature(temperature)
        self.seed = seed
        self._calls: Counter[str] = Counter()

    @contextlib.contextmanager
    def paused(self):
        """The policy's own (unsampled) answer inside the block: log-likelihood requests score
        continuations against it (:func:`choice_log_probability`) instead of drawing."""
        saved, self.temperature = self.temperature, 0.0
        try:
            yield saved
        finally:
            self.temperature = saved

    def draw(self, key: str, letters: Sequence[str], preferred: str) -> str:
        if self.temperature == 0 or len(letters) < 2:
            return preferred
        n = self._calls[key]
        self._calls[key] += 1
        logits = np.where(np.asarray(letters) == preferred, MARGIN, 0.0) / self.temperature
        p = np.exp(logits - logits.max())
        cdf = np.cumsum(p / p.sum())
        digest = hashlib.sha256(f"{self.seed}\0{n}\0{key}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2.0**64
        return letters[min(int(np.searchsorted(cdf, u, side="right")), len(letters) - 1)]


def choice_log_probability(chosen: bool, n_choices: int, temperature: float) -> float:
    """log p of one of ``n_choices`` continuations under the sampler's distribution (own answer:
    logit :data:`MARGIN`), so a log-likelihood request gets the probability the sampler would draw
    with.

    >>> round(math.exp(choice_log_probability(True, 2, 1.0)), 4)
    0.8808
    """
    if n_choices < 2 or temperature <= 0:
        raise ValueError("need at least two choices and a temperature > 0")
    top = MARGIN / temperature
    log_z = top + math.log1p((n_choices - 1) * math.exp(-top))
    return (top if chosen else 0.0) - log_z
