"""The typed release reader (medvigil.suites.medvigil.release.release), strict CSV reading and path
safety."""

import csv
import dataclasses
import io
import os
import shutil
from pathlib import Path

import broken_releases as br
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.errors import DataError
from medvigil.files import csvio
from medvigil.files.csvio import parse_csv_bytes, parse_csv_columns, read_csv
from medvigil.files.digest import release_digest
from medvigil.files.pathsafe import InsideResolver, resolve_inside, unsafe_reason
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_loading import load_release
from medvigil.suites.medvigil.release.release_records import (
    BaselineRow,
    Case,
    McqProbe,
    OpenProbe,
    Release,
    Triplet,
    resolve_image_file,
    roi_issue,
)


@pytest.fixture(scope="module")
def minimal(tmp_path_factory) -> Path:
    return br.write_minimal_release(tmp_path_factory.mktemp("reader") / "release")


@pytest.fixture(scope="module")
def release(minimal) -> Release:
    return load_release(minimal)


@pytest.fixture
def copy(minimal, tmp_path) -> Path:
    dest = tmp_path / "release"
    shutil.copytree(minimal, dest)
    return dest


# --------------------------------------------------------------------------- Release


def test_release_holds_typed_records(release, minimal):
    assert release.root == minimal
    assert list(release.cases) == [f"MVB-{i:04d}" for i in range(1, 13)]  # file order
    case = release.cases["MVB-0001"]
    assert isinstance(case, Case)
    assert case.roi_bbox == (0.2, 0.3, 0.6, 0.7) and all(
        isinstance(v, float) for v in case.roi_bbox
    )
    assert case.roi_usable
    assert case.differential_set == ("effusion", "normal")
    assert case.text_only_answerable is False and case.laterality_dependent is False
    assert case.risk_tier == "L1" and case.image_file == "MVB-0001.jpg"
    assert release.cases["MVB-0003"].text_only_answerable is True
    assert release.cases["MVB-0002"].laterality_dependent is True
    assert release.cases["MVB-0002"].gold_after_lr_flip == "Right"
    assert release.cases["MVB-0005"].roi_bbox is None and not release.cases["MVB-0005"].roi_usable
    full = release.cases["MVB-0009"]
    assert full.roi_bbox == (0.0, 0.0, 1.0, 1.0) and not full.roi_usable  # valid box, but unusable
    assert [c.case_id for c in release.cases.values() if c.credentialed] == ["MVB-0004"]
    assert release.synthetic is True
    assert release.warnings == []


def test_probes_triplets_pointers_splits(release):
    assert len(release.probes_mcq) == 116
    probe = release.probes_mcq[0]
    assert isinstance(probe, McqProbe)
    assert probe.probe_kind == "original" and probe.correct_letter == "A"
    assert (
        len(probe.options) == 5 and probe.option("A") == probe.correct_option == "Effusion present"
    )
    with pytest.raises(ValueError, match="letter must be one of"):
        probe.option("F")
    knowledge = next(p for p in release.probes_mcq if p.probe_kind == "knowledge_only")
    assert knowledge.image_file is None
    assert (
        all(isinstance(p, OpenProbe) for p in release.probes_open)
        and len(release.probes_open) == 24
    )
    assert release.probes_open[0].expected_answer_or_set == ("Effusion present",)
    assert all(isinstance(t, Triplet) for t in release.triplets) and len(release.triplets) == 9
    assert release.pointers == {
        "MVB-0004": ("files/p10/p00000004/s50000004/view1.jpg", f"{4:064x}")
    }
    assert set(release.splits) == set(rf.SPLIT_FILES)
    assert rf.SYNTHETIC_JSON_KEY not in release.splits["by_tier"]
    assert release.splits["text_only_subset"] == {"text_only": ["MVB-0003", "MVB-0007"]}
    assert release.clinician_baseline[0] == BaselineRow("halluc_trap", "L1", 10.0, 20, 18)


