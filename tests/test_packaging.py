"""The wheel built from setup.cfg contains every module and data file, and works alone."""

import configparser
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SLOW_FIXTURES = {"wheel"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]


def _setup_cfg() -> configparser.ConfigParser:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg


def _package_dirs() -> dict[str, Path]:
    """Map every listed package to its folder, following package_dir."""
    cfg = _setup_cfg()
    mapping = {}
    for line in cfg["options"]["package_dir"].strip().splitlines():
        name, folder = (part.strip() for part in line.split("="))
        mapping[name] = ROOT / folder
    packages = cfg["options"]["packages"].split()
    out = {}
    for pkg in packages:
        parts = pkg.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            if prefix in mapping:
                out[pkg] = mapping[prefix].joinpath(*parts[cut:])
                break
    return out


def test_every_python_folder_is_a_listed_package():
    listed = {path.resolve() for path in _package_dirs().values()}
    for path in listed:
        assert path.is_dir(), f"setup.cfg lists a package whose folder is missing: {path}"
    importable_roots = [ROOT / "medvigil", ROOT / "dataset_builders", ROOT / "reconstruct"]
    for root in importable_roots:
        for init in root.rglob("__init__.py"):
            assert init.parent.resolve() in listed, (
                f"{init.parent} has __init__.py but is not in setup.cfg packages"
            )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        cwd=out,
    )
    (whl,) = out.glob("medvigil-*.whl")
    return whl


def test_wheel_contains_data_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in (ROOT / "schemas").glob("*.json"):
        assert f"medvigil/schemas/{path.name}" in names
    for folder in (ROOT / "metrics").iterdir():
        if (folder / f"{folder.name}.py").is_file():
            assert f"medvigil/metrics/{folder.name}/{folder.name}.py" in names
            assert f"medvigil/metrics/{folder.name}/README.md" in names
    judge_sets = ROOT / "medvigil/suites/medvigil/scoring/judge_sets"  # the judge's validation sets
    for path in judge_sets.iterdir():
        assert f"medvigil/suites/medvigil/scoring/judge_sets/{path.name}" in names
    for path in (ROOT / "tasks").rglob("*.yaml"):
        assert f"medvigil/tasks/{path.relative_to(ROOT / 'tasks').as_posix()}" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "medvigil = medvigil.cli:main" in text


def test_installed_wheel_runs_without_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    code = "import medvigil, medvigil.schemas as s; print(medvigil.__file__); print(s.SCHEMA_DIR)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(target) in out.stdout, out.stdout
    help_text = subprocess.run(
        [sys.executable, "-m", "medvigil", "--help"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "usage: medvigil" in help_text
