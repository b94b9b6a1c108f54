"""Report primitives every suite's tables and figures use: a table that renders as Markdown and
HTML, number formatting, and matplotlib (Agg) figures as byte-stable PNGs."""

import html
import io
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, TypeVar

Key = TypeVar("Key")
FigureMaker = Callable[
    [], "bytes | None"
]  # draws one figure: PNG bytes (None: the data cannot show it)

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|<>"})


def md_escape(text: Any) -> str:
    """Text safe inside a Markdown table cell: no raw HTML, links, code spans or cell breaks
    (model names and file names come from user data)."""
    return " ".join(str(text).split("\n")).replace("&", "&amp;").translate(_MD_SPECIAL)


@dataclass(frozen=True)
class Table:
    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    note: str = ""

    def markdown(self) -> str:
        lines = [f"### {md_escape(self.title)}", ""]
        lines.append("| " + " | ".join(md_escape(h) for h in self.headers) + " |")
        lines.append("|" + "|".join("---" for _ in self.headers) + "|")
        lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in self.rows]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines)

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self.rows
        )
        note = f"<p class='note'>{html.escape(self.note)}</p>" if self.note else ""
        # a wide table scrolls inside its box: the page keeps its width
        return (
            f"<h3>{html.escape(self.title)}</h3><div "
            f"class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}"
        )


def fmt(value: Any, signed: bool = False) -> str:
    """One decimal, '—' for missing/NaN; ``signed`` adds '+' (VGR is a signed contrast)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def pct(value: Any, signed: bool = False) -> str:
    """A fraction as a percentage, formatted by :func:`fmt`."""
    return fmt(None if value is None else 100.0 * value, signed=signed)


def fmt_ci(point: Any, ci: Mapping[str, Any] | None) -> str:
    return f"{fmt(point)} [{fmt(ci.get('low'))}, {fmt(ci.get('high'))}]" if ci else fmt(point)


def _subplots(
    nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, **kwargs
):
    from matplotlib import rcParams
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rcParams["text.parse_math"] = (
        False  # labels are model names from user data: "$" is a dollar, never mathtext
    )
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def pyplot() -> SimpleNamespace:
    """The figure maker of the report's figures: ``pyplot().subplots(...)`` as
    ``matplotlib.pyplot.subplots``, on a plain Agg :class:`~matplotlib.figure.Figure` (no pyplot
    import, backend switch or figure manager: PNG only)."""
    return SimpleNamespace(subplots=_subplots)


def draw_figures(makers: Mapping[Key, FigureMaker]) -> dict[Key, bytes]:
    """Every figure drawn, by key in the order of ``makers`` (one whose maker gives None left
    out)."""
    drawn = {key: make() for key, make in makers.items()}
    return {key: data for key, data in drawn.items() if data is not None}


PNG_DPI = 110
PNG_LEVEL = (
    3  # zlib level: plots a fifth larger than at Pillow's default (6) in about 60% of its time
)
_MARGIN_INCHES = (
    2.0  # canvas margin around the figure for what sticks out (labels, outside legends)
)


def _finite(values) -> bool:
    import numpy as np

    try:
        return bool(np.isfinite(np.asarray(values, dtype=float)).any())
    except (TypeError, ValueError):
        return True  # categorical data: something to show


def shows_data(fig) -> bool:
    """Whether any axes of ``fig`` shows a value: a plotted line, a bar or a scatter point at a
    finite value, or an image with a finite pixel (reference lines such as ``axhline`` do not
    count)."""
    import numpy as np
    from matplotlib.patches import Rectangle

    for ax in fig.axes:
        if getattr(ax, "_colorbar", None) is not None:
            continue  # a colorbar shows the scale, not data
        if any(
            line.get_transform() == ax.transData and _finite(line.get_ydata()) for line in ax.lines
        ):
            return True
        if any(
            isinstance(p, Rectangle) and _finite([p.get_height()]) and _finite([p.get_width()])
            for p in ax.patches
        ):
            return True
        if any(len(c.get_offsets()) and _finite(c.get_offsets()) for c in ax.collections):
            return True
        if any(
            _finite(np.ma.masked_invalid(image.get_array()).compressed()) for image in ax.images
        ):
            return True
    return False


def png(fig) -> bytes | None:
    """The figure as PNG bytes, cropped to its artists like ``savefig(bbox_inches="tight")`` (no
    timestamp or software tag: reruns are byte-identical); None when it would be empty
    (:func:`shows_data`, e.g. a partial run).

    It is drawn once, on a canvas a margin larger than the figure, and the tight box is taken from
    that drawing (savefig's "tight" draws twice). The crop lands on whole pixels, up to half a pixel
    off savefig's; when the artists reach past the margin, the figure is drawn again with savefig's
    exact box.
    """
    import numpy as np
    from matplotlib import rcParams
    from matplotlib.transforms import Affine2D, Bbox, TransformedBbox

    if not shows_data(fig):
        return None
    fig.set_dpi(PNG_DPI)  # savefig draws at this dpi; the tight box is measured at it too
    width, height = fig.get_size_inches()
    canvas = Bbox.from_extents(
        -_MARGIN_INCHES, -_MARGIN_INCHES, width + _MARGIN_INCHES, height + _MARGIN_INCHES
    )
    with open(os.devnull, "wb") as discard:  # the pixels stay in the renderer
        fig.savefig(discard, format="rgba", dpi=PNG_DPI, bbox_inches=canvas)
    renderer = (
        fig.canvas.renderer
    )  # the drawing's: its text layouts are cached (a new one would redo them)
    tight = fig.get_tightbbox(renderer).padded(rcParams["savefig.pad_inches"])
    pixels = np.asarray(renderer.buffer_rgba())  # rows x columns x RGBA
    rows, cols = pixels.shape[:2]
    # the image size savefig gives the tight box (through the same transform: rounding included)
    w, h = map(
        int, TransformedBbox(Bbox.from_bounds(0, 0, *tight.size), Affine2D().scale(PNG_DPI)).max
    )
    left = round((tight.x0 + _MARGIN_INCHES) * PNG_DPI)
    top = round(rows - h - (tight.y0 + _MARGIN_INCHES) * PNG_DPI)
    if left >= 0 and top >= 0 and left + w <= cols and top + h <= rows:
        return encode_png(pixels[top : top + h, left : left + w], PNG_DPI)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=PNG_DPI, bbox_inches=tight, metadata={"Software": None})
    return out.getvalue()


def encode_png(pixels, dpi: float, level: int = PNG_LEVEL) -> bytes:
    """8-bit PNG of ``pixels`` (rows x columns x RGBA, uint8) with its dpi and nothing else, by
    Pillow at zlib level ``level``; RGB when every pixel is opaque (a quarter fewer bytes to
    compress)."""
    import numpy as np
    from PIL import Image

    opaque = bool((pixels[..., 3] == 255).all())
    image = Image.fromarray(
        np.ascontiguousarray(pixels[..., :3] if opaque else pixels)
    )  # RGB or RGBA by shape
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=level, dpi=(dpi, dpi))
    return out.getvalue()