def test_helpers(release, minimal):
    by_kind = release.probes_by_kind()
    assert tuple(by_kind) == rf.PROBE_KINDS
    assert len(by_kind["halluc_trap"]) == 24 and len(by_kind["roi_masked"]) == 10
    by_case = release.probes_by_case()
    assert len(by_case["MVB-0001"]) == 10 and len(by_case["MVB-0005"]) == 8
    probe = by_case["MVB-0002"][0]
    assert release.case_of(probe) is release.cases["MVB-0002"]
    root = minimal.resolve()
    assert release.image_path(release.cases["MVB-0001"]) == root / "images" / "MVB-0001.jpg"
    masked = by_kind["roi_masked"][0]
    assert (
        release.image_path(masked) == root / "images_perturbed" / f"{masked.case_id}_roi_masked.jpg"
    )
    assert release.image_path(by_kind["knowledge_only"][0]) is None
    with pytest.raises(TypeError):
        release.image_path("MVB-0001")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no case"):
        release.case_of(dataclasses.replace(probe, case_id="nope"))


def test_records_are_frozen(release):
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.cases["MVB-0001"].risk_tier = "L5"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.probes_mcq[0].correct_letter = "B"  # type: ignore[misc]


def test_digest_is_computed_and_matches_the_stamp(release, minimal):
    assert release.digest == release_digest(minimal)
    assert (minimal / rf.DIGEST_FILE).read_text().strip() == release.digest


def test_check_true_collects_every_problem_then_raises(copy):
    table = br.Table(copy, rf.PROBES_MCQ)
    table.row(table.find(probe_kind="halluc_trap"))["correct_letter"] = "Z"
    table.save()
    manifest = br.Table(copy, rf.MANIFEST)
    manifest.rows[2]["risk_tier"] = "L9"
    manifest.save()
    br.stamp_digest(copy)
    with pytest.raises(DataError) as info:
        load_release(copy)
    located = {(p.file, p.row, p.field) for p in info.value.problems}
    assert (rf.MANIFEST, 3, "risk_tier") in located
    assert (rf.PROBES_MCQ, 3, "correct_letter") in located
    assert "and 1 more problem" in str(info.value)


def test_check_false_reads_what_it_can(copy):
    manifest = br.Table(copy, rf.MANIFEST)
    manifest.rows[2]["risk_tier"] = "L9"
    manifest.save()
    rel = load_release(copy, check=False)
    assert "MVB-0003" not in rel.cases and len(rel.cases) == 11  # the bad row is skipped
    assert len(rel.probes_mcq) == 116


