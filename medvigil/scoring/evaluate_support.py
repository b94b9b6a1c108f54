"""What the MedVIGIL ``evaluate`` modules share: citation, references and input features.

The modules under ``metrics/`` stay thin faces over :mod:`medvigil.scoring`; each keeps an
explicit ``_compute`` signature (evaluate forbids ``**kwargs`` there).
"""

from __future__ import annotations

from medvigil import citations

MEDVIGIL_CITATION = citations.MEDVIGIL + "\n"
MEDVIGIL_URLS = ["https://arxiv.org/abs/2605.07919", "https://github.com/hq0709/MedVIGIL"]
PER_PROBE_COLUMNS = ("predictions", "references", "probe_kind", "case_id", "risk_tier")


def medvigil_features():
    """One string per probe: the predicted and gold letters, probe kind, case id, risk tier."""
    import datasets

    return datasets.Features({name: datasets.Value("string") for name in PER_PROBE_COLUMNS})
