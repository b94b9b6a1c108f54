"""The record conditions of the ablations (MedVIGIL Appendices I, J, K): ``noimg``,
``blur:<sigma>`` and ``roi_decay:<k>``, parsed, and the conditions and models a table holds."""

import math
from typing import Any

import numpy as np

from medvigil.scoring.table import RecordTable

__all__ = ["NOIMG", "conditions_of", "parse_condition", "present_models"]

NOIMG = "noimg"


def parse_condition(condition: str) -> tuple[str, float | int | None]:
    """``"blur:8"`` -> ``("blur", 8.0)``, ``"roi_decay:2"`` -> ``("roi_decay", 2)``, else ``(name,
    None)``; ValueError if malformed."""
    if ":" not in condition:
        return condition, None
    family, _, param = condition.partition(":")
    try:
        if family == "blur":
            value: float | int = float(param)
            if not value >= 0 or math.isinf(value):
                raise ValueError
            return family, value
        if family == "roi_decay":
            value = int(param)
            if value < 0:
                raise ValueError
            return family, value
    except ValueError:
        raise ValueError(
            f"condition {condition!r}: {family} needs a non-negative number after ':'"
        ) from None
    return family, None


def conditions_of(tab: RecordTable, family: str) -> dict[Any, int]:
    """Parameter -> condition code for every condition of ``family`` present in ``tab``."""
    out = {}
    for code in tab.condition.used_codes().tolist():
        fam, param = parse_condition(tab.condition.levels[code])
        if fam == family and param is not None:
            out[param] = code
    return dict(sorted(out.items()))


def present_models(tab: RecordTable, mask: np.ndarray | slice = slice(None)) -> list[int]:
    """Codes of the models with records (among the rows of ``mask``)."""
    return np.flatnonzero(
        np.bincount(tab.model.codes[mask], minlength=len(tab.model.levels)) > 0
    ).tolist()
