"""Consistent but Dangerous (seed 004): the task protocol on MedVIGIL data, quadrant scoring,
tables."""

from medvigil.suites.cbd import record_check  # noqa: F401  (registers its records' extra check)
