"""The one probe-record constructor every task pack uses (medvigil/records/probe_record.py)."""

import pytest

from medvigil.records.probe_record import (
    RUN_MODEL_NAME,
    MetricValue,
    metric_values,
    probe_record,
    records_of,
)
from medvigil.records.schema_validation import validator
from medvigil.schemas import load_schema
from medvigil.suites.cbd import records as cbd_records
from medvigil.suites.medqdeg import records as medqdeg_records

DOC = {
    "probe_id": "MVB-0001-original",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "risk_tier": "L3",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "text_only_answerable": False,
    "correct_letter": "B",
    "options": ["a", "b", "c", "d", "e"],
    "question": "Is there a mass?",
    "image_file": "images/MVB-0001.jpg",
}


def _valid(record: dict) -> dict:
    errors = [e.message for e in validator("probe_record").iter_errors(record)]
    assert errors == []
    return record


@pytest.mark.parametrize("suite", ["medvigil", "readiness", "cbd", "medqdeg"])
def test_record_from_doc_validates_and_follows_the_schema_order(suite):
    record = _valid(
        probe_record(
            suite,
            DOC,
            condition="default",
            predicted_letter="C",
            raw_response="C",
            extra={"k": 1},
            attempts=["?", "??", "C"],
        )
    )
    assert list(record) == [k for k in load_schema("probe_record")["properties"] if k != "category"]
    assert record["model"] == RUN_MODEL_NAME == "lmms-eval-run"
    assert (
        record["suite"],
        record["probe_id"],
        record["correct_letter"],
        record["predicted_letter"],
    ) == (suite, DOC["probe_id"], "B", "C")
    assert (record["parse_status"], record["retries"]) == ("ok", 2)
    assert record["extra"] == {"k": 1, "attempts": ["?", "??", "C"]}


def test_unparsed_answer_is_a_parse_failure_and_overrides_win():
    record = _valid(
        probe_record(
            "medvigil",
            DOC,
            condition="shuffled",
            predicted_letter=None,
            raw_response="??",
            correct_letter="D",
            extra={},
        )
    )
    assert (
        record["parse_status"],
        record["predicted_letter"],
        record["correct_letter"],
        record["retries"],
    ) == ("parse_failure", None, "D", 0)


def test_identity_given_explicitly_with_category_in_its_schema_place():
    doc = {"pair_id": 7, "image_key": "im1", "correct_letter": "A"}
    record = _valid(
        probe_record(
            "mediconfusion",
            doc,
            condition="mc",
            probe_id="7:im1",
            case_id="7",
            probe_kind="confusing_pair",
            risk_tier=None,
            source_dataset="ROCO",
            modality=None,
            text_only_answerable=False,
            category="anatomy",
            predicted_letter="A",
            raw_response="A",
            extra={},
        )
    )
    assert list(record) == list(load_schema("probe_record")["properties"])
    assert (record["probe_id"], record["case_id"], record["category"]) == ("7:im1", "7", "anatomy")
    with pytest.raises(TypeError, match="unknown field"):
        probe_record(
            "medvigil",
            DOC,
            condition="default",
            predicted_letter="A",
            raw_response="A",
            extra={},
            colour="red",
        )


def test_suite_hooks_build_valid_records():
    cbd_doc = {**DOC, "condition": "noimg", "paraphrase_index": 0, "paraphrase_source": "original"}
    record = _valid(cbd_records.make_record(cbd_doc, "Answer: E", ["x", "Answer: E"]))
    assert (record["predicted_letter"], record["retries"], record["extra"]["attempts"]) == (
        "E",
        1,
        ["x", "Answer: E"],
    )
    qdeg = _valid(
        medqdeg_records.record({**DOC, "degradation": "clean", "severity": 0}, ["B", "B", "zzz"])
    )
    assert (qdeg["condition"], qdeg["predicted_letter"], qdeg["extra"]["votes"]) == (
        "L0",
        "B",
        ["B", "B", None],
    )


def test_score_is_the_docs_correctness_unless_given():
    right = probe_record(
        "medvigil", DOC, condition="default", predicted_letter="B", raw_response="B", extra={}
    )
    wrong = probe_record(
        "medvigil", DOC, condition="default", predicted_letter="C", raw_response="C", extra={}
    )
    unread = probe_record(
        "medvigil", DOC, condition="default", predicted_letter=None, raw_response="?", extra={}
    )
    given = probe_record(
        "medqdeg", DOC, condition="L0", predicted_letter="B", raw_response="B", extra={}, score=0.7
    )
    assert [r["score"] for r in (right, wrong, unread, given)] == [1.0, 0.0, 0.0, 0.7]
    for record in (right, given):
        _valid(record)
    bad = {**right, "score": 1.5}
    assert [e.message for e in validator("probe_record").iter_errors(bad)]


def test_metric_values_log_the_record_once_and_carry_it_to_every_aggregator():
    """lmms-eval logs each metric's value: the record under the first metric, ``{score, case_id}``
    under the others (its clustered standard error reads them), the plain score under ``score`` (its
    paired --baseline test); every aggregator gets the record back, also across ranks (pickle)."""
    import json
    import pickle

    record = probe_record(
        "cbd", DOC, condition="image", predicted_letter="B", raw_response="B", extra={}
    )
    values = metric_values(record, {"frac_ideal": True, "flip_rate": False, "accuracy": True})
    assert list(values) == ["frac_ideal", "flip_rate", "accuracy", "score"]
    logged = json.loads(json.dumps(values))
    assert logged["frac_ideal"] == json.loads(json.dumps(record))
    assert logged["flip_rate"] == logged["accuracy"] == {"score": 1.0, "case_id": "MVB-0001"}
    assert logged["score"] == 1.0
    for name in ("frac_ideal", "flip_rate", "accuracy"):
        assert records_of([values[name]]) == [record]
        assert records_of(pickle.loads(pickle.dumps([values[name]]))) == [record]
    assert isinstance(values["flip_rate"], MetricValue) and values["flip_rate"].record is record
