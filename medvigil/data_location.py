"""Where the built MedVIGIL dataset is: one rule for the lmms-eval tasks and the CLI.

``MEDVIGIL_DATA`` (a build folder or a Hub repo id ``ORG/NAME``), else
``$MEDVIGIL_HOME/datasets/medvigil`` (``MEDVIGIL_HOME`` defaults to ``~/.cache/medvigil``). A
missing folder raises an error that says what to run.
"""

import os
import re
from pathlib import Path

from medvigil.constants import MANIFEST
from medvigil.files.input_files import note_read

ENV_VAR = "MEDVIGIL_DATA"
HOME_VAR = "MEDVIGIL_HOME"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class DataNotFoundError(FileNotFoundError):
    """The built dataset is not where the configuration says."""


class DataLocationExit(SystemExit):
    """A :class:`DataNotFoundError` ending an lmms-eval run: lmms-eval 0.7.3 loads a task's docs
    under a retry (tenacity) that wraps every ``Exception`` in ``RetryError[...]`` and exits 0; a
    ``SystemExit`` is not retried, so lmms-eval stops with the message as its last lines and exit
    status 1."""

    def __init__(self, error: DataNotFoundError):
        super().__init__(f"error: {error}")
        self.error = error


def medvigil_home(env: dict | None = None) -> Path:
    """``$MEDVIGIL_HOME``, default ``~/.cache/medvigil`` (built data, the judge's cache)."""
    env = os.environ if env is None else env
    return Path(env.get(HOME_VAR) or Path.home() / ".cache" / "medvigil")


def default_build_dir(env: dict | None = None) -> Path:
    return medvigil_home(env) / "datasets" / "medvigil"


def _how_to_fix(where: str) -> str:
    return (
        f"MedVIGIL data not found: {where}. Build it with\n  medvigil sample --out REL && "
        f"medvigil build REL --out {default_build_dir()}\nor point {ENV_VAR} at a built "
        f"folder (the output of `medvigil build`) or a Hub dataset repo id (ORG/NAME)."
    )


def _hub_id(value: str) -> bool:
    return bool(_REPO_ID.match(value)) and not value.startswith((".", "/", "~"))


def resolve_data_location(env: dict | None = None) -> str:
    """Return a local folder path or a Hub repo id for ``datasets.load_dataset``."""
    env = os.environ if env is None else env
    value = (env.get(ENV_VAR) or "").strip()
    if not value:
        folder = default_build_dir(env)
        if not (folder / "README.md").is_file():
            raise DataNotFoundError(
                _how_to_fix(f"{ENV_VAR} is not set and {folder} holds no build")
            )
        return str(folder)
    path = Path(value).expanduser()
    if path.exists():
        if (path / MANIFEST).is_file():
            raise DataNotFoundError(
                f"{ENV_VAR}={value} is a release folder (it has {MANIFEST}), not a "
                f"built dataset. Build it with\n  medvigil build {value} --out BUILD\nand "
                f"set {ENV_VAR}=BUILD (the output of `medvigil build`)."
            )
        if not (path / "README.md").is_file():
            raise DataNotFoundError(
                _how_to_fix(
                    f"{ENV_VAR}={value} exists but has no README.md "
                    f"dataset card (is it a release, not a build?)"
                )
            )
        return str(path.resolve())
    if _hub_id(value):
        return value
    raise DataNotFoundError(
        _how_to_fix(f"{ENV_VAR}={value} is neither an existing folder nor a Hub repo id")
    )


def locate_release(value: str | Path) -> tuple[str, str]:
    """What ``medvigil score --release VALUE`` points at: ``("release", folder)`` (it has
    ``manifest.csv``), ``("build", folder)`` (a dataset card, no manifest) or ``("hub", repo_id)``;
    else DataNotFoundError."""
    text = str(value).strip()
    path = Path(text).expanduser()
    if text and path.is_dir():
        if (path / MANIFEST).is_file():
            return "release", str(path)
        if (path / "README.md").is_file():
            return "build", str(path.resolve())
        raise DataNotFoundError(
            f"{text} is neither a release folder (no {MANIFEST}) "
            f"nor a built dataset folder (no README.md card)"
        )
    if text and not path.exists() and _hub_id(text):
        return "hub", text
    raise DataNotFoundError(
        f"release {text!r} is neither an existing folder nor a Hub repo id (ORG/NAME)"
    )


def _check_config(location: str, config: str) -> None:
    """A local build must hold ``config`` (its ``data/<config>`` folder)."""
    path = Path(location)
    if path.is_dir() and not (path / "data" / config).is_dir():
        found = (
            sorted(p.name for p in (path / "data").iterdir() if p.is_dir())
            if (path / "data").is_dir()
            else []
        )
        raise DataNotFoundError(
            f"{ENV_VAR}={location} holds no '{config}' config (it has: "
            f"{', '.join(found) or 'none'}); is it a build of another dataset or of "
            f"an older medvigil? Rebuild it with `medvigil build RELEASE --out {location}`"
        )


def load_config(config: str, split: str = "test", env: dict | None = None):
    """One config of the built dataset, for the lmms-eval task hooks; :class:`DataLocationExit` when
    the data is not where ``MEDVIGIL_DATA`` says."""
    import datasets

    try:
        location = resolve_data_location(env)
        _check_config(location, config)
    except DataNotFoundError as exc:
        raise DataLocationExit(exc) from None
    if Path(location).is_dir():
        note_read(location)  # read by datasets: no output of this command may replace it
    return datasets.load_dataset(location, config, split=split)
