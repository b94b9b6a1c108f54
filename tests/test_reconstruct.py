"""reconstruct/: pointer checks, DICOM display pipeline, re-derivation, and the local-only build."""

import csv
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pydicom
import pytest
from PIL import Image

from medvigil.errors import DataError
from medvigil.files.digest import file_sha256, release_digest
from medvigil.images import imaging
from medvigil.reconstruct import mimic_cxr
from medvigil.reconstruct.derive import MANIFEST_NAME, derive_image, published_jpeg, reconstruct
from medvigil.reconstruct.pointers import verify_pointers
from medvigil.suites.medvigil.release.release_loading import load_release

CT_SMALL = pydicom.data.get_testdata_file("CT_small.dcm", download=False)
MR_SMALL = pydicom.data.get_testdata_file("MR_small.dcm", download=False)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("reconstruct")
    generate_release(base / "release", cases=12, seed=0, credentialed_out=base / "credentialed")
    return base / "release", base / "credentialed"


@pytest.fixture(scope="module")
def reconstructed(dirs, tmp_path_factory):
    out = tmp_path_factory.mktemp("reconstructed") / "cxr"
    return reconstruct(dirs[0], dirs[1], out)


def test_reconstruct_rederives_every_credentialed_image(dirs, reconstructed):
    release = load_release(dirs[0])
    credentialed = [c for c in release.cases.values() if c.credentialed]
    assert len(credentialed) >= 2 and len(reconstructed.cases) == len(credentialed)
    manifest = json.loads((reconstructed.out / MANIFEST_NAME).read_text())
    assert manifest["release_digest"] == release.digest
    for case in credentialed:
        source_path, sha = release.pointers[case.case_id]
        image = reconstructed.out / "images" / case.image_file
        assert image.read_bytes() == published_jpeg(dirs[1] / source_path)
        assert max(Image.open(image).size) == 1024
        assert (reconstructed.out / "images_perturbed" / f"{case.case_id}_lr_flip.jpg").is_file()
        record = next(r for r in manifest["cases"] if r["case_id"] == case.case_id)
        assert record["source_sha256"] == sha and record["files"][
            f"images/{case.image_file}"
        ] == file_sha256(image)
    assert "LOCAL ONLY" in reconstructed.format()


def test_local_only_build_embeds_them_and_publish_refuses(dirs, reconstructed, tmp_path):
    import datasets

    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.export.publish_check import check_publishable

    out = tmp_path / "local" / "medvigil"
    report = build(
        dirs[0], out, reconstructed=reconstructed.out, local_only=True, configs=("cases",)
    )
    assert report.local_only and (out / "LOCAL_ONLY").is_file()
    rows = datasets.load_dataset(str(out), "cases", split="test", cache_dir=str(tmp_path / "hf"))
    for row in rows:
        if row["credentialed"]:
            assert row["image_status"] == "local_reconstruction" and row["image"] is not None
    assert "LOCAL ONLY" in (out / "README.md").read_text()
    _, problems = check_publishable(out, dirs[0])
    messages = " ".join(p.message for p in problems)
    assert "local-only" in messages and "credentialed case" in messages


def test_reconstruction_of_another_release_is_refused(dirs, reconstructed, tmp_path):
    from medvigil.suites.medvigil.export.export import build

    fake = tmp_path / "fake"
    shutil.copytree(reconstructed.out, fake)
    manifest = json.loads((fake / MANIFEST_NAME).read_text())
    manifest["release_digest"] = "0" * 64
    (fake / MANIFEST_NAME).write_text(json.dumps(manifest))
    with pytest.raises(DataError, match="reconstructed for release"):
        build(dirs[0], tmp_path / "out", reconstructed=fake, local_only=True, configs=("cases",))
    assert not (tmp_path / "out").exists()


def test_every_missing_or_mismatching_file_is_listed_at_once(dirs, tmp_path):
    release = load_release(dirs[0])
    copy = tmp_path / "copy"
    shutil.copytree(dirs[1], copy)
    (missing_id, (missing_path, _)), (changed_id, (changed_path, _)) = sorted(
        release.pointers.items()
    )[:2]
    (copy / missing_path).unlink()
    with open(copy / changed_path, "ab") as fh:
        fh.write(b"\0")
    out = tmp_path / "out"
    with pytest.raises(DataError) as info:
        reconstruct(dirs[0], copy, out)
    messages = [str(p) for p in info.value.problems]
    assert len(messages) == 2
    assert any(missing_id in m and "missing file" in m for m in messages)
    assert any(changed_id in m and "checksum mismatch" in m for m in messages)
    assert not out.exists() and not any(p.name.startswith(".out") for p in tmp_path.iterdir())


