"""croissant.json of a build: zero errors and zero warnings under mlcroissant, readable records,
checksums."""

import copy
import json

import datasets
import pytest

from medvigil.files.digest import file_sha256
from medvigil.hub import croissant
from medvigil.suites.medvigil.export.export import build

SLOW_FIXTURES = {"built"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("croissant")
    generate_release(base / "release", cases=12, seed=2)
    out = base / "medvigil"
    build(base / "release", out)
    return out


@pytest.fixture(scope="module")
def doc(built):
    return json.loads((built / "croissant.json").read_text(encoding="utf-8"))


def test_validates_with_no_error_and_no_warning(built):
    assert croissant.validate(built / "croissant.json") == ([], [])


def test_distribution_checksums_match_the_shards(built, doc):
    objects = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    shards = sorted(p.relative_to(built).as_posix() for p in (built / "data").rglob("*.parquet"))
    assert sorted(o["contentUrl"] for o in objects) == shards
    for o in objects:
        assert o["sha256"] == file_sha256(built / o["contentUrl"])
        assert o["encodingFormat"] == "application/x-parquet"
    file_sets = {d["@id"]: d for d in doc["distribution"] if d["@type"] == "cr:FileSet"}
    assert set(file_sets) == {f"parquet-{rs['@id']}" for rs in doc["recordSet"]}
    assert doc["conformsTo"] == croissant.CROISSANT_1_0


def test_record_sets_describe_every_column_with_types(built, doc):
    by_config = {rs["@id"]: rs for rs in doc["recordSet"]}
    for config, rs in by_config.items():
        names = datasets.load_dataset(
            str(built), config, split="test", cache_dir=str(built.parent / "hf")
        ).column_names
        assert [f["@id"].split("/", 1)[1] for f in rs["field"]] == names
    mcq = {f["@id"]: f for f in by_config["mcq"]["field"]}
    assert mcq["mcq/image"]["dataType"] == "sc:ImageObject" and mcq["mcq/image"]["source"][
        "transform"
    ] == {"jsonPath": "bytes"}
    assert mcq["mcq/options"]["repeated"] is True and mcq["mcq/options"]["dataType"] == "sc:Text"
    assert mcq["mcq/text_only_answerable"]["dataType"] == "sc:Boolean"
    assert by_config["mcq_circular"]["field"][-len(mcq) :] and any(
        f["@id"] == "mcq_circular/rotation" and f["dataType"] == "sc:Integer"
        for f in by_config["mcq_circular"]["field"]
    )


def test_mlcroissant_reads_the_records(built):
    import mlcroissant

    dataset = mlcroissant.Dataset(jsonld=str(built / "croissant.json"))
    records = list(dataset.records("triplets"))
    expected = datasets.load_dataset(
        str(built), "triplets", split="test", cache_dir=str(built.parent / "hf")
    )
    assert len(records) == len(expected)
    first = records[0]
    value = first["triplets/case_id"]
    assert (value.decode() if isinstance(value, bytes) else value) == expected[0]["case_id"]


def test_validator_findings_are_returned(doc, built):
    broken = copy.deepcopy(doc)
    del broken["@context"]["samplingRate"]
    del broken["datePublished"]
    errors, warnings = croissant.validate(broken)
    assert any("not standard" in w for w in warnings)
    assert any("datePublished" in w for w in warnings)
    no_checksum = copy.deepcopy(doc)
    for item in no_checksum["distribution"]:
        item.pop("sha256", None)
    errors, _ = croissant.validate(no_checksum)
    assert errors


def test_unsupported_feature_is_rejected():
    features = datasets.Features({"x": datasets.List(datasets.List(datasets.Value("int32")))})
    with pytest.raises(ValueError, match="nested lists"):
        croissant.record_set("c", features)
    with pytest.raises(ValueError, match="no Croissant data type"):
        croissant.record_set("c", datasets.Features({"a": datasets.Audio()}))
