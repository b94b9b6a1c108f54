"""``medvigil medqdeg-build``: MedQ-DEG-Bench TSVs (synthetic, in the release's format) to a
Hub-ready build that ``load_dataset`` reads back row for row; malformed files refused naming file
and index."""

import base64
import csv
import json
from pathlib import Path

import pytest
from medqdeg_bench_files import HEADER, tsv_rows, write_tsv, write_tsvs

from medvigil.cli import main
from medvigil.suites.medqdeg.bench_tsv import content_key

SLOW_FIXTURES = {"built"}  # builds a dataset


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("medqdeg_bench")
    tsvs = write_tsvs(base / "tsv")
    out = base / "build"
    assert main(["medqdeg-build", *map(str, tsvs.values()), "--out", str(out)]) == 0
    return tsvs, out


def _tsv_table(path: Path) -> list[dict]:
    csv.field_size_limit(1 << 30)
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader)
        return [dict(zip(header, row)) for row in reader]


def test_every_tsv_loads_back_row_for_row(built):
    import datasets

    tsvs, out = built
    for kind, path in tsvs.items():
        config = f"{kind}_test"
        loaded = datasets.load_dataset(str(out), config, split="test")
        loaded = loaded.cast_column("image", datasets.Image(decode=False))
        rows = _tsv_table(path)
        assert len(loaded) == len(rows) and loaded.column_names == [*HEADER, "medvigil_pair_key"]
        images = {r["index"]: r["image"] for r in rows if len(r["image"]) > 64}
        for got, want in zip(loaded, rows):
            for column in HEADER:
                if column == "image":
                    source = want["image"] if len(want["image"]) > 64 else images[want["image"]]
                    assert got["image"]["bytes"] == base64.b64decode(source)  # the original file
                else:
                    assert got[column] == (want[column] or None), (config, want["index"], column)
    info = json.loads((out / "build_info.json").read_text())
    # the templated question asked of two clean images is ambiguous: its clean rows and their 8
    # degraded versions stay unpaired; every other degraded row pairs with its clean row
    assert info["pairing"]["simulate_test"] == {"paired": 16, "unpaired": 0, "ambiguous": 8}
    assert info["pairing"]["good_test"] == {"paired": 4, "unpaired": 0, "ambiguous": 2}
    good = datasets.load_dataset(str(out), "good_test", split="test")
    simulate = datasets.load_dataset(str(out), "simulate_test", split="test")
    clean = {r["medvigil_pair_key"]: r for r in good if r["medvigil_pair_key"]}
    for row in simulate:
        if row["medvigil_pair_key"]:
            partner = clean[row["medvigil_pair_key"]]
            assert (partner["question"], partner["answer"]) == (row["question"], row["answer"])
    assert (out / "croissant.json").is_file() and "config_name: simulate_test" in (
        out / "README.md"
    ).read_text()


def _malformed(tmp_path: Path, name: str, change) -> Path:
    rows = tsv_rows("simulate")
    change(rows)
    return write_tsv(tmp_path / name, rows)


def _set(i: int, column: str, value: str):
    def change(rows):
        rows[i][HEADER.index(column)] = value

    return change


@pytest.mark.parametrize(
    "change, index, words",
    [
        (_set(5, "answer", ""), "2005", "answer is empty"),
        (_set(2, "answer", "E"), "2002", "answer E names an empty option"),  # row 2: CT, 4 options
        (_set(7, "image", "iVBORw0KGgo***" * 10), "2007", "not base64 of an image"),
    ],
)
def test_a_malformed_tsv_is_refused_naming_file_and_index(tmp_path, capsys, change, index, words):
    path = _malformed(tmp_path, "MedQ-Robust-simulate-test.tsv", change)
    out = tmp_path / "build"
    assert main(["medqdeg-build", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and f"index {index!r}" in err and words in err, err
    assert not out.exists() and not list(tmp_path.glob(".build*"))  # no partial output


def test_content_key_ignores_the_image_and_spacing():
    rows = tsv_rows("simulate")
    row = dict(zip(HEADER, rows[0]))
    same = {**row, "image": "x", "question": row["question"] + "  ", "degradation_type": "other"}
    assert content_key(row) == content_key(same)
    assert content_key(row) != content_key({**row, "answer": "C"})
