"""medvigil.images.imaging: published form, JPEG encoding, ROI geometry, perturbations, safe
decoding."""

import io
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from medvigil.errors import DataError
from medvigil.images import imaging
from medvigil.suites.medvigil.release.release_format import GREY, LONGEST_SIDE

BOX = [0.2, 0.3, 0.6, 0.7]


def _noise_image(width=64, height=48, seed=0, mode="RGB") -> Image.Image:
    rng = np.random.default_rng(seed)
    shape = (height, width, 3) if mode == "RGB" else (height, width)
    return Image.fromarray(rng.integers(0, 256, size=shape, dtype=np.uint8), mode=mode)


def _arr(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"), dtype=np.int16)


# --------------------------------------------------------------------------- published form


@pytest.mark.parametrize(
    "size, expected",
    [
        ((300, 150), (1024, 512)),
        ((2048, 4096), (512, 1024)),
        ((1000, 3), (1024, 3)),
        ((7, 7), (1024, 1024)),
    ],
)
def test_to_published_keeps_aspect_and_longest_side(size, expected):
    out = imaging.to_published(Image.new("L", size, 90))
    assert out.size == expected
    assert out.mode == "RGB"
    assert max(out.size) == LONGEST_SIDE


@pytest.mark.parametrize("size", [(300, 170), (2000, 1500), (64, 1000)])
def test_to_published_greyscale_shortcut_matches_the_rgb_path(size):
    grey = _noise_image(*size, seed=9, mode="L")
    assert (
        imaging.to_published(grey).tobytes() == imaging.to_published(grey.convert("RGB")).tobytes()
    )


def test_to_published_at_target_size_is_not_resampled():
    src = _noise_image(1024, 700)
    out = imaging.to_published(src)
    assert out is not src
    assert np.array_equal(_arr(out), _arr(src))


@pytest.mark.parametrize("mode", ["L", "RGBA", "P", "I;16", "F"])
def test_to_published_converts_modes_to_rgb(mode):
    img = Image.new(mode, (20, 10))
    assert imaging.to_published(img).mode == "RGB"


def test_to_published_rejects_bad_arguments():
    with pytest.raises(TypeError, match="img"):
        imaging.to_published(np.zeros((4, 4)))


def test_encode_jpeg_is_deterministic_and_labelled():
    img = _noise_image()
    a = imaging.encode_jpeg(img, comment="SYNTHETIC test")
    b = imaging.encode_jpeg(img.copy(), comment="SYNTHETIC test")
    assert a == b and a[:2] == b"\xff\xd8"
    decoded = Image.open(io.BytesIO(a))
    assert decoded.format == "JPEG" and decoded.size == img.size
    assert decoded.info["comment"] == b"SYNTHETIC test"
    assert decoded.getexif()[0x010E] == "SYNTHETIC test"
    assert imaging.encode_jpeg(img) != a  # no comment, different bytes


def test_encode_jpeg_quality_default_is_92():
    img = _noise_image()
    assert imaging.encode_jpeg(img) == imaging.encode_jpeg(img, quality=92)
    assert imaging.encode_jpeg(img) != imaging.encode_jpeg(img, quality=80)


def test_encode_jpeg_rejects_bad_arguments():
    with pytest.raises(ValueError, match="quality.*0"):
        imaging.encode_jpeg(_noise_image(), quality=0)
    with pytest.raises(TypeError, match="quality"):
        imaging.encode_jpeg(_noise_image(), quality="92")
    with pytest.raises(TypeError, match="comment"):
        imaging.encode_jpeg(_noise_image(), comment=b"bytes")


# --------------------------------------------------------------------------- ROI geometry


def test_roi_pixels_rounds_outwards_and_clamps():
    assert imaging.roi_pixels([0.25, 0.1, 0.5, 0.75], (1024, 1000)) == (256, 100, 512, 750)
    assert imaging.roi_pixels([0.1001, 0.0, 0.3333, 1.0], (1000, 10)) == (100, 0, 334, 10)
    # float noise such as 0.3 * 1000 = 300.00000000000006 does not grow the box
    assert imaging.roi_pixels([0.1, 0.1, 0.3, 0.3], (1000, 1000)) == (100, 100, 300, 300)
    # a sliver still covers one pixel
    assert imaging.roi_pixels([0.5, 0.5, 0.5000001, 0.5000001], (10, 10)) == (5, 5, 6, 6)


@settings(max_examples=200, deadline=None)
@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 1),
    st.integers(1, 3000),
    st.integers(1, 3000),
)
def test_roi_pixels_contains_the_normalised_box(a, b, c, d, width, height):
    x0, x1 = sorted((a, c))
    y0, y1 = sorted((b, d))
    if x0 == x1 or y0 == y1:
        return
    px0, py0, px1, py1 = imaging.roi_pixels([x0, y0, x1, y1], (width, height))
    assert 0 <= px0 < px1 <= width and 0 <= py0 < py1 <= height
    assert px0 <= x0 * width + 1e-6 and px1 >= x1 * width - 1e-6
    assert py0 <= y0 * height + 1e-6 and py1 >= y1 * height - 1e-6


