"""The answer of one MediConfusion image: its two options and the authors' vote rule.

Each image has a vote count per option (10 for a parsed letter, or the 1-10 GPT-4 similarity scores
in free-form mode, paper Appendix A.4). The answer is the option ahead of every other by at least
``margin`` (default 3, the authors' ``tr`` in ``utils/answering.py``); otherwise the answer is
*invalid*.

>>> vote_answers([[10, 0], [6, 4], [0, 3]]).tolist()   # A by 10; 2 < margin; B by 3
[0, -1, 1]
"""

import math
from typing import Any

import numpy as np

from medvigil.scoring.letters import INVALID

__all__ = ["DEFAULT_MARGIN", "OPTION_LETTERS", "vote_answers"]

#: The two answer options of every MediConfusion question.
OPTION_LETTERS = ("A", "B")
#: The authors' vote margin ``tr`` (paper Appendix A.4: "If the gap ... is at least 3").
DEFAULT_MARGIN = 3


def vote_answers(votes: Any, margin: float = DEFAULT_MARGIN) -> np.ndarray:
    """The authors' vote rule on an (n, K) array of per-option votes or scores: each row's column
    index, -1 if invalid. For K = 2 this is their ``check_answer``; with ``margin = 0`` a tie goes
    to the first option, as theirs."""
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)):
        raise TypeError(f"margin must be a number, got {type(margin).__name__}")
    if not math.isfinite(float(margin)) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    arr = np.asarray(votes, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"votes must have shape (n, K) with K >= 2, got {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError("votes must be finite numbers")
    top = np.argmax(arr, axis=1)
    ordered = np.sort(arr, axis=1)
    gap = ordered[:, -1] - ordered[:, -2]
    return np.where(gap >= margin, top, INVALID).astype(np.int8)
