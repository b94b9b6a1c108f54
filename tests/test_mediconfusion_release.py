"""MediConfusion release reader, synthetic pair generator and ROCO locator."""

import doctest
import importlib
import json
import os
from collections import Counter
from dataclasses import fields
from pathlib import Path

import pytest
from PIL import Image

from medvigil.errors import DataError
from medvigil.suites.mediconfusion.categories import CATEGORIES
from medvigil.suites.mediconfusion.release import (
    FIELDS,
    OPTIONAL_FIELDS,
    Pair,
    dataset_json_text,
    read_release,
)
from medvigil.suites.mediconfusion.roco import (
    checksum_text,
    locate_images,
    read_checksums,
    roco_data_root,
)
from medvigil.suites.mediconfusion.synthetic import (
    SYNTHETIC_NOTICE,
    dataset_csv_text,
    make_pairs,
    write_sample,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = (
    Path(os.environ.get("MEDVIGIL_SHARED") or ROOT.parent / "shared")
    / "fixtures"
    / "mediconfusion"
    / "dataset.json"
)

GOOD = {
    "im_1": "train/radiology/images/ROCO_00001.jpg",
    "im_2": "validation/radiology/images/ROCO_00002.jpg",
    "im_1_local": 1,
    "im_2_local": 2,
    "cap_1": " caption one",
    "cap_2": " caption two",
    "category_1": ["Cerebral", "Vascular"],
    "category_2": ["Cerebral"],
    "BiomedCLIP_sim": 0.93,
    "DINO_sim": 0.61,
    "question": "Which side is the lesion on?",
    "option_A": "Left",
    "option_B": "Right",
    "im_1_correct": "A",
    "im_2_correct": "B",
    "AI_question": "Which side?",
    "AI_option_A": "Left",
    "AI_option_B": "Right",
}


def _write(tmp_path: Path, data, name: str = "dataset.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _problems(path: Path):
    with pytest.raises(DataError) as info:
        read_release(path)
    return info.value.problems


def _where(problems):
    return {(p.file, p.row, p.field) for p in problems}


# ------------------------------------------------------------------ the real file


@pytest.mark.skipif(not FIXTURE.is_file(), reason="shared MediConfusion fixture not present")
def test_real_dataset_json_parses():
    release = read_release(FIXTURE)
    assert len(release.pairs) == 176
    assert list(release.pairs)[:2] == ["10001", "10002"] and list(release.pairs)[-1] == "10176"
    assert len(release.image_paths()) == 228  # images are reused across pairs
    assert Counter(p.im_1_correct + p.im_2_correct for p in release.pairs.values()) == {
        "AB": 88,
        "BA": 88,
    }
    assert not release.synthetic
    first = release.pairs["10001"]
    assert first.im_1 == "train/radiology/images/ROCO_28778.jpg" and first.im_1_local == 20192
    assert first.categories("im1") == ("Cerebral", "Vascular") and first.correct("im2") == "B"
    images_per_category = Counter(c for pair, key in release.images() for c in pair.categories(key))
    assert set(images_per_category) == set(CATEGORIES)
    assert (
        images_per_category["Vascular"] == 73
    )  # Table 3: GPT-4o 25/73 = 34.25 % set accuracy on vascular images
    # the writer reproduces the authors' file byte for byte
    assert dataset_json_text(release.pairs.values()) == FIXTURE.read_text(encoding="utf-8")


@pytest.mark.skipif(not FIXTURE.is_file(), reason="shared MediConfusion fixture not present")
def test_csv_form_reads_the_same_pairs(tmp_path):
    release = read_release(FIXTURE)
    text = dataset_csv_text(list(release.pairs.values()))
    assert text.startswith(
        ",id,im_1,im_2,"
    )  # the pandas index column, as in the authors' dataset.csv
    again = read_release(_write(tmp_path, text, "dataset.csv"))
    assert again.pairs == release.pairs


@pytest.mark.parametrize(
    "module",
    [
        "medvigil.suites.mediconfusion.release",
        "medvigil.suites.mediconfusion.data",
        "medvigil.suites.mediconfusion.modes",
        "medvigil.suites.mediconfusion.judges",
        "medvigil.suites.mediconfusion.llm_judge",
    ],
)
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_pair_fields_match_the_field_list():
    assert {f.name for f in fields(Pair)} == {"pair_id", "row", *FIELDS, *OPTIONAL_FIELDS}


# ------------------------------------------------------------------ rejections


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"option_B": None}, "option_B", "non-empty string"),
        ({"im_2_correct": "C"}, "im_2_correct", "must be 'A' or 'B'"),
        ({"im_1_correct": "a"}, "im_1_correct", "must be 'A' or 'B'"),
        ({"im_2_correct": "A"}, "im_2_correct", "different answers"),
        ({"id": "10003"}, "id", "pair id mismatch"),
        ({"im_1": "../../etc/passwd.jpg"}, "im_1", "'..' component"),
        ({"im_2": "/etc/images/ROCO_1.jpg"}, "im_2", "absolute"),
        ({"im_1": "train\\radiology\\images\\ROCO_1.jpg"}, "im_1", "backslash"),
        ({"im_1": "C:/roco/ROCO_1.jpg"}, "im_1", "drive letter"),
        ({"im_2": "train/radiology/images/ROCO_2.txt"}, "im_2", "does not end in"),
        ({"im_2": GOOD["im_1"]}, "im_2", "same image"),
        ({"category_1": ["Cerebral", "Dermatology"]}, "category_1", "unknown category"),
        ({"category_2": []}, "category_2", "non-empty list"),
        ({"category_2": "Cerebral"}, "category_2", "non-empty list"),
        ({"BiomedCLIP_sim": 1.5}, "BiomedCLIP_sim", "[-1, 1]"),
        ({"DINO_sim": True}, "DINO_sim", "[-1, 1]"),
        ({"im_1_local": "20192"}, "im_1_local", "integer"),
        ({"option_a": "Left"}, "option_a", "unknown field"),
        ({"synthetic": "yes"}, "synthetic", "true or false"),
        ({"option_B": "left "}, "option_B", "repeats option_A"),
    ],
)
def test_bad_values_name_file_pair_and_field(tmp_path, change, field, fragment):
    entry = {**GOOD, **change}
    path = _write(
        tmp_path,
        {
            "10001": GOOD | {"im_1": "train/radiology/images/ROCO_00009.jpg", "im_1_local": 9},
            "10002": entry,
        },
    )
    problems = _problems(path)
    assert ("dataset.json", 2, f"10002.{field}") in _where(problems), [str(p) for p in problems]
    assert any(fragment in p.message for p in problems), [str(p) for p in problems]


