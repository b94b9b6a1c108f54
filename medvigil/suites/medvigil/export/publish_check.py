"""May a MedVIGIL build be uploaded? Checked without any network access (``medvigil publish``);
``medvigil build`` also runs :func:`credentialed_problems` on its own output before the final
rename."""

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular, read_json
from medvigil.hub.build_manifest import MANIFEST, manifest_problems
from medvigil.hub.content_scan import content_problems
from medvigil.hub.export_engine import BUILD_INFO, CROISSANT, README
from medvigil.hub.parquet_shards import DATA_DIR
from medvigil.hub.publish_scan import credentialed_images
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_format import POINTERS_DIR, is_credentialed

# the files of a MedVIGIL build besides the engine's README, Croissant and build info
DATASHEET = "DATASHEET.md"
LOCAL_ONLY_MARKER = "LOCAL_ONLY"
SHARD_NAME = re.compile(r"^data/(?P<config>[a-z_]+)/test-(?P<i>\d{5})-of-(?P<n>\d{5})\.parquet$")
PUBLISHABLE_FILES = (README, DATASHEET, CROISSANT, BUILD_INFO, MANIFEST)


def check_publishable(
    out: Path | str,
    release: Path | str | None,
    credentialed_dirs: Iterable[Path | str] = (),
    read_dicom: Callable[[Path], Any] | None = None,
    progress: Callable[[int], Any] | None = None,
) -> tuple[list[Path], list[Problem]]:
    """``(files, problems)``: the files that would be uploaded, and every reason to refuse (none:
    allowed).

    First the allowlist: only the files ``build_manifest.json`` lists, each byte-identical to it
    (:mod:`medvigil.hub.build_manifest`); no ``local_only`` build; only card, datasheet, Croissant,
    build info, manifest and shards. Then the content, a second layer: credentialed rows with image
    bytes, credentialed image bytes or pixels, any image in text (:mod:`medvigil.hub.publish_scan`).
    The credentialed checksums and case ids come from ``build_info.json`` and from the pointer files
    of ``release`` (the release the build was made from, checked by its digest), outside the folder.
    ``progress(total)`` is the scans' progress bar, advanced per row group and text file."""
    out = Path(out)
    if not out.is_dir():
        raise NotADirectoryError(f"{out} is not a folder")
    info, problems = read_build_info(out)
    if info.get("local_only") or (out / LOCAL_ONLY_MARKER).exists():
        problems.append(
            Problem(
                LOCAL_ONLY_MARKER if (out / LOCAL_ONLY_MARKER).exists() else BUILD_INFO,
                "this is a --local-only build with credentialed images; it must never be published",
            )
        )
    files, listed_problems = manifest_problems(out)
    problems += listed_problems
    problems += _kind_problems(out, files)
    release_ids, release_sha256, release_problems = _release_credentials(release, info)
    problems += release_problems
    recorded = info.get("credentialed_sha256")
    recorded = recorded if isinstance(recorded, list) else []
    known = credentialed_images([*recorded, *release_sha256], credentialed_dirs, read_dicom)
    bar = progress(_scan_steps(out, files)) if progress else None
    tick = bar.update if bar is not None else None
    problems.extend(credentialed_problems(out, release_ids, tick=tick))
    texts = (f for f in PUBLISHABLE_FILES if not f.endswith(".parquet"))
    problems.extend(content_problems(out, files, known, texts, tick=tick))
    if bar is not None:
        bar.close()
    return files, problems


def _scan_steps(out: Path, files: list[Path]) -> int:
    """Steps of the two scans: each row group of every shard twice, each other file once."""
    import pyarrow.parquet as pq

    shards = sorted((out / DATA_DIR).rglob("*.parquet")) if (out / DATA_DIR).is_dir() else []
    groups = 0
    for path in shards:
        try:
            groups += pq.ParquetFile(path).metadata.num_row_groups
        except (ValueError, OSError):
            pass  # reported by credentialed_problems
    return 2 * groups + sum(1 for p in files if p.suffix != ".parquet")