def test_unusable_roots(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_release(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        load_release(tmp_path / "file")
    with pytest.raises(DataError, match="not a MedVIGIL release"):
        load_release(tmp_path)


def test_coercion_accepts_common_boolean_spellings(copy):
    manifest = br.Table(copy, rf.MANIFEST)
    for row, text in zip(manifest.rows, ["False", "FALSE", "1", "0"]):
        row["text_only_answerable"] = text
    manifest.save()
    grounding = br.Table(copy, rf.GROUNDING)
    grounding.rows[0]["laterality_dependent"] = ""  # empty: unknown, treated as false
    grounding.save()
    result = read_release(copy)
    cases = result.release.cases
    assert [cases[f"MVB-000{i}"].text_only_answerable for i in range(1, 5)] == [
        False,
        False,
        True,
        False,
    ]
    assert cases["MVB-0001"].laterality_dependent is False
    assert not [p for p in result.problems if p.file in (rf.MANIFEST, rf.GROUNDING)]


def test_plain_expected_answer_is_one_answer(copy):
    table = br.Table(copy, rf.PROBES_OPEN)
    table.rows[0]["expected_answer_or_set"] = "left lung, upper lobe"
    table.rows[1]["expected_answer_or_set"] = ""
    table.save()
    rel = read_release(copy).release
    assert rel.probes_open[0].expected_answer_or_set == ("left lung, upper lobe",)
    assert rel.probes_open[1].expected_answer_or_set == ()


def test_resolve_image_file_conventions(tmp_path):
    root = tmp_path.resolve()
    assert resolve_image_file(root, "a.jpg") == root / "images" / "a.jpg"
    assert resolve_image_file(root, "sub/a.jpg") == root / "images" / "sub" / "a.jpg"
    assert resolve_image_file(root, "images/a.jpg") == root / "images" / "a.jpg"
    assert (
        resolve_image_file(root, "images_perturbed/a_lr_flip.jpg")
        == root / "images_perturbed" / "a_lr_flip.jpg"
    )
    for bad in (
        "/etc/passwd",
        "../x.jpg",
        "images/../../x.jpg",
        "C:/x.jpg",
        "a\\b.jpg",
        "",
        "a\x00.jpg",
    ):
        with pytest.raises(DataError) as info:
            resolve_image_file(root, bad, file=rf.PROBES_MCQ, row=7)
        problem = info.value.problems[0]
        assert (problem.file, problem.row, problem.field) == (rf.PROBES_MCQ, 7, "image_file")


def test_roi_issue():
    assert roi_issue((0.0, 0.0, 1.0, 0.5)) is None
    assert "outside [0, 1]" in roi_issue((-0.1, 0.0, 0.5, 0.5))
    assert "y0" in roi_issue((0.1, 0.6, 0.5, 0.5))
    assert "4 values" in roi_issue((0.1, 0.2))
    assert "finite" in roi_issue((0.1, float("nan"), 0.5, 0.5))
    assert "97%" in roi_issue((0.0, 0.0, 0.99, 0.98))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.floats(-0.2, 1.2) | st.sampled_from([0.0, 0.015, 0.97, 0.985, 1.0]),
        min_size=4,
        max_size=4,
    )
)
def test_roi_issue_agrees_with_imaging_roi_usable(box):
    imaging = pytest.importorskip("medvigil.images.imaging")
    assert (roi_issue(box) is None) == imaging.roi_usable(box)


# --------------------------------------------------------------------------- csvio


def test_csv_utf8_bom_is_reported_and_skipped():
    table = parse_csv_bytes(b"\xef\xbb\xbfa,b\n1,2\n", "x.csv", required=("a",))
    assert [r.values for r in table.rows] == [{"a": "1", "b": "2"}]
    assert "byte-order mark" in table.problems[0].message


def test_csv_utf16_bom_stops_reading():
    with pytest.raises(DataError, match="UTF-16 byte-order mark"):
        parse_csv_bytes("a,b\n".encode("utf-16"), "x.csv")


def test_csv_non_utf8_names_offset_and_row():
    data = b"a,b\n1,ok\n2,caf\xe9\n"
    with pytest.raises(DataError) as info:
        parse_csv_bytes(data, "x.csv")
    problem = info.value.problems[0]
    assert problem.row == 2
    offset = data.index(b"\xe9")
    assert f"byte offset {offset}" in problem.message and "0xe9" in problem.message
    with pytest.raises(DataError) as info:
        parse_csv_bytes(b"a,\xff\n1,2\n", "x.csv")
    assert info.value.problems[0].row is None and "in the header" in info.value.problems[0].message


def test_csv_row_of_bad_byte_counts_records_not_lines():
    data = b'a,b\n1,"two\nlines"\n2,\xff\n'
    with pytest.raises(DataError) as info:
        parse_csv_bytes(data, "x.csv")
    assert info.value.problems[0].row == 2


@pytest.mark.parametrize("data", [b"", b"\n\n", b"   \r\n"])
def test_csv_empty_file(data):
    with pytest.raises(DataError, match="file is empty"):
        parse_csv_bytes(data, "x.csv")


