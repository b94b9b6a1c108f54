"""The pressure suite's part of ``medvigil demo``: its four arms in every baseline's run."""

from medvigil.suites.demo_parts import DemoPart, asks

DEMO = DemoPart(asks("pressure"))
