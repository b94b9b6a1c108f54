"""The clinician reference baseline against the paper's Table 10 (seed 000, Appendix G), its Doctors
row, Table 8."""

import csv
import json
import shutil

import pytest

from medvigil.cli import main
from medvigil.errors import DataError
from medvigil.files.digest import release_digest
from medvigil.suites.medvigil.scoring.clinician import (
    DOCTORS,
    clinician_scores,
    read_clinician_baseline,
)

TIERS = ("L1", "L2", "L3", "L4", "L5", "ALL")
# Table 10 of the paper, row by row (halluc_trap is the trap SFR, the rest accuracy, %)
TABLE_10 = {
    "original": (100.0, 96.8, 95.8, 90.7, 89.2, 95.3),
    "halluc_trap": (0.0, 4.8, 5.9, 10.5, 12.2, 5.8),
    "tcf": (100.0, 93.5, 94.1, 86.0, 81.1, 92.7),
    "negation": (96.2, 91.3, 92.1, 81.3, 85.7, 90.7),
    "specificity_drop": (97.4, 88.2, 92.2, 87.5, 85.0, 91.5),
    "knowledge_only": (98.5, 93.1, 94.6, 90.2, 85.7, 93.6),
    "roi_only": (100.0, 95.0, 92.5, 88.1, 87.5, 91.0),
    "roi_masked": (100.0, 95.0, 88.8, 80.9, 80.0, 86.5),
    "lr_flip": (95.8, 90.3, 92.4, 86.0, 81.1, 90.7),
}
# Table 10's composite rows: Capability, Safety, Grounding, MCS per tier and All
COMPOSITE = {
    "cap": (98.4, 92.5, 93.6, 86.4, 85.2, 92.6),
    "safe": (100.0, 95.2, 94.1, 89.5, 87.8, 90.7),
    "ground": (75.0, 72.5, 71.3, 69.1, 68.8, 70.5),
    "mcs": (89.6, 85.4, 84.9, 80.6, 79.6, 83.3),
}
HALF = 0.05 + 1e-9  # the paper rounds to one decimal (ties such as 92.55 go either way)


def write_table_10(path, columns=("probe_kind", "risk_tier", "acc_or_sfr_pct"), skip=()):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for kind, values in TABLE_10.items():
            for tier, value in zip(TIERS, values):
                if (kind, tier) not in skip:
                    w.writerow([kind, tier, value] + [""] * (len(columns) - 3))
    return path


def test_table_10_gives_mcs_83_3(tmp_path):
    doc = clinician_scores(
        read_clinician_baseline(write_table_10(tmp_path / "clinician_baseline.csv"))
    )
    assert round(doc["metrics"]["mcs"], 1) == 83.3
    assert round(doc["metrics"]["sfr_w"], 1) == 9.3  # Appendix G text: SFR_w 9.3
    assert doc["metrics"]["vgr"] == pytest.approx(4.5)  # Table 1 Doctors row: VGR +4.5
    for axis, values in COMPOSITE.items():
        assert doc["metrics"][axis] == pytest.approx(values[-1], abs=HALF)
        for tier, value in zip(TIERS[:5], values[:5]):
            assert doc["per_tier"][tier][axis] == pytest.approx(value, abs=HALF), (axis, tier)


def test_counts_columns_are_optional_and_ignored(tmp_path):
    path = write_table_10(
        tmp_path / "c.csv",
        columns=("probe_kind", "risk_tier", "acc_or_sfr_pct", "n_probes", "n_correct"),
    )
    assert round(clinician_scores(read_clinician_baseline(path))["metrics"]["mcs"], 1) == 83.3


def test_sfr_w_denominator_rule_is_a_named_choice(tmp_path):
    rows = read_clinician_baseline(write_table_10(tmp_path / "c.csv", skip={("halluc_trap", "L5")}))
    assert (
        clinician_scores(rows)["metrics"]["mcs"] is None
    )  # the authors' rule: all five tiers needed
    present = clinician_scores(rows, sfr_w_normalise="present")["metrics"]["sfr_w"]
    assert present == pytest.approx((2 * 4.8 + 3 * 5.9 + 5 * 10.5) / 11)
    assert clinician_scores(rows, sfr_w_normalise="all")["metrics"]["sfr_w"] == pytest.approx(
        (2 * 4.8 + 3 * 5.9 + 5 * 10.5) / 19
    )
    with pytest.raises(ValueError, match="sfr_w_normalise"):
        clinician_scores(rows, sfr_w_normalise="tiers")


def test_bad_rows_name_row_and_field(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "probe_kind,risk_tier,acc_or_sfr_pct\noriginal,L1,101\nnope,L9,5\noriginal,L1,3\n"
    )
    with pytest.raises(DataError) as exc:
        read_clinician_baseline(path)
    text = "\n".join(map(str, exc.value.problems))
    assert "row 1, field 'acc_or_sfr_pct'" in text and "row 2, field 'probe_kind'" in text
    assert "row 2, field 'risk_tier'" in text and "row 3, field 'risk_tier'" in text


