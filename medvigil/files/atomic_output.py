"""Outputs appear whole or not at all: one place for staging folders and atomic files.

A folder is written into a hidden sibling (``.NAME.staging-PID-XXXX``, same file system) and renamed
onto its final name only when the writer returns; on any error (and on SIGINT or SIGTERM, which
:mod:`medvigil.cli` turns into exceptions) the staging folder is removed and the previous output, if
any, is untouched. Making a staging folder and moving outputs into place run with those signals held
(:func:`medvigil.files.held_signals.held`), so no moment between two of their steps leaves a folder
nobody removes. Both writers take the command's ``inputs`` and refuse
(:func:`medvigil.files.output_guard.refuse_overlap`) an output that is, contains or lies inside one
of them, before creating anything and again before committing.

``--force`` replaces only an earlier output of the same command: every replaceable output folder
holds the marker ``.medvigil-<command>`` (:func:`mark`), and a non-empty folder without it is never
replaced (:func:`refuse_unowned`; ``build``, ``reconstruct``, ``sample``, ``mediconfusion-build``,
``demo``).
"""

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from medvigil.files.held_signals import held
from medvigil.files.output_guard import Inputs, refuse_overlap

MARKER_PREFIX = ".medvigil-"  # ``.medvigil-<command>``: written by ``medvigil <command>``


def marker_name(kind: str) -> str:
    """The marker file of a folder written by ``medvigil <kind>``."""
    return f"{MARKER_PREFIX}{kind}"


def mark(folder: Path, kind: str) -> None:
    """Say in ``folder`` that ``medvigil <kind>`` wrote it, so ``--force`` may replace it later."""
    (folder / marker_name(kind)).write_text(
        f"written by `medvigil {kind}`; `medvigil {kind} --force` may replace this folder\n",
        encoding="utf-8",
    )


def refuse_unowned(out: Path, kind: str) -> None:
    """FileExistsError unless ``out`` is absent, an empty folder or an earlier output of ``medvigil
    <kind>`` (its marker a regular file): ``--force`` never replaces a folder it did not write."""
    out = Path(out)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise FileExistsError(
            f"{out} is not a folder written by `medvigil {kind}` (a file or a link); --force "
            f"replaces only an earlier `medvigil {kind}` output folder: remove it yourself or "
            "choose another --out"
        )
    sign = out / marker_name(kind)
    if out.is_dir() and any(out.iterdir()) and (sign.is_symlink() or not sign.is_file()):
        raise FileExistsError(
            f"{out} is not a folder written by `medvigil {kind}` (no {marker_name(kind)}); "
            f"--force replaces only an earlier `medvigil {kind}` output: remove it yourself or "
            "choose another --out"
        )


@contextlib.contextmanager
def staged_folder(
    out: str | os.PathLike,
    *,
    inputs: Inputs,
    replace: bool = False,
    option: str = "--out",
    kind: str | None = None,
) -> Iterator[Path]:
    """Yield an empty staging folder that becomes ``out`` when the block succeeds. ``replace``: an
    existing ``out`` is swapped out (and deleted) only after the new content is complete; without it
    an existing non-empty ``out`` is an error, checked both before and after the block (another
    process may have written it meanwhile). ``inputs``: every path the command reads
    (:mod:`medvigil.files.output_guard`); ``option`` names the output in the refusal. ``kind``: the
    command (``build``); the folder gets its marker, and ``replace`` replaces only a folder holding
    it (:func:`refuse_unowned`; ``replace`` needs ``kind``)."""
    out = Path(out)
    if replace and kind is None:
        raise TypeError("staged_folder(replace=True) needs the kind of output it may replace")
    refuse_overlap({option: out}, inputs, replace=replace)
    _refuse_existing(out, replace, kind)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with held():  # named as soon as made: the finally below removes it whenever a signal lands
            tmp = Path(
                tempfile.mkdtemp(prefix=f".{out.name}.staging-{os.getpid()}-", dir=out.parent)
            )
        yield tmp
        if kind is not None:
            mark(tmp, kind)
        refuse_overlap({option: out}, inputs, replace=replace)
        _refuse_existing(out, replace, kind, during=True)
        with held():  # never the old output moved aside and the new one not yet in
            _move_in(tmp, out)
    finally:
        if tmp is not None:
            with held():  # a second Ctrl-C does not cut the removal short
                shutil.rmtree(tmp, ignore_errors=True)


def _move_in(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` onto ``out``; an existing ``out`` is moved aside first, then deleted."""
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
        os.replace(out, old / out.name)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def _refuse_existing(out: Path, replace: bool, kind: str | None, during: bool = False) -> None:
    if (
        out.exists() or out.is_symlink()
    ) and not out.is_dir():  # --force replaces an earlier output folder, never a file
        raise FileExistsError(
            f"{out} is not a folder (a file or a link); an output folder never replaces one "
            "(remove it yourself or choose another --out)"
        )
    if replace and kind is not None:
        refuse_unowned(out, kind)
    if replace or not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    when = "appeared while writing" if during else "already exists"
    raise FileExistsError(f"{out} {when}; pass --force to replace it")


def write_text_atomic(
    path: str | os.PathLike, text: str, *, inputs: Inputs, option: str = "--out"
) -> None:
    """Write ``text`` to ``path`` via a temporary sibling and a rename (fsynced first); ``path``
    must not be, hold or lie inside one of ``inputs`` (every path the command reads)."""
    path = Path(path)
    refuse_overlap({option: path}, inputs)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(f"output folder does not exist: {directory}")
    tmp = None
    try:
        with held():  # named as soon as made: the except below removes it whenever a signal lands
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise
