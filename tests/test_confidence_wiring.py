"""Selective risk and calibration where the suites have confidences: MedQ-Deg's trial votes, CbD's
p(yes) and MedVIGIL's open-ended refusals (abstention), each against values worked out by hand,
and their report tables and reliability diagrams."""

import pytest

from medvigil.records.probe_record import probe_record
from medvigil.report.reliability import confidence_table, reliability_figure
from medvigil.scoring.confidence import confidence_summary
from medvigil.suites.cbd.confidence import binary_confidence_metrics
from medvigil.suites.medqdeg.scoring import score_records
from medvigil.suites.medvigil.scoring.abstention import abstention_table, open_abstention


def _medqdeg(probe: str, votes: list, gold: str = "A") -> dict:
    record = probe_record(
        "medqdeg",
        {"probe_id": probe, "case_id": probe, "probe_kind": "original", "correct_letter": gold},
        condition="default",
        predicted_letter=votes[0],
        raw_response=votes[0],
        extra={"votes": votes, "n_options": 4, "degradation": "clean", "severity": 0},
    )
    record["model"] = "m"
    return record


def test_medqdeg_votes_give_perceived_confidence_calibration():
    records = [
        _medqdeg("p1", list("AAAAAAAAAA")),  # C = 1, plurality right
        _medqdeg("p2", list("BBBBBBBBBB")),  # C = 1, plurality wrong
        _medqdeg("p3", list("AAAAABBBBB")),  # C = 1 - ln 2 / ln 4 = 0.5, tie -> A, right
    ]
    metrics = score_records(records)["models"]["m"]["confidence_metrics"]
    assert metrics["n"] == 3 and metrics["n_excluded"] == 0
    # bin (0.9, 1]: acc 1/2, conf 1 -> gap 1/2; bin (0.4, 0.5]: acc 1, conf 0.5 -> gap 1/2
    assert metrics["ece"] == pytest.approx(0.5) and metrics["mce"] == pytest.approx(0.5)
    assert metrics["brier"] == pytest.approx((0 + 1 + 0.25) / 3)
    # ranked 1 (right), 1 (wrong), 0.5 (right): risks 0, 1/2, 1/3; oracle 0, 0, 1/3
    assert metrics["aurc"] == pytest.approx((0.5 + 1 / 3) / 3)
    assert metrics["e_aurc"] == pytest.approx(0.5 / 3)
    assert metrics["bins"]["count"][9] == 2 and metrics["bins"]["count"][4] == 1


def _binary(probe: str, p_yes: float, label_yes: bool, condition: str = "binary") -> dict:
    return {
        "probe_id": probe,
        "condition": condition,
        "correct_letter": "A" if label_yes else "B",
        "predicted_letter": "A" if p_yes >= 0.5 else "B",
        "extra": {"p_yes": p_yes},
    }


def test_cbd_p_yes_is_scored_as_the_confidence_of_the_answer_given():
    records = [
        _binary("a", 0.9, True),  # says yes at 0.9: right
        _binary("b", 0.2, True),  # says no at 0.8: wrong
        _binary("c", 0.6, False, "binary:noimg"),  # says yes at 0.6: wrong
    ]
    arms = {"image": "binary", "noimg": "binary:noimg", "null": "binary:null"}
    out = binary_confidence_metrics(records, arms)
    assert set(out) == {"image", "noimg"}
    assert out["image"]["brier"] == pytest.approx((0.1**2 + 0.8**2) / 2)
    # bins (0.8, 0.9] and (0.7, 0.8]: gaps 0.1 and 0.8
    assert out["image"]["ece"] == pytest.approx(0.45) and out["image"]["mce"] == pytest.approx(0.8)
    assert out["image"]["aurc"] == pytest.approx(0.25) and out["image"]["e_aurc"] == 0.0
    assert out["noimg"] == confidence_summary([0.6], [0])