def test_missing_field(tmp_path):
    entry = {k: v for k, v in GOOD.items() if k != "im_2_correct"}
    (problem,) = _problems(_write(tmp_path, {"10001": entry}))
    assert (problem.row, problem.field, problem.message) == (
        1,
        "10001.im_2_correct",
        "missing field",
    )
    assert str(problem) == "dataset.json, row 1, field '10001.im_2_correct': missing field"


def test_every_problem_is_reported_at_once(tmp_path):
    data = {
        "10001": {**GOOD, "im_1_correct": "X"},
        "10002": {k: v for k, v in GOOD.items() if k != "question"},
        "10003": {**GOOD, "im_1": "../secret.jpg"},
    }
    problems = _problems(_write(tmp_path, data))
    assert {(p.row, p.field) for p in problems} == {
        (1, "10001.im_1_correct"),
        (2, "10002.question"),
        (3, "10003.im_1"),
    }


def test_duplicate_pair_ids_and_fields(tmp_path):
    body = json.dumps(GOOD)
    again = body[:-1] + ', "question": "again"}'
    text = f'{{"10001": {body}, "10001": {again}}}'
    problems = _problems(_write(tmp_path, text))
    assert ("dataset.json", 2, "10001") in _where(problems)
    assert any("duplicate pair id" in p.message for p in problems)


