"""Report primitives every suite's tables and figures use: a table that renders as Markdown and
HTML, number formatting, and matplotlib (Agg) figures as byte-stable PNGs."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        note = f"<p class='note'>{html.escape(self.note)}</p>" if self.note else ""
        return f"<h3>{html.escape(self.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def fmt(value: Any, signed: bool = False) -> str:
    """One decimal, '—' for missing/NaN; ``signed`` adds '+' (VGR is a signed contrast)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def fmt_ci(point: Any, ci: Mapping[str, Any] | None) -> str:
    if not ci:
        return fmt(point)
    return f"{fmt(point)} [{fmt(ci.get('low'))}, {fmt(ci.get('high'))}]"


def pyplot():
    """matplotlib's pyplot on the Agg backend (imported only when figures are drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png(fig) -> bytes:
    """The figure as PNG bytes (no timestamp or software tag, so reruns are byte-identical); closes it."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    pyplot().close(fig)
    return buf.getvalue()