def _open(probe: str, kind: str, gold: str, answer: str, model: str = "m") -> dict:
    record = probe_record(
        "medvigil",
        {
            "probe_id": probe,
            "case_id": probe,
            "probe_kind": kind,
            "correct_letter": gold,
            "risk_tier": "L1",
            "text_only_answerable": False,
        },
        condition="open",
        predicted_letter=answer,
        raw_response=answer,
        extra={},
    )
    record["model"] = model
    return record


def test_open_ended_refusal_as_abstention():
    records = [
        _open("t1", "halluc_trap", "E", "E"),  # refused where it should: abstains, correct
        _open("o1", "original", "A", "A"),  # answered right
        _open("o2", "original", "A", "B"),  # answered wrong
        _open("o3", "original", "A", "E"),  # refused an answerable question: abstains, wrong
        _open("o4", "original", "A", "A", model="other"),
        {**_open("o5", "original", "A", "B"), "condition": "default"},  # another condition
    ]
    result = open_abstention(records, "open")
    m = result["m"]
    assert (m["n"], m["coverage"], m["risk_answered"]) == (4, 0.5, 0.5)
    # ranked: o1 (right), o2 (wrong), t1 (right), o3 (wrong): risks 0, 1/2, 1/3, 1/2
    assert m["aurc"] == pytest.approx((0 + 0.5 + 1 / 3 + 0.5) / 4)
    assert m["e_aurc"] == pytest.approx(m["aurc"] - (0 + 0 + 1 / 3 + 0.5) / 4)
    assert result["other"]["aurc"] == 0.0 and result["other"]["coverage"] == 1.0
    assert open_abstention(records, "noimg") == {}
    table = abstention_table(result)
    assert [row[:4] for row in table.rows] == [
        ["m", "4", "50.0", "50.0"],
        ["other", "1", "100.0", "0.0"],
    ]


def test_report_pieces_for_confidences():
    summary = confidence_summary([0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0])
    table = confidence_table("t", {"a": summary, "b": None})
    assert table.rows == [["a", "4", "0.300", "0.400", "0.225", "0.479", "0.000"]]
    assert confidence_table("t", {"b": None}) is None
    png = reliability_figure("r", {"a": summary})
    assert png.startswith(b"\x89PNG")
    assert reliability_figure("r", {"b": None}) is None


def test_medvigil_score_of_open_answers_carries_the_abstention_curve(tmp_path):
    """``medvigil score --condition open`` on the authors' __open.jsonl rows: ``selective`` per
    model."""
    from test_harness_ablations import release, write_jsonl

    from medvigil.suites import registry

    rel = release()
    cases = list(rel.cases)

    def row(case: str, kind: str, answer: str) -> dict:
        return {
            "probe_id": f"{case}__{'orig' if kind == 'original' else kind}",
            "case_id": case,
            "probe_kind": kind,
            "format": "open",
            "model_id": "m",
            "image_file": "x.jpg",
            "question": "q",
            "model_answer": answer,
            "latency_ms": 1,
            "usage": {},
            "status": "ok",
            "timestamp": "t",
            "expected_answer_or_set": "left kidney",
            "halluc_explanation": "",
            "expected_behavior": "refuse" if kind == "halluc_trap" else "match_gold",
        }

    path = write_jsonl(
        tmp_path / "m__open.jsonl",
        [
            row(cases[0], "halluc_trap", "I cannot determine that from this image."),  # refuses
            row(cases[0], "original", "The left kidney."),  # right
            row(cases[1], "original", "The spleen."),  # wrong
        ],
    )
    result = registry.score("medvigil", [str(path)], condition="open", n_resamples=0)
    m = result["selective"]["m"]
    # ranked: right, wrong, refusal (correct): risks 0, 1/2, 1/3; oracle 0, 0, 1/3
    assert (m["n"], m["coverage"], m["risk_answered"]) == (3, 2 / 3, 0.5)
    assert m["aurc"] == pytest.approx((0.5 + 1 / 3) / 3) and m["e_aurc"] == pytest.approx(0.5 / 3)