def test_one_image_path_has_one_local_id(tmp_path):
    second = {
        **GOOD,
        "im_2": "train/radiology/images/ROCO_00003.jpg",
        "im_2_local": 3,
        "im_1_local": 7,
    }
    problems = _problems(_write(tmp_path, {"10001": GOOD, "10002": second}))
    assert [(p.row, p.field) for p in problems] == [(2, "10002.im_1_local")]
    assert "has im_local 7 here but 1 in pair '10001'" in problems[0].message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"10001": [1]}', "must be an object"),
        ("{}", "no pairs"),
    ],
)
def test_unreadable_files(tmp_path, text, fragment):
    (problem,) = _problems(_write(tmp_path, text))
    assert fragment in problem.message and problem.file == "dataset.json"


def test_bad_pair_id(tmp_path):
    problems = _problems(_write(tmp_path, {"../x": GOOD}))
    assert any(p.field == "../x" and "pair id" in p.message for p in problems)


def test_csv_id_column_must_match(tmp_path):
    pair = read_release(_write(tmp_path, {"10001": GOOD})).pairs["10001"]
    text = dataset_csv_text([pair]).replace("\n0,10001,", "\n0,,", 1)
    problems = _problems(_write(tmp_path, text, "dataset.csv"))
    assert any(p.row == 1 and "pair id" in p.message for p in problems), [str(p) for p in problems]


def test_unknown_suffix(tmp_path):
    with pytest.raises(ValueError, match=r"\.json or \.csv"):
        read_release(_write(tmp_path, "{}", "dataset.txt"))


# ------------------------------------------------------------------ synthetic pairs


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_synthetic_sample_is_deterministic_and_marked(tmp_path):
    write_sample(tmp_path / "a", n_pairs=6, seed=7)
    write_sample(tmp_path / "b", n_pairs=6, seed=7)
    a = _files(tmp_path / "a")
    assert a == _files(tmp_path / "b")
    write_sample(tmp_path / "c", n_pairs=6, seed=8)
    assert _files(tmp_path / "c")["data/dataset.json"] != a["data/dataset.json"]

    release = read_release(tmp_path / "a" / "data" / "dataset.json")
    assert release.synthetic and len(release.pairs) == 6
    assert read_release(tmp_path / "a" / "data" / "dataset.csv").pairs == release.pairs
    assert SYNTHETIC_NOTICE in a["SYNTHETIC"].decode() and "SYNTHETIC" in a["README.md"].decode()
    images = [name for name in a if name.endswith(".jpg")]
    assert len(images) == 12 and all(
        name.startswith("roco/") and "/radiology/images/ROCO_9" in name for name in images
    )
    for name in images:
        with Image.open(tmp_path / "a" / name) as im:
            assert SYNTHETIC_NOTICE.encode() in im.info["comment"]
    for pair in release.pairs.values():
        assert pair.cap_1.startswith("[SYNTHETIC]") and pair.cap_2.startswith("[SYNTHETIC]")
    locate_images(release, tmp_path / "a" / "roco")  # every image present and decodable


def test_synthetic_pairs_look_like_the_real_ones():
    pairs = [s.pair for s in make_pairs(24, seed=0)]
    assert Counter(p.im_1_correct + p.im_2_correct for p in pairs) == {"AB": 12, "BA": 12}
    assert all({*p.category_1, *p.category_2} <= set(CATEGORIES) for p in pairs)
    assert all(0.9 <= p.BiomedCLIP_sim <= 0.97 and 0.33 <= p.DINO_sim <= 0.75 for p in pairs)
    assert all(p.option_A != p.option_B and p.im_1 != p.im_2 for p in pairs)
    assert [s.pair for s in make_pairs(10, seed=0)] == pairs[:10]  # a shorter sample is a prefix


