"""Content digest of a release folder (the version identity stored with every build)."""

import hashlib
from pathlib import Path

from medvigil.constants import DIGEST_FILE
from medvigil.files.atomic_output import MARKER_PREFIX
from medvigil.files.input_files import open_regular

_CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(
        path, max_bytes=0
    ) as fh:  # streamed: no size limit, but never a FIFO or device
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def release_digest(root: Path | str) -> str:
    """SHA-256 over ``"<relative posix path>\\t<file sha256>\\n"`` for every file, sorted.

    The stored digest file itself and the marker of the command that wrote the folder
    (:func:`medvigil.files.atomic_output.mark`) are excluded, so the digest can be written into the
    folder it describes. Symlinks are refused: a release is plain files.
    """
    root = Path(root)
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink()):
        rel = path.relative_to(root).as_posix()
        if rel == DIGEST_FILE or rel.startswith(MARKER_PREFIX):  # (markers: at the root only)
            continue
        if path.is_symlink():
            raise ValueError(f"{rel}: symbolic links are not allowed in a release")
        h.update(f"{rel}\t{file_sha256(path)}\n".encode())
    return h.hexdigest()
