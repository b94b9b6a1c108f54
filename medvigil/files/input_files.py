"""Open input files safely: regular files only, bounded reads, decoding errors with a location.

Every reader of user data opens its file here, so that a symbolic link to ``/dev/zero``, a FIFO, a
socket or a device is refused before anything is read (``O_NONBLOCK``: a FIFO never blocks the
open; ``fstat`` of the opened descriptor decides, so the file cannot be swapped in between); a file
over :func:`max_input_bytes` (1 GiB, or ``MEDVIGIL_MAX_INPUT_BYTES``) is refused instead of filling
memory; and bytes that are not UTF-8 or JSON that is not strict (``NaN``, ``Infinity``, nesting too
deep) are a :class:`~medvigil.errors.DataError` naming file and line. A missing file still raises
:class:`FileNotFoundError` (the CLI prints it).

While a command runs (:func:`recording_reads`, opened by :func:`medvigil.cli.main`), every file
opened here is recorded (:func:`note_read` for what another library reads, such as a ``datasets``
folder), so the output guard refuses to write over any file the command read, declared or found next
to one (:func:`medvigil.files.output_guard.refuse_overlap`).
"""

import contextlib
import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from medvigil.errors import DataError, Problem

MAX_INPUT_BYTES = 1 << 30
LIMIT_VARIABLE = "MEDVIGIL_MAX_INPUT_BYTES"

TOTAL_FACTOR = 4  # a bounded command reads at most 4 x the per-file limit in all (4 GiB)

_read: set[str] | None = None  # real paths read while a command runs (None: not recording)
_total: list[int] | None = None  # [bytes read so far, limit] of a bounded command (None: no bound)


@contextlib.contextmanager
def recording_reads(bounded: bool = False) -> Iterator[None]:
    """Record every path read while the block runs (:func:`paths_read`); one command's lifetime.
    ``bounded``: the command's files together may hold at most :data:`TOTAL_FACTOR` times
    :func:`max_input_bytes` (``score``, ``compare``, ``judge`` and ``report`` hold what they read in
    memory; a limit of 0 lifts both bounds)."""
    global _read, _total
    total = (
        [0, TOTAL_FACTOR * max_input_bytes()] if bounded else None
    )  # may raise: before any change
    saved = _read, _total
    _read, _total = set(), total
    try:
        yield
    finally:
        _read, _total = saved


def _count(name: str, path: Path, size: int) -> None:
    """Add a file's bytes to a bounded command's total (each file once); refuse past the bound."""
    if _total is None or not _total[1] or os.path.realpath(path) in (_read or ()):
        return
    _total[0] += size
    if _total[0] > _total[1]:
        raise DataError(
            Problem(
                name,
                f"the command's input files reach {_total[0]:,} bytes with this one, more than "
                f"its {_total[1]:,}-byte bound ({TOTAL_FACTOR} x the input limit; set "
                "MEDVIGIL_MAX_INPUT_BYTES to raise it)",
            )
        )


def note_read(path: str | os.PathLike) -> None:
    """Record ``path`` (a file or a folder another library reads) as read by the running command."""
    if _read is not None:
        _read.add(os.path.realpath(path))


def paths_read() -> frozenset[str]:
    """The real paths read so far by the running command (empty outside :func:`recording_reads`)."""
    return frozenset(_read or ())


def max_input_bytes() -> int:
    """The input size limit: ``MEDVIGIL_MAX_INPUT_BYTES`` (a whole number of bytes such as
    ``1000000000`` or ``1e9``; ``0`` = none) or :data:`MAX_INPUT_BYTES`."""
    text = os.environ.get(LIMIT_VARIABLE)
    if text is None:
        return MAX_INPUT_BYTES
    try:
        value = float(text.strip())
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0 and value.is_integer() and value < 2**63):
        raise DataError(
            Problem(
                LIMIT_VARIABLE,
                f"expected a whole number of bytes >= 0 such as 1000000000 or 1e9, "
                f"got {text[:40]!r}",
                field="environment variable",
            )
        )
    return int(value)


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _label(path: Path, label: str | None) -> str:
    return label if label is not None else str(path)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