def test_csv_missing_and_duplicate_columns():
    with pytest.raises(DataError) as info:
        parse_csv_bytes(b"a, b\n1,2\n", "x.csv", required=("a", "b", "c"))
    by_field = {p.field: p.message for p in info.value.problems}
    assert "surrounding spaces" in by_field["b"]
    assert "missing required column 'c'" in by_field["c"]
    with pytest.raises(DataError, match="more than once") as info:
        parse_csv_bytes(b"a,b,a\n1,2,3\n", "x.csv", required=("a",))
    assert info.value.problems[0].field == "a"


def test_csv_wrong_field_count_and_blank_lines():
    table = parse_csv_bytes(b"a,b\n1,2\n\n3\n4,5,6\r\n7,8\n", "x.csv")
    assert [r.number for r in table.rows] == [1, 4]
    assert [(p.row, p.field) for p in table.problems] == [(2, None), (3, None)]
    assert "line 4" in table.problems[0].message and "has 3 fields" in table.problems[1].message


def test_csv_malformed_quoting_is_fatal():
    with pytest.raises(DataError, match="malformed CSV") as info:
        parse_csv_bytes(b'a,b\n1,"x"y\n', "x.csv")
    assert info.value.problems[-1].row == 1


def test_read_csv_labels_with_file_name(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a\n1\n")
    assert read_csv(path).file == "t.csv"
    assert read_csv(path, "sub/t.csv").file == "sub/t.csv"
    with pytest.raises(FileNotFoundError):
        read_csv(tmp_path / "none.csv")


# no "\r": csv.writer with lineterminator "\n" leaves a bare carriage return unquoted; no NUL:
# refused (issue 29)
_cell = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\0"), max_size=8
)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n: st.lists(st.lists(_cell, min_size=n, max_size=n), min_size=1, max_size=6)
    )
)
def test_csv_round_trip(rows):
    header = [f"c{i}" for i in range(len(rows[0]))]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    table = parse_csv_bytes(buf.getvalue().encode("utf-8"), "x.csv", required=header)
    # (csv.writer quotes a lone empty cell, so such a row is not mistaken for a blank line)
    assert [list(r.values.values()) for r in table.rows] == rows
    assert table.problems == []


def _parsed(parse, data: bytes, required: tuple[str, ...]):
    try:
        return parse(data, "x.csv", required=required)
    except DataError as exc:
        return exc.problems


@settings(max_examples=400, deadline=None)
@given(
    st.binary(max_size=80)
    | st.text(alphabet=',"\r\n ab\ufeff\x00', max_size=60).map(str.encode)
    | st.text(alphabet=",\r\n ab", max_size=60).map(str.encode),  # no quote: split at commas
    st.sampled_from([(), ("a",), ("a", "b")]),
)
def test_csv_columns_are_what_csv_reader_finds_record_by_record(data, required):
    """parse_csv_columns (split at commas, or one csv.reader pass, when the text allows) finds what
    the record-by-record reader finds."""
    columns = _parsed(parse_csv_columns, data, required)
    problems: list = []
    try:
        header, rows, problems = csvio._parse(
            csvio._text(data, "x.csv", problems), "x.csv", required, problems
        )
    except DataError as exc:
        assert columns == exc.problems
        return
    assert (columns.header, columns.problems, columns.numbers) == (
        header,
        problems,
        [number for number, _ in rows],
    )
    assert len(columns.columns) == len(header) and all(
        len(column) == len(rows) for column in columns.columns
    )
    assert [list(record) for record in zip(*columns.columns)] == [record for _, record in rows]


# --------------------------------------------------------------------------- pathsafe


