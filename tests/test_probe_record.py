"""The one probe-record constructor every task pack uses (medvigil/records/probe_record.py)."""

from __future__ import annotations

import pytest

from medvigil.records.probe_record import RUN_MODEL_NAME, probe_record
from medvigil.records.schema_validation import validator
from medvigil.schemas import load_schema
from medvigil.suites.cbd import protocol as cbd_protocol
from medvigil.suites.medqdeg import protocol as medqdeg_protocol

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
            retries=2,
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
    assert (record["parse_status"], record["retries"], record["extra"]) == ("ok", 2, {"k": 1})


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
    record = _valid(cbd_protocol.make_record(cbd_doc, "Answer: E", ["x", "Answer: E"]))
    assert (record["predicted_letter"], record["retries"], record["extra"]["attempts"]) == (
        "E",
        1,
        ["x", "Answer: E"],
    )
    qdeg = _valid(
        medqdeg_protocol.record({**DOC, "degradation": "clean", "severity": 0}, ["B", "B", "zzz"])
    )
    assert (qdeg["condition"], qdeg["predicted_letter"], qdeg["extra"]["votes"]) == (
        "L0",
        "B",
        ["B", "B", None],
    )
