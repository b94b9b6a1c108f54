"""Illusion of Readiness (seed 003): stress tests T1-T6 on multiple-choice items, R(m), tables."""

from medvigil.suites.readiness import record_check  # noqa: F401  (registers its records' extra check)
