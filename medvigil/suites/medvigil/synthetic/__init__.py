"""Synthetic MedVIGIL-format releases (not clinical data): procedural phantoms (:mod:`.phantoms`), case
plans (:mod:`.plan`), authored questions, traps and knowledge probes (:mod:`.questions`, :mod:`.traps`,
:mod:`.knowledge`, :mod:`.wording`), expanded into release rows (:mod:`.cases`) and written atomically and
deterministically by ``generate_release(out, cases=40, seed=0)`` (:mod:`.writer`) in the published layout.
"""

from medvigil.suites.medvigil.synthetic.writer import POINTER_COLUMNS, POINTERS_FILE, ReleaseSummary, generate_release

__all__ = ["generate_release", "ReleaseSummary", "POINTERS_FILE", "POINTER_COLUMNS"]
