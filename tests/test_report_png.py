"""``medvigil.report.png`` draws a figure once and crops it: the image must be savefig's
``bbox_inches="tight"`` image (same size, same picture up to half a pixel of placement), in a PNG
of our own encoding; ``draw_figures`` draws in worker processes what it would draw here."""

import io

import numpy as np
import pytest
from PIL import Image

from medvigil.report.render import PNG_DPI, draw_figures, encode_png, png, pyplot


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
    assert png(_figure((0.5, -4.0))) == _tight(
        _figure((0.5, -4.0))
    )  # a legend 12 inches below: drawn again


def test_png_is_deterministic():
    assert png(_figure((0.5, -0.3))) == png(_figure((0.5, -0.3)))


@pytest.mark.parametrize("alpha", [255, 7])
def test_encoded_png_reads_back_with_its_dpi(alpha):
    rgba = np.random.default_rng(0).integers(0, 256, (7, 5, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    rgba[3, 2, 3] = alpha
    image = Image.open(io.BytesIO(encode_png(rgba, PNG_DPI)))
    assert image.mode == ("RGB" if alpha == 255 else "RGBA")  # RGB when nothing is transparent
    assert np.array_equal(np.asarray(image.convert("RGBA")), rgba)
    assert image.info["dpi"] == pytest.approx((PNG_DPI, PNG_DPI), abs=0.01)


def _failing() -> bytes:
    raise KeyError("ci")


def test_draw_figures_in_order():
    makers = {
        "a": lambda: png(_figure((0.5, -0.3))),
        "none": lambda: None,
        "b": lambda: png(_figure((0.5, 1.2))),
    }
    drawn = draw_figures(makers)
    assert list(drawn) == ["a", "b"]  # in order; a figure the data cannot show is left out
    assert drawn["a"] == png(_figure((0.5, -0.3))) and drawn["b"] == png(_figure((0.5, 1.2)))
    with pytest.raises(KeyError, match="ci"):
        draw_figures({**makers, "broken": _failing})