@pytest.mark.parametrize(
    "bad, exc",
    [
        ([0.5, 0.2, 0.1, 0.9], ValueError),  # x0 > x1
        ([0.1, 0.2, 0.1, 0.9], ValueError),  # empty
        ([-0.1, 0.2, 0.5, 0.9], ValueError),
        ([0.1, 0.2, 0.5, 1.2], ValueError),
        ([0.1, 0.2, 0.5], ValueError),
        ([0.1, float("nan"), 0.5, 0.9], ValueError),
        ("[0.1, 0.2, 0.5, 0.9]", TypeError),
        (None, TypeError),
        ([0.1, "0.2", 0.5, 0.9], TypeError),
        ([True, 0.2, 0.5, 0.9], TypeError),
    ],
)
def test_bad_bbox_is_rejected_with_parameter_name(bad, exc):
    with pytest.raises(exc, match="bbox_norm"):
        imaging.roi_pixels(bad, (100, 100))
    with pytest.raises(exc, match="bbox"):
        imaging.roi_masked(Image.new("RGB", (10, 10)), bad)


def test_bad_size_is_rejected():
    with pytest.raises(TypeError, match="size"):
        imaging.roi_pixels(BOX, 100)
    with pytest.raises(ValueError, match="size"):
        imaging.roi_pixels(BOX, (0, 10))


@pytest.mark.parametrize(
    "box, usable",
    [
        ([0.1, 0.1, 0.4, 0.5], True),
        ([0.0, 0.0, 1.0, 1.0], False),
        ([0.01, 0.01, 0.99, 0.99], False),  # 98% both ways
        ([0.0, 0.0, 1.0, 0.96], True),  # only one direction >= 97%
        ([0.0, 0.0, 0.97, 0.97], False),
        (None, False),
        ("", False),
        ([], False),
        ([0.5, 0.2, 0.1, 0.9], False),
        ("[0.1, 0.1, 0.4, 0.5]", True),
        ("[0, 0, 1, 1]", False),
        ("not json", False),
    ],
)
def test_roi_usable(box, usable):
    assert imaging.roi_usable(box) is usable


# --------------------------------------------------------------------------- perturbations


def test_perturbations_do_not_modify_their_input():
    img = _noise_image()
    before = img.tobytes()
    imaging.roi_masked(img, BOX)
    imaging.roi_only(img, BOX)
    imaging.roi_decay(img, BOX, 2)
    imaging.lr_flip(img)
    imaging.gaussian_blur(img, 2)
    assert img.tobytes() == before


def test_roi_masked_fills_exactly_the_rectangle():
    img = _noise_image(50, 40)
    out = _arr(imaging.roi_masked(img, BOX))
    x0, y0, x1, y1 = imaging.roi_pixels(BOX, img.size)
    inside = np.zeros(out.shape[:2], dtype=bool)
    inside[y0:y1, x0:x1] = True
    assert (out[inside] == GREY).all()
    assert np.array_equal(out[~inside], _arr(img)[~inside])


