"""Agreement between two binary raters: raw agreement and Cohen's kappa.

``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_e = p_a p_b + (1 - p_a)(1 - p_b)``. When
``p_e = 1`` (both raters constant and equal) kappa is undefined; the MedVIGIL authors'
calibration summary reports 1.0 there if the raters agree everywhere, else 0.0, and so
do we (``degenerate`` names the choice).

>>> round(cohen_kappa([True, True, False, False], [True, False, False, False]), 3)
0.5
"""

from collections.abc import Sequence


def agreement(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    if len(a) != len(b):
        raise ValueError(f"rater label lists differ in length ({len(a)} vs {len(b)})")
    return sum(x == y for x, y in zip(a, b)) / len(a) if a else None


def cohen_kappa(
    a: Sequence[bool], b: Sequence[bool], *, degenerate: str = "authors"
) -> float | None:
    """Cohen's kappa of two binary label lists; None when empty.

    ``degenerate``: ``"authors"`` (1.0 if identical else 0.0 when p_e = 1) or ``"none"`` (None).
    """
    p_o = agreement(a, b)
    if p_o is None:
        return None
    n = len(a)
    p_a, p_b = sum(map(bool, a)) / n, sum(map(bool, b)) / n
    p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
    if abs(1 - p_e) < 1e-12:
        if degenerate == "none":
            return None
        return 1.0 if p_o == 1 else 0.0
    return (p_o - p_e) / (1 - p_e)
