"""Class 3: one pixel budget for every image decode. A small file declaring a huge image is
refused from its header, before any pixel is decoded, on the JPEG/PNG path of ``reconstruct``,
its DICOM path, ``mediconfusion-build``'s ROCO images and images posted to ``serve-baseline``
(see test_rb_server.py). The reconstruct cases run under a memory limit in a subprocess."""

import csv
import hashlib
import io
import shutil
import struct
import zlib
from pathlib import Path

import pytest
from conftest import run_batch, tree_digest

from medvigil.images.imaging import DEFAULT_MAX_PIXELS, pixel_budget_problem

SIDE = 12_000  # 144 megapixels > DEFAULT_MAX_PIXELS


def png_bomb(width: int = SIDE, height: int = SIDE) -> bytes:
    """A ~100-byte PNG whose IHDR declares ``width x height``."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, format="PNG")
    data = bytearray(buf.getvalue())
    at = data.index(b"IHDR")
    data[at + 4 : at + 12] = struct.pack(">II", width, height)
    data[at + 17 : at + 21] = struct.pack(">I", zlib.crc32(bytes(data[at : at + 17])) & 0xFFFFFFFF)
    return bytes(data)


def dicom_bomb(path: Path, rows: int = SIDE, columns: int = SIDE) -> None:
    """A small DICOM Part 10 file whose header declares ``rows x columns`` 16-bit pixels."""
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.1.1"
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(str(path), {}, file_meta=meta, preamble=b"\0" * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = (
        meta.MediaStorageSOPClassUID,
        meta.MediaStorageSOPInstanceUID,
    )
    ds.Modality, ds.PhotometricInterpretation, ds.SamplesPerPixel = "DX", "MONOCHROME2", 1
    ds.Rows, ds.Columns, ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = (
        rows,
        columns,
        16,
        12,
        11,
        0,
    )
    ds.PixelData = b"\0\0" * 64  # far less than declared
    ds.save_as(path, enforce_file_format=True)


def test_the_budget_is_one_function():
    assert pixel_budget_problem(1000, 1000) is None
    assert "decompression bomb" in pixel_budget_problem(SIDE, SIDE)
    assert "x3 =" in pixel_budget_problem(6000, 6000, planes=3)
    assert pixel_budget_problem(0, 5).startswith("declares an empty image")
    assert SIDE * SIDE > DEFAULT_MAX_PIXELS


def test_dicom_header_is_checked_before_decoding(tmp_path):
    from medvigil.reconstruct.mimic_cxr import dicom_to_image

    path = tmp_path / "bomb.dcm"
    dicom_bomb(path)
    with pytest.raises(
        ValueError, match=r"bomb\.dcm: image declares 12000x12000 = 144,000,000 pixels"
    ):
        dicom_to_image(path)
    frames = tmp_path / "frames.dcm"
    dicom_bomb(frames, rows=4000, columns=4000)
    import pydicom

    ds = pydicom.dcmread(frames)
    ds.NumberOfFrames = 10  # 16 MP per frame, 160 MP in all: pixel_array would decode every frame
    ds.save_as(frames)
    with pytest.raises(ValueError, match="4000x4000x10"):
        dicom_to_image(frames)


def _point_release_at(release: Path, source_root: Path, name: str, data: bytes) -> None:
    """Replace the release's first credentialed source by ``name`` holding ``data`` (pointer,
    checksum, digest)."""
    from medvigil.files.digest import release_digest
    from medvigil.suites.medvigil.release.release_format import DIGEST_FILE

    pointers = release / "reconstruction" / "cxr_pointers.csv"
    rows = list(csv.DictReader(pointers.open(encoding="utf-8")))
    old = source_root / rows[0]["source_path"]
    new = old.with_name(name)
    old.unlink()
    new.write_bytes(data)
    rows[0]["source_path"] = new.relative_to(source_root).as_posix()
    rows[0]["sha256"] = hashlib.sha256(data).hexdigest()
    with pointers.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (release / DIGEST_FILE).write_text(release_digest(release) + "\n", encoding="utf-8")


def test_reconstruct_refuses_bombs_on_both_paths(small_release, tmp_path):
    cases, outs, inputs = [], [], []
    for kind in ("png", "dcm"):
        base = tmp_path / kind
        shutil.copytree(small_release[0], base / "release")
        shutil.copytree(small_release[1], base / "source")
        if kind == "png":
            _point_release_at(base / "release", base / "source", "bomb.png", png_bomb())
        else:
            dicom_bomb(base / "bomb.dcm")
            _point_release_at(
                base / "release", base / "source", "bomb.dcm", (base / "bomb.dcm").read_bytes()
            )
        outs.append(base / "recon")
        inputs += [base / "release", base / "source"]
        cases.append(
            ["reconstruct", base / "release", "--source", base / "source", "--out", base / "recon"]
        )
    before = {p: tree_digest(p) for p in inputs}
    # 1.5 GB: a decoded 144-MP image (432 MB RGB, 288 MB 16-bit plus float copies) would not fit
    # beside the imports
    for (code, err), argv in zip(run_batch(cases, tmp_path, memory_bytes=1536 << 20), cases):
        assert code == 2 and "Traceback" not in err, (argv, err)
        assert (
            "pointers" in err
            and "case MVB-" in err
            and "field 'source_path'" in err
            and "144,000,000 pixels" in err
        ), err
    assert {p: tree_digest(p) for p in inputs} == before
    assert not any(p.exists() for p in outs)


def test_mediconfusion_build_refuses_a_roco_bomb(capsys, mc_sample, tmp_path):
    from conftest import run_cli

    sample = tmp_path / "mc"
    shutil.copytree(mc_sample, sample)
    victim = sorted((sample / "roco").rglob("*.jpg"))[0]
    victim.write_bytes(png_bomb())
    run_cli(
        capsys,
        [
            "mediconfusion-build",
            sample / "data" / "dataset.json",
            "--images",
            sample / "roco",
            "--out",
            tmp_path / "out",
        ],
        says=[victim.name, "144,000,000 pixels"],
        inputs=[sample],
        absent=[tmp_path / "out"],
    )


@pytest.mark.parametrize("command", ["build", "validate"])
def test_release_image_bomb(capsys, release_copy, tmp_path, command):
    from conftest import run_cli

    rel, _ = release_copy
    victim = sorted((rel / "images").glob("*"))[0]
    victim.write_bytes(png_bomb())
    argv = [command, rel] + (["--out", tmp_path / "built"] if command == "build" else [])
    out, err = run_cli(
        capsys, argv, code=2 if command == "build" else 1, inputs=[rel], absent=[tmp_path / "built"]
    )
    assert (
        "manifest.csv" in out + err
        and "decompression bomb" in out + err
        and "field 'image_file'" in out + err
    )
