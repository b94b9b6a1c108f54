"""Refuse an output path that would touch an input: one check for every command that writes.

:func:`refuse_overlap` runs before anything is written, and again in
:func:`medvigil.files.atomic_output.staged_folder` and
:func:`~medvigil.files.atomic_output.write_text_atomic` just before they commit. After resolving
symbolic links, an output is refused when it is an input (``score --json runs/x_samples_t.jsonl``),
contains one (``build rel --out .``) or lies inside an input folder (``reconstruct rel --source SRC
--out SRC/recon``); and, when it replaces a folder (``replace=True``), when it is the file-system
root, the home folder or holds the current directory. Refusals are
:class:`~medvigil.errors.DataError` s naming the option (the CLI exits 2, nothing touched).

Every command declares the arguments it reads and writes (:func:`declare`); :func:`refuse_declared`
checks them in :func:`medvigil.cli.main` before any command starts, so no writer can forget an
input. A test checks that every path argument of every command is declared. A reader also finds
files no argument names (an lmms-eval ``<stamp>_results.json`` beside its samples file): every file
the running command read (:func:`medvigil.files.input_files.paths_read`) counts as an input too, so
an output is refused when it would replace or hold one.
"""

import argparse
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import paths_read

PathLike = str | os.PathLike


def _resolved(path: PathLike) -> Path:
    # strict=False: an output usually does not exist yet; its existing parents are resolved
    return Path(os.path.realpath(os.fspath(path)))


Inputs = Mapping[str, "PathLike | None"] | Iterable["PathLike | None"]


def _labelled(inputs: Inputs) -> list[tuple[str, PathLike]]:
    """(label, path) pairs; a plain list of paths is labelled ``input``."""
    if isinstance(inputs, Mapping):
        return [(f"input {label}", p) for label, p in inputs.items() if p is not None]
    return [("input", p) for p in inputs if p is not None]


def _reason(out: PathLike, labelled: list[tuple[str, PathLike]], replace: bool) -> str | None:
    target = _resolved(out)
    for label, path in labelled:
        source = _resolved(path)
        if target == source:
            return f"is the same path as the {label} ({source}); writing it would overwrite it"
        if source.is_relative_to(target):
            return f"contains the {label} ({source}); replacing or writing it could destroy it"
        if target.is_relative_to(source):
            return (
                f"lies inside the {label} ({source}); outputs must be written outside every input"
            )
    reason = _read_reason(target)
    if reason is not None:
        return reason
    if replace and target.exists():
        if (
            target == Path(target.anchor)
            or target == _resolved(Path.home())
            or _resolved(Path.cwd()).is_relative_to(target)
        ):
            return (
                f"is the file-system root, the home folder or holds the "
                f"current directory ({target}); refusing to replace it"
            )
    return None


def _read_reason(target: Path) -> str | None:
    """Why ``target`` may not be written: it is, holds or lies inside a path the command read."""
    for text in sorted(paths_read()):
        source = Path(text)
        if target == source or source.is_relative_to(target) or target.is_relative_to(source):
            relation = (
                "is"
                if target == source
                else "holds"
                if source.is_relative_to(target)
                else "lies inside"
            )
            return (
                f"{relation} {source}, which this command read; an output never replaces or "
                "holds what a command reads"
            )
    return None


def refuse_overlap(
    outputs: Mapping[str, PathLike | None], inputs: Inputs, *, replace: bool = False
) -> None:
    """Raise :class:`DataError` when any output (option -> path) overlaps any input.

    Outputs are also checked against each other: two outputs must not nest either.
    """
    labelled = _labelled(inputs)
    outs = [(label, p) for label, p in outputs.items() if p is not None]
    problems = []
    for i, (label, path) in enumerate(outs):
        others = [(f"output {other}", q) for other, q in outs[i + 1 :]]
        reason = _reason(path, labelled + others, replace)
        if reason is not None:
            problems.append(Problem(str(path), f"output {reason}", field=label))
    if problems:
        raise DataError(problems)


STDOUT = "-"  # ``--json -``: standard output, not a file


def declare(
    parser: argparse.ArgumentParser, *, inputs: Sequence[str] = (), outputs: Sequence[str] = ()
) -> None:
    """Record which argument destinations of ``parser`` are read (``inputs``) and written
    (``outputs``).

    Call it after the arguments are added. A ``force`` argument, when the command has one, makes
    every output a replacement (``replace=True``).
    """
    names = {
        a.dest: (a.option_strings[0] if a.option_strings else (a.metavar or a.dest).upper())
        for a in parser._actions
    }
    unknown = [d for d in (*inputs, *outputs) if d not in names]
    if unknown:
        raise ValueError(f"{parser.prog}: declared paths {unknown} are not arguments")
    parser.set_defaults(
        guard_inputs=tuple(inputs),
        guard_outputs=tuple(outputs),
        guard_names={d: names[d] for d in (*inputs, *outputs)},
    )


def _values(args: argparse.Namespace, dest: str) -> list:
    value = getattr(args, dest, None)
    if value is None:
        return []
    values = value if isinstance(value, list | tuple) else [value]
    return [v for v in values if v is not None and os.fspath(v) != STDOUT]


def declared_paths(args: argparse.Namespace) -> tuple[dict, dict]:
    """(inputs, outputs) of a parsed command line as ``{option: path}``."""
    names = getattr(args, "guard_names", {})
    inputs: dict[str, PathLike] = {}
    for dest in getattr(args, "guard_inputs", ()):
        values = _values(args, dest)
        for value in values:
            label = names.get(dest, dest)
            inputs[label if len(values) == 1 else f"{label} {value}"] = value
    outputs = {}
    for dest in getattr(args, "guard_outputs", ()):
        for value in _values(args, dest):
            outputs[names.get(dest, dest)] = value
    return inputs, outputs


def refuse_declared(args: argparse.Namespace) -> None:
    """:func:`refuse_overlap` on a command's declared outputs and inputs (``--force``:
    replacing)."""
    inputs, outputs = declared_paths(args)
    if outputs:
        refuse_overlap(outputs, inputs, replace=bool(getattr(args, "force", False)))
