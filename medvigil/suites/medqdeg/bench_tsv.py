"""MedQ-DEG-Bench TSVs (the authors' release, read by VLMEvalKit's ``MedQDEGBenchDataset``): read
strictly and streamed, one row at a time, so a file of tens of thousands of base64 images is read in
bounded memory.

The format (VLMEvalKit's TSV convention; files ``MedQ-Robust-{good,simulate}-{dev,test}.tsv`` of the
Hub dataset ``jiyaoliufd/MedQ-DEG-Bench``): a header line, then one tab-separated row per question
with the columns :data:`KNOWN_COLUMNS` -- ``index``, ``image`` (the image file, base64),
``question``, the options ``A``-``E`` (trailing ones empty when a question has fewer), ``answer`` (a
letter), ``modality``, ``degradation_type``, ``degradation_severity``, ``source`` -- and any further
columns, which are kept. As in VLMEvalKit, an ``image`` of at most 64 characters names the ``index``
of another row of the file whose image it shares.

Refused, each problem naming the file, the row (1-based, header excluded), its ``index`` and the
field: a missing known column, a row with another number of fields than the header, an empty or
repeated ``index``, an empty ``question`` or ``answer``, an answer that is not a letter A-E or whose
option is empty, an empty option before a filled one, fewer than two options, an image that is not
base64 of an image file (or a reference to no row's image), and a ``degradation_severity`` outside
:data:`SEVERITY_NAMES` (empty is L0 in a ``good`` file only).

**Pairing clean and degraded rows** (:func:`content_key`): the release holds no column linking a
degraded row to its clean original, and a degraded row's image differs from it, so the pairing key
is the question's text: its ``question``, options, ``answer``, ``modality`` and ``source``
(stripped), hashed. A ``simulate_<split>`` row is paired with the ``good_<split>`` row of the same
key when exactly one ``good_<split>`` row has it; templated questions asked of several clean images
(``Which modality is this?``) share a key and are left unpaired and counted.
"""

import base64
import binascii
import csv
import hashlib
import io
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular

OPTION_LETTERS = ("A", "B", "C", "D", "E")
META_COLUMNS = ("modality", "degradation_type", "degradation_severity", "source")
KNOWN_COLUMNS = ("index", "image", "question", *OPTION_LETTERS, "answer", *META_COLUMNS)
IMAGE_REFERENCE_MAX = 64  # VLMEvalKit: an image field this short names another row's index
# degradation_severity spellings (case-insensitive) and the level each is (seed 002: L0 clean, L1,
# L2)
SEVERITY_NAMES = {
    **dict.fromkeys(("0", "0.0", "l0", "none", "clean", "good", "original", "reference"), 0),
    **dict.fromkeys(("1", "1.0", "l1", "mild", "moderate"), 1),
    **dict.fromkeys(("2", "2.0", "l2", "severe"), 2),
}
KINDS = ("good", "simulate")  # the clean and the degraded files
MAX_PROBLEMS = 200  # a file with more problems reports the first ones and the count


def config_name(path: Path) -> str:
    """The config of one TSV: its stem lowered, without ``MedQ-Robust-`` / ``MedQDEGBench_``, in
    ``[a-z0-9_]`` (``MedQ-Robust-simulate-test.tsv`` -> ``simulate_test``)."""
    name = re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_")
    for prefix in ("medq_robust_", "medqdegbench_", "medq_deg_bench_"):
        name = name.removeprefix(prefix)
    if not name:
        raise ValueError(f"{path}: no config name can be made from the file name")
    return name


def kind_of(config: str) -> str | None:
    """``good`` (clean), ``simulate`` (degraded) or None, from the config name's first word."""
    head = config.split("_", 1)[0]
    return head if head in KINDS else None


def split_of(config: str) -> str:
    """What pairs a ``good_<x>`` config with ``simulate_<x>``: ``x`` (the config itself without a
    kind)."""
    return config.split("_", 1)[1] if kind_of(config) and "_" in config else config


def severity_level(value: str | None, kind: str | None) -> int | None:
    """The level of a ``degradation_severity`` cell (None: not a known spelling); empty is L0 in a
    good file."""
    text = (value or "").strip().lower()
    if not text:
        return 0 if kind == "good" else None
    return SEVERITY_NAMES.get(text)


