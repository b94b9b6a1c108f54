"""The `datasets` builder: configs, DatasetInfo, cache key, image choice, skipped rows, variant
audit."""

import csv
import io
import re
import shutil
from collections import Counter
from importlib import resources

import pytest

from medvigil.builders.medvigil import CONFIG_NAMES, VERSION, MedvigilBuilder, MedvigilConfig
from medvigil.builders.medvigil.builder import DATE_PUBLISHED
from medvigil.suites.medvigil.export import variants
from medvigil.suites.medvigil.export.dataset_rows import ReleaseRows
from medvigil.suites.medvigil.release.release_loading import load_release

SLOW_FIXTURES = {"cache"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    from medvigil.suites.medvigil.synthetic import generate_release

    root = tmp_path_factory.mktemp("builder_release") / "release"
    generate_release(root, cases=12, seed=1)
    return root


@pytest.fixture(scope="module")
def release(release_dir):
    return load_release(release_dir)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("hf_builder_cache"))


def _builder(release_dir, cache, config="mcq", **kwargs) -> MedvigilBuilder:
    return MedvigilBuilder(config_name=config, release_dir=release_dir, cache_dir=cache, **kwargs)


def test_configs_version_and_info(release_dir, release, cache):
    assert set(CONFIG_NAMES) == {"cases", "mcq", "open", "triplets", "mcq_shuffled", "mcq_circular"}
    assert MedvigilBuilder.DEFAULT_CONFIG_NAME == "mcq"
    builder = _builder(release_dir, cache)
    assert builder.config.release_digest == release.digest
    assert builder.info.version == VERSION
    assert f"sha256:{release.digest}" in builder.info.description
    assert "clinical-deployment" in builder.info.description and builder.info.citation.startswith(
        "@article"
    )


def test_download_and_prepare_round_trip(release_dir, release, cache):
    builder = _builder(release_dir, cache, "mcq_circular")
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test").remove_columns("image")
    assert len(ds) == 5 * len(release.probes_mcq)
    assert Counter(ds["rotation"]) == {r: len(release.probes_mcq) for r in range(5)}
    assert f"sha256:{release.digest}" in ds.info.description  # persisted with the prepared data
    first = next(p for p in release.probes_mcq if p.probe_kind == "halluc_trap")
    rows = [r for r in ds if r["probe_id"] == first.probe_id]
    assert [r["permutation"] for r in rows] == ["ABCDE", "BCDEA", "CDEAB", "DEABC", "EABCD"]
    assert [r["correct_letter"] for r in rows] == [
        "E",
        "D",
        "C",
        "B",
        "A",
    ]  # the safe option rotates too


def test_cache_key_follows_release_content_and_settings(release_dir, cache):
    real = _builder(release_dir, cache, "mcq_shuffled")
    other_digest = _builder(release_dir, cache, "mcq_shuffled", release_digest="0" * 64)
    other_seed = _builder(release_dir, cache, "mcq_shuffled", shuffle_seed=5)
    assert len({real.config_id, other_digest.config_id, other_seed.config_id}) == 3


def test_bad_parameters(release_dir, release, cache, tmp_path):
    with pytest.raises(ValueError, match="release_dir is required"):
        MedvigilBuilder(config_name="mcq")
    with pytest.raises(NotADirectoryError):
        MedvigilBuilder(config_name="mcq", release_dir=tmp_path / "missing")
    with pytest.raises(ValueError, match="variant_source"):
        MedvigilConfig(name="mcq", variant_source="guess")
    with pytest.raises(TypeError, match="shuffle_seed"):
        MedvigilConfig(name="mcq", shuffle_seed="1")
    with pytest.raises(ValueError, match="not found"):
        _builder(release_dir, cache, "nope")
    other = tmp_path / "copy"
    shutil.copytree(release_dir, other)
    with pytest.raises(ValueError, match="use_release"):
        _builder(release_dir, cache).use_release(load_release(other, check=False))


def test_image_choice_per_probe_kind(release_dir, release, cache):
    rows = dict(_builder(release_dir, cache).iter_rows())
    shipped = dict(_builder(release_dir, cache, variant_source="shipped").iter_rows())
    for probe in release.probes_mcq:
        row, case = rows[probe.probe_id], release.cases[probe.case_id]
        kind = variants.image_kind(probe.probe_kind)
        assert row["image_kind"] == kind
        if kind == "none" or case.credentialed:
            assert row["image"] is None
        elif kind != "case":
            assert (
                shipped[probe.probe_id]["image"]["bytes"] == release.image_path(probe).read_bytes()
            )
            # the synthetic generator renders with the same functions: render == shipped
            assert row["image"]["bytes"] == shipped[probe.probe_id]["image"]["bytes"]


def test_unusable_roi_probes_are_skipped_and_counted(release_dir, release, cache, tmp_path):
    """A release that breaks the ROI rule is refused by the validator; without the check the builder
    skips."""
    broken = tmp_path / "broken"
    shutil.copytree(release_dir, broken)
    (broken / "RELEASE_DIGEST").unlink()
    grounding = broken / "grounding.csv"
    rows = list(csv.DictReader(io.StringIO(grounding.read_text(encoding="utf-8"))))
    target = next(
        r
        for r in rows
        if release.cases[r["case_id"]].roi_usable and not release.cases[r["case_id"]].credentialed
    )
    target["roi_bbox_norm"] = "[0.0, 0.0, 1.0, 1.0]"
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    grounding.write_text(buf.getvalue(), encoding="utf-8")
    builder = _builder(broken, cache, check=False)
    out = dict(builder.iter_rows())
    roi_probes = [
        p
        for p in release.probes_mcq
        if p.case_id == target["case_id"] and p.probe_kind in ("roi_masked", "roi_only")
    ]
    assert roi_probes and not any(p.probe_id in out for p in roi_probes)
    assert sum(n for reason, n in builder.skipped.items() if "no usable ROI" in reason) == len(
        roi_probes
    )
    from medvigil.errors import DataError

    with pytest.raises(DataError):
        dict(_builder(broken, cache).iter_rows())


def test_variant_audit_reports_differences(release_dir, tmp_path):
    copy = tmp_path / "audit"
    shutil.copytree(release_dir, copy)
    perturbed = sorted((copy / "images_perturbed").glob("*_roi_masked.jpg"))
    flipped = sorted((copy / "images_perturbed").glob("*_lr_flip.jpg"))
    shutil.copy(flipped[0], perturbed[0])  # wrong content
    perturbed[1].unlink()  # missing
    release = load_release(copy, check=False)
    comparison = variants.compare_shipped_variants(release, ReleaseRows(release).rendered_image)
    counts = comparison.counts
    assert counts["missing_shipped"] == 1
    assert counts.get("differs", 0) + counts.get("size_differs", 0) == 1
    assert counts["match"] == len(comparison.differences) - 2
    assert len(comparison.mismatches) == 2


def test_changelog_names_the_current_version():
    text = (
        resources.files("medvigil.builders.medvigil")
        .joinpath("CHANGELOG.md")
        .read_text(encoding="utf-8")
    )
    top = re.search(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)", text, re.MULTILINE)
    assert top and top.group(1) == str(VERSION) and top.group(2) == DATE_PUBLISHED
