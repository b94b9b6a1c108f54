"""Synthetic MedVIGIL-format releases (not clinical data), written deterministically by
:func:`.writer.generate_release`."""

from medvigil.suites.medvigil.synthetic.writer import (
    POINTER_COLUMNS,
    POINTERS_FILE,
    ReleaseSummary,
    generate_release,
)

__all__ = ["generate_release", "ReleaseSummary", "POINTERS_FILE", "POINTER_COLUMNS"]
