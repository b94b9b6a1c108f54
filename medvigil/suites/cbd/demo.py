"""Consistent-but-Dangerous's part of ``medvigil demo``: ``cbd_quadrants`` in every baseline's
run."""

from medvigil.suites.demo_parts import DemoPart, asks

DEMO = DemoPart(asks("cbd_quadrants"))
