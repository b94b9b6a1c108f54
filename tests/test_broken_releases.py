"""Every release in the bad-input corpus (tests/broken_releases.py) is refused, precisely.

For each named mutation of a valid release: ``medvigil validate`` exits with the expected
status and its report names the file, row and field; ``--json`` carries the same
problem; and ``load_release`` raises :class:`DataError` with that problem. Mutations in
``WARN_ONLY`` (what the authors' validator only warns about) are reported the same way as
warnings, and the release still loads.
"""

import importlib.util
import json
from pathlib import Path

import broken_releases as br
import pytest

from medvigil import cli
from medvigil.errors import DataError
from medvigil.suites.medvigil.release.release_loading import load_release
from medvigil.suites.medvigil.validate.validate import validate_release


def _generator_available() -> bool:
    return importlib.util.find_spec("medvigil.commands.sample") is not None


@pytest.fixture(scope="session")
def base_release(tmp_path_factory) -> Path:
    """A valid 12-case release: `medvigil sample` output when available, else our minimal writer."""
    root = tmp_path_factory.mktemp("corpus-base") / "release"
    if _generator_available():
        assert cli.main(["sample", "--out", str(root), "--cases", "12", "--seed", "0"]) == 0
    else:
        br.write_minimal_release(root)
    return root


def _matches(problem: dict, expect: br.Expect) -> bool:
    return (
        problem["severity"] == expect.severity
        and problem["file"] == expect.file
        and problem["row"] == expect.row
        and problem["field"] == expect.field
        and expect.fragment in problem["message"]
    )


def test_corpus_is_large_enough():
    assert len(br.CORPUS) >= 30


def test_base_release_is_valid(base_release):
    report = validate_release(base_release)
    assert report.errors == [], report.format()


@pytest.mark.parametrize("name", sorted(br.CORPUS))
def test_broken_release_is_refused(name, base_release, tmp_path, capsys):
    dest = tmp_path / "release"
    expect = br.materialise(name, base_release, dest)

    code = cli.main(["validate", str(dest)])
    out = capsys.readouterr().out
    assert code == expect.exit_code, out
    wanted = f"{expect.severity}: {expect.location()}: "
    assert any(line.startswith(wanted) and expect.fragment in line for line in out.splitlines()), (
        f"no line starting {wanted!r} containing {expect.fragment!r} in:\n{out}"
    )

    code = cli.main(["validate", str(dest), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == expect.exit_code
    assert report["ok"] is (expect.severity == "warning")
    assert any(_matches(p, expect) for p in report["problems"]), report["problems"]

    if expect.severity == "warning":  # still a usable release; the finding travels with it
        release = load_release(dest)
        assert any(_matches(p.to_dict(), expect) for p in release.warnings), release.warnings
        return
    with pytest.raises(DataError) as info:
        load_release(dest)
    assert any(_matches(p.to_dict(), expect) for p in info.value.problems), info.value.problems


def test_bomb_png_is_small_but_declares_a_huge_image():
    data = br.bomb_png()
    assert len(data) < 2_000
    assert data[16:24] == (100_000).to_bytes(4, "big") * 2
