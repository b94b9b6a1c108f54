"""Option-order permutations for the MCQ probes: seeded shuffles and circular rotations.

The published MedVIGIL file fixes the letter order at construction time: text probes
have their gold at ``A`` and the safe action at ``E`` (spec, "Letter conventions").
A model that always answers ``A`` is therefore right on every text probe. The two
alternative orders here remove that shortcut without touching any answer text:

* **shuffled** -- one permutation per probe, derived from ``(seed, probe_id)`` only,
  so it is reproducible on any machine and independent of row order. The safe
  option moves like every other option.
* **circular** -- the five rotations of a probe's options (CircularEval): rotation
  ``r`` shows the published option ``LETTERS[(j + r) % 5]`` at displayed position
  ``j``. A probe counts as solved only when all five rotations are.

An order is written as a five-letter string of *published* letters in *displayed*
order: ``"CAEBD"`` means the model sees the published option C under letter A,
published A under B, and so on. Given that string, :func:`to_published_letter`
maps a model's displayed letter back to the published letter, which is what the
scorer compares with the published ``correct_letter``.

Definition of the shuffled order: position ``i`` (0..4) gets the key
``sha256(f"{seed}:{probe_id}:{i}")``; the published letters sorted by key give the
displayed order. Keys are distinct with overwhelming probability and behave as
independent uniform draws, so every one of the 120 orders is equally likely.

>>> order = shuffled_order("case_0001_original", seed=0)
>>> sorted(order) == list(LETTERS)
True
>>> to_published_letter(order, displayed_letter(order, "E"))
'E'
>>> [rotation_order(r) for r in range(3)]
['ABCDE', 'BCDEA', 'CDEAB']
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from medvigil.constants import LETTERS

_IDENTITY = "".join(LETTERS)


def _check_order(order: str) -> str:
    if not isinstance(order, str):
        raise TypeError(f"order must be a string of letters, got {type(order).__name__}")
    if len(order) != len(LETTERS) or sorted(order) != list(LETTERS):
        raise ValueError(f"order must be a permutation of {_IDENTITY!r}, got {order!r}")
    return order


def _check_letter(letter: str, name: str) -> str:
    if not isinstance(letter, str):
        raise TypeError(f"{name} must be a string, got {type(letter).__name__}")
    if letter not in LETTERS:
        raise ValueError(f"{name} must be one of {', '.join(LETTERS)}, got {letter!r}")
    return letter


def shuffled_order(probe_id: str, seed: int) -> str:
    """Seeded permutation for one probe, as published letters in displayed order.

    Args:
        probe_id: the probe's identifier (the only per-row input, so the result
            does not depend on file order).
        seed: any integer; different seeds give independent permutations.

    Returns:
        A five-letter string, a permutation of ``"ABCDE"``.
    """
    if not isinstance(probe_id, str) or not probe_id:
        raise ValueError(f"probe_id must be a non-empty string, got {probe_id!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    keys = {letter: hashlib.sha256(f"{seed}:{probe_id}:{i}".encode()).digest() for i, letter in enumerate(LETTERS)}
    return "".join(sorted(LETTERS, key=keys.__getitem__))


def rotation_order(rotation: int) -> str:
    """Order of CircularEval rotation ``rotation`` (0 = published order)."""
    if isinstance(rotation, bool) or not isinstance(rotation, int):
        raise TypeError(f"rotation must be an int, got {type(rotation).__name__}")
    if not 0 <= rotation < len(LETTERS):
        raise ValueError(f"rotation must be in 0..{len(LETTERS) - 1}, got {rotation}")
    return _IDENTITY[rotation:] + _IDENTITY[:rotation]


def circular_orders() -> tuple[str, ...]:
    """All five rotations, rotation index = position in the tuple."""
    return tuple(rotation_order(r) for r in range(len(LETTERS)))


def apply_order(order: str, options: Sequence[str]) -> tuple[str, ...]:
    """Options in displayed order: displayed position ``j`` holds published ``order[j]``."""
    _check_order(order)
    if len(options) != len(LETTERS):
        raise ValueError(f"options must have {len(LETTERS)} entries, got {len(options)}")
    return tuple(options[LETTERS.index(letter)] for letter in order)


def displayed_letter(order: str, published_letter: str) -> str:
    """Letter under which the published option ``published_letter`` is shown."""
    _check_order(order)
    _check_letter(published_letter, "published_letter")
    return LETTERS[order.index(published_letter)]


def to_published_letter(order: str, model_letter: str) -> str:
    """Map a letter answered on the displayed order back to the published letter.

    This is the inverse of :func:`displayed_letter`; the scorer applies it before
    comparing with the published ``correct_letter``.
    """
    _check_order(order)
    _check_letter(model_letter, "model_letter")
    return order[LETTERS.index(model_letter)]


def inverse_order(order: str) -> str:
    """The order that undoes ``order``: ``apply_order(inverse_order(o), apply_order(o, x)) == x``."""
    _check_order(order)
    return "".join(LETTERS[order.index(letter)] for letter in LETTERS)
