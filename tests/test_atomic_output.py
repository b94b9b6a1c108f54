"""Outputs appear whole or not at all (medvigil.files.atomic_output)."""

from __future__ import annotations

import pytest

from medvigil.files.atomic_output import staged_folder, write_text_atomic


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
    with pytest.raises(FileExistsError, match="already exists; pass --force"):
        with staged_folder(out, inputs=()):
            pass
    with pytest.raises(ValueError):
        with staged_folder(out, inputs=(), replace=True) as tmp:
            (tmp / "new.txt").write_text("new")
            raise ValueError
    assert sorted(p.name for p in out.iterdir()) == ["old.txt"]
    with staged_folder(out, inputs=(), replace=True) as tmp:
        (tmp / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["new.txt"] and _siblings(out) == ["out"]


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
