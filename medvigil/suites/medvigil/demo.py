"""MedVIGIL's part of ``medvigil demo``: its tasks in every baseline's run, scored against the
synthetic release with the demo's bootstrap resamples (also with ``--no-stress``)."""

from medvigil.suites.demo_parts import DemoPart

DEFAULT_TASKS = (
    "medvigil_mcq",
    "medvigil_mcq_shuffled",
    "medvigil_roi_decay",
    "medvigil_blur",
)  # blur includes noimg

DEMO = DemoPart(
    lambda run: tuple(run.tasks or DEFAULT_TASKS),
    files=True,
    release=lambda run: str(run.release),
    resampled=True,
    stress=False,
)
