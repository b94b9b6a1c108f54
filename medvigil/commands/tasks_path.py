"""``medvigil tasks-path``: print the folder to pass to ``lmms-eval --include_path``."""

from __future__ import annotations

from pathlib import Path


def tasks_dir(suite: str | None = None) -> Path:
    import medvigil.tasks

    root = Path(medvigil.tasks.__file__).resolve().parent
    if suite is None:
        return root
    path = root / suite
    if not path.is_dir():
        known = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))
        raise ValueError(f"unknown suite {suite!r}; available: {', '.join(known)}")
    return path


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
