"""Content checks of everything ``medvigil publish`` would upload (no names, no file starts).

Credentialed pixels must not leave by any route, so every uploaded byte is scanned, and everything
it decodes to, :data:`MAX_DEPTH` levels deep and at most :data:`MAX_EXPANDED_BYTES` per cell
(beyond: refused, it cannot be proved clean). What is scanned and refused: README.md, "publish
checks content, decoded". Checksums are compared *from each image signature to the end* (leading
bytes do not hide an image); the perceptual hash (:data:`PHASH_SIZE`, at most
:data:`PHASH_MAX_DISTANCE` of 1,024 bits from the image or its mirror) catches re-encoded, resized,
blurred or flipped copies. Without ``--credentialed`` only checksums are known: an X-ray re-derived
by ``medvigil reconstruct`` (new bytes) is recognised only when its folder is given.
"""

import base64
import binascii
import hashlib
import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import DataError
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
ARCHIVES = (
    (b"PK\x03\x04", "zip"),
    (b"\x1f\x8b\x08", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)
MAX_DEPTH = 4  # base64 in a zip in base64 in a cell: three levels
MAX_EXPANDED_BYTES = 64 << 20  # what one cell or file may decode to, in all
PHASH_SIZE = 32  # imagehash.phash(hash_size=32): 1,024 bits
# Measured on synthetic releases (benchmarks/bench_phash.py; README, "publish checks content"): at
# 300 cases copies re-derived from the 60 credentialed X-rays (JPEG q50/q70, resized 1/2 and 3/2,
# blurred sigma 2 and 4, flipped) are at most 26 bits from it, the 904 other images of the release
# (phantoms drawn alike, their variants) at least 72: 48 leaves a margin of about 22 bits each way.
# At 256 bits (hash_size 16) the two overlapped (copies up to 6, distinct phantoms from 6).
PHASH_MAX_DISTANCE = 48
MAX_IMAGES_PER_PAYLOAD = (
    64  # signatures checked per payload (a JPEG may carry EXIF thumbnails); more: refused
)

# One run of base64 text: unbroken, or lines of 40+ characters (the last one shorter), each line
# break possibly followed by an indent or a Markdown quote; an optional data: URI prefix; 120+
# characters.
_BASE64_RUN = re.compile(
    rb"(?:data:[\w.+/-]*(?:;[\w.+-]+=[\w.+-]+)*;base64,)?"
    rb"((?:[A-Za-z0-9+/_-]{40,}={0,2}[ \t]*\r?\n[ \t>]*)+[A-Za-z0-9+/_-]+={0,2}"
    rb"|[A-Za-z0-9+/_-]{40,}={0,2})"
)
_MIN_BASE64 = 120
# hexadecimal text of 60+ bytes (a SHA-256 is 32), possibly in lines
_HEX_RUN = re.compile(rb"(?:[0-9A-Fa-f]{2}){60,}(?:[ \t]*\r?\n[ \t>]*(?:[0-9A-Fa-f]{2})+)*")
_SPACE = re.compile(rb"[\s>]+")


@dataclass
class CredentialedImages:
    """What publish knows of the credentialed images: checksums and perceptual hashes."""

    sha256: set[str] = field(default_factory=set)
    phashes: list = field(default_factory=list)  # imagehash.ImageHash of each decodable image

    def match(self, data: bytes) -> str | None:
        """Why ``data`` (an image from its signature on) is a credentialed image, or None."""
        if hashlib.sha256(data).hexdigest() in self.sha256:
            return "its bytes are a credentialed image"
        image = _decoded(data) if self.phashes else None
        if image is None:
            return None
        import imagehash

        found = imagehash.phash(image, hash_size=PHASH_SIZE)
        distance = min(found - known for known in self.phashes)
        if distance <= PHASH_MAX_DISTANCE:
            return (
                f"its pixels are a near-duplicate of a credentialed "
                f"image (perceptual hash {distance}/1024 bits away)"
            )
        return None


def _decoded(data: bytes):
    """The image ``data`` starts with, decoded (bounded by the one pixel budget), or None."""
    from medvigil.images.imaging import decode_image

    try:
        return decode_image(data, "<cell>")
    except (DataError, OSError):
        return None


def image_signatures(data: bytes) -> list[tuple[int, str]]:
    """(offset, format) of every image signature in ``data``."""
    found = []
    for magic, name in SIGNATURES:
        start = data.find(magic)
        while start != -1:
            found.append((start, name))
            start = data.find(magic, start + 1)
    return sorted(found)


# every base64 or hex run starts with 40 characters of the base64 alphabet: found by bytes.find over
# a translated copy first (C speed), so the regular expressions run only where one may match
_RUN_MARK = bytes(
    b"a"[0] if chr(i).isascii() and (chr(i).isalnum() or chr(i) in "+/_-") else 0
    for i in range(256)
)


def _text_payloads(data: bytes) -> Iterator[tuple[int, str, bytes]]:
    """``(offset, label, decoded bytes)`` of every base64 run in ``data``, then of every hex run."""
    if data.translate(_RUN_MARK).find(b"a" * 40) == -1:
        return
    for match in _BASE64_RUN.finditer(data):
        run = _SPACE.sub(b"", match.group(1))
        if len(run) < _MIN_BASE64:
            continue
        try:
            decoded = base64.b64decode(
                run + b"=" * (-len(run) % 4), altchars=b"-_" if b"-" in run or b"_" in run else None
            )
        except (binascii.Error, ValueError):
            continue
        yield match.start(), "base64 text", decoded
    for match in _HEX_RUN.finditer(data):
        run = _SPACE.sub(b"", match.group(0))
        yield match.start(), "hex text", bytes.fromhex(run[: len(run) // 2 * 2].decode("ascii"))


@dataclass(frozen=True)
class Finding:
    """One thing found in a payload: where (byte offset in the outermost payload) and what."""

    offset: int
    what: str
    why: str | None = None  # credentialed: the reason
    refuse: bool = False  # a reason to refuse by itself (e.g. an archive too large to scan)


@dataclass
class _Budget:
    left: int = MAX_EXPANDED_BYTES

    def take(self, n: int) -> bool:
        self.left -= n
        return self.left >= 0


def scan_payload(
    data: bytes,
    known: CredentialedImages,
    *,
    report_images: bool = True,
    verify_images: bool = True,
) -> list[Finding]:
    """Everything ``data`` carries: images (credentialed or not) at any offset and inside base64
    runs and archives, recursively. ``report_images``: also images that are not credentialed (False
    for image cells). ``verify_images``: a signature is an image only when it decodes as one (its
    few bytes also occur by chance in compressed data); False reports every signature (text files,
    where none belongs)."""
    return list(_scan(data, known, 0, 0, _Budget(), report_images, verify_images))


def _scan(
    data: bytes,
    known: CredentialedImages,
    base: int,
    depth: int,
    budget: _Budget,
    report: bool,
    verify: bool,
) -> Iterator[Finding]:
    whole = known.match(data)
    if whole is not None:
        yield Finding(base, "an image", whole)
        return
    yield from _signature_findings(data, known, base, report, verify)
    if depth < MAX_DEPTH:
        yield from _nested_findings(data, known, base, depth, budget, verify)


def _signature_findings(
    data: bytes, known: CredentialedImages, base: int, report: bool, verify: bool
) -> Iterator[Finding]:
    """The images whose signatures occur in ``data`` itself (not inside an encoding)."""
    signatures = image_signatures(data)
    if len(signatures) > MAX_IMAGES_PER_PAYLOAD:  # decoys in front of an image must not exhaust it
        yield Finding(
            base,
            f"{len(signatures)} image signatures (more than {MAX_IMAGES_PER_PAYLOAD} "
            f"are not checked one by one)",
            refuse=True,
        )
        return
    for offset, fmt in signatures:
        # DICM follows a 128-byte preamble
        start = offset - 128 if fmt == "DICOM" and offset >= 128 else offset
        why = _contained_match(data, start, known)
        if why is not None or (
            report and (not verify or (fmt != "DICOM" and _decoded(data[start:]) is not None))
        ):
            yield Finding(base + start, f"{fmt} image", why)


def _nested_findings(
    data: bytes,
    known: CredentialedImages,
    base: int,
    depth: int,
    budget: _Budget,
    verify: bool,
) -> Iterator[Finding]:
    """The images inside ``data``'s text encodings (base64 runs ...) and archives, one level down
    (and recursively from there), within the expansion ``budget``."""
    for offset, label, payload in _text_payloads(data):
        if not budget.take(len(payload)):
            yield Finding(
                base + offset,
                f"{label} expanding beyond the {MAX_EXPANDED_BYTES:,}-byte scan limit",
                refuse=True,
            )
            return
        for inner in _scan(payload, known, base + offset, depth + 1, budget, True, verify):
            yield Finding(
                inner.offset, f"{label} decoding to {inner.what}", inner.why, refuse=inner.refuse
            )
    for offset, kind, members in _archives(data, budget):
        if members is None:
            yield Finding(
                base + offset,
                f"{kind} archive expanding beyond the {MAX_EXPANDED_BYTES:,}-byte scan limit",
                refuse=True,
            )
            return
        for member in members:
            for inner in _scan(member, known, base + offset, depth + 1, budget, True, verify):
                yield Finding(
                    inner.offset,
                    f"{kind} archive holding {inner.what}",
                    inner.why,
                    refuse=inner.refuse,
                )


def _contained_match(data: bytes, start: int, known: CredentialedImages) -> str | None:
    """Whether the image at ``start`` is credentialed: its bytes up to the end of ``data`` or up to
    any of its possible ends (a JPEG end-of-image marker, a PNG ``IEND`` chunk), so bytes before
    or after it do not hide it; then its pixels (:meth:`CredentialedImages.match`)."""
    ends = _image_ends(data, start)
    if len(ends) > MAX_END_CANDIDATES:
        return f"it cannot be checked: more than {MAX_END_CANDIDATES} possible image ends follow it"
    for end in ends:
        if hashlib.sha256(data[start:end]).hexdigest() in known.sha256:
            return "its bytes are a credentialed image"
    return known.match(data[start:]) if start else None


_ENDS = ((b"\xff\xd9", 2), (b"IEND\xaeB`\x82", 8))
MAX_END_CANDIDATES = 256


def _image_ends(data: bytes, start: int) -> list[int]:
    ends = []
    for marker, length in _ENDS:
        at = data.find(marker, start)
        while at != -1 and len(ends) <= MAX_END_CANDIDATES:
            if at + length < len(data):
                ends.append(at + length)
            at = data.find(marker, at + 1)
    return ends


def _archives(data: bytes, budget: _Budget) -> Iterator[tuple[int, str, list[bytes] | None]]:
    """(offset, kind, member contents) of every readable zip or gzip archive in ``data``;
    members None when they would exceed the budget."""
    for magic, kind in ARCHIVES:
        start = data.find(magic)
        while start != -1:
            members = (
                _zip_members(data[start:], budget)
                if kind == "zip"
                else _stream_member(kind, data[start:], budget)
            )
            if members is not False:
                yield start, kind, members
            if members is None:
                return
            start = data.find(magic, start + 1)


def _zip_members(data: bytes, budget: _Budget) -> list[bytes] | None | bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
            if not budget.take(sum(i.file_size for i in infos)):
                return None
            out = []
            for info in infos:
                with archive.open(
                    info
                ) as member:  # file_size is declared: read one byte more to check it
                    content = member.read(info.file_size + 1)
                if len(content) > info.file_size:
                    return None
                out.append(content)
            return out
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, NotImplementedError):
        return False


def _stream_member(kind: str, data: bytes, budget: _Budget) -> list[bytes] | None | bool:
    """The content of a gzip, bzip2 or xz stream at the start of ``data``, read no further than the
    budget."""
    import bz2
    import lzma

    inflate = {
        "gzip": lambda: zlib.decompressobj(16 + zlib.MAX_WBITS),
        "bzip2": bz2.BZ2Decompressor,
        "xz": lzma.LZMADecompressor,
    }[kind]()
    try:
        content = inflate.decompress(data, max(budget.left, 0) + 1)
    except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
        return False
    if not budget.take(len(content)):
        return None
    return [content] if content else False


def credentialed_images(
    recorded_sha256: Iterable[str],
    folders: Iterable[Path | str],
    read_dicom: Callable[[Path], Any] | None = None,
) -> CredentialedImages:
    """The checksums ``recorded_sha256`` plus, under ``folders``: the SHA-256 of every regular file,
    the checksums every ``RECONSTRUCTION.json`` records, and the perceptual hash of every decodable
    image. ``read_dicom(path)`` is the display image of a DICOM file, None for any other file (the
    CLI passes the one of ``reconstruct/``; the core never imports it); it is required when folders
    are given."""
    known = CredentialedImages({str(h).lower() for h in recorded_sha256})
    folders = [Path(f) for f in folders]
    if folders and read_dicom is None:
        raise ValueError(
            "credentialed folders need read_dicom: their DICOM files are compared by their pixels"
        )
    for folder in folders:
        if not folder.is_dir():
            raise NotADirectoryError(f"--credentialed {folder} is not a folder")
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            known.sha256.add(file_sha256(path))
            if path.name == "RECONSTRUCTION.json":
                known.sha256 |= _recorded_checksums(path)
                continue
            known.phashes += _file_phashes(path, read_dicom)
    return known


def _file_phashes(path: Path, read_dicom: Callable[[Path], Any]) -> list:
    """Perceptual hashes of the image file ``path`` as it is and mirrored left-right (a re-derived
    copy may be flipped, as the release's lr_flip probes are); none when it is no image."""
    import imagehash
    from PIL import ImageOps

    image = read_dicom(path)
    if image is None:
        with open(path, "rb") as handle:
            signatures = image_signatures(handle.read(16))
        if not signatures or signatures[0][0] != 0:
            return []
        image = _decoded(
            read_bytes(path, str(path))
        )  # bounded like every input (MEDVIGIL_MAX_INPUT_BYTES)
        if image is None:
            return []
    return [
        imagehash.phash(image, hash_size=PHASH_SIZE),
        imagehash.phash(ImageOps.mirror(image), hash_size=PHASH_SIZE),
    ]


def _recorded_checksums(path: Path) -> set[str]:
    try:
        manifest = json.loads(read_bytes(path))
    except (ValueError, DataError):
        return set()
    out = set()
    for case in manifest.get("cases", []) if isinstance(manifest, dict) else []:
        if isinstance(case, dict):
            out.update(str(v) for v in (case.get("files") or {}).values())
            out.add(str(case.get("source_sha256")))
    return out