def _kind_problems(out: Path, files: list[Path]) -> list[Problem]:
    """Files of the allowlist a build never writes (a forged manifest): images, unknown names."""
    problems = []
    for path in files:
        rel = path.relative_to(out).as_posix()
        fmt = None if rel.endswith(".parquet") else sniff_image(path)
        if fmt is not None:
            why = f"stray {fmt} image file; images are published only inside the Parquet shards"
            problems.append(Problem(rel, why))
        elif rel not in PUBLISHABLE_FILES and not SHARD_NAME.match(rel):
            allowed = ", ".join(PUBLISHABLE_FILES)
            why = (
                f"unexpected file; a build publishes only {allowed} and "
                "data/<config>/test-*.parquet"
            )
            problems.append(Problem(rel, why))
    return problems


def _release_credentials(
    release: Path | str | None, info: dict[str, Any]
) -> tuple[set[str], list[str], list[Problem]]:
    """``(credentialed case ids, pointer checksums, problems)`` of the release the build was made
    from: read outside the build folder, so an edited ``build_info.json`` cannot switch the check
    off. The release must be the one ``build_info.json`` names by its digest."""
    if release is None:
        return set(), [], []
    result = read_release(release, mcq_records=False)
    problems = [  # a pointer row left out would be a checksum unknown (other rows: the build's
        # --skip-invalid-rows may have left them out; the shards' own flags still count)
        Problem(f"--release {p.file}", p.message, p.row, p.field)
        for p in result.problems
        if p.severity == "error" and str(p.file).startswith(f"{POINTERS_DIR}/")
    ]
    recorded = info.get("release_digest")
    if result.release.digest != recorded:
        problems.append(
            Problem(
                BUILD_INFO,
                f"the build records release digest {recorded!r}, but --release {release} has "
                f"{result.release.digest}: not the release this build was made from (or one "
                "changed)",
                field="release_digest",
            )
        )
    cases = result.release.cases.values()
    ids = {c.case_id for c in cases if c.credentialed} | set(result.release.pointers)
    return ids, [sha for _, sha in result.release.pointers.values()], problems


def read_build_info(out: Path) -> tuple[dict[str, Any], list[Problem]]:
    """``build_info.json`` of ``out`` (``{}`` when missing or unreadable) and its problems."""
    info_path = out / BUILD_INFO
    if not info_path.is_file():
        return {}, [Problem(BUILD_INFO, "missing: not a folder written by `medvigil build`")]
    try:
        info = read_json(info_path, BUILD_INFO)
    except DataError as exc:
        return {}, list(exc.problems)
    if not isinstance(info, dict):
        return {}, [Problem(BUILD_INFO, f"expected a JSON object, got {type(info).__name__}")]
    return info, []


