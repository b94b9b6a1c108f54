"""The text-only baseline policies ``random``, ``constant`` and ``blind`` (``grounded``, which reads
pixels, is :mod:`medvigil.baselines.grounded`; all four are named in :mod:`medvigil.baselines`)."""

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

from PIL import Image

from medvigil.mcq.prompting import parse_mcq_prompt

_WORD = re.compile(r"[a-z]+")
_STOP = frozenset(
    "a an the of in on is are there this that to and or with for what which how any be".split()
)


class Policy(Protocol):
    name: str
    reads_images: bool  # False: the adapters need not decode the images (``constant``, ``blind``)

    def answer(self, prompt: str, images: Sequence[Image.Image]) -> str:
        """Return the raw text response to one rendered MCQ prompt."""

    def answer_open(self, question: str, images: Sequence[Image.Image]) -> str:
        """Return a free-text response to an open-ended question (no options)."""


OPEN_REPLIES = ("Yes.", "No.", "I cannot determine this from the image.")


class RandomPolicy:
    """Uniform guess over the prompt's option letters: a hash of (seed, prompt, each image's size
    and 8x8 grey thumbnail at 4 bits), independent of request order, and different for the two
    images of a MediConfusion pair (a lossy re-encoding may change the draw)."""

    name = "random"
    reads_images = True

    def __init__(self, seed: int = 0):
        if not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.seed = seed

    def answer(self, prompt: str, images: Sequence[Image.Image]) -> str:
        letters = sorted(parse_mcq_prompt(prompt)[1])
        return letters[self._draw(prompt, len(letters), images)]

    def _draw(self, text: str, n: int, images: Sequence[Image.Image] = ()) -> int:
        h = hashlib.sha256(f"{self.seed}\0{text}".encode())
        for image in images:
            thumb = image.convert("L").resize((8, 8), Image.Resampling.BOX)
            h.update(f"\0{image.size}".encode() + bytes(v >> 4 for v in thumb.tobytes()))
        return int.from_bytes(h.digest()[:8], "big") % n

    def answer_open(self, question: str, images: Sequence[Image.Image]) -> str:
        """One of :data:`OPEN_REPLIES`, seeded per question and image."""
        return OPEN_REPLIES[self._draw(question, len(OPEN_REPLIES), images)]


class ConstantPolicy:
    """Always the same letter (``letter=A`` exposes the published always-A convention)."""

    name = "constant"
    reads_images = False

    def __init__(self, letter: str = "A"):
        if not isinstance(letter, str):
            raise TypeError(f"letter must be a str, got {type(letter).__name__}")
        if len(letter) != 1 or not letter.isalpha() or not letter.isupper():
            raise ValueError(f"letter must be one capital letter, got {letter!r}")
        self.letter = letter

    def answer(self, prompt: str, images: Sequence[Image.Image]) -> str:
        return self.letter

    def answer_open(self, question: str, images: Sequence[Image.Image]) -> str:
        """The same letter: a constant responder does not adapt to the question."""
        return self.letter


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


class BlindPolicy:
    """A text-only lexical prior (what the knowledge-only probes and the no-image ablation expose):
    the option whose content words overlap most with the question (Jaccard index), ties to the
    earliest letter."""

    name = "blind"
    reads_images = False

    def answer(self, prompt: str, images: Sequence[Image.Image]) -> str:
        question, options = parse_mcq_prompt(prompt)
        q = _content_words(question)

        def score(item: tuple[str, str]) -> tuple[float, str]:
            words = _content_words(item[1])
            union = q | words
            overlap = len(q & words) / len(union) if union else 0.0
            return (-overlap, item[0])

        return min(options.items(), key=score)[0]

    def answer_open(self, question: str, images: Sequence[Image.Image]) -> str:
        """An unconditional "Yes.": the affirmative prior of a model that never looks."""
        return "Yes."
