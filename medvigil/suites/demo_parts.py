"""What each suite adds to ``medvigil demo`` (:mod:`medvigil.pipeline`): the :class:`DemoPart` its
entry declares as ``DEMO`` -- the tasks asked, the data they need, the models it runs apart and how
its logs are scored."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ModelSpec:
    """An lmms-eval model and its ``--model_args`` (empty for none)."""

    model: str
    args: str = ""

    @property
    def name(self) -> str:
        return f"{self.model}({self.args})" if self.args else self.model

    @property
    def folder(self) -> str:
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in self.name)


@dataclass(frozen=True)
class DemoRun:
    """The demo's folders and settings, as the suites' parts see them: ``tasks`` are the MedVIGIL
    tasks asked (``medvigil demo --tasks``), ``progress`` says a step."""

    out: Path
    release: Path
    built: Path
    cases: int
    seed: int
    n_resamples: int
    tasks: Sequence[str] | None
    progress: Callable[[str], None]


@dataclass(frozen=True)
class DemoPart:
    """A suite's part of the demo.

    ``tasks(run)``: the lmms-eval tasks it asks. ``models``: the models it runs apart, each in its
    own lmms-eval run (``runs_<suite>/``, ``--repeats repeats``); None: its tasks are asked in every
    baseline's run (``runs/``). ``prepare(run)``: builds the data its tasks load beside the
    MedVIGIL build and returns lmms-eval's environment variables for it (``prepared`` says what, in
    the build step). Scoring: the samples files of its tasks (``files=True``) or its runs folder;
    ``release(run)`` as ``--release``; ``resampled``: the demo's bootstrap resamples.
    ``stress``: left out by ``medvigil demo --no-stress``."""

    tasks: Callable[[DemoRun], tuple[str, ...]]
    models: tuple[ModelSpec, ...] | None = None
    repeats: int = 1
    prepare: Callable[[DemoRun], dict[str, str]] | None = None
    prepared: str = ""
    files: bool = False
    release: Callable[[DemoRun], str] | None = None
    resampled: bool = False
    stress: bool = True


def asks(*tasks: str) -> Callable[[DemoRun], tuple[str, ...]]:
    """``tasks``, whatever the run."""
    return lambda run: tasks