@pytest.mark.parametrize(
    ("n", "seed", "error"),
    [(0, 0, ValueError), (True, 0, TypeError), (4, -1, ValueError), (4, "1", TypeError)],
)
def test_synthetic_arguments_are_checked(n, seed, error):
    with pytest.raises(error):
        make_pairs(n, seed)


def test_sample_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "x").write_text("keep")
    with pytest.raises(FileExistsError):
        write_sample(tmp_path, n_pairs=2)


# ------------------------------------------------------------------ ROCO locator


@pytest.fixture()
def sample(tmp_path):
    write_sample(tmp_path / "rel", n_pairs=4, seed=1)
    return tmp_path / "rel", read_release(tmp_path / "rel" / "data" / "dataset.json")


def test_locator_lists_every_missing_image_at_once(sample):
    root, release = sample
    removed = release.image_paths()[1:6]
    for rel in removed:
        (root / "roco" / rel).unlink()
    with pytest.raises(DataError) as info:
        locate_images(release, root / "roco")
    problems = info.value.problems
    missing = [p for p in problems if "missing ROCO image" in p.message]
    assert len(missing) == 5 and all(any(rel in p.message for p in missing) for rel in removed)
    assert all(
        p.file == "dataset.json" and p.row is not None and p.field.split(".")[1] in ("im_1", "im_2")
        for p in missing
    )
    assert (
        problems[0].message.startswith("5 of 8 ROCO images are unusable")
        and "(5 missing)" in problems[0].message
    )


def test_locator_finds_a_repository_root_and_checks_decoding_and_checksums(sample, tmp_path):
    root, release = sample
    repo = tmp_path / "ROCO-repo"
    repo.mkdir()
    (root / "roco").rename(repo / "data")
    assert roco_data_root(repo) == repo / "data"
    located = locate_images(release, repo)
    assert list(located) == release.image_paths()
    sums = tmp_path / "roco_sha256.txt"
    sums.write_text(checksum_text(located.values()))
    assert read_checksums(sums) == {rel: img.sha256 for rel, img in located.items()}

    first, second, third = release.image_paths()[:3]
    (repo / "data" / first).write_bytes(b"\xff\xd8\xff\xe0 truncated")  # not decodable
    with open(repo / "data" / second, "ab") as fh:  # decodable, but different bytes
        fh.write(b"\0")
    lines = [line for line in sums.read_text().splitlines() if not line.endswith(third)]
    sums.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        locate_images(release, repo, checksums=read_checksums(sums))
    messages = [p.message for p in info.value.problems]
    assert any(first in m and "decode" in m for m in messages), messages
    assert any(second in m and "checksum mismatch" in m for m in messages), messages
    assert any(third in m and "no entry in the checksum list" in m for m in messages), messages


def test_locator_refuses_symlinks_out_of_the_root(sample, tmp_path):
    root, release = sample
    rel = release.image_paths()[0]
    outside = tmp_path / "outside.jpg"
    (root / "roco" / rel).rename(outside)
    os.symlink(outside, root / "roco" / rel)
    with pytest.raises(DataError) as info:
        locate_images(release, root / "roco")
    assert any("symbolic link" in p.message for p in info.value.problems)


def test_bad_checksum_list(tmp_path):
    path = tmp_path / "sums.txt"
    path.write_text("abc  x.jpg\n" + "0" * 64 + "  y.jpg\n" + "1" * 64 + "  y.jpg\n")
    with pytest.raises(DataError) as info:
        read_checksums(path)
    assert [p.row for p in info.value.problems] == [1, 3]


def test_locator_needs_a_folder(sample, tmp_path):
    _, release = sample
    with pytest.raises(NotADirectoryError):
        locate_images(release, tmp_path / "nowhere")
