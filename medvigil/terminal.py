"""What reaches the terminal: input text (model names, labels, file contents quoted in messages) may
hold control characters, and a terminal obeys them (an escape sequence can recolour, retitle or
rewrite the screen). :func:`escaped_output` prints every C0 and C1 control character other than
newline, tab and carriage return (progress bars), and the bidirectional overrides, as visible
escapes (``\\u001b``, ``\\u202e``) on standard output and standard error: one place for every
command (:func:`medvigil.cli.main`). These are JSON's escapes too, so JSON written to standard
output (``--json -``) decodes to the same values."""

import contextlib
import sys
from collections.abc import Iterable, Iterator

_KEPT = "\n\t\r"
_CONTROLS = [c for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in _KEPT]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # embeddings, overrides, isolates
ESCAPES = str.maketrans({c: f"\\u{c:04x}" for c in (*_CONTROLS, *_BIDI)})


class EscapingStream:
    """A text stream that writes through ``stream`` with :data:`ESCAPES` applied."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(ESCAPES))

    def writelines(self, lines: Iterable[str]) -> None:
        self._stream.writelines(line.translate(ESCAPES) for line in lines)

    def __getattr__(self, name: str):  # flush, fileno, isatty, encoding, ...
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaped_output() -> Iterator[None]:
    """Standard output and error escape control characters while the block runs (see the module
    doc)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(sys.stdout), EscapingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