def content_key(row: dict) -> str:
    """The pairing key of a row: SHA-256 (16 hex digits) of its stripped question, options, answer,
    modality and source."""
    parts = [
        row.get(c) or "" for c in ("question", *OPTION_LETTERS, "answer", "modality", "source")
    ]
    text = json.dumps([p.strip() for p in parts], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def options_of(row: dict) -> list[str]:
    """The filled options, A first (a checked row has no gap)."""
    return [row[c] for c in OPTION_LETTERS if (row.get(c) or "").strip()]


def _lines(handle, state: dict) -> Iterator[str]:
    """The file's lines as text for the csv reader, noting the byte offset where each row starts."""
    offset = 0
    for raw in handle:
        if state["fresh"]:
            state["start"], state["fresh"] = offset, False
        offset += len(raw)
        state["line"] += 1
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(
                Problem(state["file"], f"line {state['line']} is not UTF-8 text")
            ) from None


def raw_rows(path: Path, start: int = 0) -> Iterator[tuple[int, int, list[str]]]:
    """``(row number, byte offset, fields)`` of every row from byte ``start`` (0: the header is row
    0)."""
    csv.field_size_limit(sys.maxsize)  # base64 images are far longer than csv's 128 KiB default
    with open_regular(path, max_bytes=0) as handle:  # streamed: no size limit
        handle.seek(start)
        state = {"fresh": True, "start": start, "line": 0, "file": str(path)}
        reader = csv.reader(_lines(handle, state), delimiter="\t", quotechar='"', strict=True)
        number = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise DataError(Problem(str(path), f"line {state['line']}: {exc}")) from None
            state["fresh"] = True
            if not fields:
                continue  # a blank line
            yield number, state["start"], fields
            number += 1


def decode_image(text: str) -> bytes | None:
    """The image file in a base64 cell, or None when it is not base64 of an image PIL can
    identify."""
    from PIL import Image, UnidentifiedImageError

    try:
        data = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.size  # noqa: B018 - identifying the header is the check
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    return data


@dataclass
class TsvFile:
    """One checked TSV: its config, header, row count and where each row with a full image
    starts."""

    path: Path
    config: str
    header: list[str]
    n_rows: int = 0
    image_offsets: dict[str, int] = field(default_factory=dict)  # index -> byte offset of its row
    references: dict[str, str] = field(default_factory=dict)  # index -> index whose image it shows
    keys: list[str] = field(default_factory=list)  # content_key of every row, in order

    @property
    def kind(self) -> str | None:
        return kind_of(self.config)


def _row_problems(row: dict, kind: str | None) -> list[tuple[str, str]]:
    """``(field, message)`` of every problem of one row's text cells (the image is checked
    apart)."""
    out = []
    for name in ("index", "question", "answer"):
        if not (row[name] or "").strip():
            out.append((name, f"{name} is empty"))
    filled = [bool((row[c] or "").strip()) for c in OPTION_LETTERS]
    if sum(filled) < 2:
        out.append(("A", "fewer than two options are filled"))
    elif not all(filled[: sum(filled)]):
        gap = OPTION_LETTERS[filled.index(False)]
        out.append((gap, f"option {gap} is empty but a later option is filled"))
    answer = (row["answer"] or "").strip().upper()
    if answer and answer not in OPTION_LETTERS:
        out.append(("answer", f"answer {row['answer']!r} is not a letter A-E"))
    elif answer and not filled[OPTION_LETTERS.index(answer)]:
        out.append(("answer", f"answer {answer} names an empty option"))
    if severity_level(row["degradation_severity"], kind) is None:
        names = ", ".join(sorted(SEVERITY_NAMES))
        out.append(
            (
                "degradation_severity",
                f"degradation_severity {row['degradation_severity']!r} is not one of {names}"
                + ("" if kind == "good" else " (empty only in a good file)"),
            )
        )
    return out


def check_tsv(path: Path | str) -> TsvFile:
    """Read ``path`` once, checking every row; a :class:`DataError` lists every problem (up to
    :data:`MAX_PROBLEMS`). The returned :class:`TsvFile` is what :func:`iter_rows` streams from."""
    path = Path(path)
    name, problems, seen = str(path), [], set()
    rows = raw_rows(path)
    header = next(rows, (0, 0, None))[2]
    if not header:
        raise DataError(Problem(name, "the file is empty (no header line)"))
    missing = [c for c in KNOWN_COLUMNS if c not in header]
    repeated = sorted({c for c in header if header.count(c) > 1})
    if missing or repeated:
        what = (f"missing column(s) {', '.join(missing)}; " if missing else "") + (
            f"repeated column(s) {', '.join(repeated)}" if repeated else ""
        )
        raise DataError(Problem(name, f"header: {what.strip('; ')}", row=None))
    tsv = TsvFile(path, config_name(path), header)
    for number, offset, fields in rows:
        if len(problems) >= MAX_PROBLEMS:
            problems.append(Problem(name, "more problems not listed", row=number))
            break
        index = fields[header.index("index")] if len(fields) > header.index("index") else None
        where = f"index {index!r}: "
        if len(fields) != len(header):
            msg = f"{where}{len(fields)} fields, the header has {len(header)}"
            problems.append(Problem(name, msg, row=number))
            continue
        row = dict(zip(header, fields))
        problems += [
            Problem(name, where + m, row=number, field=f) for f, m in _row_problems(row, tsv.kind)
        ]
        if index in seen:
            problems.append(Problem(name, f"{where}repeated index", row=number, field="index"))
        seen.add(index)
        image = (row["image"] or "").strip()
        if 0 < len(image) <= IMAGE_REFERENCE_MAX:
            tsv.references[index] = image
        elif decode_image(image) is None:
            msg = f"{where}image is empty or not base64 of an image file"
            problems.append(Problem(name, msg, row=number, field="image"))
        else:
            tsv.image_offsets[index] = offset
        tsv.keys.append(content_key(row))
        tsv.n_rows = number
    for index, target in tsv.references.items():
        if target not in tsv.image_offsets:
            msg = f"index {index!r}: image names index {target!r}, which is no row with an image"
            problems.append(Problem(name, msg, field="image"))
    if problems:
        raise DataError(problems)
    return tsv


def _image_at(tsv: TsvFile, index: str) -> bytes:
    """The image bytes of the row ``index`` (read again from its byte offset)."""
    _, _, fields = next(raw_rows(tsv.path, tsv.image_offsets[index]))
    return base64.b64decode(fields[tsv.header.index("image")].strip(), validate=True)


def iter_rows(tsv: TsvFile) -> Iterator[dict]:
    """The rows of a checked file in order: every column as text (empty cells None), ``image`` as
    ``{"bytes": <the original image file>, "path": None}``."""
    rows = raw_rows(tsv.path)
    next(rows)  # header
    for _number, _offset, fields in rows:
        row = {c: (v if v != "" else None) for c, v in zip(tsv.header, fields)}
        image = (row["image"] or "").strip()
        if len(image) <= IMAGE_REFERENCE_MAX:
            data = _image_at(tsv, image)
        else:
            data = base64.b64decode(image, validate=True)
        row["image"] = {"bytes": data, "path": None}
        yield row
