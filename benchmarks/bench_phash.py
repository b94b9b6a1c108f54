"""Both error rates of ``publish``'s perceptual-hash check (:mod:`medvigil.hub.publish_scan`) by
threshold.

The credentialed images are the withheld CXR sources of a synthetic release (``medvigil sample
--credentialed-out``); what ``publish --credentialed`` knows of them is what the real check computes
(:func:`credentialed_images`: the hash of each and of its mirror).

- **False refusals**: every image of the release that is not credentialed (``images/``, the
  phantoms of the other cases, and ``images_perturbed/``, the variants a build shows) against all
  credentialed ones; refused when its nearest credentialed hash is within the threshold.
- **Misses**: copies re-derived from each credentialed image (re-encoded at JPEG quality 50 and 70,
  resized to 1/2 and 3/2, blurred with sigma 2 and 4, left-right flipped, cropped by 4 % and
  re-encoded, each as the published form): missed when farther than the threshold.

Usage::

    medvigil sample --cases 300 --out REL --credentialed-out CRED
    python benchmarks/bench_phash.py REL CRED
"""

import argparse
import sys
from pathlib import Path

import numpy as np


def _copies(image):
    """The re-derived copies of one credentialed image, as ``(name, JPEG bytes)``."""
    from medvigil.images import imaging

    w, h = image.size
    crop = image.crop((w // 25, h // 25, w - w // 25, h - h // 25))
    forms = {
        "jpeg q70": (image, 70),
        "jpeg q50": (image, 50),
        "resized 1/2": (image.resize((w // 2, h // 2)), 90),
        "resized 3/2": (image.resize((w * 3 // 2, h * 3 // 2)), 90),
        "blurred s2": (imaging.gaussian_blur(image, 2), 90),
        "blurred s4": (imaging.gaussian_blur(image, 4), 90),
        "flipped": (imaging.lr_flip(image), 90),
        "cropped 4%": (crop, 90),
    }
    for name, (img, quality) in forms.items():
        yield name, imaging.encode_jpeg(imaging.to_published(img), quality=quality)


def _distances(data: bytes, known) -> int:
    import imagehash

    from medvigil.hub.publish_scan import PHASH_SIZE, _decoded

    found = imagehash.phash(_decoded(data), hash_size=PHASH_SIZE)
    return min(found - h for h in known.phashes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("credentialed", type=Path)
    args = parser.parse_args(argv)
    from PIL import Image

    from medvigil.hub.publish_scan import PHASH_MAX_DISTANCE, credentialed_images

    known = credentialed_images([], [args.credentialed], lambda path: None)
    sources = sorted(p for p in args.credentialed.rglob("*") if p.is_file())
    negatives = sorted([*args.release.glob("images/*"), *args.release.glob("images_perturbed/*")])
    negative = np.array([_distances(p.read_bytes(), known) for p in negatives])
    positive: dict[str, list[int]] = {}
    for path in sources:
        with Image.open(path) as img:
            image = img.convert("L")
        for name, data in _copies(image):
            positive.setdefault(name, []).append(_distances(data, known))
    worst = max(max(v) for v in positive.values())
    print(f"{len(sources)} credentialed images, {len(negatives)} other images of the release")
    print(
        f"distinct images, nearest credentialed hash: min {negative.min()}, "
        f"1st percentile {np.percentile(negative, 1):.0f}, median {np.median(negative):.0f}"
    )
    for name, values in positive.items():
        print(f"  re-derived {name:12s}: max {max(values):3d}, median {np.median(values):.0f}")
    print("threshold  false refusals  misses (crops excluded)  crops missed")
    for t in sorted({16, 24, 32, 40, PHASH_MAX_DISTANCE, 56, 64, 72, worst}):
        refused = int((negative <= t).sum())
        missed = {n: int((np.array(v) > t).sum()) for n, v in positive.items()}
        crops = missed.pop("cropped 4%")
        total = sum(len(v) for n, v in positive.items() if n != "cropped 4%")
        print(
            f"{t:9d}  {refused:5d} of {len(negative)}  {sum(missed.values()):5d} of {total}"
            f"  {crops:5d} of {len(positive['cropped 4%'])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
