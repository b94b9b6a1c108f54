"""The Hub build at the size of its distinct images (issue #31).

Each distinct image is stored once per Parquet row group (dictionary-encoded ``image.bytes``,
the rows of one case in one row group): the files shrink, the table read back does not change.
"""

import hashlib
import os

import pyarrow.parquet as pq
import pytest

from medvigil.hub import parquet_shards
from medvigil.hub.parquet_shards import DATA_DIR, ROWS_PER_BATCH, write_shards
from medvigil.suites.medvigil.export.dataset_configs import CONFIG_NAMES, FEATURES
from medvigil.suites.medvigil.export.export import build

CASES = 12


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    from medvigil.suites.medvigil.synthetic import generate_release

    root = tmp_path_factory.mktemp("size_release") / "release"
    generate_release(root, cases=CASES, seed=0)
    return root


@pytest.fixture(scope="module")
def built(release_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("size_out") / "medvigil"
    return out, build(release_dir, out, repo_id="org/medvigil")


@pytest.fixture(scope="module")
def hf_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("hf_cache"))


def _folder_bytes(root) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def _config_table(out, config):
    return pq.read_table(sorted((out / DATA_DIR / config).glob("*.parquet")))


def _distinct_image_bytes(table) -> int:
    images = {}
    for cell in table.column("image").to_pylist():
        if cell and cell["bytes"]:
            images[hashlib.sha256(cell["bytes"]).digest()] = len(cell["bytes"])
    return sum(images.values())


def test_every_config_is_about_the_size_of_its_distinct_images(built, release_dir):
    out, report = built
    for config in CONFIG_NAMES:
        table = _config_table(out, config)
        stored = sum(s.size for s in report.shards if s.config == config)
        distinct = _distinct_image_bytes(table)
        # the rest of a row (texts, ids, indices) is small next to its images
        assert distinct <= stored <= distinct * 1.03 + 64 * 1024, (config, stored, distinct)
        for path in (out / DATA_DIR / config).glob("*.parquet"):
            meta = pq.ParquetFile(path).metadata
            column = meta.schema.names.index("bytes")  # image.bytes, the only leaf named so
            assert all(
                meta.row_group(g).column(column).has_dictionary_page
                for g in range(meta.num_row_groups)
            )
    assert sum(s.size for s in report.shards) <= 5 * _folder_bytes(release_dir)


@pytest.mark.slow
def test_forty_case_release_builds_to_at_most_five_times_its_bytes(tmp_path):
    """The issue's bar: 40 cases (14.8 MB) built to 320 MB when every row stored its image."""
    from medvigil.suites.medvigil.synthetic import generate_release

    generate_release(tmp_path / "release", cases=40, seed=0)
    report = build(tmp_path / "release", tmp_path / "built")
    assert report.rows["mcq_circular"] == 5 * report.rows["mcq"]
    assert sum(s.size for s in report.shards) <= 5 * _folder_bytes(tmp_path / "release")


def test_table_equals_the_one_the_plain_datasets_writer_stores(built, release_dir, tmp_path):
    """The same rows written by `datasets`' own Parquet writer (one image copy per row) read back
    equal."""
    from datasets.arrow_writer import ParquetWriter

    from medvigil.suites.medvigil.export.dataset_rows import ReleaseRows
    from medvigil.suites.medvigil.release.release_loading import load_release

    out, _ = built
    rows = ReleaseRows(load_release(release_dir), image_store=tmp_path / "images")
    for config in ("mcq", "mcq_circular", "cases"):
        plain = tmp_path / f"{config}.parquet"
        writer = ParquetWriter(
            features=FEATURES[config], path=str(plain), writer_batch_size=ROWS_PER_BATCH
        )
        for _key, row in rows.iter_rows(config):
            writer.write(FEATURES[config].encode_example(row))
        writer.finalize()
        ours = _config_table(out, config)
        theirs = pq.read_table(plain)
        assert ours.schema.equals(theirs.schema, check_metadata=False)
        assert ours.schema.metadata[b"huggingface"] == theirs.schema.metadata[b"huggingface"]
        assert ours.equals(theirs), config
    assert os.path.getsize(tmp_path / "mcq_circular.parquet") > 4 * os.path.getsize(
        next((out / DATA_DIR / "mcq_circular").glob("*.parquet"))
    )


def test_load_dataset_and_streaming_return_the_rows_and_decodable_images(built, hf_cache):
    import datasets

    out, report = built
    for config in ("mcq", "triplets"):
        table = _config_table(out, config).to_pylist()
        loaded = datasets.load_dataset(str(out), config, split="test", cache_dir=hf_cache)
        streamed = datasets.load_dataset(str(out), config, split="test", streaming=True)
        assert len(loaded) == len(table) == report.rows[config]
        n = 0
        for cell, a, b in zip(table, loaded, streamed, strict=False):
            n += 1
            assert a["case_id"] == b["case_id"] == cell["case_id"]
            if cell["image"] is None or cell["image"]["bytes"] is None:
                assert a["image"] is None and b["image"] is None
                continue
            assert (
                a["image"].tobytes() == b["image"].tobytes() and a["image"].size == b["image"].size
            )
            assert a["image"].size[0] > 0
        assert n == len(table)


