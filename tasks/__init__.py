"""lmms-eval task packs, one folder per suite (importable as medvigil.tasks); the core reads them as
data (:mod:`medvigil.task_pack`, which locates this folder)."""

from pathlib import Path

from medvigil.task_pack import TASKS_ROOT

__all__ = ["TASKS_ROOT", "tasks_dir"]


def tasks_dir(suite: str | None = None) -> Path:
    """The folder to pass to ``lmms-eval --include_path`` (all suites, or one suite's)."""
    if suite is None:
        return TASKS_ROOT
    path = TASKS_ROOT / suite
    if not path.is_dir():
        known = sorted(
            p.name for p in TASKS_ROOT.iterdir() if p.is_dir() and not p.name.startswith("_")
        )
        raise ValueError(f"unknown suite {suite!r}; available: {', '.join(known)}")
    return path
