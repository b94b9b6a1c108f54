"""``medvigil.report.png`` draws a figure once and crops it: the image must be savefig's
``bbox_inches="tight"`` image (same size, same picture up to half a pixel of placement)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from medvigil.report.render import PNG_DPI, png, pyplot


def _figure(legend_anchor: tuple[float, float]):
    fig, ax = pyplot().subplots(figsize=(4, 3))
    for k in range(3):
        ax.plot([0, 1, 2], [k, k + 1, k * 2], marker="o", label=f"model {k}")
    ax.set_xticks([0, 1, 2], ["a long tick label", "b", "c"], rotation=40, ha="right")
    ax.set_title("a title")
    ax.legend(loc="upper center", bbox_to_anchor=legend_anchor)
    return fig


def _tight(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PNG_DPI, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"), dtype=int)


def test_png_is_the_tight_image_up_to_subpixel_placement():
    ours, theirs = _pixels(png(_figure((0.5, -0.3)))), _pixels(_tight(_figure((0.5, -0.3))))
    assert ours.shape == theirs.shape  # the legend below the axes widens the box past the figure
    assert np.abs(ours - theirs).mean() < 3  # anti-aliasing and text snapped half a pixel apart


def test_artists_past_the_margin_get_savefigs_exact_image():
    assert png(_figure((0.5, -4.0))) == _tight(_figure((0.5, -4.0)))  # a legend 12 inches below: drawn again


def test_png_is_deterministic():
    assert png(_figure((0.5, -0.3))) == png(_figure((0.5, -0.3)))
