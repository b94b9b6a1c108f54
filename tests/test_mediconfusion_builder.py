"""MediConfusion builder and Hub-ready export: round trip through datasets, card, Croissant."""

import json
import os
from pathlib import Path

import datasets
import pytest
import yaml

from medvigil.data_location import DataNotFoundError
from medvigil.errors import DataError
from medvigil.hub import croissant
from medvigil.suites.mediconfusion.data import ENV_VAR, resolve_data_location
from medvigil.suites.mediconfusion.export import build
from medvigil.suites.mediconfusion.release import dataset_json_text, read_release
from medvigil.suites.mediconfusion.synthetic import write_sample

SLOW_FIXTURES = {"built"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = (
    Path(os.environ.get("MEDVIGIL_SHARED") or ROOT.parent / "shared")
    / "fixtures"
    / "mediconfusion"
    / "dataset.json"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("mediconfusion")
    write_sample(base / "rel", n_pairs=8, seed=2)
    report = build(base / "rel" / "data" / "dataset.json", base / "rel" / "roco", base / "out")
    return base, report


def _load(out: Path, config: str):
    return datasets.load_dataset(str(out), config, split="test")


def test_round_trip_questions(built):
    base, report = built
    release = read_release(base / "rel" / "data" / "dataset.json")
    questions = _load(base / "out", "questions")
    assert len(questions) == 16 == report.rows["questions"]
    assert questions.features["image"] == datasets.Image()
    rows = questions.cast_column("image", datasets.Image(decode=False))
    for row, (pair, key) in zip(rows, release.images()):
        assert (row["pair_id"], row["image_key"]) == (pair.pair_id, key)
        assert row["correct_letter"] == pair.correct(key)
        assert (row["option_A"], row["option_B"], row["question"]) == (
            pair.option_A,
            pair.option_B,
            pair.question,
        )
        assert row["categories"] == list(pair.categories(key)) and row["synthetic"] is True
        source = base / "rel" / "roco" / pair.image_path(key)
        assert row["image"]["bytes"] == source.read_bytes()  # original bytes, never re-encoded
        assert row["image"]["path"] == pair.image_path(key) == row["image_path"]
    letters = [
        (a, b) for a, b in zip(questions["correct_letter"][0::2], questions["correct_letter"][1::2])
    ]
    assert sorted(letters) == [("A", "B")] * 4 + [("B", "A")] * 4
    assert questions[0]["image"].size == (320, 360) or questions[0]["image"].size == (320, 320)


def test_round_trip_pairs(built):
    base, _ = built
    release = read_release(base / "rel" / "data" / "dataset.json")
    pairs = _load(base / "out", "pairs").cast_column("image_1", datasets.Image(decode=False))
    assert len(pairs) == 8
    for row, pair in zip(pairs, release.pairs.values()):
        assert {k: row[k] for k in pair.to_json()} == pair.to_json()
        assert row["image_1"]["bytes"] == (base / "rel" / "roco" / pair.im_1).read_bytes()


def test_croissant_validates_cleanly(built):
    base, report = built
    errors, warnings = croissant.validate(base / "out" / "croissant.json")
    assert errors == [] and warnings == []
    doc = json.loads((base / "out" / "croissant.json").read_text())
    assert [r["@id"] for r in doc["recordSet"]] == ["questions", "pairs"]
    assert {d["contentUrl"] for d in doc["distribution"] if d["@type"] == "cr:FileObject"} == {
        s.path for s in report.shards
    }


def test_card_and_build_info(built):
    base, report = built
    card = (base / "out" / "README.md").read_text()
    head = yaml.safe_load(card.split("---\n")[1])
    assert [c["config_name"] for c in head["configs"]] == ["questions", "pairs"] and head[
        "configs"
    ][0]["default"]
    assert head["mediconfusion"]["synthetic"] is True and "synthetic" in head["tags"]
    assert "Synthetic data" in card and "CC BY-NC-SA 4.0" in card
    info = json.loads((base / "out" / "build_info.json").read_text())
    assert (
        info["rows"] == {"questions": 16, "pairs": 8}
        and info["build_digest"] == report.build_digest
    )
    sums = (base / "out" / "roco_sha256.txt").read_text().splitlines()
    assert len(sums) == 16 and all(len(line.split("  ")[0]) == 64 for line in sums)


def test_build_is_deterministic_and_refuses_to_overwrite(built, tmp_path):
    base, _ = built
    again = tmp_path / "again"
    build(
        base / "rel" / "data" / "dataset.json",
        base / "rel" / "roco",
        again,
        checksums_file=base / "out" / "roco_sha256.txt",
    )
    for path in sorted((base / "out").rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (again / path.relative_to(base / "out")).read_bytes(), path
    with pytest.raises(FileExistsError):
        build(base / "rel" / "data" / "dataset.json", base / "rel" / "roco", again)


def test_missing_images_stop_the_build_before_writing(built, tmp_path):
    base, _ = built
    release = read_release(base / "rel" / "data" / "dataset.json")
    (tmp_path / "roco").mkdir()
    with pytest.raises(DataError) as info:
        build(base / "rel" / "data" / "dataset.json", tmp_path / "roco", tmp_path / "out")
    problems = info.value.problems
    assert sum("missing ROCO image" in p.message for p in problems) == len(release.image_paths())
    assert f"({len(release.image_paths())} missing)" in problems[0].message
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not FIXTURE.is_file(), reason="shared MediConfusion fixture not present")
def test_a_real_release_build_carries_the_roco_licence(tmp_path):
    """Three real pairs with stand-in JPEGs at their ROCO paths: the non-synthetic card and
    licences."""
    from PIL import Image

    release = read_release(FIXTURE)
    pairs = list(release.pairs.values())[:3]
    (tmp_path / "dataset.json").write_text(dataset_json_text(pairs))
    for i, rel in enumerate(dict.fromkeys(p for pair in pairs for p in (pair.im_1, pair.im_2))):
        target = tmp_path / "roco" / "data" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (32, 32), (i * 40 % 256, 90, 90)).save(target, format="JPEG")
    report = build(tmp_path / "dataset.json", tmp_path / "roco", tmp_path / "out")
    assert (
        not report.synthetic
        and report.rows == {"questions": 6, "pairs": 3}
        and report.n_images == 4
    )
    card = (tmp_path / "out" / "README.md").read_text()
    head = yaml.safe_load(card.split("---\n")[1])
    assert head["license"] == ["cc-by-nc-sa-4.0", "mit"] and "non-commercial" in head["tags"]
    assert "non-commercial use only" in card and "Synthetic" not in card
    doc = json.loads((tmp_path / "out" / "croissant.json").read_text())
    assert "https://creativecommons.org/licenses/by-nc-sa/4.0/" in doc["license"]
    assert croissant.validate(tmp_path / "out" / "croissant.json") == ([], [])
    questions = _load(tmp_path / "out", "questions")
    assert questions["pair_id"][:2] == ["10001", "10001"] and questions["correct_letter"][:2] == [
        "A",
        "B",
    ]


def test_data_location(built, tmp_path):
    base, _ = built
    assert resolve_data_location({ENV_VAR: str(base / "out")}) == str((base / "out").resolve())
    assert resolve_data_location({ENV_VAR: "org/mediconfusion"}) == "org/mediconfusion"
    with pytest.raises(DataNotFoundError, match="mediconfusion-build"):
        resolve_data_location({ENV_VAR: str(base / "rel")})  # a release, not a build
    with pytest.raises(DataNotFoundError, match="MEDICONFUSION_DATA is not set"):
        resolve_data_location({"MEDVIGIL_HOME": str(tmp_path)})
    default = tmp_path / "datasets" / "mediconfusion"
    default.mkdir(parents=True)
    (default / "README.md").write_text((base / "out" / "README.md").read_text())
    assert resolve_data_location({"MEDVIGIL_HOME": str(tmp_path)}) == str(default)
