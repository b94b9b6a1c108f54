"""MedQ-Deg (seed 002): the 18 degradations, the task protocol on MedVIGIL data, Calibration Shift
scoring, tables and figures."""

from medvigil.suites.medqdeg import record_check  # noqa: F401  (registers its records' extra check)
