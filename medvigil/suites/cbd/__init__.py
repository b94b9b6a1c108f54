"""Consistent but Dangerous (seed 004): the task protocol on MedVIGIL data, quadrant scoring,
tables."""
