"""MediConfusion's part of ``medvigil demo``: the four modes (the ``mediconfusion`` group) on as
many synthetic pairs as the demo has cases, built beside the MedVIGIL build."""

from pathlib import Path

from medvigil.suites.demo_parts import DemoPart, DemoRun, asks


def _release(run: DemoRun) -> Path:
    return run.out / "mediconfusion" / "release"


def prepare(run: DemoRun) -> dict[str, str]:
    """Sample the synthetic pairs and build them; lmms-eval's ``MEDICONFUSION_DATA``."""
    from medvigil.suites.mediconfusion import export
    from medvigil.suites.mediconfusion.synthetic import write_sample

    built = run.out / "mediconfusion" / "build"
    write_sample(_release(run), n_pairs=run.cases, seed=run.seed)
    export.build(_release(run) / "data" / "dataset.json", _release(run) / "roco", built)
    return {"MEDICONFUSION_DATA": str(built)}


DEMO = DemoPart(
    asks("mediconfusion"),
    prepare=prepare,
    prepared="{cases} synthetic MediConfusion pairs",
    files=True,
    release=lambda run: str(_release(run) / "data" / "dataset.json"),
)
