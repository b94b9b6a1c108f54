"""Option-order permutations for the MCQ probes: seeded shuffles and circular rotations.

In the published MedVIGIL file text probes have their gold at ``A`` and the safe action at ``E``
(spec, "Letter conventions"), so always answering ``A`` is right on every text probe. Two orders
remove that shortcut without touching any answer text:

* **shuffled**: one permutation per probe from ``(seed, probe_id)`` only (any machine, any row
  order): position ``i`` gets the key ``sha256(f"{seed}:{probe_id}:{i}")`` and the published letters
  sorted by key give the displayed order, every one of the 120 orders equally likely;
* **circular** (CircularEval): rotation ``r`` shows published option ``LETTERS[(j + r) % 5]`` at
  displayed position ``j``; a probe counts as solved only when all five rotations are.

An order is a string of *published* letters in *displayed* order: ``"CAEBD"`` shows published C
under A, published A under B, ...; :func:`to_published_letter` maps a displayed answer back for
scoring.

>>> order = shuffled_order("case_0001_original", seed=0)
>>> sorted(order) == list(LETTERS)
True
>>> to_published_letter(order, displayed_letter(order, "E"))
'E'
>>> circular_orders()[:3]
('ABCDE', 'BCDEA', 'CDEAB')
"""

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
    """Seeded permutation of ``"ABCDE"`` for one probe (published letters in displayed order)."""
    if not isinstance(probe_id, str) or not probe_id:
        raise ValueError(f"probe_id must be a non-empty string, got {probe_id!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    keys = {
        letter: hashlib.sha256(f"{seed}:{probe_id}:{i}".encode()).digest()
        for i, letter in enumerate(LETTERS)
    }
    return "".join(sorted(LETTERS, key=keys.__getitem__))


def circular_orders() -> tuple[str, ...]:
    """The five CircularEval rotations, rotation ``r`` at position ``r`` (0 = published order)."""
    return tuple(_IDENTITY[r:] + _IDENTITY[:r] for r in range(len(LETTERS)))


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
    """The published letter of a letter answered on the displayed order (inverse of
    :func:`displayed_letter`)."""
    _check_order(order)
    _check_letter(model_letter, "model_letter")
    return order[LETTERS.index(model_letter)]
