"""One run per model and task: two lmms-eval runs of one model (a chat and a simple run, a re-run)
in the input would answer each probe twice; they are refused up front, naming both files.

A run's model is its label (:attr:`medvigil.runs.lmms_run.LmmsRun.label`: ``medvigil score
--label``, else the weights its ``model_args`` name); two runs with different labels are scored side
by side.
"""

from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.runs import lmms_run


def refuse_duplicate_runs(paths: Iterable[str | Path], prefix: str = "") -> None:
    """A :class:`DataError` per samples file whose task another run of the same model also
    answered."""
    seen: dict[tuple[str, str], tuple[Path, str]] = {}
    problems = []
    for lmms in lmms_run.runs_of(paths, prefix):
        path = lmms.samples
        run = (path.parent.resolve(), lmms.stamp)
        if lmms_run.run_label(path) is None and not lmms.results_path.is_file():
            continue  # the reader says what is missing
        model, task = lmms.label, lmms.task
        first = seen.setdefault((model, task), (path, str(run)))
        if first[1] != str(run):
            problems.append(
                Problem(
                    str(path),
                    f"a second run of model {model!r} on task {task}: {first[0]} is another; "
                    "score the runs in separate calls or name them apart with "
                    "--label FILE_OR_FOLDER=NAME",
                    field="model",
                )
            )
    if problems:
        raise DataError(problems)


@contextmanager
def labelled(labels: Iterable[str]):
    """``medvigil score --label`` values (``NAME``: every run; ``PATH=NAME``: the samples file or
    run folder PATH) in force for the readers while the block runs."""
    mapping: dict[str, str] = {}
    given: dict[
        str, tuple[str, str]
    ] = {}  # resolved path -> (its key, the --label value naming it)
    for value in labels:
        where, sep, name = value.partition("=")
        if sep and not Path(where).exists():
            if "/" in where or where.endswith(".jsonl"):
                raise ValueError(f"--label {value!r}: {where} is no file or folder")
            where, name = "", value  # a NAME with "=" in it, e.g. model(args)
        elif not sep:
            where, name = "", value
        if not name.strip() or not (where or name == value):
            raise ValueError(
                f"--label must be NAME or PATH=NAME with a non-empty NAME, got {value!r}"
            )
        same = str(Path(where).resolve()) if where else ""
        if same in given and mapping[given[same][0]] != name.strip():
            what = f"the run {where}" if where else "every run"
            raise ValueError(
                f"--label {value!r}: {what} is already named by --label {given[same][1]!r}; "
                "name each run once"
            )
        given[same] = (where, value)
        mapping[where] = name.strip()
    saved, lmms_run.RUN_LABELS = lmms_run.RUN_LABELS, mapping
    try:
        yield mapping
    finally:
        lmms_run.RUN_LABELS = saved
