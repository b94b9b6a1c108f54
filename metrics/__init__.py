"""`evaluate` metric modules, one folder per metric (importable as medvigil.metrics).

Load one with ``evaluate.load("metrics/<name>")`` from a checkout, or with
``evaluate.load(medvigil.metrics.module_path("<name>"))`` after installation.
"""

from pathlib import Path

METRICS_DIR = Path(__file__).resolve().parent


def module_path(name: str) -> str:
    """Return the folder of metric module ``name`` for ``evaluate.load``."""
    path = METRICS_DIR / name
    if not (path / f"{name}.py").is_file():
        known = sorted(p.name for p in METRICS_DIR.iterdir() if (p / f"{p.name}.py").is_file())
        raise ValueError(f"unknown metric module {name!r}; available: {', '.join(known)}")
    return str(path)
