"""What every release check shares: checker state over one read release, finding records, message
text helpers."""

import re
from collections.abc import Sequence
from itertools import compress, repeat
from pathlib import Path
from typing import Any

from medvigil.errors import Problem
from medvigil.files.pathsafe import InsideResolver
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import ReadResult, Row, Rows, text_key

ROI_PROBE_KINDS = ("roi_masked", "roi_only")
_HEX64 = re.compile(r"\b(?:sha256:)?([0-9a-fA-F]{64})\b")
_MAX_LISTED = 10  # ids listed in one message before "and N more"
_CHOICE_COLUMNS = tuple(f"choice_{letter}" for letter in rf.LETTERS)


_SPACES_BUT_SPACE = [c for c in map(chr, range(128)) if c.isspace() and c != " "]  # ASCII
_SPACE_BUT_SPACE = re.compile(r"[^\S ]")
_NUL_AS_SPACE = bytes.maketrans(b"\0", b" ")


def _collapsed(joined: str) -> bool:
    """Whether no text of NUL-joined ``joined`` has whitespace :func:`text_key` would change (an
    empty text may count too)."""
    if (
        joined.isascii()
    ):  # as bytes, NULs as spaces: one search finds a space next to a space or an end
        spaced = joined.encode("ascii").translate(_NUL_AS_SPACE)
        return not (
            b"  " in spaced
            or spaced.startswith(b" ")
            or spaced.endswith(b" ")
            or any(c in joined for c in _SPACES_BUT_SPACE)
        )
    if (
        "  " in joined
        or " \0" in joined
        or "\0 " in joined
        or joined.startswith(" ")
        or joined.endswith(" ")
    ):
        return False
    return _SPACE_BUT_SPACE.search(joined) is None


def _norm_all(texts: Sequence[str]) -> list[str]:
    """``[text_key(text) for text in texts]`` in a few passes over the texts joined by NUL (neither
    whitespace nor changed by casefold); texts holding NUL are normalised one by one."""
    joined = "\0".join(texts)
    if joined.count("\0") != len(texts) - 1:
        return list(map(text_key, texts))
    if _collapsed(joined):
        return joined.casefold().split("\0")
    return list(map(str.strip, " ".join(joined.split()).casefold().split("\0"), repeat(" ")))


def _listed(ids: list[str], show=repr) -> str:
    shown = ", ".join(map(show, ids[:_MAX_LISTED]))
    more = len(ids) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _credentialed_message(shown: str, source: str) -> str:
    return (
        f"credentialed image {shown} is present in the release: source {source!r} is "
        f"credentialed and its images must never be redistributed; remove the file and ship a "
        f"pointer instead"
    )


class CheckerBase:
    """Cross-file checks over one :class:`ReadResult`; findings go to ``problems``."""

    def __init__(
        self,
        read: ReadResult,
        root: Path,
        *,
        images: bool,
        max_pixels: int,
        files: bool = True,
        refs: bool = True,
    ):
        self.read = read
        self.check_files = files  # look at image files (existence, decoding, unreferenced files)
        self.check_refs = (
            refs  # image paths at all (safety, credentialed images present); not for scoring
        )
        self.blocks_scoring: list[Problem] = []  # errors that also stop `medvigil score`
        self.release = read.release
        self.root = root
        self.decode_images = images
        self.max_pixels = max_pixels
        self.problems: list[Problem] = []
        self._resolved: dict[str, Path | Problem] = {}
        self._inside = InsideResolver(root)  # one listing per folder for every image reference
        self.counts: dict[str, Any] = {}
        self.rows = read.rows
        # files whose header was read: rows of the others are unknown, not absent, so
        # checks that need them are skipped instead of reporting every reference as broken
        self.readable = set(read.headers)
        self.grounding: dict[str, Row] = {}
        for row in self.valid_rows(rf.GROUNDING):
            self.grounding.setdefault(row.values["case_id"], row)
        # manifest values by case id, from every row with a usable id (even if another
        # field is invalid), so one bad cell does not cascade into "unknown case" errors
        self.manifest: dict[str, Row] = {}
        for row in self.rows.get(rf.MANIFEST, []):
            cid = row.values.get("case_id")
            if isinstance(cid, str) and cid and cid not in self.manifest:
                self.manifest[cid] = row

    def error(
        self,
        file: str,
        message: str,
        row: int | None = None,
        field: str | None = None,
        *,
        scoring: bool = False,
    ) -> None:
        problem = Problem(file, message, row=row, field=field)
        self.problems.append(problem)
        if scoring:
            self.blocks_scoring.append(problem)

    def warn(
        self, file: str, message: str, row: int | None = None, field: str | None = None
    ) -> None:
        self.problems.append(Problem(file, message, row=row, field=field, severity="warning"))

    def valid_rows(self, rel: str) -> list[Row]:
        return [row for row in self.rows.get(rel, []) if row.valid]

    def numbers(self, rel: str, *, valid: bool = False) -> Sequence[int]:
        """The row numbers of ``rel`` (of its valid rows), in order: no row made."""
        rows = self.rows.get(rel) or Rows([], {}, [])
        return list(compress(rows.numbers, rows.valid)) if valid else rows.numbers

    def pointer_files(self) -> list[str]:
        return sorted(rel for rel in self.rows if rel.startswith(f"{rf.POINTERS_DIR}/"))
