"""The code passes the project's lint rules (ruff.toml) and its layout is ruff format's."""

from __future__ import annotations

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
