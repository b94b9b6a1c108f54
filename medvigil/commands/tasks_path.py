"""``medvigil tasks-path``: print the folder to pass to ``lmms-eval --include_path``."""

from __future__ import annotations

from medvigil.tasks import tasks_dir


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "tasks-path",
        help="print the lmms-eval task folder (use: lmms-eval --include_path \"$(medvigil tasks-path)\")",
    )
    p.add_argument("--suite", default=None, help="one suite's folder (default: all suites)")
    p.set_defaults(func=run)


def run(args) -> int:
    print(tasks_dir(args.suite))
    return 0
