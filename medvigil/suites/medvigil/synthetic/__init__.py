"""Synthetic MedVIGIL-format releases: procedural phantoms, authored probes, the release writer.

``generate_release(out, cases=40, seed=0)`` writes a complete release in the published layout
(see ``medvigil.suites.medvigil.release_format`` and the README it writes). Modules:

* :mod:`medvigil.suites.medvigil.synthetic.phantoms`: drawing chest radiographs and head CT/MRI slices;
* :mod:`medvigil.suites.medvigil.synthetic.cases`: planning cases and authoring questions, options and probes;
* :mod:`medvigil.suites.medvigil.synthetic.writer`: writing the files, atomically and deterministically.

Everything produced is labelled synthetic and is not clinical data.
"""

from medvigil.suites.medvigil.synthetic.writer import POINTER_COLUMNS, POINTERS_FILE, ReleaseSummary, generate_release

__all__ = ["generate_release", "ReleaseSummary", "POINTERS_FILE", "POINTER_COLUMNS"]
