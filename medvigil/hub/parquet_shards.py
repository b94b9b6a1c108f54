"""A config's rows as the size-bounded Parquet shards of a Hub-ready export (MedVIGIL and
MediConfusion): ``<root>/data/<config>/test-NNNNN-of-MMMMM.parquet``, written under a ``.partial``
name and renamed once the shard count is known.

Many rows show the same image (a case's probes, a circular probe's rotations), so image bytes
columns are dictionary-encoded (each distinct image stored once per row group) and rows sharing
images (one ``group_column`` value) are kept in one row group. Readers decode the dictionary
transparently.
"""

import errno
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from medvigil.files.digest import file_sha256
from medvigil.hub.croissant import Shard

DATA_DIR = "data"
SPLIT = "test"
DEFAULT_MAX_SHARD_BYTES = 256 * 1024 * 1024
ROWS_PER_BATCH = (
    64  # a row group closes at the next change of group_column once it holds this many rows
)
# ... and once its rows decode to this many bytes in any case: `datasets`' own row-group target
# (config.MAX_ROW_GROUP_SIZE); the Hub viewer reads a row group whole and refuses ones of about
# 300 MB decoded. It also bounds the rows the writer holds in memory.
MAX_GROUP_BYTES = 100 * 1000 * 1000
# Parquet falls back to plain encoding once a dictionary page passes its limit (1 MiB by
# default); a row group's distinct images stay far below this one.
DICTIONARY_PAGE_LIMIT = 1024 * 1024 * 1024


def _image_columns(features) -> list[str]:
    import datasets

    return [name for name, feature in features.items() if isinstance(feature, datasets.Image)]


def _column_options(features) -> dict[str, Any]:
    """Per-column Parquet options: image bytes dictionary-encoded, uncompressed (JPEG/PNG are
    compressed already) and without statistics; every other column dictionary-encoded and
    Snappy-compressed."""
    leaves = [
        leaf for field in features.arrow_schema for leaf in _leaf_paths(field.name, field.type)
    ]
    image_bytes = {f"{name}.bytes" for name in _image_columns(features)}
    return {
        "compression": {leaf: "none" if leaf in image_bytes else "snappy" for leaf in leaves},
        "use_dictionary": True,
        "dictionary_pagesize_limit": DICTIONARY_PAGE_LIMIT,
        "write_page_index": True,
        # min / max of image bytes would be further copies of images (in the footer and page index)
        "write_statistics": [leaf for leaf in leaves if leaf not in image_bytes],
        "use_content_defined_chunking": True,
    }  # as `datasets` writes: stable pages for Hub (Xet) deduplication


def _leaf_paths(path: str, pa_type) -> list[str]:
    """Parquet leaf column paths of an Arrow field (``image.bytes``, ``options.list.element``)."""
    import pyarrow as pa

    if pa.types.is_struct(pa_type):
        return [
            leaf for field in pa_type for leaf in _leaf_paths(f"{path}.{field.name}", field.type)
        ]
    if (
        pa.types.is_list(pa_type)
        or pa.types.is_large_list(pa_type)
        or pa.types.is_fixed_size_list(pa_type)
    ):
        return _leaf_paths(f"{path}.list.element", pa_type.value_type)
    return [path]


class _ShardWriter:
    """One Parquet shard written a row group at a time."""

    def __init__(self, path: Path, features) -> None:
        import pyarrow.parquet as pq

        self.features = features
        self.schema = features.arrow_schema
        self.images = _image_columns(features)
        self.path = path
        self.writer = pq.ParquetWriter(str(path), self.schema, **_column_options(features))
        self.rows: list[dict] = []
        self.group_images: set[bytes] = set()
        self.group_payload = (
            0  # payload_size of the open row group's rows, repeated images included
        )
        self.group_stored = (
            0  # the same without images already in the group: about what the write adds
        )
        self.table_bytes = 0

    def repeated_bytes(self, row: dict) -> int:
        """Image bytes of ``row`` already stored in the open row group (they add only an index)."""
        return sum(len(b) for b in self._image_bytes(row) if b in self.group_images)

    def add(self, row: dict, payload: int) -> None:
        self.group_stored += payload - self.repeated_bytes(row)
        encoded = self.features.encode_example(row)
        self.rows.append(encoded)
        self.group_images.update(self._image_bytes(encoded))
        self.group_payload += payload

    def flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            ensure_free_space(self.path.parent, self.group_stored)
            table = pa.Table.from_pylist(self.rows, schema=self.schema)
            self.table_bytes += table.nbytes
            self.writer.write_table(table, row_group_size=len(self.rows))
        self.rows, self.group_images, self.group_payload, self.group_stored = [], set(), 0, 0

    def close(self) -> None:
        self.flush()
        self.writer.close()

    def _image_bytes(self, row: dict) -> list[bytes]:
        return [
            v["bytes"]
            for v in (row.get(c) for c in self.images)
            if isinstance(v, dict) and v.get("bytes")
        ]


