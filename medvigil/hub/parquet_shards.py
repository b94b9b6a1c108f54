"""Writing a config's rows as the size-bounded Parquet shards of a Hub-ready export.

Shared by the MedVIGIL and MediConfusion exports: shards are
``<root>/data/<config>/test-NNNNN-of-MMMMM.parquet``, written under a ``.partial`` name and
renamed once the shard count is known.
"""

from __future__ import annotations

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
ROWS_PER_BATCH = 64  # rows per Parquet row group: at most this many images in memory


FREE_SPACE_MARGIN = 8 << 20  # beyond the images: Parquet pages, footers, text columns, the card files


def ensure_free_space(folder: Path, payload: int) -> None:
    """Raise ``OSError(ENOSPC)`` unless ``folder``'s file system can take ``payload`` bytes more, with a margin.

    Checked before every row handed to the Parquet writer: Arrow aborts the process (SIGABRT, no
    clean-up) when a write fails inside it, so a full disk must be seen before Arrow writes. The
    error unwinds like any other, and the staging folder is removed
    (:func:`medvigil.files.atomic_output.staged_folder`).
    """
    need = payload + payload // 10 + FREE_SPACE_MARGIN
    free = shutil.disk_usage(folder).free
    if free < need:
        raise OSError(errno.ENOSPC, f"not enough free disk space to write the build: about {need:,} bytes needed "
                                    f"for the next rows, {free:,} free (free some space or choose another --out)",
                      str(folder))


def write_shards(
    rows: Iterable[tuple[str, dict]],
    features,
    root: Path,
    config: str,
    max_shard_bytes: int,
    payload_size: Callable[[dict], int],
) -> tuple[int, list[Shard]]:
    """Stream ``(key, row)`` pairs into ``root/data/<config>/``; return the row count and shards.

    A shard is closed once the ``payload_size`` of the rows written to it reaches
    ``max_shard_bytes``; a config without rows still gets one (empty) shard with the schema.
    Free space is checked before each row (:func:`ensure_free_space`).
    """
    from datasets.arrow_writer import ParquetWriter


    folder = root / DATA_DIR / config
    folder.mkdir(parents=True)
    partials: list[Path] = []
    writer = None
    shard_bytes = count = 0

    def open_shard():
        partials.append(folder / f"shard-{len(partials):05d}.partial")
        return ParquetWriter(features=features, path=str(partials[-1]), writer_batch_size=ROWS_PER_BATCH)

    pending = 0  # payload bytes not yet known to be on disk (the writer flushes every ROWS_PER_BATCH rows)
    for _key, row in rows:
        if writer is None:
            writer, shard_bytes = open_shard(), 0
        size = payload_size(row)
        pending += size
        ensure_free_space(folder, pending)
        writer.write(features.encode_example(row))
        count += 1
        shard_bytes += size
        if shard_bytes >= max_shard_bytes:
            writer.finalize()
            writer, pending = None, 0
        elif count % ROWS_PER_BATCH == 0:
            pending = 0
    if writer is None and not partials:
        writer = open_shard()
    if writer is not None:
        ensure_free_space(folder, pending)
        writer.finalize()
    shards = []
    for i, partial in enumerate(partials):
        final = folder / f"{SPLIT}-{i:05d}-of-{len(partials):05d}.parquet"
        os.replace(partial, final)
        shards.append(Shard(config, final.relative_to(root).as_posix(), file_sha256(final), final.stat().st_size))
    return count, shards


def checksum_lines(shards: Iterable[Shard]) -> str:
    """``<shard path>\\t<sha256>`` of every shard, one a line in path order (hashed into build digests)."""
    return "".join(f"{shard.path}\t{shard.sha256}\n" for shard in sorted(shards, key=lambda s: s.path))


def shards_to_json(shards: Iterable[Shard]) -> list[dict[str, Any]]:
    """The shards as ``build_info.json`` lists them."""
    return [{"config": s.config, "path": s.path, "sha256": s.sha256, "size": s.size} for s in shards]


def shards_line(shards: list[Shard]) -> str:
    """The ``shards:`` line of a build report."""
    return f"shards:  {len(shards)} ({sum(s.size for s in shards):,} bytes)"
