"""``medvigil tasks-path``: print the folder to pass to ``lmms-eval --include_path``."""

from medvigil.errors import DataError, Problem
from medvigil.tasks import tasks_dir


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "tasks-path",
        help="print the lmms-eval task folder (use: lmms-eval "
        '--include_path "$(medvigil tasks-path)")',
    )
    p.add_argument("--suite", default=None, help="one suite's folder (default: all suites)")


def run(args) -> int:
    if args.suite is not None and (
        args.suite.startswith(".") or "/" in args.suite or "\\" in args.suite
    ):
        raise DataError(
            Problem(
                "tasks-path", f"a suite is a name, not a path: {args.suite[:80]!r}", field="--suite"
            )
        )
    try:
        folder = tasks_dir(args.suite)
    except ValueError as exc:  # an unknown suite: tasks_dir names the known ones
        raise DataError(Problem("tasks-path", str(exc), field="--suite")) from None
    print(folder)
    return 0
