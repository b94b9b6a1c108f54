"""Synthetic MedVIGIL-format releases (not clinical data), written deterministically by
:func:`.writer.generate_release`."""

from medvigil.suites.medvigil.synthetic.release_summary import ReleaseSummary
from medvigil.suites.medvigil.synthetic.release_tables import POINTERS_FILE
from medvigil.suites.medvigil.synthetic.writer import generate_release

__all__ = ["generate_release", "ReleaseSummary", "POINTERS_FILE"]
