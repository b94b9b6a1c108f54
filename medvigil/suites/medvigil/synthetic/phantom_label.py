"""The "SYNTHETIC" label every phantom carries in its top-left corner: a 5x7 pixel font, grey
:data:`LABEL_LEVEL`, within the top :data:`LABEL_BAND` of the rows."""

import numpy as np

LABEL_TEXT = "SYNTHETIC"
LABEL_LEVEL = 215
LABEL_BAND = 0.07  # the corner label lies within the top 7% of the image rows

_GLYPHS = {
    "S": (".###.", "#...#", "#....", ".###.", "....#", "#...#", ".###."),
    "Y": ("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."),
    "N": ("#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "H": ("#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "I": (".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "C": (".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."),
}


def label_mask(text: str, scale: int) -> np.ndarray:
    """Boolean bitmap of ``text`` in a 5x7 font (1 px spacing), each font pixel ``scale`` px."""
    cols = []
    for i, ch in enumerate(text):
        glyph = np.array([[c == "#" for c in row] for row in _GLYPHS[ch]], dtype=bool)
        if i:
            cols.append(np.zeros((7, 1), dtype=bool))
        cols.append(glyph)
    bitmap = np.concatenate(cols, axis=1)
    return np.repeat(np.repeat(bitmap, scale, axis=0), scale, axis=1)


def image_label_mask(width: int, height: int) -> np.ndarray:
    """The label's bitmap at the scale of a ``width`` x ``height`` image."""
    return label_mask(LABEL_TEXT, max(2, round(min(width, height) / 170)))


def label_box(width: int, height: int) -> tuple[int, int, int, int]:
    """Pixel rectangle ``(x0, y0, x1, y1)`` of the corner label in a native image."""
    mask = image_label_mask(width, height)
    x0, y0 = round(0.02 * width), round(0.012 * height)
    if y0 + mask.shape[0] > LABEL_BAND * height:
        raise ValueError(f"image {width}x{height} is too flat for the corner label")
    return x0, y0, x0 + mask.shape[1], y0 + mask.shape[0]
