"""Where the tests find the project's shared material: ``shared/`` beside the repository
(``MEDVIGIL_SHARED`` overrides) and, when fetched, the authors' repository (read-only)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MEDVIGIL_SHARED") or ROOT.parent / "shared")
AUTHORS_TOOL = Path(
    os.environ.get("MEDVIGIL_AUTHORS_TOOL") or SHARED / "tools" / "authors_format_release.py"
)
# a git mirror of github.com/hq0709/MedVIGIL (no work tree); tests that need it skip when this is
# unset
AUTHORS_MIRROR = (
    Path(os.environ["MEDVIGIL_AUTHORS_MIRROR"])
    if os.environ.get("MEDVIGIL_AUTHORS_MIRROR")
    else None
)
