"""Outputs appear whole or not at all (medvigil.files.atomic_output)."""

import pytest

from medvigil.files.atomic_output import mark, staged_folder, write_text_atomic


def _siblings(path):
    return sorted(p.name for p in path.parent.iterdir())


def test_folder_appears_only_when_the_block_succeeds(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with staged_folder(out, inputs=()) as tmp:
            (tmp / "half.txt").write_text("half")
            raise RuntimeError("writer failed")
    assert _siblings(out) == []  # no output, no staging leftovers
    with staged_folder(out, inputs=()) as tmp:
        (tmp / "whole.txt").write_text("whole")
    assert (out / "whole.txt").read_text() == "whole" and _siblings(out) == ["out"]


def test_existing_output_is_kept_on_failure_and_swapped_on_success(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    mark(out, "build")
    with pytest.raises(FileExistsError, match="already exists; pass --force"):
        with staged_folder(out, inputs=(), kind="build"):
            pass
    with pytest.raises(ValueError):
        with staged_folder(out, inputs=(), replace=True, kind="build") as tmp:
            (tmp / "new.txt").write_text("new")
            raise ValueError
    assert sorted(p.name for p in out.iterdir()) == [".medvigil-build", "old.txt"]
    with staged_folder(out, inputs=(), replace=True, kind="build") as tmp:
        (tmp / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == [".medvigil-build", "new.txt"]
    assert _siblings(out) == ["out"]


def test_replace_takes_only_a_folder_the_same_command_wrote(tmp_path):
    """Issue 42: --force replaced any non-empty folder; now only one holding the command's
    marker."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    for kind in ("build", "reconstruct"):
        with pytest.raises(FileExistsError, match=f"not a folder written by `medvigil {kind}`"):
            with staged_folder(out, inputs=(), replace=True, kind=kind) as tmp:
                (tmp / "new.txt").write_text("new")
    mark(out, "reconstruct")  # another command's output is not this one's either
    with pytest.raises(FileExistsError, match="not a folder written by `medvigil build`"):
        with staged_folder(out, inputs=(), replace=True, kind="build"):
            pass
    assert sorted(p.name for p in out.iterdir()) == [".medvigil-reconstruct", "thesis.tex"]
    with pytest.raises(TypeError, match="needs the kind"):  # no replacing writer can forget it
        with staged_folder(out, inputs=(), replace=True):
            pass
    empty = tmp_path / "empty"  # control: an empty folder is filled, with the marker
    empty.mkdir()
    with staged_folder(empty, inputs=(), replace=True, kind="build") as tmp:
        (tmp / "a").write_text("a")
    assert sorted(p.name for p in empty.iterdir()) == [".medvigil-build", "a"]


def test_an_empty_existing_folder_is_filled(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with staged_folder(out, inputs=()) as tmp:
        (tmp / "a").write_text("a")
    assert (out / "a").is_file()


def test_output_written_by_someone_else_meanwhile_is_not_clobbered(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(FileExistsError, match="appeared while writing"):
        with staged_folder(out, inputs=()) as tmp:
            (tmp / "mine").write_text("mine")
            out.mkdir()
            (out / "theirs").write_text("theirs")
    assert sorted(p.name for p in out.iterdir()) == ["theirs"] and _siblings(out) == ["out"]


def test_text_file_is_replaced_atomically(tmp_path):
    path = tmp_path / "scores.json"
    write_text_atomic(path, "{}\n", inputs=())
    write_text_atomic(path, "[1]\n", inputs=())
    assert path.read_text() == "[1]\n" and _siblings(path) == ["scores.json"]
    with pytest.raises(FileNotFoundError, match="output folder does not exist"):
        write_text_atomic(tmp_path / "missing" / "x.json", "{}", inputs=())