def test_pointer_paths_cannot_escape_the_source_root(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.jpg"
    outside.write_bytes(b"secret")
    (root / "link.jpg").symlink_to(outside)
    sha = file_sha256(outside)
    pointers = {
        "c1": ("../secret.jpg", sha),
        "c2": (str(outside), sha),
        "c3": ("link.jpg", sha),
        "c4": ("files\\..\\..\\secret.jpg", sha),
        "c5": ("ok.jpg", "not-a-sha"),
    }
    with pytest.raises(DataError) as info:
        verify_pointers(root, pointers)
    by_case = {p.message.split(":")[0]: p for p in info.value.problems}
    assert set(by_case) == {"case c1", "case c2", "case c3", "case c4", "case c5"}
    assert all(p.field in ("source_path", "sha256") for p in info.value.problems)


def _dicom_copy(tmp_path: Path, name: str, **changes) -> Path:
    ds = pydicom.dcmread(CT_SMALL)
    for key, value in changes.items():
        setattr(ds, key, value)
    path = tmp_path / name
    ds.save_as(path)
    return path


def test_dicom_display_pipeline(tmp_path):
    ct = np.asarray(mimic_cxr.dicom_to_image(CT_SMALL).convert("L"))
    assert ct.shape == (128, 128) and ct.min() == 0 and ct.max() == 255
    # MONOCHROME1 displays low values white: the same data must come out inverted
    mono1 = _dicom_copy(tmp_path, "mono1.dcm", PhotometricInterpretation="MONOCHROME1")
    np.testing.assert_array_equal(
        np.asarray(mimic_cxr.dicom_to_image(mono1).convert("L")), 255 - ct
    )
    # a 1-unit window around the median saturates almost every pixel: the window is applied
    ds = pydicom.dcmread(CT_SMALL)
    hu = pydicom.pixels.apply_modality_lut(ds.pixel_array, ds)
    narrow = _dicom_copy(tmp_path, "narrow.dcm", WindowCenter=float(np.median(hu)), WindowWidth=1.0)
    out = np.asarray(mimic_cxr.dicom_to_image(narrow).convert("L"))
    assert np.isin(out, (0, 255)).mean() > 0.99
    # MR_small carries Window Center/Width 600/1600 already
    assert mimic_cxr.dicom_to_image(MR_SMALL).size == (64, 64)
    assert derive_image(Path(CT_SMALL)).mode == "RGB"


def test_dicom_errors_are_reported_with_the_file_name(tmp_path):
    no_pixels = pydicom.dcmread(CT_SMALL)
    del no_pixels.PixelData
    path = tmp_path / "empty.dcm"
    no_pixels.save_as(path)
    with pytest.raises(ValueError, match="empty.dcm: DICOM file has no pixel data"):
        mimic_cxr.dicom_to_image(path)
    junk = tmp_path / "junk.dcm"
    junk.write_bytes(b"not a dicom")
    with pytest.raises(ValueError, match="junk.dcm"):
        mimic_cxr.dicom_to_image(junk)


def test_dicom_source_end_to_end(dirs, tmp_path):
    """Point one credentialed case at a DICOM file of the user's copy and reconstruct it."""
    release_copy, source_copy = tmp_path / "release", tmp_path / "source"
    shutil.copytree(dirs[0], release_copy)
    shutil.copytree(dirs[1], source_copy)
    pointer_file = release_copy / "reconstruction" / "cxr_pointers.csv"
    rows = list(csv.DictReader(io.StringIO(pointer_file.read_text(encoding="utf-8"))))
    dicom_rel = "files/p10/p10000032/s50414267/02aa804e-bde0afdd-112c0b34-7bc16630-4e384014.dcm"
    target = source_copy / dicom_rel
    target.parent.mkdir(parents=True)
    shutil.copy(CT_SMALL, target)
    rows[0]["source_path"], rows[0]["sha256"] = dicom_rel, file_sha256(target)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    pointer_file.write_text(buf.getvalue(), encoding="utf-8")
    (release_copy / "RELEASE_DIGEST").write_text(release_digest(release_copy) + "\n")
    report = reconstruct(release_copy, source_copy, tmp_path / "out")
    record = next(r for r in report.cases if r["case_id"] == rows[0]["case_id"])
    assert record["source_kind"] == "mimic-cxr-dicom"
    case = load_release(release_copy).cases[rows[0]["case_id"]]
    expected = imaging.encode_jpeg(imaging.to_published(mimic_cxr.dicom_to_image(target)))
    assert (tmp_path / "out" / "images" / case.image_file).read_bytes() == expected


def test_cli_reconstruct(dirs, tmp_path, capsys):
    from medvigil.cli import main

    assert (
        main(["reconstruct", str(dirs[0]), "--source", str(dirs[1]), "--out", str(tmp_path / "o")])
        == 0
    )
    assert "reconstructed:" in capsys.readouterr().out
    assert (
        main(
            [
                "reconstruct",
                str(dirs[0]),
                "--source",
                str(tmp_path / "nowhere"),
                "--out",
                str(tmp_path / "p"),
            ]
        )
        == 2
    )
    assert "is not a folder" in capsys.readouterr().err
    assert os.listdir(tmp_path) == ["o"]