_IMAGE_MAGIC = (  # (offset, signature, format) of a file's start
    (0, b"\xff\xd8\xff", "JPEG"),
    (0, b"\x89PNG\r\n\x1a\n", "PNG"),
    (0, b"GIF8", "GIF"),
    (0, b"II*\x00", "TIFF"),
    (0, b"MM\x00*", "TIFF"),
    (0, b"BM", "BMP"),
    (0, b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (0, b"\xff\x4f\xff\x51", "JPEG 2000"),
    (128, b"DICM", "DICOM"),
)


def sniff_image(path: Path) -> str | None:
    """Name of the image format ``path`` starts with, or None."""
    with open_regular(path, max_bytes=0) as fh:
        head = fh.read(132)
    for offset, magic, name in _IMAGE_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return name
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return None


def credentialed_problems(
    out: Path, case_ids: Iterable[str] = (), *, tick: Callable[[int], Any] | None = None
) -> list[Problem]:
    """Every Parquet row of ``out`` with image bytes whose ``credentialed`` is true,
    ``source_dataset`` credentialed in any spelling, or ``case_id`` in ``case_ids`` or listed in
    ``build_info.json`` (read one row group at a time; ``tick(1)`` after each)."""
    import pyarrow.parquet as pq

    ids = read_build_info(out)[0].get(
        "credentialed_case_ids", []
    )  # check_publishable reports a bad build_info.json
    listed = {str(i) for i in ids} if isinstance(ids, list) else set()
    listed |= set(case_ids)
    problems: list[Problem] = []
    for path in sorted((out / DATA_DIR).rglob("*.parquet")) if (out / DATA_DIR).is_dir() else []:
        rel = path.relative_to(out).as_posix()
        try:
            parquet = pq.ParquetFile(path)
        except (ValueError, OSError) as exc:  # pyarrow.ArrowInvalid is a ValueError
            problems.append(
                Problem(
                    rel,
                    f"not a readable Parquet file ({exc}); cannot "
                    f"prove it holds no credentialed images",
                )
            )
            continue
        problems += _shard_problems(parquet, rel, listed, tick)
    return problems


def _shard_problems(
    parquet: Any, rel: str, listed: set[str], tick: Callable[[int], Any] | None
) -> list[Problem]:
    """The credentialed rows with image bytes of one shard, one problem per (column, case)."""
    import pyarrow as pa

    schema = parquet.schema_arrow
    types = {name: schema.field(name).type for name in schema.names}
    image_columns = [
        name
        for name, t in types.items()
        if pa.types.is_struct(t) and {f.name for f in t} == {"bytes", "path"}
    ]
    if not image_columns:
        return []
    keys = [c for c in ("case_id", "source_dataset", "credentialed") if c in types]
    found: dict[tuple[str, str], list[int]] = {}  # (column, case id) -> rows with image bytes
    first_row = 0
    # One row group at a time (iter_batches() reads ahead and holds hundreds of MB of
    # images), and the image column only for row groups that hold a credentialed row.
    for group in range(parquet.metadata.num_row_groups):
        data = (
            parquet.read_row_group(group, columns=keys, use_threads=False).to_pydict()
            if keys
            else {}
        )
        n = parquet.metadata.row_group(group).num_rows
        ids = data.get("case_id", [None] * n)
        flagged = [
            i
            for i in range(n)  # rows we cannot attribute (no case id) are treated as unsafe
            if bool(data.get("credentialed", [False] * n)[i])
            or is_credentialed(data.get("source_dataset", [None] * n)[i])
            or ids[i] in listed
            or ids[i] is None
        ]
        if flagged:
            for column, i in _rows_with_image_bytes(parquet, group, image_columns, flagged):
                found.setdefault((column, str(ids[i])), []).append(first_row + i + 1)
        first_row += n
        if tick is not None:
            tick(1)
    return [
        _credentialed_problem(rel, column, case_id, rows)
        for (column, case_id), rows in sorted(found.items(), key=lambda item: item[1][0])
    ]


def _rows_with_image_bytes(
    parquet: Any, group: int, image_columns: list[str], flagged: list[int]
) -> list[tuple[str, int]]:
    """``(column, row in the group)`` of the ``flagged`` rows whose image has bytes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    images = parquet.read_row_group(group, columns=image_columns, use_threads=False)
    hits = []
    for column in image_columns:
        # non-empty ``bytes`` per row, computed in Arrow (no Python copies of the images)
        size = pc.binary_length(pc.struct_field(images.column(column), "bytes"))
        has_bytes = pc.fill_null(pc.greater(size, 0), False).to_pylist()
        hits += [(column, i) for i in flagged if has_bytes[i]]
    del images
    pa.default_memory_pool().release_unused()  # keep the scan's footprint at one row group
    return hits


def _credentialed_problem(rel: str, column: str, case_id: str, rows: list[int]) -> Problem:
    shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
    return Problem(
        rel,
        f"credentialed case {case_id!r} has image bytes in {len(rows)} row(s) "
        f"(rows {shown}); credentialed images must never be published",
        row=rows[0],
        field=column,
    )
