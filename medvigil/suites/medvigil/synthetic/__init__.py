"""Synthetic MedVIGIL-format releases: procedural phantoms, authored probes, the release writer.

``generate_release(out, cases=40, seed=0)`` writes a complete release in the published layout
(see ``medvigil.suites.medvigil.release.release_format`` and the README it writes). Modules:

* :mod:`medvigil.suites.medvigil.synthetic.phantoms`: drawing chest radiographs and head CT/MRI slices;
* :mod:`medvigil.suites.medvigil.synthetic.plan`: planning a case (tier, source, modality, finding, template);
* :mod:`medvigil.suites.medvigil.synthetic.questions`: the question layer, one function per question template;
* :mod:`medvigil.suites.medvigil.synthetic.traps`: the two false-premise (``halluc_trap``) probes;
* :mod:`medvigil.suites.medvigil.synthetic.knowledge`: the knowledge-only question and the clinical vignette;
* :mod:`medvigil.suites.medvigil.synthetic.wording`: names and phrase builders shared by the above;
* :mod:`medvigil.suites.medvigil.synthetic.cases`: one case expanded into the probe rows of every release file;
* :mod:`medvigil.suites.medvigil.synthetic.writer`: writing the files, atomically and deterministically.

Everything produced is labelled synthetic and is not clinical data.
"""

from medvigil.suites.medvigil.synthetic.writer import POINTER_COLUMNS, POINTERS_FILE, ReleaseSummary, generate_release

__all__ = ["generate_release", "ReleaseSummary", "POINTERS_FILE", "POINTER_COLUMNS"]
