"""MediConfusion (Sepehri et al., NeurIPS 2024 workshop): release reading, synthetic pairs, export,
scoring."""

from medvigil.suites.mediconfusion import record_check  # noqa: F401  (registers its records' extra check)
