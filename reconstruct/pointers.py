"""Pointer lists for credentialed sources: safe path resolution and checksum verification.

A release lists every withheld (credentialed) case as a pointer in
``reconstruction/<source>_pointers.csv``: ``case_id, source_path, sha256``, where ``source_path`` is
relative to the root of the user's own licensed copy (for example the MIMIC-CXR or CheXpert download
folder) and ``sha256`` is the checksum of that source file.
:mod:`medvigil.suites.medvigil.release.release` reads those files into ``Release.pointers``; this
module checks them against a user's copy.

Two rules:

* A pointer never reaches outside the source root: the same rules as for release
  paths apply (:func:`medvigil.files.pathsafe.resolve_inside`: no absolute paths, drive
  letters, backslashes, ``..`` components, or symbolic links that lead elsewhere).
* Every problem is reported at once: :func:`verify_pointers` collects missing files,
  checksum mismatches and unsafe paths, and raises one :class:`DataError` with all
  of them, so a user fixes their copy in one pass.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.digest import file_sha256
from medvigil.files.pathsafe import resolve_inside
from medvigil.suites.medvigil.release.release_format import POINTERS_DIR

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class VerifiedSource:
    """A pointer whose file exists inside the source root and matches its checksum."""

    case_id: str
    source_path: str  # as written in the pointer file
    path: Path  # resolved absolute path inside the source root
    sha256: str


def verify_pointers(
    source_root: Path | str,
    pointers: Mapping[str, tuple[str, str]],
    *,
    file_label: str = f"{POINTERS_DIR}/*_pointers.csv",
) -> list[VerifiedSource]:
    """Check every pointer against the user's copy; return them in case-id order.

    Args:
        source_root: root folder of the user's licensed copy.
        pointers: ``case_id -> (source_path, expected sha256)``, as in ``Release.pointers``.
        file_label: how problems name the pointer list.

    Raises:
        DataError: listing every missing, unsafe or mismatching file.
        NotADirectoryError: when ``source_root`` is not a folder.
    """
    verified, problems = check_pointers(source_root, pointers, file_label=file_label)
    if problems:
        raise DataError(problems)
    return verified


def check_pointers(
    source_root: Path | str,
    pointers: Mapping[str, tuple[str, str]],
    *,
    file_label: str = f"{POINTERS_DIR}/*_pointers.csv",
) -> tuple[list[VerifiedSource], list[Problem]]:
    """Like :func:`verify_pointers`, but return ``(verified, problems)`` instead of raising."""
    root = Path(source_root)
    if not root.is_dir():
        raise NotADirectoryError(f"source root {str(root)!r} is not a folder")
    problems: list[Problem] = []
    verified: list[VerifiedSource] = []
    for case_id in sorted(pointers):
        source_path, expected = pointers[case_id]
        where = {
            "file": file_label
        }  # pointers carry no row numbers once read; the case id names the row
        expected = (expected or "").strip().lower()
        if not _SHA256.match(expected):
            problems.append(
                Problem(
                    **where,
                    field="sha256",
                    message=f"case {case_id}: {expected!r} is not a SHA-256 hex digest",
                )
            )
            continue
        try:
            path = resolve_inside(root, source_path, file_label, None, "source_path")
        except DataError as exc:
            problems.extend(
                Problem(
                    file=p.file, field=p.field, message=f"case {case_id}: {p.message} (source root)"
                )
                for p in exc.problems
            )
            continue
        if not path.is_file():
            problems.append(
                Problem(
                    **where,
                    field="source_path",
                    message=f"case {case_id}: missing file {source_path!r} under {str(root)!r}",
                )
            )
            continue
        actual = file_sha256(path)
        if actual != expected:
            problems.append(
                Problem(
                    **where,
                    field="sha256",
                    message=f"case {case_id}: checksum mismatch for {source_path!r}: "
                    f"expected {expected}, found {actual}",
                )
            )
            continue
        verified.append(
            VerifiedSource(case_id=case_id, source_path=source_path, path=path, sha256=actual)
        )
    return verified, problems
