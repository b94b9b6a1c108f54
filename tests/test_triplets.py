from medvigil.triplets import triplet_probes

ORIGINAL = {"case_id": "C1", "options": ["Lower zone", "Middle zone", "Upper zone", "Both", "Refuse"], "image": "img"}
TRIPLET = {"case_id": "C1", "anchor_question": "Where?", "tcf_question": "Which zone?", "vcf_question": "If upper, where?",
           "anchor_gold": "Lower zone", "tcf_gold": "lower zone.", "vcf_gold": "Upper  zone"}


def test_three_arms_with_letters_found_by_text():
    out = triplet_probes([TRIPLET], {"C1": ORIGINAL})
    assert [(r["probe_kind"], r["correct_letter"], r["question"]) for r in out.rows] == [
        ("triplet_anchor", "A", "Where?"), ("triplet_tcf", "A", "Which zone?"), ("triplet_vcf", "C", "If upper, where?")]
    assert all(r["image"] == "img" and r["options"] == ORIGINAL["options"] for r in out.rows)
    assert out.skipped == {}


def test_unaskable_triplets_are_skipped_and_counted():
    no_option = dict(TRIPLET, vcf_gold="Apex")
    out = triplet_probes([no_option, dict(TRIPLET, case_id="C2")], {"C1": ORIGINAL})
    assert out.rows == []
    assert out.skipped == {"gold not among the original options (vcf)": 1, "no original probe for the case (e.g. image withheld)": 1}


def test_triplets_of_the_synthetic_release_are_askable(synthetic_release):
    from medvigil.release import load_release

    rel = load_release(synthetic_release, check=False)
    originals = {p.case_id: {"options": p.options} for p in rel.probes_mcq if p.probe_kind == "original"}
    rows = [t.__dict__ for t in rel.triplets]
    out = triplet_probes(rows, originals)
    assert len(out.rows) == 3 * len(rel.triplets) - 3 * sum(out.skipped.values())
    assert sum(out.skipped.values()) <= len(rel.triplets) // 4  # most synthetic triplets fit the options
