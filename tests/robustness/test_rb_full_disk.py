"""Issue 29: ``build`` on a full disk. Arrow aborts the process (SIGABRT) when a write fails inside
it, so the build checks free space before each row it hands to the Parquet writer: exit 2 with a
clear message, no traceback, no staging folder left. The disk is a small tmpfs mounted for the test
(root with CAP_SYS_ADMIN; skipped where it cannot be made), in a subprocess as a user runs it."""

import os
import shutil
import subprocess

import pytest
from conftest import PYTHON


@pytest.fixture()
def small_disk(tmp_path):
    """mount(size) -> an empty folder on a tmpfs of ``size`` bytes; unmounted afterwards."""
    mounted = []

    def mount(size: int):
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size // 4096 * 4096}", "tmpfs", str(point)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(
                f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}"
            )
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], capture_output=True)


def _build(release, out):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.run(
        [
            PYTHON,
            "-m",
            "medvigil",
            "build",
            str(release),
            "--out",
            str(out),
            "--config",
            "mcq",
            "--config",
            "mcq_circular",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.slow  # builds a dataset
@pytest.mark.skipif(not shutil.which("mount"), reason="no mount command")
def test_build_on_a_full_disk(small_release, small_disk, tmp_path):
    from medvigil.hub.parquet_shards import FREE_SPACE_MARGIN

    reference = _build(
        small_release[0], tmp_path / "reference"
    )  # control: the same build where there is room
    assert reference.returncode == 0, reference.stderr[-2000:]
    size = sum(p.stat().st_size for p in (tmp_path / "reference").rglob("*") if p.is_file())
    for free in (1 << 20, FREE_SPACE_MARGIN + size // 2):  # full from the start; full half-way
        disk = small_disk(free)
        done = _build(small_release[0], disk / "built")
        assert done.returncode == 2, (free, done.returncode, done.stderr[-2000:])
        assert "not enough free disk space" in done.stderr and "Traceback" not in done.stderr
        assert list(disk.iterdir()) == [], f"left behind: {list(disk.iterdir())}"
    disk = small_disk(2 * size + 2 * FREE_SPACE_MARGIN)  # control: a small disk with room enough
    done = _build(small_release[0], disk / "built")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (disk / "built" / "build_info.json").is_file()


@pytest.mark.skipif(not shutil.which("mount"), reason="no mount command")
@pytest.mark.parametrize(
    ("argv", "control"),
    [
        (
            ["sample", "--out", "{disk}/rel", "--cases", "20"],
            ["sample", "--out", "{disk}/rel", "--cases", "2"],
        ),
        (
            ["mediconfusion-sample", "--out", "{disk}/mc", "--pairs", "50"],
            ["mediconfusion-sample", "--out", "{disk}/mc", "--pairs", "2"],
        ),
    ],
)
def test_writers_on_a_full_disk_leave_nothing(small_disk, argv, control):
    disk = small_disk(600 << 10)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run(
        [PYTHON, "-m", "medvigil", *(a.format(disk=disk) for a in argv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert (
        done.returncode == 2 and "No space left" in done.stderr and "Traceback" not in done.stderr
    ), done.stderr[-2000:]
    assert list(disk.iterdir()) == []
    disk = small_disk(32 << 20)  # control: a small disk with room enough
    done = subprocess.run(
        [PYTHON, "-m", "medvigil", *(a.format(disk=disk) for a in control)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