def test_card_and_build_info_give_download_and_decoded_sizes(built):
    import yaml

    out, report = built
    front = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---")[1])
    info = {entry["config_name"]: entry for entry in front["dataset_info"]}
    for config in CONFIG_NAMES:
        mine = [s for s in report.shards if s.config == config]
        assert info[config]["download_size"] == sum(s.size for s in mine)
        assert (
            info[config]["dataset_size"]
            == sum(s.table_bytes for s in mine)
            == info[config]["splits"][0]["num_bytes"]
        )
    assert info["mcq_circular"]["dataset_size"] > 4 * info["mcq_circular"]["download_size"]
    assert "## Storage" in (out / "README.md").read_text(encoding="utf-8")


def test_publish_dry_run_prints_the_upload_size_per_config(built, release_dir, capsys, monkeypatch):
    import huggingface_hub

    from medvigil.cli import main

    monkeypatch.setattr(huggingface_hub, "HfApi", None)  # a dry run never gets that far
    out, report = built
    argv = ["publish", str(out), "--release", str(release_dir), "--repo", "org/x", "--dry-run"]
    assert main(argv) == 2  # the card names org/medvigil: rebuild with --repo org/x
    assert "rebuild with `medvigil build REL --out OUT --repo org/x`" in capsys.readouterr().err
    assert main([*argv[:4], "--repo", "org/medvigil", "--dry-run"]) == 0
    text = capsys.readouterr().out.split("per config (Parquet shards):\n", 1)[1]
    printed = {
        line.split()[1]: int(line.split()[0].replace(",", ""))
        for line in text.splitlines()
        if line.strip()
    }
    assert printed == {
        c: sum(s.size for s in report.shards if s.config == c) for c in sorted(CONFIG_NAMES)
    }


# --------------------------------------------------------------------------- row groups


def _rows(cases: int, per_case: int, image_size: int = 4096):
    """``per_case`` rows per case, all showing the case's one (incompressible) image."""
    for c in range(cases):
        image = hashlib.sha256(str(c).encode()).digest() * (image_size // 32)
        for i in range(per_case):
            yield (
                f"{c}-{i}",
                {"case_id": f"case-{c}", "n": i, "image": {"bytes": image, "path": None}},
            )


def _features():
    import datasets

    return datasets.Features(
        {
            "case_id": datasets.Value("string"),
            "n": datasets.Value("int64"),
            "image": datasets.Image(),
        }
    )


def _payload(row: dict) -> int:
    return len(row["image"]["bytes"]) + 16


def test_rows_of_a_case_share_a_row_group_and_its_dictionary(tmp_path):
    count, shards = write_shards(
        _rows(10, 30), _features(), tmp_path, "c", 10**9, _payload, group_column="case_id"
    )
    assert count == 300 and len(shards) == 1
    pf = pq.ParquetFile(tmp_path / shards[0].path)
    cases_per_group = []
    for g in range(pf.num_row_groups):
        ids = pf.read_row_group(g, columns=["case_id"]).column(0).to_pylist()
        assert len(ids) >= ROWS_PER_BATCH or g == pf.num_row_groups - 1
        cases_per_group.append(set(ids))
    for a, b in zip(cases_per_group, cases_per_group[1:]):
        assert not a & b  # no case split across row groups
    assert 10 * 4096 <= shards[0].size < 10 * 4096 + 16 * 1024  # each image once
    assert shards[0].table_bytes > 300 * 4096  # decoded: one copy per row


def test_without_group_column_row_groups_hold_the_batch_size(tmp_path):
    _, shards = write_shards(_rows(3, 100), _features(), tmp_path, "c", 10**9, _payload)
    pf = pq.ParquetFile(tmp_path / shards[0].path)
    assert [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)] == [
        64,
        64,
        64,
        64,
        44,
    ]


def test_a_huge_case_is_cut_at_the_decoded_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(
        parquet_shards, "MAX_GROUP_BYTES", 100 * (64 + 16)
    )  # 100 rows of _payload 80
    _, shards = write_shards(
        _rows(1, 250, 64), _features(), tmp_path, "c", 10**9, _payload, group_column="case_id"
    )
    pf = pq.ParquetFile(tmp_path / shards[0].path)
    assert [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)] == [100, 100, 50]


def test_repeated_images_count_once_towards_the_shard_size(tmp_path):
    # 4 cases x 20 rows of one 4 KiB image: 16 KiB of distinct payload, 320 KiB counted per row
    _, shards = write_shards(
        _rows(4, 20), _features(), tmp_path, "c", 40 * 1024, _payload, group_column="case_id"
    )
    assert len(shards) == 1
    _, shards = write_shards(
        _rows(4, 20), _features(), tmp_path, "d", 6 * 1024, _payload, group_column="case_id"
    )
    assert len(shards) > 1