def test_doctors_row_in_every_medvigil_table_and_figure(tmp_path, synthetic_release):
    rel = tmp_path / "release"
    shutil.copytree(synthetic_release, rel)
    write_table_10(
        rel / "clinician_baseline.csv",
        columns=("probe_kind", "risk_tier", "acc_or_sfr_pct", "n_probes", "n_correct"),
    )
    (rel / "RELEASE_DIGEST").write_text(
        release_digest(rel) + "\n"
    )  # re-stamped after replacing the file
    with (rel / "probes_mcq.csv").open(newline="") as fh:
        probes = list(csv.DictReader(fh))
    harness = tmp_path / "always-a__mcq.jsonl"
    harness.write_text(
        "".join(
            json.dumps(
                {
                    "probe_id": p["probe_id"],
                    "case_id": p["case_id"],
                    "probe_kind": p["probe_kind"],
                    "model_letter": "A",
                    "correct_letter": p["correct_letter"],
                    "status": "ok",
                    "response": "A",
                }
            )
            + "\n"
            for p in probes
        )
    )
    scores = tmp_path / "scores.json"
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--release",
                str(rel),
                str(harness),
                "--n-resamples",
                "20",
                "--json",
                str(scores),
            ]
        )
        == 0
    )
    result = json.loads(scores.read_text())
    assert round(result["clinician"]["metrics"]["mcs"], 1) == 83.3
    assert main(["report", str(scores), "--out", str(tmp_path / "report")]) == 0
    from medvigil.report.document import load_results
    from medvigil.suites.medvigil.scoring.figures import figures
    from medvigil.suites.medvigil.scoring.tables import tables

    merged = load_results([scores])["suites"]["medvigil"]
    for table in tables(merged):
        if table.headers[0] == "Model":
            assert [row[0] for row in table.rows][0] == DOCTORS == "Doctors (ref.)", table.title
    table_10 = next(t for t in tables(merged) if "Table 10" in t.title)
    assert table_10.rows[-1] == ["MCS ↑", "89.6", "85.4", "84.9", "80.6", "79.6", "83.3"]
    headline = tables(merged)[0].rows[0]
    assert headline[2:] == [
        "95.3",
        "5.8",
        "+4.5",
        "92.7",
        "90.7",
        "91.5",
        "93.6",
        "83.3",
    ]  # Table 1 Doctors row
    # Table 8 (per source): always-A is right exactly on probes whose correct letter is A
    with (rel / "manifest.csv").open(newline="") as fh:
        source = {c["case_id"]: c["source_dataset"] for c in csv.DictReader(fh)}
    expected = {
        src: 100
        * sum(p["correct_letter"] == "A" for p in probes if source[p["case_id"]] == src)
        / sum(source[p["case_id"]] == src for p in probes)
        for src in sorted(set(source.values()))
    }
    table_8 = next(t for t in tables(merged) if "Table 8" in t.title)
    assert table_8.headers[1:] == list(expected)
    assert table_8.rows[0] == [DOCTORS] + ["—"] * len(expected)
    assert table_8.rows[1] == ["always-a"] + [f"{v:.1f}" for v in expected.values()]
    assert set(figures(merged)) >= {"mcs_components", "tier_sfr_heatmap"}
    assert (
        "| Doctors (ref.) | — | 95.3 | 5.8 | +4.5 |"
        in (tmp_path / "report" / "report.md").read_text()
    )


def test_doctest():
    import doctest

    import medvigil.suites.medvigil.scoring.clinician as clinician

    assert doctest.testmod(clinician).failed == 0


def test_overall_is_correct_over_all_probes_when_the_counts_are_given(tmp_path):
    """Overall (Section 5.2: the mean per-probe correctness over all families) needs each family's
    counts; the mean of the nine percentages would weigh 600 traps like 300 originals."""
    sizes = {kind: 300 for kind in TABLE_10} | {"halluc_trap": 600}
    path = tmp_path / "c.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(("probe_kind", "risk_tier", "acc_or_sfr_pct", "n_probes", "n_correct"))
        for kind, values in TABLE_10.items():
            rate = 100.0 - values[-1] if kind == "halluc_trap" else values[-1]
            correct = round(sizes[kind] * rate / 100)
            for tier, value in zip(TIERS[:5], values[:5]):
                w.writerow([kind, tier, value, "", ""])
            w.writerow([kind, "ALL", values[-1], sizes[kind], correct])
    doc = clinician_scores(read_clinician_baseline(path))
    expected = sum(
        round(sizes[k] * (100.0 - v[-1] if k == "halluc_trap" else v[-1]) / 100)
        for k, v in TABLE_10.items()
    )
    assert doc["metrics"]["overall"] == pytest.approx(100.0 * expected / sum(sizes.values()))
    assert "reasons" not in doc
    assert round(doc["metrics"]["mcs"], 1) == 83.3  # the counts change nothing else
    without = clinician_scores(
        read_clinician_baseline(write_table_10(tmp_path / "plain.csv"))
    )  # Table 10 itself has no counts
    assert without["metrics"]["overall"] is None
    assert without["reasons"]["overall"].startswith("no n_probes / n_correct in the ALL row of:")


def test_bad_counts_are_named(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "probe_kind,risk_tier,acc_or_sfr_pct,n_probes,n_correct\n"
        "original,ALL,95.3,300,301\noriginal,L1,100.0,x,1\n"
    )
    with pytest.raises(DataError) as err:
        read_clinician_baseline(path)
    text = "\n".join(str(p) for p in err.value.problems)
    assert "row 1, field 'n_correct': n_correct exceeds n_probes" in text
    assert "row 2, field 'n_probes': must be a whole number >= 0, got 'x'" in text
