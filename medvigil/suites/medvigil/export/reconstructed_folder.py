"""A ``medvigil reconstruct`` output folder, as ``medvigil build --reconstructed`` accepts it: checked only to be
re-derived for the very release being built.
"""

from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_json

MANIFEST_NAME = "RECONSTRUCTION.json"


def check_reconstruction(folder: Path | str, release_digest: str) -> None:
    """Refuse a folder without ``RECONSTRUCTION.json``, or whose manifest names another release digest."""
    folder = Path(folder)
    manifest = folder / MANIFEST_NAME
    if not manifest.is_file():
        raise DataError(Problem(str(folder), f"no {MANIFEST_NAME}: not an output folder of `medvigil reconstruct`"))
    label = f"{folder.name}/{MANIFEST_NAME}"
    data = read_json(manifest, label)
    if not isinstance(data, dict):
        raise DataError(Problem(label, f"expected a JSON object, got {type(data).__name__}"))
    recorded = data.get("release_digest")
    if recorded != release_digest:
        raise DataError(Problem(label, f"reconstructed for release {recorded!r}, not for this release ({release_digest}); "
                                       "run `medvigil reconstruct` again", field="release_digest"))