@contextlib.contextmanager
def open_regular(
    path: str | os.PathLike,
    label: str | None = None,
    *,
    max_bytes: int | None = None,
    buffer_size: int = -1,
) -> Iterator[IO[bytes]]:
    """Open ``path`` for binary reading (``buffer_size``: the reading buffer, -1 the default) after
    proving (on the open descriptor) it is a regular file of at most ``max_bytes`` (default
    :func:`max_input_bytes`; ``0`` = no size limit)."""
    path = Path(path)
    name = _label(path, label)
    limit = max_input_bytes() if max_bytes is None else max_bytes
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except IsADirectoryError:
        raise DataError(Problem(name, "is a folder, expected a regular file")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            via = (
                f" (through the symbolic link to {os.path.realpath(path)})"
                if path.is_symlink()
                else ""
            )
            raise DataError(
                Problem(
                    name, f"is {_kind(info.st_mode)}{via}, not a regular file; refusing to read it"
                )
            )
        if limit and info.st_size > limit:
            raise DataError(
                Problem(
                    name,
                    f"is {info.st_size:,} bytes, more than the {limit:,}-byte input limit "
                    "(set MEDVIGIL_MAX_INPUT_BYTES to raise it)",
                )
            )
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        _count(name, path, info.st_size)
        note_read(path)
        handle = os.fdopen(fd, "rb", buffer_size)
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_bytes(
    path: str | os.PathLike, label: str | None = None, *, max_bytes: int | None = None
) -> bytes:
    """All bytes of a regular file, refusing special files and files over the limit (see module
    doc)."""
    limit = max_input_bytes() if max_bytes is None else max_bytes
    with open_regular(path, label, max_bytes=limit) as handle:
        size = os.fstat(
            handle.fileno()
        ).st_size  # a buffer of this size: one of the limit's size costs page faults
        data = handle.read(size + 1)
        if len(data) > size:  # it grew while we read it: the rest, up to the limit
            data += handle.read(limit + 1 - len(data)) if limit else handle.read()
    if limit and len(data) > limit:  # grew while we read it
        raise DataError(
            Problem(_label(Path(path), label), f"is more than the {limit:,}-byte input limit")
        )
    return data


def decode_utf8(data: bytes, label: str) -> str:
    """``data`` as UTF-8; undecodable bytes raise a DataError naming the line and byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            Problem(
                label,
                f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start} "
                f"(line {line})",
                row=line,
            )
        ) from None


def read_text(
    path: str | os.PathLike, label: str | None = None, *, max_bytes: int | None = None
) -> str:
    """A regular file's text, strictly UTF-8 (a leading BOM is dropped)."""
    data = read_bytes(path, label, max_bytes=max_bytes)
    return decode_utf8(data.removeprefix(b"\xef\xbb\xbf"), _label(Path(path), label))


class RepeatedKey(Exception):
    """A JSON object holds one key twice (``json.loads`` alone would keep the last value)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key

    def problem(self, label: str, row: int | None) -> Problem:
        return Problem(
            label, f"key {self.key!r} appears twice in one JSON object", row=row, field=self.key
        )


def no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict:
    """``object_pairs_hook`` refusing an object with a repeated key (:class:`RepeatedKey`)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


MAX_INT_DIGITS = (
    308  # an integer must fit a float (about 1.8e308): counts and scores are summed as floats
)


def bounded_int(text: str) -> int:
    """``int(text)``, refused past :data:`MAX_INT_DIGITS` digits (``parse_int`` of our JSON
    decoders)."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(
            f"the integer {text[:12]}... has {len(text.lstrip('-'))} digits, more than a number "
            f"can hold here ({MAX_INT_DIGITS})"
        )
    return int(text)


def non_finite_field(value: Any, path: str = "") -> str | None:
    """The field (dotted, list indices in brackets) of the first ``NaN``/``Infinity`` in a decoded
    JSON value, None when every number is finite: for readers that take them while decoding and
    must refuse them naming the field."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "(the value)")
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        inner = f"{path}[{key}]" if isinstance(value, list) else f"{path}.{key}" if path else key
        found = non_finite_field(item, inner)
        if found is not None:
            return found
    return None


def loads_json(
    text: str, label: str, row: int | None = None, *, allow_non_finite: bool = False, **kwargs: Any
) -> Any:
    """Strict ``json.loads``: ``NaN``/``Infinity`` and runaway nesting are DataErrors naming
    ``label`` and the line (``row`` for one line of a JSONL file).

    ``allow_non_finite``: accept ``NaN``/``Infinity`` (lmms-eval writes them in its logs, e.g.
    a stderr it could not compute); the reader must then check the numbers it uses."""
    try:
        if allow_non_finite:
            return json.loads(text, parse_int=bounded_int, **kwargs)
        return json.loads(text, parse_constant=_no_constant, parse_int=bounded_int, **kwargs)
    except json.JSONDecodeError as exc:
        where = row if row is not None else exc.lineno
        column = f", column {exc.colno}"
        raise DataError(
            Problem(label, f"not valid JSON: {exc.msg} (line {where}{column})", row=where)
        ) from None
    except ValueError as exc:  # from _no_constant or bounded_int
        raise DataError(Problem(label, f"not valid JSON: {exc}", row=row)) from None
    except RecursionError:
        raise DataError(Problem(label, "JSON nested too deeply to read", row=row)) from None
    except RepeatedKey as exc:  # from object_pairs_hook=no_repeated_keys
        raise DataError(exc.problem(label, row)) from None


def read_json(path: str | os.PathLike, label: str | None = None, **kwargs: Any) -> Any:
    """Strict JSON of a regular, bounded, UTF-8 file (see :func:`loads_json`)."""
    name = _label(Path(path), label)
    return loads_json(read_text(path, name), name, **kwargs)
