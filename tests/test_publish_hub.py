"""``medvigil publish`` checks Hub access before it scans anything (no network in these tests: the
checks that need none run first, so a token-less or offline environment is refused at once)."""

import os
import subprocess
import sys


def _publish(tmp_path, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    base.update(HF_HOME=str(tmp_path / "hf_home"), **env)  # no saved token there
    out = tmp_path / "built"
    out.mkdir(exist_ok=True)
    argv = ["publish", str(out), "--release", str(tmp_path), "--repo", "org/x"]
    return subprocess.run(
        [sys.executable, "-m", "medvigil", *argv],
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_offline_is_refused_before_the_scan(tmp_path):
    done = _publish(tmp_path, HF_HUB_OFFLINE="1", HF_TOKEN="hf_x")
    assert done.returncode == 2
    assert "HF_HUB_OFFLINE is set: publishing needs the network" in done.stderr
    assert "scanning its content" not in done.stderr and "Traceback" not in done.stderr


def test_no_token_is_refused_before_the_scan(tmp_path):
    """A token-less environment (HF_HOME without a saved token, no HF_TOKEN): refused with what to
    do, before any network call (the check needs none) and before the scan."""
    done = _publish(tmp_path, HF_HUB_OFFLINE="0")
    assert done.returncode == 2
    assert "no Hugging Face token: run `hf auth login`" in done.stderr
    assert "scanning its content" not in done.stderr and "Traceback" not in done.stderr


def test_a_dry_run_needs_no_token(tmp_path):
    """Control: --dry-run skips the Hub checks and goes on to the folder (here: not a build)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_HOME=str(tmp_path / "hf_home"), HF_HUB_OFFLINE="1")
    (tmp_path / "built").mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "publish",
            str(tmp_path / "built"),
            "--release",
            str(tmp_path),
            "--repo",
            "org/x",
            "--dry-run",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "scanning its content" in done.stderr
    assert "build_info.json: missing" in done.stderr
    assert "Hugging Face token" not in done.stderr and "HF_HUB_OFFLINE" not in done.stderr
