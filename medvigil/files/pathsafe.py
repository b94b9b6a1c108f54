"""Refuse file references that could leave a release folder.

Every path read from a release (``image_file`` columns, pointer lists) goes through
:func:`resolve_inside` before anything touches the file system. A release is a folder
of plain files addressed by relative POSIX paths, so the following are refused:

- empty paths and paths containing a NUL byte;
- absolute paths (``/etc/passwd``, ``//server/share``) and Windows drive letters (``C:/x``);
- backslashes (a Windows separator would mean something else on POSIX);
- any ``..`` component (``images/../../etc/passwd``);
- symbolic links, at any depth, whose target lies outside the release root.

Refusals raise :class:`medvigil.errors.DataError` carrying one
:class:`~medvigil.errors.Problem` that names the file, row and field the path came from.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> resolve_inside(root, "images/a.jpg", "manifest.csv", 1, "image_file") == (
...     root.resolve() / "images" / "a.jpg")
True
>>> resolve_inside(root, "../../etc/passwd", "manifest.csv", 4, "image_file")
Traceback (most recent call last):
...
medvigil.errors.DataError: manifest.csv, row 4, field 'image_file': path '../../etc/passwd' contains a '..' component and could escape the release root
"""  # noqa: E501

import os
import re
from pathlib import Path

from medvigil.errors import DataError, Problem

_DRIVE = re.compile(r"^[A-Za-z]:")


def unsafe_reason(relpath: str) -> str | None:
    """Why ``relpath`` is not an acceptable relative release path (None when it is).

    Purely lexical: symbolic links are checked by :func:`resolve_inside`.
    """
    if not isinstance(relpath, str):
        return f"path must be a string, got {type(relpath).__name__}"
    if relpath == "":
        return "path is empty"
    if "\x00" in relpath:
        return f"path {_shown(relpath)} contains a NUL byte"
    if "\\" in relpath:
        return (
            f"path {_shown(relpath)} contains a backslash; release paths use forward slashes only"
        )
    if _DRIVE.match(relpath):
        return f"path {_shown(relpath)} starts with a drive letter; release paths are relative"
    if relpath.startswith("/"):
        return f"path {_shown(relpath)} is absolute; release paths are relative to the release root"
    if ".." in relpath.split("/"):  # the components PurePosixPath(relpath).parts would give
        return f"path {_shown(relpath)} contains a '..' component and could escape the release root"
    return None


def _shown(relpath: str) -> str:
    return repr(relpath.replace("\x00", "\\x00"))


def resolve_inside(
    root: Path | str, relpath: str, file: str, row: int | None = None, field: str | None = None
) -> Path:
    """``root / relpath`` (absolute, normalised) after proving it stays inside the release folder
    ``root``, or a DataError naming ``file``, ``row`` and ``field`` (where ``relpath`` was read) if
    it is unsafe (module docstring). The path need not exist; if it (or any parent) is a symbolic
    link, the link target must lie inside ``root``."""
    return _inside(os.path.realpath(root), relpath, os.path.islink, file, row, field)


class InsideResolver:
    """:func:`resolve_inside` for many paths under one root (a release's image references).

    The root's real path is taken once, and each folder is listed once for its symbolic
    links instead of one ``lstat`` per path component per path. Use it for one pass over a
    release: a link added to a folder after it was listed is not seen.
    """

    def __init__(self, root: Path | str):
        self.base = os.path.realpath(root)
        self._links: dict[
            str, frozenset[str] | None
        ] = {}  # folder -> its links' names (None: not listable)

    def __call__(
        self, relpath: str, file: str, row: int | None = None, field: str | None = None
    ) -> Path:
        return _inside(self.base, relpath, self._is_link, file, row, field)

    def _is_link(self, path: str) -> bool:
        folder, name = os.path.split(path)
        if folder not in self._links:
            try:
                with os.scandir(folder) as entries:
                    self._links[folder] = frozenset(e.name for e in entries if e.is_symlink())
            except (FileNotFoundError, NotADirectoryError):
                self._links[folder] = (
                    frozenset()
                )  # nothing below a missing folder or a file is a link
            except OSError:
                self._links[folder] = None  # e.g. not readable: ask per path
        links = self._links[folder]
        return os.path.islink(path) if links is None else name in links


def _inside(
    base: str, relpath: str, is_link, file: str, row: int | None, field: str | None
) -> Path:
    """``base / relpath`` after the checks of :func:`resolve_inside` (``base`` is the root's real
    path)."""
    reason = unsafe_reason(relpath)
    if reason is not None:
        raise DataError(Problem(file=file, row=row, field=field, message=reason))
    # os.path rather than pathlib: this runs once per image reference (tens of thousands).
    current = base
    for part in relpath.split("/"):
        if part in ("", "."):
            continue
        current = os.path.join(current, part)
        # Check every prefix so a link in a parent folder is caught even when the leaf is missing.
        if is_link(current):
            try:
                target = os.path.realpath(current, strict=True)
            except (OSError, RuntimeError):  # dangling link or link loop
                target = None
            if target is None or not (
                target == base or target.startswith(base.rstrip(os.sep) + os.sep)
            ):
                link = os.path.relpath(current, base).replace(os.sep, "/")
                raise DataError(
                    Problem(
                        file=file,
                        row=row,
                        field=field,
                        message=(
                            f"path {relpath!r} goes through symbolic link {link!r} "
                            f"that points outside the release root (or nowhere)"
                        ),
                    )
                )
    return Path(current)
