"""Find and check the MediConfusion images in the user's own ROCO copy (never fetched here).

ROCO (Pelka et al., 2018; PubMed Central open-access figures) is CC BY-NC-SA 4.0: non-commercial use
only. ``roco_root`` may be the ROCO data folder, a repository root holding it, or the authors'
layout (``data/images/<im_local>.jpg``); :func:`image_layout` decides which. :func:`locate_images`
reports *all* problems (unsafe path, missing file, undecodable image, SHA-256 mismatch) in one
:class:`~medvigil.errors.DataError`. Checksum lists use the ``sha256sum`` format, paths relative to
the ROCO data root (as the ``roco_sha256.txt`` of ``medvigil mediconfusion-build``).
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.digest import file_sha256
from medvigil.files.input_files import read_text
from medvigil.files.pathsafe import resolve_inside

__all__ = [
    "LocatedImage",
    "checksum_text",
    "image_layout",
    "locate_images",
    "read_checksums",
    "roco_data_root",
]

ROCO_SPLITS = ("train", "validation", "test")
_CHECKSUM_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")


@dataclass(frozen=True)
class LocatedImage:
    """An image of the release found in the user's ROCO copy (decodable; checksum verified if
    listed)."""

    relpath: str  # as written in dataset.json
    path: Path  # absolute path inside the ROCO data root
    sha256: str
    width: int
    height: int


def roco_data_root(roco_root: Path | str) -> Path:
    """The folder the release paths are relative to: the first of ``roco_root``, ``roco_root/data``
    and ``roco_root/roco-dataset/data`` holding a split folder, else ``roco_root``
    (NotADirectoryError if no folder)."""
    root = Path(roco_root)
    if not root.is_dir():
        raise NotADirectoryError(f"ROCO folder {str(root)!r} does not exist or is not a folder")
    for candidate in (root, root / "data", root / "roco-dataset" / "data"):
        if any((candidate / split).is_dir() for split in ROCO_SPLITS):
            return candidate
    return root


def image_layout(release, roco_root: Path | str) -> tuple[Path, str]:
    """``(folder, layout)`` of the user's images: ``"roco"`` (paths as in dataset.json, under
    :func:`roco_data_root`) when a ROCO split folder is found, else ``"authors"`` when
    ``roco_root``, its ``images/`` or its ``data/images/`` holds any ``<im_local>.jpg`` of the
    release, else ``"roco"`` under ``roco_root`` (every image then reported missing).
    NotADirectoryError if ``roco_root`` is not a folder.
    """
    base = roco_data_root(roco_root)
    if any((base / split).is_dir() for split in ROCO_SPLITS):
        return base, "roco"
    root = Path(roco_root)
    names = set(release.local_names().values())
    for candidate in (root, root / "images", root / "data" / "images"):
        if any((candidate / name).is_file() for name in names):
            return candidate, "authors"
    return base, "roco"


def read_checksums(path: Path | str) -> dict[str, str]:
    """Read a ``sha256sum``-format list: ``{relative path: lower-case hex digest}`` (DataError
    listing every malformed line and every path given twice)."""
    name = Path(path).name
    out: dict[str, str] = {}
    problems: list[Problem] = []
    for number, line in enumerate(read_text(path, name).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _CHECKSUM_LINE.match(line.rstrip("\r"))
        if match is None:
            problems.append(
                Problem(
                    name,
                    f"line {number}: expected '<64 hex digits>  <path>', got {line!r:.120}",
                    row=number,
                )
            )
            continue
        digest, rel = match.group(1).lower(), match.group(2)
        if rel in out:
            problems.append(
                Problem(name, f"line {number}: {rel!r} is listed twice", row=number, field="path")
            )
            continue
        out[rel] = digest
    if problems:
        raise DataError(problems)
    return out


def checksum_text(images: Iterable[LocatedImage]) -> str:
    """A ``sha256sum``-format list of ``images`` (sorted by path)."""
    return "".join(
        f"{img.sha256}  {img.relpath}\n" for img in sorted(images, key=lambda i: i.relpath)
    )


def _users(release) -> dict[str, list[tuple[str, int, str]]]:
    """ROCO path -> [(pair id, row, field)] of every image slot using it, in file order."""
    users: dict[str, list[tuple[str, int, str]]] = {}
    for pair in release.pairs.values():
        for k, rel in enumerate((pair.im_1, pair.im_2), start=1):
            users.setdefault(rel, []).append((pair.pair_id, pair.row, f"im_{k}"))
    return users


def _checked_image(
    path: Path, rel: str, pairs: str, checksums: Mapping[str, str] | None, decode: bool
) -> LocatedImage | str:
    """The image file at ``path`` (release path ``rel``, used by ``pairs``) as a
    :class:`LocatedImage`, else the problem that makes it unusable: it does not decode (when
    ``decode``), or ``checksums`` lacks it or gives another digest."""
    from medvigil.images import imaging

    width = height = 0
    if decode:
        try:
            with imaging.safe_open_image(path) as image:
                width, height = image.size
        except DataError as exc:
            return f"ROCO image {rel!r} (pair {pairs}): {exc.problems[0].message}"
    digest = file_sha256(path)
    if checksums is not None:
        expected = checksums.get(rel)
        if expected is None:
            return f"ROCO image {rel!r} (pair {pairs}) has no entry in the checksum list"
        if expected.lower() != digest:
            return (
                f"ROCO image {rel!r} (pair {pairs}): checksum mismatch, "
                f"expected {expected.lower()}, found {digest}"
            )
    return LocatedImage(relpath=rel, path=path, sha256=digest, width=width, height=height)


def locate_images(
    release,
    roco_root: Path | str,
    *,
    checksums: Mapping[str, str] | None = None,
    decode: bool = True,
) -> dict[str, LocatedImage]:
    """``{relative path: LocatedImage}`` for every image of ``release``, in order of first use.

    ``roco_root``: see :func:`image_layout`; ``checksums`` (:func:`read_checksums`): when given,
    every image must be listed and match; ``decode=False`` only checks existence and checksums.
    Raises NotADirectoryError (``roco_root`` is not a folder) or DataError (every unusable image).
    """
    base, layout = image_layout(release, roco_root)
    local = release.local_names() if layout == "authors" else {}
    name = Path(release.path).name
    found: dict[str, LocatedImage] = {}
    problems: list[Problem] = []
    missing = 0
    for rel, users in _users(release).items():
        pid, row, slot = users[0]
        pairs = ", ".join(dict.fromkeys(u[0] for u in users))
        where = {"file": name, "row": row, "field": f"{pid}.{slot}"}
        try:
            path = resolve_inside(base, local.get(rel, rel), name, row, f"{pid}.{slot}")
        except DataError as exc:
            problems.extend(
                Problem(p.file, f"{p.message} (ROCO root {str(base)!r})", p.row, p.field)
                for p in exc.problems
            )
            continue
        if not path.is_file():
            missing += 1
            saved_as = f", saved as {local[rel]!r} in the authors' layout" if rel in local else ""
            problems.append(
                Problem(
                    message=f"missing ROCO image {rel!r}{saved_as} (needed by pair {pairs})",
                    **where,
                )
            )
            continue
        checked = _checked_image(path, rel, pairs, checksums, decode)
        if isinstance(checked, str):
            problems.append(Problem(message=checked, **where))
        else:
            found[rel] = checked
    if problems:
        n_images = len(found) + len(problems)
        summary = (
            f"{len(problems)} of {n_images} ROCO images are unusable "
            f"under {str(base)!r} ({missing} missing)"
        )
        raise DataError(
            [Problem(name, summary), *problems]
        )  # the count first: long lists get truncated on screen
    return found
