"""Content checks of everything ``medvigil publish`` would upload (no names, no file starts).

Credentialed pixels must not leave by any route, so every byte that would be uploaded is
looked at:

- **Hashes.** The SHA-256 of every uploaded file, of every image cell of every Parquet
  row, of every image found embedded in a text file (from its signature to the end of
  the file) and of every base64 payload is compared with the SHA-256 of the credentialed
  images: the source files the release points at (``credentialed_sha256`` in
  ``build_info.json``) plus every file under the folders given with
  ``publish --credentialed DIR`` (your licensed copy, ``medvigil reconstruct`` outputs,
  whose ``RECONSTRUCTION.json`` checksums count too).
- **Embedded images in text files.** The card, datasheet, Croissant and build info are
  text: they must be UTF-8 without NUL bytes, and may not carry an image anywhere, as
  raw bytes (a JPEG/PNG/GIF/TIFF/WebP/JPEG 2000/DICOM signature at any offset, e.g.
  appended after the text) or as base64 (a ``data:`` URI or any long base64 run that
  decodes to an image).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.digest import file_sha256
from medvigil.files.input_files import read_bytes

# signatures searched at ANY offset of a text file (a text file holds none of these bytes)
SIGNATURES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (b"\xff\x4f\xff\x51", "JPEG 2000"),
    (b"DICM", "DICOM"),
    (b"WEBPVP8", "WebP"),
)
_BASE64_RUN = re.compile(rb"(?:data:[\w.+/-]*(?:;[\w.+-]+=[\w.+-]+)*;base64,)?([A-Za-z0-9+/_-]{120,}={0,2})")
_DATA_URI = re.compile(rb"data:image/[\w.+-]+[^,\s]*,", re.IGNORECASE)


def image_signatures(data: bytes) -> list[tuple[int, str]]:
    """(offset, format) of every image signature in ``data``."""
    found = []
    for magic, name in SIGNATURES:
        start = data.find(magic)
        while start != -1:
            found.append((start, name))
            start = data.find(magic, start + 1)
    return sorted(found)


def _base64_payloads(data: bytes) -> Iterable[tuple[int, bytes]]:
    for match in _BASE64_RUN.finditer(data):
        run = match.group(1)
        try:
            decoded = base64.b64decode(run + b"=" * (-len(run) % 4), altchars=b"-_" if b"-" in run or b"_" in run else None)
        except (binascii.Error, ValueError):
            continue
        yield match.start(), decoded


def text_file_problems(rel: str, data: bytes, credentialed: set[str]) -> list[Problem]:
    """Problems of one uploaded text file (UTF-8, no NUL, no embedded image, no credentialed bytes)."""
    problems = []
    for offset, name in image_signatures(data):
        line = data.count(b"\n", 0, offset) + 1
        hit = " (the bytes of a credentialed image)" if hashlib.sha256(data[offset:]).hexdigest() in credentialed else ""
        problems.append(Problem(rel, f"{name} image bytes embedded at byte offset {offset}{hit}; a text file of the "
                                     "build must not carry images", row=line))
    for match in _DATA_URI.finditer(data):
        line = data.count(b"\n", 0, match.start()) + 1
        problems.append(Problem(rel, "embedded image data: URI; a text file of the build must not carry images", row=line))
    for offset, payload in _base64_payloads(data):
        line = data.count(b"\n", 0, offset) + 1
        digest = hashlib.sha256(payload).hexdigest()
        if digest in credentialed:
            problems.append(Problem(rel, "base64 text decodes to a credentialed image", row=line))
        elif image_signatures(payload[:16]):
            problems.append(Problem(rel, f"base64 text decodes to a {image_signatures(payload[:16])[0][1]} image; "
                                         "a text file of the build must not carry images", row=line))
    if not problems:
        nul = data.find(b"\x00")
        if nul != -1:
            problems.append(Problem(rel, f"NUL byte at offset {nul}: not a text file", row=data.count(b"\n", 0, nul) + 1))
        else:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(Problem(rel, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                                             "binary content in a text file of the build", row=data.count(b"\n", 0, exc.start) + 1))
    return problems


def credentialed_hashes(folders: Iterable[Path | str]) -> set[str]:
    """SHA-256 of every regular file under ``folders`` and of every file a ``RECONSTRUCTION.json`` records."""
    out: set[str] = set()
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise NotADirectoryError(f"--credentialed {folder} is not a folder")
        for path in folder.rglob("*"):
            if path.is_symlink() or not path.is_file():
                continue
            out.add(file_sha256(path))
            if path.name == "RECONSTRUCTION.json":
                try:
                    manifest = json.loads(read_bytes(path))
                except (ValueError, DataError):
                    continue
                for case in manifest.get("cases", []) if isinstance(manifest, dict) else []:
                    if isinstance(case, dict):
                        out.update(str(v) for v in (case.get("files") or {}).values())
                        out.add(str(case.get("source_sha256")))
    return out


def parquet_problems(rel: str, path: Path, credentialed: set[str]) -> list[Problem]:
    """Image cells (any row, any binary column) whose bytes are a credentialed image."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not credentialed:
        return []
    try:
        parquet = pq.ParquetFile(path)
    except (ValueError, OSError):
        return []  # reported by publish_check.credentialed_problems
    problems = []
    first = 0
    for group in range(parquet.metadata.num_row_groups):
        table = parquet.read_row_group(group, use_threads=False)
        for name in table.column_names:
            column = table.column(name)
            kind = column.type
            if pa.types.is_struct(kind) and "bytes" in {f.name for f in kind}:
                values = column.combine_chunks().field("bytes").to_pylist()
            elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
                values = column.to_pylist()
            else:
                continue
            for i, value in enumerate(values):
                if value and hashlib.sha256(value).hexdigest() in credentialed:
                    problems.append(Problem(rel, "image bytes identical to a credentialed image", row=first + i + 1, field=name))
        first += table.num_rows
        del table
    return problems


def content_problems(out: Path, files: Iterable[Path], credentialed: set[str], text_files: Iterable[str]) -> list[Problem]:
    """Every content reason to refuse uploading ``files`` (see the module docstring)."""
    problems = []
    text_files = set(text_files)
    for path in files:
        rel = path.relative_to(out).as_posix()
        if file_sha256(path) in credentialed:
            problems.append(Problem(rel, "this file is byte-identical to a credentialed image"))
            continue
        if rel in text_files:
            problems.extend(text_file_problems(rel, read_bytes(path, rel), credentialed))
        elif rel.endswith(".parquet"):
            problems.extend(parquet_problems(rel, path, credentialed))
    return problems
