"""MedQ-Deg's part of ``medvigil demo``: its own runs, ``--repeats 5`` (perceived confidence needs
repeats), of the grounded reader sampling at temperature 1 against the deterministic text prior."""

from medvigil.suites.demo_parts import DemoPart, ModelSpec, asks

DEMO = DemoPart(
    asks("medqdeg"),
    models=(ModelSpec("grounded", "temperature=1,seed=0"), ModelSpec("blind")),
    repeats=5,
)
