"""The content scan of a build about to be published: every text file and every distinct Parquet
value (:func:`content_problems`), with the payload scanner of :mod:`medvigil.hub.publish_scan` and
the text-file check of :mod:`medvigil.hub.text_file_scan`.

Each distinct value is scanned once: image bytes are read as the Parquet dictionaries they are
stored as (each distinct image of a row group once, also values no row shows), other strings through
``pyarrow.compute.unique``, and findings are remembered by SHA-256 across the shards of one publish.
"""

import hashlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from medvigil.errors import Problem
from medvigil.files.digest import file_sha256
from medvigil.files.input_files import read_bytes
from medvigil.hub.publish_scan import CredentialedImages, Finding, scan_payload
from medvigil.hub.text_file_scan import text_file_problems


def _leaves(array, rows, image: bool = False) -> Iterator[tuple[Any, Any, bool]]:
    """``(values, row of each value, is image bytes)`` of every string or binary leaf of one Arrow
    column: struct fields, list and map elements, dictionary values (each distinct value once, also
    values no row references). ``rows``: the row number of each element of ``array``."""
    import numpy as np
    import pyarrow as pa

    kind = array.type
    if pa.types.is_dictionary(kind):
        # value j is shown by the rows whose index is j (none: a stored value no row shows)
        yield array.dictionary, _rows_of_values(array.indices, rows, len(array.dictionary)), image
    elif pa.types.is_struct(kind):
        is_image = {f.name for f in kind} == {"bytes", "path"}
        for f, child in zip(kind, array.flatten()):
            yield from _leaves(child, rows, is_image and f.name == "bytes")
    elif pa.types.is_fixed_size_list(kind):
        yield from _leaves(array.flatten(), np.repeat(rows, kind.list_size))
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        offsets = array.offsets.to_numpy()
        child = array.values.slice(offsets[0], offsets[-1] - offsets[0])
        yield from _leaves(child, np.repeat(rows, np.diff(offsets)))
    elif any(
        test(kind)
        for test in (pa.types.is_binary, pa.types.is_large_binary, pa.types.is_binary_view)
        + (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    ):
        yield array, rows, image


def _rows_of_values(indices, rows, n: int) -> list:
    """For each of the ``n`` dictionary values: the rows that show it (an array, maybe empty)."""
    import numpy as np
    import pyarrow.compute as pc

    at = pc.fill_null(indices, -1).to_numpy(zero_copy_only=False)
    order = np.argsort(at, kind="stable")
    bounds = np.searchsorted(at[order], np.arange(n + 1))
    return [rows[order[bounds[j] : bounds[j + 1]]] for j in range(n)]


def _rows_at(where, mask) -> list[int]:
    """The rows of the values ``mask`` selects; ``where``: one row per value, or one array of rows
    per value (dictionary values)."""
    import numpy as np

    if isinstance(where, list):
        picked = [where[k] for k in np.flatnonzero(mask)]
        return sorted(np.concatenate(picked).tolist()) if picked else []
    return where[mask].tolist()


class _Memo:
    """Findings of each distinct value already scanned in this publish (by SHA-256): a value that
    many rows or shards hold (a case's image, a repeated question) is scanned once."""

    def __init__(self) -> None:
        self.found: dict[tuple[bytes, bool], list[Finding]] = {}
        self.scanned = 0

    def findings(self, value: bytes, is_image: bool, known: CredentialedImages) -> list[Finding]:
        key = (hashlib.sha256(value).digest(), is_image)
        if key not in self.found:
            self.scanned += 1
            self.found[key] = _value_findings(value, is_image, known)
        return self.found[key]


def _value_findings(value: bytes, is_image: bool, known: CredentialedImages) -> list[Finding]:
    if not is_image and len(value) < 8:
        return []
    if is_image and not known.sha256 and not known.phashes:
        return []
    return scan_payload(value, known, report_images=not is_image)


def parquet_problems(
    rel: str,
    path: Path,
    known: CredentialedImages,
    memo: "_Memo | None" = None,
    *,
    tick: Callable[[int], Any] | None = None,
) -> list[Problem]:
    """Values (any row, any column, nested values and dictionary pages too) that are or carry a
    credentialed image, and images hidden in values that are not image bytes; each distinct value
    is scanned once (``memo``, shared by the shards of one publish); ``tick(1)`` after each row
    group."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    memo = memo or _Memo()
    try:
        schema = pq.ParquetFile(path).schema_arrow
        images = [
            f"{f.name}.bytes"
            for f in schema
            if pa.types.is_struct(f.type) and {c.name for c in f.type} == {"bytes", "path"}
        ]  # read as dictionaries: each distinct image of a row group once, as stored
        parquet = pq.ParquetFile(path, read_dictionary=images)
    except (ValueError, OSError):
        return []  # reported by publish_check.credentialed_problems
    problems = _metadata_problems(rel, parquet, known)
    first = 0
    for group in range(parquet.metadata.num_row_groups):
        table = parquet.read_row_group(group, use_threads=False)
        rows = np.arange(first + 1, first + table.num_rows + 1)
        for name in table.column_names:
            for chunk in table.column(name).chunks:
                for values, where, is_image in _leaves(chunk, rows):
                    distinct = pc.unique(values)
                    at = pc.index_in(values, value_set=distinct).to_numpy(zero_copy_only=False)
                    for j, value in enumerate(distinct.to_pylist()):
                        if value is None:
                            continue
                        data = value.encode("utf-8") if isinstance(value, str) else value
                        found = memo.findings(data, is_image, known)
                        if found:
                            shown = _rows_at(where, at == j)
                            problems += _cell_problems(rel, shown, name, is_image, found)
        first += table.num_rows
        del table
        if tick is not None:
            tick(1)
    return problems


def _metadata_problems(rel: str, parquet, known: CredentialedImages) -> list[Problem]:
    problems = []
    for key, value in (parquet.metadata.metadata or {}).items():  # text, never images
        for found in scan_payload(key + b"\0" + value, known):
            problems.append(
                Problem(
                    rel,
                    f"the file's key-value metadata ({key[:40].decode('utf-8', 'replace')!r}) "
                    f"holds {found.what}"
                    + (f": {found.why}" if found.why else "")
                    + "; only image columns may carry images",
                    field="metadata",
                )
            )
    return problems


def _cell_problems(
    rel: str, rows: list[int], column: str, is_image: bool, found: list[Finding]
) -> list[Problem]:
    """Problems of one distinct value with findings, shown in ``rows`` (1-based; none: a stored
    value no row shows)."""
    row = rows[0] if rows else None
    where_rows = (
        f" (in {len(rows)} rows: {', '.join(map(str, rows[:5]))}{' ...' if len(rows) > 5 else ''})"
        if len(rows) > 1
        else ("" if rows else " (a stored value no row shows)")
    )
    problems = []
    for item in found:
        if item.refuse:
            why = f"{item.what}; cannot prove the cell holds no credentialed image"
        elif item.why is not None:
            where = (
                "the image cell"
                if item.what == "an image"
                else f"{item.what} at byte offset {item.offset}"
            )
            why = f"{where}: {item.why}; credentialed images must never be published"
        elif not is_image:
            why = (
                f"{item.what} at byte offset {item.offset} in a text cell; only image "
                "columns may carry images"
            )
        else:
            continue
        problems.append(Problem(rel, why + where_rows, row=row, field=column))
    return problems


def content_problems(
    out: Path,
    files: Iterable[Path],
    known: CredentialedImages,
    text_files: Iterable[str],
    *,
    tick: Callable[[int], Any] | None = None,
) -> list[Problem]:
    """Every content reason to refuse uploading ``files`` (see the module docstring). ``tick(1)``
    after each text file and each Parquet row group (a progress bar's ``update``)."""
    problems = []
    text_files = set(text_files)
    memo = _Memo()
    for path in files:
        rel = path.relative_to(out).as_posix()
        if file_sha256(path) in known.sha256:
            problems.append(Problem(rel, "this file is byte-identical to a credentialed image"))
        elif rel in text_files:
            problems.extend(text_file_problems(rel, read_bytes(path, rel), known))
        elif rel.endswith(".parquet"):
            problems.extend(parquet_problems(rel, path, known, memo, tick=tick))
            continue
        if tick is not None:
            tick(1)
    return problems
