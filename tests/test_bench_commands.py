"""Smoke test of benchmarks/bench_commands.py at its smallest scale (no timing is asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shared_paths import AUTHORS_TOOL

ROOT = Path(__file__).resolve().parents[1]
TOOL = AUTHORS_TOOL


@pytest.mark.skipif(
    not TOOL.is_file() or not Path("/usr/bin/time").is_file(),
    reason="needs the generator and GNU time",
)
def test_bench_commands_runs_and_reports_whole_process_figures(tmp_path):
    out = tmp_path / "figures.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_commands.py"),
            "--scales",
            "1",
            "--only",
            "validate",
            "--repeat",
            "1",
            "--workdir",
            str(tmp_path / "work"),
            "--tool",
            str(TOOL),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (scale,) = json.loads(out.read_text())["scales"]
    assert (scale["cases"], scale["probes"], scale["models"]) == (300, 2556, 18)
    run = scale["commands"]["validate"]
    assert (
        run["wall_s"] > 0 and run["rss_mb"] > 10 and run["exit"] in (0, 1)
    )  # 1: the release has findings
