from medvigil.suites.medvigil.scoring.triplets import match_option, triplet_probes

ORIGINAL = {
    "case_id": "C1",
    "options": ["Lower zone", "Middle zone", "Upper zone", "Both", "Refuse"],
    "image": "img",
}
TRIPLET = {
    "case_id": "C1",
    "anchor_question": "Where?",
    "tcf_question": "Which zone?",
    "vcf_question": "If upper, where?",
    "anchor_gold": "Lower zone",
    "tcf_gold": "lower zone.",
    "vcf_gold": "Upper  zone",
}


def test_three_arms_with_letters_found_by_text():
    out = triplet_probes([TRIPLET], {"C1": ORIGINAL})
    assert [(r["probe_kind"], r["correct_letter"], r["question"]) for r in out.rows] == [
        ("triplet_anchor", "A", "Where?"),
        ("triplet_tcf", "A", "Which zone?"),
        ("triplet_vcf", "C", "If upper, where?"),
    ]
    assert all(r["image"] == "img" and r["options"] == ORIGINAL["options"] for r in out.rows)
    assert out.skipped == {} and out.matched_by == {"text": 3}


def test_free_text_golds_match_by_normalised_text_then_by_the_open_ended_matcher():
    options = [
        "Right lower lobe consolidation",
        "Left lower lobe consolidation",
        "Pleural effusion",
        "No abnormality",
        "Insufficient visual evidence",
    ]
    assert match_option("right lower-lobe consolidation!", options) == (
        "A",
        "text",
    )  # punctuation, case
    assert match_option("Café pleural effusion", ["Cafe pleural effusion", "x"]) == (
        "A",
        "text",
    )  # accents folded
    assert match_option("There is a pleural effusion on the left.", options) == (
        "C",
        "matcher",
    )  # option inside gold
    assert match_option("Left lower lobe consolidation with air bronchograms", options) == (
        "B",
        "matcher",
    )
    assert match_option("effusion", options) == ("C", "matcher")  # gold inside option
    assert match_option("consolidation", options) == (
        None,
        "gold matches several options",
    )  # ambiguous: not guessed
    assert match_option("Pneumothorax", options) == (None, "gold not among the original options")
    assert match_option("", options) == (None, "empty gold")


def test_free_text_triplet_is_asked_and_unmatched_ones_are_counted_by_reason():
    options = [
        "Right lower lobe consolidation",
        "Left lower lobe consolidation",
        "Pleural effusion",
        "No abnormality",
        "Insufficient visual evidence",
    ]
    original = {"options": options}
    free = {
        "case_id": "C1",
        "anchor_question": "Finding?",
        "tcf_question": "Main finding?",
        "vcf_question": "If mirrored?",
        "anchor_gold": "Right lower lobe consolidation.",
        "tcf_gold": "Consolidation of the right lower lobe",
        "vcf_gold": "There is left lower lobe consolidation",
    }
    out = triplet_probes([free], {"C1": original})
    assert out.skipped == {
        "gold not among the original options (tcf)": 1
    }  # word order differs: not guessed
    free["tcf_gold"] = "right lower lobe consolidation is seen"
    out = triplet_probes(
        [
            free,
            dict(free, case_id="C2", vcf_gold="lobe"),
            dict(free, case_id="C3", vcf_gold="Apex"),
        ],
        {"C1": original, "C2": original, "C3": original},
    )
    assert [r["correct_letter"] for r in out.rows] == ["A", "A", "B"]
    assert out.matched_by == {"text": 1, "matcher": 2}
    assert out.skipped == {
        "gold matches several options (vcf)": 1,
        "gold not among the original options (vcf)": 1,
    }


def test_unaskable_triplets_are_skipped_and_counted():
    no_option = dict(TRIPLET, vcf_gold="Apex")
    out = triplet_probes([no_option, dict(TRIPLET, case_id="C2")], {"C1": ORIGINAL})
    assert out.rows == []
    assert out.skipped == {
        "gold not among the original options (vcf)": 1,
        "no original probe for the case (e.g. image withheld)": 1,
    }


