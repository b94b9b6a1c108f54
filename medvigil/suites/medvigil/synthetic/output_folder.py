"""The folders ``medvigil sample`` writes: refused when they hold something else, written as a
hidden sibling and moved into place whole (an existing output replaced only after the new one is
complete)."""

import os
import shutil
from pathlib import Path

from medvigil.files.atomic_output import refuse_unowned

KIND = "sample"  # the command whose marker the outputs hold (medvigil.files.atomic_output.mark)


def prepare(path: Path, force: bool, what: str) -> None:
    """Refuse a non-empty existing target unless ``force``; never replace a dangerous path."""
    if path.exists() and not path.is_dir():
        raise FileExistsError(f"{what} {path} exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise FileExistsError(
                f"{what} {path} exists and is not empty; use --force to replace it"
            )
        resolved = path.resolve()
        cwd = Path.cwd().resolve()
        if (
            resolved == Path(resolved.anchor)
            or resolved == Path.home().resolve()
            or cwd.is_relative_to(resolved)
        ):
            raise FileExistsError(
                f"refusing to replace {resolved} (root, home or current directory)"
            )
        refuse_unowned(path, KIND)  # --force replaces only an earlier `medvigil sample` output


def sibling(path: Path, tag: str) -> Path:
    """The hidden sibling ``.NAME.TAG-PID`` of ``path``: named before it is made, so its cleanup can
    be set first."""
    return path.parent / f".{path.name}.{tag}-{os.getpid()}"


def make_empty(folder: Path) -> None:
    """Make ``folder`` (and its parents), removing a stale one left by a dead process with this
    pid."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()


def commit(tmp: Path, path: Path) -> None:
    """Move ``tmp`` to ``path``, replacing an existing directory only after the new one is
    complete."""
    if path.exists():
        old = sibling(path, "old")
        if old.exists():
            shutil.rmtree(old)
        path.rename(old)
        tmp.rename(path)
        shutil.rmtree(old)
    else:
        tmp.rename(path)
