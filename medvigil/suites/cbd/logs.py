"""Which lmms-eval logs of the ``cbd_*`` tasks are read (by ``medvigil score`` and ``medvigil
compare`` alike).

Tasks ``cbd_image`` + ``cbd_noimg``, or ``cbd_quadrants`` (both arms in one task), and
``cbd_binary``. One lmms-eval run of ``--tasks cbd,cbd_quadrants`` logs every probe twice (once
in the arm task, once in ``cbd_quadrants``): from such a run only ``cbd_quadrants`` is read and
the arm files are listed as skipped.
"""

from pathlib import Path

from medvigil.records.suite_logs import run_of
from medvigil.runs.lmms_run import task_of
from medvigil.task_pack import reasoning_base, reasoning_name

# _reasoning: the 4096-token variants (tasks/task_yaml.py)
TASKS = r"cbd_(image|noimg|quadrants|binary|binary_proposed)(_reasoning)?"
BOTH_ARMS = "cbd_quadrants"
ARM_TASKS = ("cbd_image", "cbd_noimg")  # what cbd_quadrants repeats (cbd_binary is another arm)


def without_repeated_arms(files: list[Path]) -> tuple[list[Path], list[dict[str, str]]]:
    """Drop the arm files of runs that also logged ``cbd_quadrants``; the skipped files with the
    reason."""

    # a reasoning variant's arms are repeated by the same run's cbd_quadrants_reasoning
    def base(p: Path) -> tuple[str | None, bool]:
        task = task_of(p)
        return (reasoning_base(task) or task), reasoning_base(task) is not None

    runs_with_both = {(run_of(p), base(p)[1]) for p in files if base(p)[0] == BOTH_ARMS}
    kept, skipped = [], []
    for p in files:
        task, reasoning = base(p)
        if task in ARM_TASKS and (run_of(p), reasoning) in runs_with_both:
            both = reasoning_name(BOTH_ARMS) if reasoning else BOTH_ARMS
            skipped.append({"file": str(p), "reason": f"same run's {both} log holds these probes"})
        else:
            kept.append(p)
    return kept, skipped
