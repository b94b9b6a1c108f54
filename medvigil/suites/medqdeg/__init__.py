"""MedQ-Deg (seed 002): the 18 degradations (``degradation_types``, ``degradations`` and their
operations), docs and records of the task protocol on MedVIGIL data (``docs``, ``records``),
Calibration Shift scoring (``scoring``, ``sample_scores``, ``calibration``, ``breakdowns``), tables
and figures (``tables``), the paired bootstrap (``compare``) and MedQ-DEG-Bench (``bench_*``)."""
