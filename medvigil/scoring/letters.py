"""Option letters as small integer codes (``A`` = 0, invalid = -1), shared by the suites that score
multiple-choice answers (MediConfusion, MedQ-Deg, Consistent-but-Dangerous).

>>> decode_letters(encode_letters(["B", None, "A"]))
['B', None, 'A']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["INVALID", "decode_letters", "encode_letters"]

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INVALID = -1
_CODES = {None: INVALID, "": INVALID, **{letter: code for code, letter in enumerate(_ALPHABET)}}


def encode_letters(letters: Iterable[Any], *, name: str = "letters") -> np.ndarray:
    """Map option letters to codes 0..25 (``A`` = 0); ``None`` or ``""`` (invalid) -> -1.

    Raises ``TypeError`` for a non-string entry and ``ValueError`` for a string that is
    not one upper-case letter, naming the argument and the first bad position.

    >>> encode_letters(["A", "", None, "C"]).tolist()
    [0, -1, -1, 2]
    """
    values = letters if type(letters) is list else list(letters)
    if not values:
        return np.empty(0, dtype=np.int8)
    try:  # every value a letter, "" or None: one lookup each
        return np.fromiter(map(_CODES.__getitem__, values), dtype=np.int8, count=len(values))
    except (KeyError, TypeError):
        pass  # find the first bad value and say what it is
    for i, value in enumerate(values):  # types first: np.array(..., str) would accept anything
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name}[{i}] must be a letter string or None, got {type(value).__name__}")
    strings = np.array(["" if v is None else v for v in values], dtype=str)
    uniq, inverse = np.unique(strings, return_inverse=True)  # validate each distinct value once
    codes = np.empty(len(uniq), dtype=np.int8)
    for j, value in enumerate(uniq.tolist()):
        if value == "":
            codes[j] = INVALID
        elif len(value) == 1 and value in _ALPHABET:
            codes[j] = ord(value) - 65
        else:
            i = int(np.flatnonzero(inverse == j)[0])
            raise ValueError(f"{name}[{i}] must be one upper-case letter A-Z or empty/None, got {values[i]!r}")
    return codes[inverse.reshape(-1)]


def decode_letters(codes: Iterable[int]) -> list[str | None]:
    """Inverse of :func:`encode_letters` (``-1`` -> ``None``)."""
    return [None if int(c) < 0 else _ALPHABET[int(c)] for c in codes]

