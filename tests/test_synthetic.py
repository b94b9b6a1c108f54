"""medvigil sample: the synthetic release is complete, deterministic and true by construction."""

import csv
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from medvigil.cli import main as cli_main
from medvigil.files.digest import release_digest
from medvigil.images import imaging
from medvigil.suites.medvigil.release.release_csv import POINTER_COLUMNS
from medvigil.suites.medvigil.release.release_format import (
    CLINICIAN_BASELINE_COLUMNS,
    CSV_COLUMNS,
    DIGEST_FILE,
    FIXED_CORRECT_LETTER,
    IMAGE_PROBE_KINDS,
    LETTERS,
    PROBE_KINDS,
    SPLIT_FILES,
    SYNTHETIC_COLUMN,
    SYNTHETIC_JSON_KEY,
    SYNTHETIC_NOTICE,
    TIERS,
    TRIPLETS_COLUMNS,
)
from medvigil.suites.medvigil.synthetic import cases as cases_mod
from medvigil.suites.medvigil.synthetic import generate_release
from medvigil.suites.medvigil.synthetic.phantom_label import LABEL_BAND, LABEL_TEXT, label_box
from medvigil.suites.medvigil.synthetic.phantom_scene import BRIGHT, Finding, Scene
from medvigil.suites.medvigil.synthetic.phantoms import draw_phantom
from medvigil.suites.medvigil.synthetic.plan import SOURCES, case_rngs, plan_case

POINTERS = "reconstruction/cxr_pointers.csv"


