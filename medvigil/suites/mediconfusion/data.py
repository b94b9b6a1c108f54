"""Where the built MediConfusion dataset is: one rule for the lmms-eval tasks and the CLI.

As :mod:`medvigil.data_location`, with ``MEDICONFUSION_DATA`` (the output of ``medvigil
mediconfusion-build``, or a Hub repo id) else ``$MEDVIGIL_HOME/datasets/mediconfusion``.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "README.md").write_text("---\\nconfigs:\\n- config_name: questions\\n---\\n")
>>> resolve_data_location({ENV_VAR: str(folder)}) == str(folder.resolve())
True
>>> resolve_data_location({ENV_VAR: "someorg/mediconfusion-built"})
'someorg/mediconfusion-built'
"""

import os
import re
from collections.abc import Mapping
from pathlib import Path

from medvigil.data_location import HOME_VAR, DataLocationExit, DataNotFoundError
from medvigil.files.input_files import note_read, read_bytes

ENV_VAR = "MEDICONFUSION_DATA"
SUITE_FOLDER = "mediconfusion"
BUILD_HINT = (
    "medvigil mediconfusion-sample --out REL && "
    "medvigil mediconfusion-build REL/data/dataset.json --images REL/roco --out {default}"
)
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")

__all__ = [
    "ENV_VAR",
    "DataNotFoundError",
    "default_build_dir",
    "is_built_folder",
    "load_config",
    "resolve_data_location",
]


def default_build_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$MEDVIGIL_HOME/datasets/mediconfusion`` (``MEDVIGIL_HOME`` defaults to
    ``~/.cache/medvigil``)."""
    env = os.environ if env is None else env
    home = Path(env.get(HOME_VAR) or Path.home() / ".cache" / "medvigil")
    return home / "datasets" / SUITE_FOLDER


def is_built_folder(path: Path) -> bool:
    """A folder ``datasets.load_dataset`` can read by config: ``README.md`` front matter with
    ``configs:``."""
    card = path / "README.md"
    if not card.is_file():
        return False
    text = read_bytes(card, str(card)).decode("utf-8", errors="replace")
    front = text.split("\n---", 1)[0] if text.startswith("---") else ""
    return "\nconfigs:" in front


def resolve_data_location(env: Mapping[str, str] | None = None) -> str:
    """A local built folder or a Hub repo id for ``datasets.load_dataset`` (``env``: default
    ``os.environ``); DataNotFoundError, quoting :data:`BUILD_HINT`, when nothing usable is where the
    configuration points."""
    env = os.environ if env is None else env
    default = default_build_dir(env)

    def fail(where: str) -> DataNotFoundError:
        return DataNotFoundError(
            f"{SUITE_FOLDER} data not found: {where}. Build it with\n "
            f" {BUILD_HINT.format(default=default)}\nor point {ENV_VAR} "
            f"at a built folder or a Hub dataset repo id (ORG/NAME)."
        )

    value = (env.get(ENV_VAR) or "").strip()
    if not value:
        if not is_built_folder(default):
            raise fail(f"{ENV_VAR} is not set and {default} holds no build")
        return str(default)
    path = Path(value).expanduser()
    if path.exists():
        if not is_built_folder(path):
            raise fail(
                f"{ENV_VAR}={value} exists but has no dataset card with "
                f"a 'configs:' block (is it a release, not a build?)"
            )
        return str(path.resolve())
    if _REPO_ID.match(value) and not value.startswith((".", "/", "~")):
        return value
    raise fail(f"{ENV_VAR}={value} is neither an existing folder nor a Hub repo id")


def load_config(config: str, split: str = "test", env: Mapping[str, str] | None = None):
    """Load one config (``questions`` or ``pairs``) of the built dataset (imports ``datasets``
    lazily)."""
    import datasets

    try:
        location = resolve_data_location(env)
    except DataNotFoundError as exc:
        raise DataLocationExit(exc) from None  # lmms-eval's last lines say what to do
    if Path(location).is_dir():
        note_read(location)  # read by datasets: no output of this command may replace it
    return datasets.load_dataset(location, config, split=split)
