"""Procedural phantoms: chest radiographs and axial head CT/MRI slices with known lesions (not
clinical data).

Drawn with numpy from a :class:`.phantom_scene.Scene` and a seeded generator at native size,
8-bit greyscale; the **patient's right is on the image left** (x < 0.5), head slices anterior at
the top. A pixel heuristic can rely on:

* mirror-symmetric anatomy (shapes of ``|x - 0.5|``): the ROI against its mirror box ``[1 - x1, y0,
  1 - x0, y1]`` isolates the lesion, the organ's halves give its side;
* lesion ROI means differing from the mirror box's by >= 17 grey levels with the sign of
  :data:`.phantom_scene.BRIGHT` (:data:`.phantom_scene.LESION_LEVELS`; normal lung about 55, brain
  92 on CT and 104 on MRI);
* noise: integer triangular in [-4, 4] plus texture of at most +-6 inside organs, so a masked ROI's
  flat 128 is no anatomy;
* ROI boxes bounding every changed pixel, widened by :data:`.phantom_scene.ROI_MARGIN_PX` (Lanczos
  and JPEG bleed), rounded outwards to 4 decimals;
* the "SYNTHETIC" label (grey 215) in the top :data:`.phantom_label.LABEL_BAND` (7%) of rows: skip
  them when comparing halves.

Only IEEE-exact arithmetic (+, -, *, /, sqrt) and integer random draws: pixels do not depend on
platform libm. What to draw: :mod:`.phantom_scene`; the anatomies: :mod:`.chest_phantom`,
:mod:`.head_phantom`."""

import numpy as np
from PIL import Image

from medvigil.suites.medvigil.synthetic.chest_phantom import draw_chest
from medvigil.suites.medvigil.synthetic.head_phantom import draw_head
from medvigil.suites.medvigil.synthetic.phantom_label import (
    LABEL_LEVEL,
    image_label_mask,
    label_box,
)
from medvigil.suites.medvigil.synthetic.phantom_raster import mask_box, noise
from medvigil.suites.medvigil.synthetic.phantom_scene import ROI_MARGIN_PX, Phantom, Scene


def draw_phantom(scene: Scene, rng: np.random.Generator) -> Phantom:
    """Draw ``scene`` with randomness from ``rng``; see the module docstring for conventions."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    draw = draw_chest if scene.anatomy == "chest" else draw_head
    img, lesion, organ, body = draw(scene, rng)
    return _finished(img, rng, lesion, organ, body)


def _finished(
    img: np.ndarray,
    rng: np.random.Generator,
    lesion: np.ndarray | None,
    organ: np.ndarray,
    body: np.ndarray,
) -> Phantom:
    """The finished phantom: noise added, label stamped, boxes of the lesion, organ and body
    masks."""
    height, width = img.shape
    out = np.clip(np.rint(img + noise(rng, height, width)), 0, 255)
    x0, y0, x1, y1 = label_box(width, height)
    out[y0:y1, x0:x1][image_label_mask(width, height)] = LABEL_LEVEL
    return Phantom(
        image=Image.fromarray(out.astype(np.uint8), mode="L"),
        lesion_box=None if lesion is None else mask_box(lesion, ROI_MARGIN_PX),
        organ_box=mask_box(organ, ROI_MARGIN_PX),
        body_box=mask_box(body, 0),
    )
