"""MedQ-Deg (seed 002): the 18 degradations, the task protocol on MedVIGIL data, Calibration Shift
scoring, tables and figures."""
