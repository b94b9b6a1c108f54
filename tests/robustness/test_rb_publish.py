"""Class 4: ``publish`` checks the content of everything it would upload against the credentialed
images (their hashes, and a scan for embedded images), not file names or magic bytes at the start."""

from __future__ import annotations

import base64
import shutil

import pytest
from conftest import run_cli


@pytest.fixture()
def build_copy(small_build, tmp_path):
    out = tmp_path / "built"
    shutil.copytree(small_build, out)
    return out


def _credentialed_file(small_release):
    return sorted(p for p in small_release[1].rglob("*") if p.is_file())[0]


def test_a_clean_build_passes(capsys, build_copy):
    out, _ = run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run"], code=0, inputs=[build_copy])
    assert "would upload" in out


def test_credentialed_bytes_appended_to_the_card(capsys, small_release, build_copy):
    cxr = _credentialed_file(small_release).read_bytes()
    with (build_copy / "README.md").open("ab") as fh:
        fh.write(cxr)
    run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run"],
            says=["README.md", "JPEG image bytes embedded", "the bytes of a credentialed image"], inputs=[build_copy])


def test_credentialed_image_as_a_data_uri(capsys, small_release, build_copy):
    cxr = _credentialed_file(small_release).read_bytes()
    with (build_copy / "DATASHEET.md").open("a", encoding="utf-8") as fh:
        fh.write(f"\n![scan](data:image/jpeg;base64,{base64.b64encode(cxr).decode()})\n")
    run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run"],
            says=["DATASHEET.md", "data: URI", "base64 text decodes to a credentialed image"], inputs=[build_copy])


def test_any_image_hidden_in_json_as_base64(capsys, build_copy):
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("L", (64, 64), 7).save(buf, format="PNG")
    text = (build_copy / "croissant.json").read_text(encoding="utf-8")
    (build_copy / "croissant.json").write_text(text.replace('"name"', f'"x": "{base64.b64encode(buf.getvalue()).decode()}", "name"', 1),
                                               encoding="utf-8")
    run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run"],
            says=["croissant.json", "base64 text decodes to a PNG image"], inputs=[build_copy])


def test_binary_bytes_in_a_text_file(capsys, build_copy):
    with (build_copy / "build_info.json").open("ab") as fh:
        fh.write(b"\n\x00\x01\x02")
    run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run"], says=["build_info.json"], inputs=[build_copy])


def test_credentialed_folder_hashes_are_checked(capsys, build_copy, tmp_path):
    # any uploaded file identical to a file of --credentialed DIR is refused, whatever its name
    cred = tmp_path / "licensed"
    cred.mkdir()
    shutil.copy(build_copy / "DATASHEET.md", cred / "renamed.bin")
    run_cli(capsys, ["publish", build_copy, "--repo", "org/x", "--dry-run", "--credentialed", cred],
            says=["DATASHEET.md", "byte-identical to a credentialed image"], inputs=[build_copy, cred])


def test_parquet_cells_are_hashed(small_build, small_release, tmp_path):
    """A credentialed image inside a Parquet cell of a row that claims not to be credentialed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from medvigil.hub.publish_scan import parquet_problems

    cxr = _credentialed_file(small_release).read_bytes()
    shard = sorted(small_build.rglob("*.parquet"))[0]
    table = pq.read_table(shard)
    column = table.column("image").to_pylist()
    row = next(i for i, v in enumerate(column) if v and v.get("bytes"))
    column[row] = {**column[row], "bytes": cxr}
    table = table.set_column(table.column_names.index("image"), "image", pa.array(column, type=table.schema.field("image").type))
    forged = tmp_path / "forged.parquet"
    pq.write_table(table, forged)
    import hashlib

    problems = parquet_problems("data/mcq/forged.parquet", forged, {hashlib.sha256(cxr).hexdigest()})
    assert [(p.row, p.field) for p in problems] == [(row + 1, "image")]
