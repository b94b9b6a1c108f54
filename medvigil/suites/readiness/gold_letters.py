"""Degenerate gold letters in a Readiness run: one letter gold in too many of an arm's docs.

The paper's items have "approximately uniform" gold positions (Sec. 2, Stress Test 3); on data
whose gold sits at one letter (MedVIGIL stores it at A) a model that always answers that letter
scores 100 % on T1 and T2 and then "loses" under T3 reordering. The task pack balances the base
arms by default (:func:`medvigil.suites.readiness.perturbation.balanced_positions`); logs made with
``base="source"`` on such data, or by an older task pack, are flagged here.

A run's arm (one model, one record condition) is *degenerate* when one letter is the gold of more
than ``1/K + 0.2`` of its docs (:data:`EXCESS`; 40 % with five options, K the mean option count
of its docs, read from ``extra.options_shown``), counted over arms of at least :data:`MIN_DOCS`
docs (fewer say little: a ``--limit 3`` run).

>>> recs = [{"model": "m", "condition": "noimg", "correct_letter": "A",
...          "extra": {"options_shown": list("abcde")}}] * 10
>>> gold_letter_warnings(recs)[0][:72]
"model m, condition 'noimg': letter A is the gold of 10 of 10 docs (100 %"
"""

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["EXCESS", "MIN_DOCS", "gold_letter_warnings"]

EXCESS = 0.2  # above chance 1/K
MIN_DOCS = 10


def gold_letter_warnings(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """One sentence per degenerate (model, condition) of ``records`` (module docstring), in the
    order the pairs first occur."""
    arms: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for r in records:
        arms.setdefault((str(r.get("model")), str(r.get("condition", "default"))), []).append(r)
    out = []
    for (model, condition), rows in arms.items():
        if len(rows) < MIN_DOCS:
            continue
        golds = [str(r.get("correct_letter")) for r in rows]
        letter = max(sorted(set(golds)), key=golds.count)
        counts = [len((r.get("extra") or {}).get("options_shown") or ()) for r in rows]
        known = [k for k in counts if k >= 2]
        chance = sum(1 / k for k in known) / len(known) if known else 0.2
        limit = chance + EXCESS
        share = golds.count(letter) / len(golds)
        if share > limit:
            out.append(
                f"model {model}, condition {condition!r}: letter {letter} is the gold of "
                f"{golds.count(letter)} of {len(golds)} docs ({100 * share:.0f} %; above "
                f"{100 * limit:.0f} %): accuracy there rewards a letter prior; ask the base arms "
                "with balanced gold letters (the readiness tasks' default)"
            )
    return out
