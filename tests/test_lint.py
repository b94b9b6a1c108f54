"""The code passes the project's lint rules (ruff.toml) and its layout is ruff format's."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.fail("ruff is a test dependency (pip install -e .[test]); it is missing")
    return subprocess.run([ruff, *args, str(ROOT)], capture_output=True, text=True, cwd=ROOT)


def test_ruff_is_clean():
    proc = _ruff("check", "--no-cache")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_layout_is_ruff_format():
    proc = _ruff("format", "--check", "--no-cache")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_one_convention_for_annotations():
    """Annotations are evaluated as written (Python 3.11): no ``from __future__ import
    annotations`` in any tree, so a forward reference is spelled as a string everywhere alike."""
    trees = ("medvigil", "tasks", "metrics", "reconstruct", "dataset_builders", "schemas")
    found = [
        str(path.relative_to(ROOT))
        for tree in (*trees, "tests", "benchmarks")
        for path in sorted((ROOT / tree).rglob("*.py"))
        if re.search(r"^from __future__ import annotations", path.read_text("utf-8"), re.M)
    ]
    assert found == []