def test_roi_only_keeps_the_roi_and_greys_the_rest():
    img = _noise_image(50, 40, seed=3)
    out = _arr(imaging.roi_only(img, BOX))
    x0, y0, x1, y1 = imaging.roi_pixels(BOX, img.size)
    assert np.array_equal(out[y0:y1, x0:x1], _arr(img)[y0:y1, x0:x1])
    outside = np.ones(out.shape[:2], dtype=bool)
    outside[y0:y1, x0:x1] = False
    assert (out[outside] == GREY).all()


def test_roi_decay_zero_is_identity_and_three_is_roi_masked():
    img = _noise_image(60, 61, seed=1)
    assert imaging.roi_decay(img, BOX, 0).tobytes() == img.tobytes()
    assert imaging.roi_decay(img, BOX, 3).tobytes() == imaging.roi_masked(img, BOX).tobytes()


def test_roi_decay_greys_the_top_fraction():
    img = _noise_image(30, 90, seed=2)
    box = [0.0, 0.0, 1.0, 1.0]
    grey_rows = []
    for step in (1, 2):
        out = _arr(imaging.roi_decay(img, box, step))
        assert not np.array_equal(out, _arr(img))
        rows = [(out[r] == GREY).all() for r in range(90)]
        n = sum(rows)
        assert rows[:n] == [True] * n  # a block of rows from the top
        grey_rows.append(n)
    assert grey_rows == [30, 60]


@pytest.mark.parametrize(
    "step, exc", [(4, ValueError), (-1, ValueError), (1.0, TypeError), ("2", TypeError)]
)
def test_roi_decay_rejects_bad_step(step, exc):
    with pytest.raises(exc, match="step"):
        imaging.roi_decay(_noise_image(), BOX, step)


def test_lr_flip_mirrors_and_twice_is_identity():
    img = _noise_image(17, 9, seed=4)
    flipped = imaging.lr_flip(img)
    assert np.array_equal(_arr(flipped), _arr(img)[:, ::-1])
    assert imaging.lr_flip(flipped).tobytes() == img.tobytes()
    with pytest.raises(TypeError, match="img"):
        imaging.lr_flip("image.png")


def test_gaussian_blur_zero_is_identity_and_positive_smooths():
    img = _noise_image(64, 64, seed=5)
    assert imaging.gaussian_blur(img, 0).tobytes() == img.tobytes()
    blurred = _arr(imaging.gaussian_blur(img, 2))
    assert not np.array_equal(blurred, _arr(img))
    assert blurred.std() < _arr(img).std() / 2
    assert abs(blurred.mean() - _arr(img).mean()) < 1.0  # mirror borders preserve the mean
    stronger = _arr(imaging.gaussian_blur(img, 8))
    assert stronger.std() < blurred.std()


def test_gaussian_blur_leaves_a_constant_image_unchanged():
    img = Image.new("RGB", (40, 30), (37, 128, 200))
    assert imaging.gaussian_blur(img, 4).tobytes() == img.tobytes()


@pytest.mark.parametrize(
    "sigma, exc",
    [
        (-1, ValueError),
        (float("inf"), ValueError),
        (float("nan"), ValueError),
        ("2", TypeError),
        (None, TypeError),
    ],
)
def test_gaussian_blur_rejects_bad_sigma(sigma, exc):
    with pytest.raises(exc, match="sigma"):
        imaging.gaussian_blur(_noise_image(), sigma)


def test_render_variant_dispatches_and_validates():
    img = _noise_image()
    assert (
        imaging.render_variant(img, "roi_masked", BOX).tobytes()
        == imaging.roi_masked(img, BOX).tobytes()
    )
    assert (
        imaging.render_variant(img, "roi_only", BOX).tobytes()
        == imaging.roi_only(img, BOX).tobytes()
    )
    assert imaging.render_variant(img, "lr_flip").tobytes() == imaging.lr_flip(img).tobytes()
    with pytest.raises(ValueError, match="variant"):
        imaging.render_variant(img, "blur")
    with pytest.raises(ValueError, match="bbox"):
        imaging.render_variant(img, "roi_only", [0, 0, 1, 1])
    with pytest.raises(TypeError, match="variant"):
        imaging.render_variant(img, 3)