FREE_SPACE_MARGIN = (
    8 << 20
)  # beyond the images: Parquet pages, footers, text columns, the card files


def ensure_free_space(folder: Path, payload: int) -> None:
    """Raise ``OSError(ENOSPC)`` unless ``folder``'s file system can take ``payload`` bytes more,
    with a margin. Checked before every row group: Arrow aborts the process (SIGABRT, no clean-up)
    when a write fails inside it, while this error unwinds and the staging folder is removed."""
    need = payload + payload // 10 + FREE_SPACE_MARGIN
    free = shutil.disk_usage(folder).free
    if free < need:
        raise OSError(
            errno.ENOSPC,
            f"not enough free disk space to write the build: about {need:,} bytes needed "
            f"for the next rows, {free:,} free (free some space or choose another --out)",
            str(folder),
        )


def write_shards(
    rows: Iterable[tuple[str, dict]],
    features,
    root: Path,
    config: str,
    max_shard_bytes: int,
    payload_size: Callable[[dict], int],
    group_column: str | None = None,
) -> tuple[int, list[Shard]]:
    """Stream ``(key, row)`` pairs into ``root/data/<config>/``; return the row count and shards.

    Row groups hold at least :data:`ROWS_PER_BATCH` rows and close only where ``group_column``
    changes (every row is its own group when it is None), or once their ``payload_size`` reaches
    :data:`MAX_GROUP_BYTES`. A shard closes once its rows' ``payload_size`` reaches
    ``max_shard_bytes``, an image already in the open row group counting once; a config without rows
    gets one empty shard.
    """
    folder = root / DATA_DIR / config
    folder.mkdir(parents=True)
    writers: list[_ShardWriter] = []  # under .partial names until the shard count is known
    writer: _ShardWriter | None = None
    shard_bytes = count = 0
    last_group: object = None

    def open_shard() -> _ShardWriter:
        writers.append(_ShardWriter(folder / f"shard-{len(writers):05d}.partial", features))
        return writers[-1]

    for _key, row in rows:
        if writer is None:
            writer, shard_bytes = open_shard(), 0
        group = row[group_column] if group_column else count
        if writer.group_payload >= MAX_GROUP_BYTES or (
            len(writer.rows) >= ROWS_PER_BATCH and group != last_group
        ):
            writer.flush()
        last_group = group
        payload = payload_size(row)
        shard_bytes += payload - writer.repeated_bytes(row)
        writer.add(row, payload)
        count += 1
        if shard_bytes >= max_shard_bytes:
            writer.close()
            writer = None
    if not writers:
        writer = open_shard()
    if writer is not None:
        writer.close()
    return count, _named_shards(writers, folder, root, config)


def _named_shards(
    writers: list["_ShardWriter"], folder: Path, root: Path, config: str
) -> list[Shard]:
    """The closed shards renamed from their ``.partial`` names to ``<split>-i-of-n.parquet`` (n is
    known now), with their checksums and sizes."""
    shards = []
    for i, done in enumerate(writers):
        final = folder / f"{SPLIT}-{i:05d}-of-{len(writers):05d}.parquet"
        os.replace(done.path, final)
        shards.append(
            Shard(
                config,
                final.relative_to(root).as_posix(),
                file_sha256(final),
                final.stat().st_size,
                done.table_bytes,
            )
        )
    return shards


def checksum_lines(shards: Iterable[Shard]) -> str:
    """``<shard path>\\t<sha256>`` of every shard, one a line in path order (hashed into build
    digests)."""
    return "".join(
        f"{shard.path}\t{shard.sha256}\n" for shard in sorted(shards, key=lambda s: s.path)
    )


def shards_line(shards: list[Shard]) -> str:
    """The ``shards:`` line of a build report."""
    return f"shards:  {len(shards)} ({sum(s.size for s in shards):,} bytes)"