def _read(root: Path, name: str) -> list[dict]:
    with open(root / name, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def small_pair(tmp_path_factory):
    """Two 12-case releases with seed 5 and one with seed 6."""
    base = tmp_path_factory.mktemp("small")
    digests = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        digests.append(generate_release(base / name, cases=12, seed=seed).digest)
    return base, digests


@pytest.fixture(scope="module")
def release(synthetic_release):
    root = synthetic_release
    return {
        "root": root,
        "manifest": _read(root, "manifest.csv"),
        "grounding": {r["case_id"]: r for r in _read(root, "grounding.csv")},
        "mcq": _read(root, "probes_mcq.csv"),
        "open": _read(root, "probes_open.csv"),
        "triplets": _read(root, "triplets.csv"),
        "pointers": _read(root, POINTERS),
    }


# --------------------------------------------------------------------------- determinism


def test_same_seed_gives_identical_files_and_digest(small_pair):
    base, (da, db, dc) = small_pair
    assert da == db
    assert _files(base / "a") == _files(base / "b")
    assert (base / "a" / DIGEST_FILE).read_text() == da + "\n"
    assert release_digest(base / "a") == da


def test_worker_processes_do_not_change_the_output(small_pair):
    base, (da, _, _) = small_pair
    assert generate_release(base / "jobs", cases=12, seed=5, jobs=2).digest == da
    assert _files(base / "jobs") == _files(base / "a")


def test_different_seed_gives_a_different_release(small_pair):
    base, (da, _, dc) = small_pair
    assert da != dc
    assert (base / "a" / "probes_mcq.csv").read_bytes() != (
        base / "c" / "probes_mcq.csv"
    ).read_bytes()


def test_small_release_has_every_tier_source_and_probe_kind(small_pair):
    base, _ = small_pair
    manifest = _read(base / "a", "manifest.csv")
    assert {r["risk_tier"] for r in manifest} == set(TIERS)
    assert {r["source_dataset"] for r in manifest} == set(SOURCES)
    assert {r["modality"] for r in manifest} == {"X-ray", "CT", "MRI"}
    assert {r["probe_kind"] for r in _read(base / "a", "probes_mcq.csv")} == set(PROBE_KINDS)


def test_smaller_release_is_a_prefix_of_a_larger_one(small_pair, release):
    base, _ = small_pair
    small = generate_release(base / "prefix", cases=12, seed=0)
    assert small.cases == 12
    assert _read(base / "prefix", "manifest.csv") == release["manifest"][:12]
    for name in ("MVB-0001.jpg", "MVB-0012.jpg"):
        assert (base / "prefix" / "images" / name).read_bytes() == (
            release["root"] / "images" / name
        ).read_bytes()


# --------------------------------------------------------------------------- layout and format


def test_layout_and_csv_format(release):
    root = release["root"]
    for name in (
        "manifest.csv",
        "grounding.csv",
        "probes_mcq.csv",
        "probes_open.csv",
        "triplets.csv",
        "clinician_baseline.csv",
        POINTERS,
        "README.md",
        DIGEST_FILE,
    ):
        assert (root / name).is_file(), name
    for name, columns in CSV_COLUMNS.items():
        raw = (root / name).read_bytes()
        assert not raw.startswith(b"\xef\xbb\xbf") and b"\r" not in raw
        header = raw.split(b"\n", 1)[0].decode().split(",")
        assert header == list(columns) + [SYNTHETIC_COLUMN], name
    assert (root / POINTERS).read_text().split("\n", 1)[0] == ",".join(
        POINTER_COLUMNS
    ) + "," + SYNTHETIC_COLUMN
    assert (root / DIGEST_FILE).read_text().strip() == release_digest(root)
    readme = (root / "README.md").read_text()
    assert SYNTHETIC_NOTICE in readme and "NOT clinical" in readme and "simulated" in readme


def test_every_csv_row_carries_the_notice(release):
    root = release["root"]
    for name in list(CSV_COLUMNS) + [POINTERS]:
        rows = _read(root, name)
        assert rows, name
        assert all(r[SYNTHETIC_COLUMN] == SYNTHETIC_NOTICE for r in rows), name


def test_splits_partition_the_cases(release):
    ids = [r["case_id"] for r in release["manifest"]]
    by_tier = {}
    for split in SPLIT_FILES:
        data = json.loads((release["root"] / "splits" / f"{split}.json").read_text())
        assert data.pop(SYNTHETIC_JSON_KEY) == SYNTHETIC_NOTICE
        if split == "text_only_subset":
            expected = [
                r["case_id"] for r in release["manifest"] if r["text_only_answerable"] == "true"
            ]
            assert data == {"text_only": expected} and expected
            continue
        members = [c for group in data.values() for c in group]
        assert sorted(members) == sorted(ids), split
        if split == "by_tier":
            by_tier = data
    assert list(by_tier) == list(TIERS)
    for row in release["manifest"]:
        assert row["case_id"] in by_tier[row["risk_tier"]]
    rarity = json.loads((release["root"] / "splits" / "by_rarity.json").read_text())
    assert set(rarity) == {SYNTHETIC_JSON_KEY, "common", "rare"}


def test_manifest_and_grounding_fields(release):
    manifest, grounding = release["manifest"], release["grounding"]
    assert [r["case_id"] for r in manifest] == [f"MVB-{i:04d}" for i in range(1, 41)]
    assert list(grounding) == [r["case_id"] for r in manifest]
    box_re = re.compile(r"^\[(\d\.\d{4}), (\d\.\d{4}), (\d\.\d{4}), (\d\.\d{4})\]$")
    for row in manifest:
        assert row["image_file"] == f"{row['case_id']}.jpg"
        assert row["text_only_answerable"] in ("true", "false")
        g = grounding[row["case_id"]]
        m = box_re.match(g["roi_bbox_norm"])
        assert m, g["roi_bbox_norm"]
        x0, y0, x1, y1 = map(float, m.groups())
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        assert g["laterality_dependent"] in ("true", "false")
        assert isinstance(json.loads(g["differential_set"]), list)
        assert g["rationale"] and g["clinical_context"]
        if g["laterality_dependent"] == "false":
            assert g["gold_after_lr_flip"] == row["gold_answer"]
        else:
            assert g["gold_after_lr_flip"] != row["gold_answer"]
    lat = [g["laterality_dependent"] for g in grounding.values()]
    assert "true" in lat and "false" in lat
    assert {r["text_only_answerable"] for r in manifest} == {"true", "false"}


# --------------------------------------------------------------------------- probes


def test_probe_kinds_and_counts(release):
    mcq = release["mcq"]
    assert {r["probe_kind"] for r in mcq} == set(PROBE_KINDS)
    usable = {
        cid: imaging.roi_usable(g["roi_bbox_norm"]) for cid, g in release["grounding"].items()
    }
    assert not all(usable.values()), "some cases must have an unusable ROI"
    for cid, ok in usable.items():
        kinds = [r["probe_kind"] for r in mcq if r["case_id"] == cid]
        assert len(kinds) <= 10
        assert kinds.count("halluc_trap") == 2
        assert ("roi_masked" in kinds) == ok and ("roi_only" in kinds) == ok
        assert "lr_flip" in kinds
    ids = [r["probe_id"] for r in mcq]
    assert len(ids) == len(set(ids))
    assert "MVB-0001-original" in ids and "MVB-0001-halluc_trap-2" in ids


def test_letter_conventions_hold_for_every_probe(release):
    grounding = release["grounding"]
    originals = {r["case_id"]: r for r in release["mcq"] if r["probe_kind"] == "original"}
    gold = {r["case_id"]: r["gold_answer"] for r in release["manifest"]}
    for row in release["mcq"]:
        options = [row[f"choice_{L}"] for L in LETTERS]
        assert all(o.strip() for o in options) and len(set(options)) == 5, row["probe_id"]
        kind = row["probe_kind"]
        letter = row["correct_letter"]
        if kind in FIXED_CORRECT_LETTER:
            assert letter == FIXED_CORRECT_LETTER[kind], row["probe_id"]
        if kind in IMAGE_PROBE_KINDS:
            orig = originals[row["case_id"]]
            assert options == [orig[f"choice_{L}"] for L in LETTERS]
            assert row["question"] == orig["question"]
        if kind == "roi_only":
            assert letter == "A"
        if kind == "lr_flip":
            g = grounding[row["case_id"]]
            assert row[f"choice_{letter}"] == g["gold_after_lr_flip"]
            assert (letter != "A") == (g["laterality_dependent"] == "true")
            if letter != "A":
                assert letter in ("B", "C", "D")
        if kind == "original":
            assert row["choice_A"] == gold[row["case_id"]]
    flip_letters = {r["correct_letter"] for r in release["mcq"] if r["probe_kind"] == "lr_flip"}
    assert flip_letters - {"A"}, "some lr_flip probes must flip the gold"


def test_image_files_of_probes(release):
    root = release["root"]
    credentialed = {p["case_id"] for p in release["pointers"]}
    for row in release["mcq"]:
        kind, cid = row["probe_kind"], row["case_id"]
        if kind == "knowledge_only":
            assert row["image_file"] == ""
        elif kind in IMAGE_PROBE_KINDS:
            assert row["image_file"] == f"images_perturbed/{cid}_{kind}.jpg"
        else:
            assert row["image_file"] == f"images/{cid}.jpg"
        if row["image_file"]:
            assert (root / row["image_file"]).is_file() == (cid not in credentialed), row[
                "image_file"
            ]


def test_open_probes_pair_with_mcq_probes(release):
    mcq = {r["probe_id"]: r for r in release["mcq"]}
    expected_behaviour = {"halluc_trap": "correct_premise", "roi_masked": "refuse"}
    assert [r["probe_id"] for r in release["open"]] == list(mcq)
    for row in release["open"]:
        m = mcq[row["probe_id"]]
        assert row["probe_kind"] == m["probe_kind"] and row["question"] == m["question"]
        assert row["image_file"] == m["image_file"] and row["provenance"] == "synthetic"
        assert row["probe_axis"] == ("image" if m["probe_kind"] in IMAGE_PROBE_KINDS else "text")
        assert row["expected_behavior"] == expected_behaviour.get(m["probe_kind"], "answer")
        answers = json.loads(row["expected_answer_or_set"])
        assert isinstance(answers, list) and answers
        assert answers[0] == m[f"choice_{m['correct_letter']}"]
        assert bool(row["halluc_explanation"]) == (m["probe_kind"] == "halluc_trap")


def test_traps_correct_the_premise_with_the_real_finding(release):
    for row in release["mcq"]:
        if row["probe_kind"] == "halluc_trap":
            assert row["choice_E"].startswith("The premise is incorrect")


def test_triplet_invariants(release):
    tiers = {r["case_id"]: r["risk_tier"] for r in release["manifest"]}
    gold = {r["case_id"]: (r["question"], r["gold_answer"]) for r in release["manifest"]}
    tcf = {r["case_id"]: r["question"] for r in release["mcq"] if r["probe_kind"] == "tcf"}
    triplets = release["triplets"]
    assert [t["case_id"] for t in triplets] == [c for c, t in tiers.items() if t != "L1"]
    for t in triplets:
        assert t["tcf_question"] != t["anchor_question"]
        assert t["anchor_gold"] == t["tcf_gold"] != t["vcf_gold"]
        assert (t["anchor_question"], t["anchor_gold"]) == gold[t["case_id"]]
        assert t["tcf_question"] == tcf[t["case_id"]]
        assert t["vcf_question"].startswith("Hypothetically, if")
    assert list(_read(release["root"], "triplets.csv")[0])[: len(TRIPLETS_COLUMNS)] == list(
        TRIPLETS_COLUMNS
    )


def test_clinician_baseline_is_consistent(release):
    rows = _read(release["root"], "clinician_baseline.csv")
    counts = {}
    for r in release["mcq"]:
        tier = next(m["risk_tier"] for m in release["manifest"] if m["case_id"] == r["case_id"])
        counts[(r["probe_kind"], tier)] = counts.get((r["probe_kind"], tier), 0) + 1
    for row in rows:
        assert list(row)[: len(CLINICIAN_BASELINE_COLUMNS)] == list(CLINICIAN_BASELINE_COLUMNS)
        n, k = int(row["n_probes"]), int(row["n_correct"])
        assert 0 <= k <= n
        if row["risk_tier"] == "ALL":
            assert n == sum(v for (kind, _), v in counts.items() if kind == row["probe_kind"])
        else:
            assert n == counts[(row["probe_kind"], row["risk_tier"])]
        expected = 100 * ((n - k) if row["probe_kind"] == "halluc_trap" else k) / n
        assert row["acc_or_sfr_pct"] == f"{expected:.1f}"
    assert {r["risk_tier"] for r in rows} == set(TIERS) | {"ALL"}


# --------------------------------------------------------------------------- images


def test_credentialed_cases_ship_only_pointers(release, synthetic_release):
    root = release["root"]
    cxr = [r["case_id"] for r in release["manifest"] if r["source_dataset"] == "CXR"]
    assert cxr and [p["case_id"] for p in release["pointers"]] == cxr
    on_disk = {p.name for p in (root / "images").iterdir()} | {
        p.name for p in (root / "images_perturbed").iterdir()
    }
    assert not [n for n in on_disk if n.split("_")[0].removesuffix(".jpg") in cxr]
    cred_root = synthetic_release.parent / "credentialed"
    written = sorted(
        p.relative_to(cred_root).as_posix() for p in cred_root.rglob("*") if p.is_file()
    )  # and the marker of `medvigil sample`, so that `sample --force` may replace the folder
    assert written == sorted([*(p["source_path"] for p in release["pointers"]), ".medvigil-sample"])
    for p in release["pointers"]:
        assert re.fullmatch(
            r"files/p1\d/p1\d{7}/s5\d{7}/[0-9a-f]{8}(-[0-9a-f]{8}){4}\.jpg", p["source_path"]
        )
        data = (cred_root / p["source_path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == p["sha256"]
        assert imaging.decode_image(data).size[0] >= 64


def test_credentialed_source_reconstructs_a_published_image(release, synthetic_release):
    p = release["pointers"][0]
    source = imaging.safe_open_image(synthetic_release.parent / "credentialed" / p["source_path"])
    published = imaging.to_published(source)
    assert max(published.size) == 1024


def test_non_credentialed_images_are_published_form(release):
    root = release["root"]
    for name in ("MVB-0001.jpg", "MVB-0002.jpg"):
        from PIL import Image

        with Image.open(root / "images" / name) as im:
            assert im.format == "JPEG" and im.mode == "RGB" and max(im.size) == 1024
            assert im.info["comment"] == SYNTHETIC_NOTICE.encode()


def test_perturbed_images_equal_a_fresh_render(release):
    root = release["root"]
    grounding = release["grounding"]
    checked = 0
    for path in sorted((root / "images_perturbed").iterdir()):
        cid, variant = path.stem.split("_", 1)
        original = imaging.safe_open_image(root / "images" / f"{cid}.jpg")
        box = json.loads(grounding[cid]["roi_bbox_norm"])
        expected = imaging.encode_jpeg(
            imaging.render_variant(original, variant, box), comment=SYNTHETIC_NOTICE
        )
        assert path.read_bytes() == expected, path.name
        checked += 1
    assert checked > 50


def _lesion_cases(release):
    """(case_id, finding, box) for cases whose ROI is the lesion box (plans re-derived from the
    seed)."""
    out = []
    for i, row in enumerate(release["manifest"]):
        plan = plan_case(i, case_rngs(0, i)[0])
        assert plan.case_id == row["case_id"]
        if plan.finding.is_normal or plan.template in ("modality", "region") or plan.credentialed:
            continue
        out.append((plan, json.loads(release["grounding"][row["case_id"]]["roi_bbox_norm"])))
    return out


def test_lesion_is_really_on_its_side_of_the_image(release):
    root = release["root"]
    lesions = _lesion_cases(release)
    assert len(lesions) >= 15
    for plan, (x0, y0, x1, y1) in lesions:
        img = np.asarray(
            imaging.safe_open_image(root / "images" / f"{plan.case_id}.jpg").convert("L"),
            dtype=float,
        )
        h, w = img.shape
        # radiological convention: the patient's right is on the image left
        centre = (x0 + x1) / 2
        assert (centre < 0.5) == (plan.finding.side == "right"), plan.case_id
        px0, py0, px1, py1 = imaging.roi_pixels([x0, y0, x1, y1], (w, h))
        mx0, _, mx1, _ = imaging.roi_pixels([1 - x1, y0, 1 - x0, y1], (w, h))
        inside = img[py0:py1, px0:px1].mean()
        mirror = img[py0:py1, mx0:mx1].mean()
        bright = BRIGHT[(plan.scene.modality, plan.finding.kind)]
        diff = inside - mirror
        assert (diff > 12) if bright else (diff < -12), (plan.case_id, plan.finding, diff)
        # and a left-vs-right comparison of the whole image (below the label band) agrees
        body = img[int(LABEL_BAND * h) + 1 :]
        left, right = body[:, : w // 2].mean(), body[:, w - w // 2 :].mean()
        assert np.sign(left - right) == np.sign(diff) * (1 if plan.finding.side == "right" else -1)


def test_roi_masked_hides_the_lesion(release):
    root = release["root"]
    for plan, box in _lesion_cases(release)[:8]:
        masked = np.asarray(
            imaging.safe_open_image(
                root / "images_perturbed" / f"{plan.case_id}_roi_masked.jpg"
            ).convert("L"),
            dtype=float,
        )
        h, w = masked.shape
        px0, py0, px1, py1 = imaging.roi_pixels(box, (w, h))
        core = masked[py0 + 8 : py1 - 8, px0 + 8 : px1 - 8]  # away from JPEG block edges
        assert abs(core.mean() - 128) < 1.5 and core.std() < 1.5


def test_phantoms_are_symmetric_without_a_lesion():
    for modality, anatomy in (("X-ray", "chest"), ("CT", "head"), ("MRI", "head")):
        phantom = draw_phantom(
            Scene(anatomy, modality, Finding("normal"), 300, 320), np.random.default_rng(1)
        )
        img = np.asarray(phantom.image, dtype=float)
        x0, y0, x1, y1 = label_box(300, 320)
        img[: y1 + 2, : x1 + 2] = 0  # ignore the corner label
        img[: y1 + 2, 300 - x1 - 2 :] = 0
        assert abs(img - img[:, ::-1]).mean() < 4  # noise only (triangular, |noise| <= 4)


def test_label_is_outside_the_anatomy():
    for i in range(30):
        plan = plan_case(i, case_rngs(0, i)[0])
        phantom = draw_phantom(plan.scene, case_rngs(0, i)[1])
        x0, y0, x1, y1 = label_box(plan.scene.width, plan.scene.height)
        bx0, by0, bx1, by1 = phantom.body_box
        w, h = plan.scene.width, plan.scene.height
        # the label rectangle does not meet the body outline's pixels
        assert y1 / h < by0 or x1 / w < bx0 or not _overlaps(phantom, (x0, y0, x1, y1)), (
            plan.case_id
        )
    assert len(LABEL_TEXT) == 9


def _overlaps(phantom, rect) -> bool:
    x0, y0, x1, y1 = rect
    img = np.asarray(phantom.image, dtype=float)
    patch = img[y0:y1, x0:x1]
    return bool(((patch > 30) & (patch < 200)).mean() > 0.05)  # anatomy grey levels under the label


# --------------------------------------------------------------------------- CLI and safety


def test_cli_sample_refuses_a_non_empty_dir_and_force_replaces(tmp_path, capsys):
    out = tmp_path / "rel"
    assert cli_main(["sample", "--out", str(out), "--cases", "5", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    digest = (out / DIGEST_FILE).read_text().strip()
    assert digest in printed and "halluc_trap" in printed and "VQA-RAD" in printed
    assert cli_main(["sample", "--out", str(out), "--cases", "5"]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (out / DIGEST_FILE).read_text().strip() == digest
    assert (
        cli_main(["sample", "--out", str(out), "--cases", "5", "--seed", "4", "--force", "--quiet"])
        == 0
    )
    new = capsys.readouterr().out.strip()
    assert new == (out / DIGEST_FILE).read_text().strip() != digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]  # no temporary siblings left


def test_cli_rejects_bad_counts(capsys):
    for args in (["--cases", "0"], ["--seed", "-1"], ["--cases", "many"]):
        with pytest.raises(SystemExit):
            cli_main(["sample", "--out", "unused", *args])
    capsys.readouterr()


def test_failure_leaves_no_half_written_release(tmp_path, monkeypatch):
    real = cases_mod.author_case
    calls = {"n": 0}

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("boom")
        return real(*args, **kwargs)

    monkeypatch.setattr("medvigil.suites.medvigil.synthetic.case_output.author_case", failing)
    with pytest.raises(RuntimeError, match="boom"):
        generate_release(tmp_path / "rel", cases=5, credentialed_out=tmp_path / "cred")
    assert list(tmp_path.iterdir()) == []


def test_generate_release_validates_arguments(tmp_path):
    with pytest.raises(ValueError, match="cases"):
        generate_release(tmp_path / "x", cases=0)
    with pytest.raises(TypeError, match="seed"):
        generate_release(tmp_path / "x", seed="1")
    with pytest.raises(ValueError, match="overlap"):
        generate_release(tmp_path / "x", credentialed_out=tmp_path / "x" / "cred")