@pytest.mark.parametrize(
    "relpath, fragment",
    [
        ("", "empty"),
        ("/etc/passwd", "absolute"),
        ("//server/share/x", "absolute"),
        ("C:/Windows/x.jpg", "drive letter"),
        ("c:x.jpg", "drive letter"),
        ("images\\x.jpg", "backslash"),
        ("../../etc/passwd", "'..'"),
        ("images/../../etc/passwd", "'..'"),
        ("images/..", "'..'"),
        ("a\x00b", "NUL"),
    ],
)
def test_unsafe_paths_are_refused(tmp_path, relpath, fragment):
    with pytest.raises(DataError) as info:
        resolve_inside(tmp_path, relpath, "manifest.csv", 3, "image_file")
    problem = info.value.problems[0]
    assert (problem.file, problem.row, problem.field) == ("manifest.csv", 3, "image_file")
    assert fragment in problem.message


def test_symlinks(tmp_path):
    root = tmp_path / "root"
    (root / "images").mkdir(parents=True)
    (root / "images" / "real.jpg").write_bytes(b"x")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (root / "images" / "inside.jpg").symlink_to(root / "images" / "real.jpg")
    (root / "images" / "escape.jpg").symlink_to(outside)
    (root / "linked_dir").symlink_to(tmp_path)
    (root / "images" / "dangling.jpg").symlink_to(tmp_path / "nothing")
    assert (
        resolve_inside(root, "images/inside.jpg", "f") == root.resolve() / "images" / "inside.jpg"
    )
    for rel in (
        "images/escape.jpg",
        "linked_dir/secret.txt",
        "linked_dir/missing.jpg",
        "images/dangling.jpg",
    ):
        with pytest.raises(DataError, match="symbolic link"):
            resolve_inside(root, rel, "f", 1, "image_file")


def test_inside_resolver_agrees_with_resolve_inside(tmp_path):
    """The per-release resolver (one listing per folder) gives resolve_inside's path or refusal."""
    root = tmp_path / "root"
    (root / "images" / "sub").mkdir(parents=True)
    (root / "images" / "real.jpg").write_bytes(b"x")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "images" / "inside.jpg").symlink_to(root / "images" / "real.jpg")
    (root / "images" / "escape.jpg").symlink_to(tmp_path / "secret.txt")
    (root / "images" / "sub" / "dangling.jpg").symlink_to(tmp_path / "nothing")
    (root / "linked_dir").symlink_to(tmp_path)
    resolver = InsideResolver(root)
    for rel in (
        "images/real.jpg",
        "images/inside.jpg",
        "images/escape.jpg",
        "images/sub/dangling.jpg",
        "images/sub/new.jpg",
        "images/real.jpg/x",
        "missing/dir/x.jpg",
        "linked_dir/secret.txt",
        "linked_dir/root/images/real.jpg",
        "images/./real.jpg",
        "../x.jpg",
        "/etc/passwd",
    ):
        outcomes = []
        for resolve in (
            lambda r: resolve_inside(root, r, "f", 2, "image_file"),
            lambda r: resolver(r, "f", 2, "image_file"),
        ):
            try:
                outcomes.append(resolve(rel))
            except DataError as exc:
                outcomes.append(exc.problems)
        assert outcomes[0] == outcomes[1], rel


def test_missing_files_are_not_refused(tmp_path):
    assert (
        resolve_inside(tmp_path, "images/./new.jpg", "f")
        == tmp_path.resolve() / "images" / "new.jpg"
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "..", ".", "", "b.jpg", "/", "\\", "C:", "~", " "]),
        min_size=1,
        max_size=6,
    )
)
def test_accepted_paths_stay_inside(tmp_path_factory, parts):
    root = tmp_path_factory.getbasetemp() / "pathsafe-root"
    root.mkdir(exist_ok=True)
    relpath = "/".join(parts)
    try:
        path = resolve_inside(root, relpath, "f")
    except DataError:
        assert unsafe_reason(relpath) is not None
        return
    base = os.path.realpath(root)
    assert str(path) == base or str(path).startswith(base + os.sep)


@pytest.mark.parametrize(
    "module",
    [
        "medvigil.files.csvio",
        "medvigil.files.pathsafe",
        "medvigil.suites.medvigil.release.release_records",
    ],
)
def test_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
