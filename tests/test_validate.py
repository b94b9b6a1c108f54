"""`medvigil validate`: verdicts, exit status, report formats, warnings, speed."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import broken_releases as br
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil import cli
from medvigil.errors import DataError
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import text_key
from medvigil.suites.medvigil.release.release_loading import load_release
from medvigil.suites.medvigil.validate.validate import validate_release
from medvigil.suites.medvigil.validate.validate_probes import ProbeChecks
from medvigil.suites.medvigil.validate.validation_base import _norm_all


@pytest.fixture(scope="module")
def minimal(tmp_path_factory) -> Path:
    return br.write_minimal_release(tmp_path_factory.mktemp("validate") / "release")


@pytest.fixture
def copy(minimal, tmp_path) -> Path:
    dest = tmp_path / "release"
    shutil.copytree(minimal, dest)
    return dest


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["validate", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def edit(root: Path, name: str, number: int, **values: str) -> None:
    table = br.Table(root, name)
    table.row(number).update(values)
    table.save()
    br.stamp_digest(root)


# --------------------------------------------------------------------------- verdicts and exit
# status


def test_valid_release_exits_0_with_summary(minimal, capsys):
    code, out, _ = run(capsys, minimal)
    assert code == 0
    assert "result:  OK (0 error(s), 0 warning(s))" in out
    assert "cases:   12  (credentialed 1, text-only answerable 2, usable ROI 10)" in out
    assert "original 12, tcf 12, halluc_trap 24" in out
    assert "matches RELEASE_DIGEST" in out


def test_json_report(minimal, capsys):
    code, out, _ = run(capsys, minimal, "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["problems"] == []
    counts = report["counts"]
    assert counts["cases"] == 12 and counts["probes_mcq"] == 116 and counts["triplets"] == 9
    assert counts["probes_mcq_by_kind"]["roi_masked"] == 10
    assert counts["cases_by_tier"] == {"L1": 3, "L2": 3, "L3": 2, "L4": 2, "L5": 2}
    assert counts["cases_by_source"]["CXR"] == 1 and counts["credentialed_cases"] == 1
    assert counts["images_checked"] == 40 and counts["synthetic"] is True


def test_problem_lines_name_file_row_and_field(copy, capsys):
    # a broken letter convention is a warning, as in the authors' bench_validate_full.py (L8)
    edit(copy, rf.PROBES_MCQ, 3, correct_letter="B")
    code, out, _ = run(capsys, copy)
    assert code == 0
    assert "result:  OK (0 error(s), 1 warning(s))" in out
    assert (
        "warning: probes_mcq.csv, row 3, field 'correct_letter': halluc_trap "
        "probes have correct letter E in the published convention; found B"
    ) in out.splitlines()
    code, out, _ = run(capsys, copy, "--json")
    problem = json.loads(out)["problems"][0]
    assert problem == {
        "file": "probes_mcq.csv",
        "row": 3,
        "field": "correct_letter",
        "severity": "warning",
        "message": "halluc_trap probes have correct letter E in the published convention; found B",
    }
    edit(copy, rf.MANIFEST, 2, risk_tier="L0")
    code, out, _ = run(capsys, copy)
    assert code == 1 and "result:  FAILED (1 error(s), 1 warning(s))" in out
    assert any(
        line.startswith("error: manifest.csv, row 2, field 'risk_tier': ")
        for line in out.splitlines()
    )


def test_every_problem_is_reported_at_once(copy, capsys):
    edit(copy, rf.PROBES_MCQ, 3, correct_letter="B")
    edit(copy, rf.MANIFEST, 2, risk_tier="L0")
    edit(copy, rf.TRIPLETS, 1, vcf_gold="yes")
    report = validate_release(copy)
    assert {(p.file, p.row, p.field) for p in report.errors} == {
        (rf.MANIFEST, 2, "risk_tier"),
        (rf.TRIPLETS, 1, "vcf_gold"),
    }
    assert [(p.file, p.row, p.field) for p in report.warnings] == [
        (rf.PROBES_MCQ, 3, "correct_letter")
    ]


@pytest.mark.parametrize("as_json", [False, True])
def test_missing_folder_exits_2(tmp_path, capsys, as_json):
    args = [tmp_path / "nope"] + (["--json"] if as_json else [])
    code, out, err = run(capsys, *args)
    assert code == 2
    if as_json:
        assert json.loads(out)["ok"] is False
    else:
        assert "does not exist" in err


def test_file_instead_of_folder_exits_2(tmp_path, capsys):
    (tmp_path / "manifest.csv").write_text("case_id\n")
    code, _, err = run(capsys, tmp_path / "manifest.csv")
    assert code == 2 and "is not a folder" in err


def test_folder_that_is_not_a_release_exits_2(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    code, out, _ = run(capsys, tmp_path)
    assert code == 2 and "not a MedVIGIL release" in out


def test_missing_required_file_is_a_validation_failure(copy, capsys):
    (copy / rf.TRIPLETS).unlink()
    code, out, _ = run(capsys, copy)
    assert code == 1 and "error: triplets.csv: required file is missing" in out


def test_bad_max_pixels_argument(minimal, capsys):
    code, _, err = run(capsys, minimal, "--max-pixels", "0")
    assert code == 2 and "--max-pixels must be positive" in err


# --------------------------------------------------------------------------- warnings


def test_warnings_do_not_fail(copy, capsys):
    # a malformed box on a case without ROI probes, an unknown source, a stray image
    number = br.Table(copy, rf.GROUNDING).find(case_id="MVB-0005")
    edit(copy, rf.GROUNDING, number, roi_bbox_norm="[0.5, 0.5, 0.2]")
    edit(copy, rf.MANIFEST, 1, source_dataset="PadChest")
    by_source = json.loads((copy / "splits" / "by_source.json").read_text())
    by_source["VQA-RAD"].remove("MVB-0001")
    by_source["PadChest"] = ["MVB-0001"]
    (copy / "splits" / "by_source.json").write_text(json.dumps(by_source))
    shutil.copyfile(copy / "images" / "MVB-0001.jpg", copy / "images" / "stray.jpg")
    br.stamp_digest(copy)
    code, out, _ = run(capsys, copy)
    assert code == 0, out
    assert "result:  OK (0 error(s), 3 warning(s))" in out
    assert "warning: grounding.csv, row 5, field 'roi_bbox_norm': unusable ROI box" in out
    assert "warning: manifest.csv, row 1, field 'source_dataset': source_dataset 'PadChest'" in out
    assert "warning: images/stray.jpg: file is not referenced" in out
    release = load_release(copy)  # warnings do not stop the reader
    assert len(release.warnings) == 3
    assert release.cases["MVB-0005"].roi_bbox is None


def test_text_probe_with_another_image_is_a_warning(copy):
    number = br.Table(copy, rf.PROBES_MCQ).find(probe_kind="tcf", case_id="MVB-0001")
    edit(copy, rf.PROBES_MCQ, number, image_file="images/MVB-0002.jpg")
    report = validate_release(copy)
    assert report.ok
    assert [(p.file, p.row, p.field) for p in report.warnings] == [
        (rf.PROBES_MCQ, number, "image_file")
    ]


def test_missing_splits_folder_is_a_warning(copy):
    shutil.rmtree(copy / "splits")
    br.stamp_digest(copy)
    report = validate_release(copy)
    assert report.ok
    assert [p.file for p in report.warnings] == ["splits"]


def test_release_without_digest_file_is_valid(copy, capsys):
    (copy / rf.DIGEST_FILE).unlink()
    code, out, _ = run(capsys, copy)
    assert code == 0 and "no RELEASE_DIGEST file" in out


# --------------------------------------------------------------------------- specific rules


def test_lr_flip_letter_of_laterality_dependent_case(copy):
    mcq = br.Table(copy, rf.PROBES_MCQ)
    number = mcq.find(probe_kind="lr_flip", case_id="MVB-0002")
    assert (
        mcq.row(number)["correct_letter"] == "B"
    )  # the option equal to gold_after_lr_flip "Right"
    grounding = br.Table(copy, rf.GROUNDING)
    edit(copy, rf.GROUNDING, grounding.find(case_id="MVB-0002"), gold_after_lr_flip="Upside down")
    report = validate_release(copy)
    assert report.errors == []  # letter conventions are warnings
    assert [(p.file, p.row, p.field) for p in report.warnings] == [
        (rf.PROBES_MCQ, number, "correct_letter")
    ]
    assert "no option matches gold_after_lr_flip 'Upside down'" in report.warnings[0].message


def test_mcq_rows_passed_over_have_nothing_to_report(copy, monkeypatch):
    """check_mcq runs each row check only on the rows _mcq_rows_to_check picks out for it, column by
    column: running every check on every row instead finds the same problems, in the same order."""
    mcq = br.Table(copy, rf.PROBES_MCQ)
    for i, row in enumerate(mcq.rows):
        letter, other = rf.LETTERS[i % 5], rf.LETTERS[(i + 1) % 5]
        change = i % 8
        if change == 0:
            row["correct_letter"] = letter
        elif change == 1:
            row[f"choice_{letter}"] = f" {row[f'choice_{other}'].upper()}  "
        elif change == 2:
            row[f"choice_{letter}"] = " \t"
        elif change == 3:
            row["image_file"] = "" if row["image_file"] else "images/MVB-0001.jpg"
        elif change == 4:
            row["probe_kind"] = rf.PROBE_KINDS[i % len(rf.PROBE_KINDS)]
        elif change == 5:
            row["choice_C"] += "!"
    mcq.save()
    grounding = br.Table(copy, rf.GROUNDING)
    for i, row in enumerate(grounding.rows):
        row["laterality_dependent"] = ("true", "false", "")[i % 3]
    grounding.save()
    picked = []
    pick = ProbeChecks._mcq_rows_to_check
    monkeypatch.setattr(
        ProbeChecks,
        "_mcq_rows_to_check",
        lambda self, *a: picked.append(pick(self, *a)) or picked[-1],
    )
    fast = validate_release(copy).problems
    monkeypatch.setattr(
        ProbeChecks, "_mcq_rows_to_check", lambda self, cids, *_: (set(range(len(cids))),) * 4
    )
    assert validate_release(copy).problems == fast
    assert len({p.row for p in fast if p.file == rf.PROBES_MCQ}) > 20
    assert all(0 < len(rows) < len(mcq.rows) for rows in picked[0])  # each check skips some rows


_option_text = st.text(
    st.characters(codec=None) | st.sampled_from(list(" \t\n\x0b\x1f\x85\xa0\u2028\x00ßΣİ")),
    max_size=10,
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        _option_text
        | st.text("aB ßİ", max_size=6)
        | st.text("aB \t", max_size=6)
        | st.text("aB ", max_size=6)
    )
)
def test_options_are_normalised_alike_in_bulk(texts):
    assert _norm_all(texts) == [text_key(text) for text in texts]


def test_roi_probes_need_a_usable_box(copy):
    number = br.Table(copy, rf.GROUNDING).find(case_id="MVB-0001")
    edit(copy, rf.GROUNDING, number, roi_bbox_norm="[0.0, 0.0, 0.99, 1.0]")
    report = validate_release(copy)
    assert [(p.file, p.row, p.field) for p in report.errors] == [
        (rf.GROUNDING, number, "roi_bbox_norm")
    ]
    assert "97%" in report.errors[0].message and "MVB-0001-roi_masked" in report.errors[0].message


def test_clinician_counts_are_consistent(copy):
    edit(copy, rf.CLINICIAN_BASELINE, 2, n_correct="21")
    report = validate_release(copy)  # the official scripts never read the counts: a warning
    assert report.errors == []
    assert [(p.file, p.row, p.field) for p in report.warnings] == [
        (rf.CLINICIAN_BASELINE, 2, "n_correct")
    ]


def test_split_group_must_match_the_case_attribute(copy):
    by_tier = json.loads((copy / "splits" / "by_tier.json").read_text())
    by_tier["L1"].remove("MVB-0001")
    by_tier["L2"].append("MVB-0001")
    (copy / "splits" / "by_tier.json").write_text(json.dumps(by_tier))
    br.stamp_digest(copy)
    report = validate_release(copy)  # splits are optional; the authors' validator only warns (L6)
    assert report.errors == []
    assert [(p.file, p.field) for p in report.warnings] == [("splits/by_tier.json", "L2")]
    assert "its risk_tier is 'L1'" in report.warnings[0].message


def test_repeated_bad_path_is_reported_once_with_its_other_rows(copy):
    mcq = br.Table(copy, rf.PROBES_MCQ)
    for row in mcq.rows:
        if row["case_id"] == "MVB-0001" and row["image_file"] == "images/MVB-0001.jpg":
            row["image_file"] = "images/../../etc/passwd"
    mcq.save()
    br.stamp_digest(copy)
    report = validate_release(copy)
    assert len(report.errors) == 1
    assert (
        report.errors[0].row == 1
        and "also referenced by probes_mcq.csv row 2" in report.errors[0].message
    )


def test_no_images_skips_decoding_but_not_presence(copy, capsys):
    path = copy / "images" / "MVB-0001.jpg"
    path.write_bytes(path.read_bytes()[:100])
    br.stamp_digest(copy)
    assert run(capsys, copy)[0] == 1
    assert run(capsys, copy, "--no-images")[0] == 0
    (copy / "images" / "MVB-0001.jpg").unlink()
    br.stamp_digest(copy)
    code, out, _ = run(capsys, copy, "--no-images")
    assert code == 1 and "images/MVB-0001.jpg does not exist" in out


def test_max_pixels_limit(minimal, capsys):
    code, out, _ = run(capsys, minimal, "--max-pixels", "1000")
    assert code == 1
    assert (
        "declares 64x48 = 3,072 pixels, more than the 1,000-pixel limit (decompression bomb)" in out
    )


def test_credentialed_image_present_is_caught_without_decoding(copy, capsys):
    shutil.copyfile(
        copy / "images" / "MVB-0001.jpg", copy / "images_perturbed" / "MVB-0004_roi_only.jpg"
    )
    br.stamp_digest(copy)
    code, out, _ = run(capsys, copy, "--no-images")
    assert code == 1
    assert "credentialed image images_perturbed/MVB-0004_roi_only.jpg is present" in out


def test_load_release_raises_what_validate_reports(copy):
    edit(copy, rf.MANIFEST, 2, risk_tier="L0")
    with pytest.raises(DataError) as info:
        load_release(copy)
    assert [p.to_dict() for p in info.value.problems] == [
        p.to_dict() for p in validate_release(copy).errors
    ]


# --------------------------------------------------------------------------- the real entry point
# and speed


def test_console_entry_point(minimal):
    done = subprocess.run(
        [sys.executable, "-m", "medvigil", "validate", str(minimal), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True


def test_generated_release_is_valid_and_fast(synthetic_release):
    """The 40-case synthetic release (tests/conftest.py) validates in well under 2 s of CPU."""
    start = time.process_time()
    report = validate_release(synthetic_release)
    elapsed = time.process_time() - start
    assert report.errors == [], report.format()
    assert report.counts["cases"] == 40
    assert elapsed < 2.0, f"validation took {elapsed:.2f} s of CPU"
