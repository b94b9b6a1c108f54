"""The rows of every config of the MediConfusion Hub dataset, for both the `datasets` builder and
the export. Images are embedded as the original file bytes, with the ROCO-relative path as the
image's ``path``.
"""

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medvigil.files.input_files import read_bytes
from medvigil.suites.mediconfusion.dataset_configs import CONFIG_NAMES
from medvigil.suites.mediconfusion.release import Release, read_release
from medvigil.suites.mediconfusion.roco import locate_images, read_checksums


def source_digest(release_bytes: bytes, located: dict) -> str:
    """SHA-256 over the release file and ``<path>\\t<sha256>`` of every image, in path order."""
    h = hashlib.sha256()
    h.update(hashlib.sha256(release_bytes).hexdigest().encode() + b"\n")
    for rel in sorted(located):
        h.update(f"{rel}\t{located[rel].sha256}\n".encode())
    return h.hexdigest()


@dataclass
class RocoSource:
    """The authors' release with every image located in a ROCO copy."""

    release: Release
    located: dict[str, Any]  # ROCO-relative path -> located image (path, SHA-256)
    source_digest: str  # source_digest() of the release file and the images

    @classmethod
    def open(
        cls,
        dataset_json: str | Path,
        images_dir: str | Path,
        checksums_file: str | Path | None = None,
    ) -> "RocoSource":
        """Read ``dataset_json`` and locate its images under ``images_dir`` (checked against
        ``checksums_file``)."""
        json_path = Path(dataset_json)
        release = read_release(json_path)
        checksums = read_checksums(checksums_file) if checksums_file is not None else None
        located = locate_images(release, images_dir, checksums=checksums)  # all problems at once
        return cls(release, located, source_digest(json_path.read_bytes(), located))

    def _image(self, rel: str) -> dict:
        return {"bytes": read_bytes(self.located[rel].path, rel), "path": rel}

    def iter_rows(self, name: str) -> Iterator[tuple[str, dict]]:
        """Yield ``(key, row)`` of config ``name``, in file order; images as ``{"bytes",
        "path"}``."""
        if name not in CONFIG_NAMES:
            raise ValueError(f"unknown config {name!r}; available: {', '.join(CONFIG_NAMES)}")
        if name == "pairs":
            for pair in self.release.pairs.values():
                row = pair.to_json()
                row["synthetic"] = pair.synthetic
                yield (
                    pair.pair_id,
                    {
                        "pair_id": pair.pair_id,
                        "image_1": self._image(pair.im_1),
                        "image_2": self._image(pair.im_2),
                        **row,
                    },
                )
            return
        for pair, key in self.release.images():
            rel = pair.image_path(key)
            yield (
                f"{pair.pair_id}:{key}",
                {
                    "pair_id": pair.pair_id,
                    "image_key": key,
                    "image": self._image(rel),
                    "image_path": rel,
                    "question": pair.question,
                    "option_A": pair.option_A,
                    "option_B": pair.option_B,
                    "correct_letter": pair.correct(key),
                    "categories": list(pair.categories(key)),
                    "caption": pair.caption(key),
                    "BiomedCLIP_sim": pair.BiomedCLIP_sim,
                    "DINO_sim": pair.DINO_sim,
                    "synthetic": pair.synthetic,
                },
            )