# --------------------------------------------------------------------------- safe decoding


def _png_bytes(width=2, height=2) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buf, format="PNG")
    return buf.getvalue()


def _png_with_declared_size(width: int, height: int) -> bytes:
    """A tiny PNG whose IHDR claims ``width x height`` (a decompression bomb header)."""
    data = bytearray(_png_bytes())
    ihdr = data.index(b"IHDR")
    data[ihdr + 4 : ihdr + 12] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[ihdr : ihdr + 17])) & 0xFFFFFFFF
    data[ihdr + 17 : ihdr + 21] = struct.pack(">I", crc)
    return bytes(data)


def test_safe_open_image_decodes_to_rgb(tmp_path):
    path = tmp_path / "ok.png"
    path.write_bytes(_png_bytes(5, 3))
    img = imaging.safe_open_image(path)
    assert img.mode == "RGB" and img.size == (5, 3) and img.getpixel((0, 0)) == (10, 20, 30)
    assert imaging.safe_open_image(str(path)).tobytes() == img.tobytes()


def test_safe_open_image_rejects_a_decompression_bomb(tmp_path):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_with_declared_size(100_000, 100_000))
    with pytest.raises(ValueError, match="bomb.png") as info:
        imaging.safe_open_image(path)
    assert isinstance(info.value, DataError)
    assert "bomb" in str(info.value)


def test_safe_open_image_honours_max_pixels(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(_png_bytes(20, 20))
    with pytest.raises(ValueError, match=r"big\.png.*400 pixels.*max_pixels=100"):
        imaging.safe_open_image(path, max_pixels=100)
    assert imaging.safe_open_image(path, max_pixels=400).size == (20, 20)
    with pytest.raises(ValueError, match="max_pixels"):
        imaging.safe_open_image(path, max_pixels=0)


def test_safe_open_image_rejects_truncated_jpeg(tmp_path):
    data = imaging.encode_jpeg(_noise_image(64, 64))
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"cut\.jpg.*truncated or corrupt"):
        imaging.safe_open_image(path)


def test_safe_open_image_rejects_non_image_bytes(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_bytes(b"case_id,question\nMVB-0001,what?\n")
    with pytest.raises(ValueError, match=r"notes\.jpg.*not a recognised image"):
        imaging.safe_open_image(path)


def test_safe_open_image_missing_file_and_bad_path_type(tmp_path):
    with pytest.raises(FileNotFoundError):
        imaging.safe_open_image(tmp_path / "absent.jpg")
    with pytest.raises(TypeError, match="path"):
        imaging.safe_open_image(b"bytes are not a path")


def test_decode_image_names_its_source():
    assert imaging.decode_image(_png_bytes(), name="row 3").size == (2, 2)
    with pytest.raises(ValueError, match="row 3"):
        imaging.decode_image(b"\x00\x01garbage", name="row 3")
    with pytest.raises(TypeError, match="data"):
        imaging.decode_image("text")


def test_docstring_examples_run():
    import doctest

    from medvigil.images import image_arguments

    result = doctest.testmod(imaging, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0
    result = doctest.testmod(image_arguments, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 1 and result.failed == 0


def test_image_cache_renders_once_and_evicts_least_recently_used():
    cache = imaging.ImageCache(maxsize=2)
    made = []

    def maker(key):
        return lambda: made.append(key) or f"img-{key}"

    assert [cache.get(k, maker(k)) for k in ("a", "b", "a", "c", "b")] == [
        "img-a",
        "img-b",
        "img-a",
        "img-c",
        "img-b",
    ]
    assert made == [
        "a",
        "b",
        "c",
        "b",
    ]  # one hit ("a"); "b" was least recently used when "c" came in
    with pytest.raises(ValueError, match="maxsize"):
        imaging.ImageCache(maxsize=0)