def test_triplets_of_the_synthetic_release_are_askable(synthetic_release):
    from medvigil.suites.medvigil.release.release_loading import load_release
    from medvigil.suites.medvigil.scoring.triplets import release_triplet_report

    rel = load_release(synthetic_release, check=False)
    originals = {
        p.case_id: {"options": p.options} for p in rel.probes_mcq if p.probe_kind == "original"
    }
    rows = [t.__dict__ for t in rel.triplets]
    out = triplet_probes(rows, originals)
    assert len(out.rows) == 3 * len(rel.triplets) - 3 * sum(out.skipped.values())
    assert (
        sum(out.skipped.values()) <= len(rel.triplets) // 4
    )  # most synthetic triplets fit the options
    report = release_triplet_report(synthetic_release)
    assert report["n_triplets"] == len(rel.triplets) and report["askable"] == len(out.rows) // 3
    assert sum(report["unmatched"].values()) == sum(out.skipped.values())


def test_score_reports_unmatched_triplets_for_models_with_triplet_arms(tmp_path, synthetic_release):
    import csv
    import json
    import shutil

    from medvigil.cli import main
    from medvigil.files.digest import release_digest
    from medvigil.suites.medvigil.release.release_loading import load_release

    root = tmp_path / "release"  # one V-CF gold made unmatchable, one made free text
    shutil.copytree(synthetic_release, root)
    with (root / "triplets.csv").open(newline="") as fh:
        reader = csv.DictReader(fh)
        header, rows = reader.fieldnames, list(reader)
    rows[0]["vcf_gold"] = "a finding none of the options names"
    rows[1]["vcf_gold"] = f"The answer is: {rows[1]['vcf_gold'].lower()}, as the image shows."
    with (root / "triplets.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, header)
        writer.writeheader()
        writer.writerows(rows)
    (root / "RELEASE_DIGEST").write_text(release_digest(root) + "\n")
    rel = load_release(root, check=False)
    originals = {
        p.case_id: {"options": p.options, "risk_tier": rel.cases[p.case_id].risk_tier}
        for p in rel.probes_mcq
        if p.probe_kind == "original"
    }
    made = triplet_probes([t.__dict__ for t in rel.triplets], originals)
    run = tmp_path / "run"
    run.mkdir()
    (run / "20260101_results.json").write_text(json.dumps({"config": {"model": "tri"}}))
    with (run / "20260101_samples_medvigil_triplets.jsonl").open("w") as fh:
        for r in made.rows:
            record = {
                "suite": "medvigil",
                "model": "tri",
                "probe_id": r["probe_id"],
                "case_id": r["probe_id"].rsplit("-triplet", 1)[0],
                "probe_kind": r["probe_kind"],
                "risk_tier": r["risk_tier"],
                "correct_letter": r["correct_letter"],
                "predicted_letter": r["correct_letter"],
                "parse_status": "ok",
            }
            fh.write(json.dumps({"mcs": record}) + "\n")
    out = tmp_path / "scores.json"
    assert (
        made.skipped == {"gold not among the original options (vcf)": 1}
        and made.matched_by["matcher"] == 1
    )
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--release",
                str(root),
                str(run / "20260101_samples_medvigil_triplets.jsonl"),
                "--n-resamples",
                "0",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert result["triplets"]["unmatched"] == made.skipped
    assert result["models"]["tri"]["counts"]["triplets_unmatched"] == 1
    assert result["models"]["tri"]["metrics"]["tr_coh"] == 100.0
    from medvigil.report.document import load_results
    from medvigil.suites.medvigil.scoring.tables import tables

    scored = next(
        t for t in tables(load_results([out])["suites"]["medvigil"]) if t.title == "What was scored"
    )
    row = next(r for r in scored.rows if r[0] == "tri")
    assert "triplets unmatched to options (not asked): 1" in row[5]
