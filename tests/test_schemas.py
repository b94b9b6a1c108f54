"""The JSON Schemas in schemas/: well-formed, in step with release_format, and discriminating."""

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.records.schema_validation import problems_for, problems_for_records, refused_rows
from medvigil.schemas import SCHEMA_DIR, load_schema
from medvigil.suites.medvigil.release import release_format as rf

OURS = (
    "manifest_row",
    "grounding_row",
    "mcq_probe_row",
    "open_probe_row",
    "triplet_row",
    "split_file",
    "clinician_baseline_row",
    "pointer_row",
    "harness_result_row",
    "score_summary",
    "compare_result",
)
ROW_COLUMNS = {
    "manifest_row": rf.MANIFEST_COLUMNS,
    "grounding_row": rf.GROUNDING_COLUMNS,
    "mcq_probe_row": rf.PROBES_MCQ_COLUMNS,
    "open_probe_row": rf.PROBES_OPEN_COLUMNS,
    "triplet_row": rf.TRIPLETS_COLUMNS,
    "clinician_baseline_row": rf.CLINICIAN_BASELINE_COLUMNS,
    "pointer_row": ("case_id", "source_path", "sha256"),
}
ROW_FILES = {
    "manifest_row": rf.MANIFEST,
    "grounding_row": rf.GROUNDING,
    "mcq_probe_row": rf.PROBES_MCQ,
    "open_probe_row": rf.PROBES_OPEN,
    "triplet_row": rf.TRIPLETS,
    "clinician_baseline_row": rf.CLINICIAN_BASELINE,
}


def valid(name: str, record) -> bool:
    return not problems_for(name, record, "x")


def fields(name: str, record) -> set:
    return {p.field for p in problems_for(name, record, "x")}


# --------------------------------------------------------------------------- shape


@pytest.mark.parametrize("name", OURS)
def test_schema_is_draft_2020_12_and_documented(name):
    path = SCHEMA_DIR / f"{name}.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/{name}.schema.json")
    assert schema["title"] and schema["description"]


@pytest.mark.parametrize("name", sorted(ROW_COLUMNS))
def test_row_schema_requires_exactly_the_published_columns(name):
    """Required = the published columns minus the optional ones
    (release_format.OPTIONAL_COLUMNS)."""
    schema = load_schema(name)
    required = rf.required_columns(ROW_FILES[name]) if name in ROW_FILES else ROW_COLUMNS[name]
    assert tuple(schema["required"]) == required
    assert set(schema["properties"]) >= set(ROW_COLUMNS[name])
    assert schema["additionalProperties"] is True  # extra columns such as synthetic_notice


def test_harness_schema_requires_the_harness_fields():
    schema = load_schema("harness_result_row")
    assert tuple(schema["required"]) == rf.HARNESS_REQUIRED_FIELDS
    assert (
        tuple(schema["then"]["required"]) == rf.HARNESS_OK_FIELDS
    )  # only answered rows carry letters


def test_enums_match_release_format():
    mcq = load_schema("mcq_probe_row")["properties"]
    assert tuple(mcq["probe_kind"]["enum"]) == rf.PROBE_KINDS
    assert tuple(mcq["correct_letter"]["enum"]) == rf.LETTERS
    assert tuple(load_schema("manifest_row")["properties"]["risk_tier"]["enum"]) == rf.TIERS


# --------------------------------------------------------------------------- examples

MANIFEST_OK = {
    "case_id": "MVB-0001",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "image_file": "MVB-0001.jpg",
    "question": "What is shown?",
    "gold_answer": "Nodule",
    "risk_tier": "L3",
    "text_only_answerable": False,
    "annotator_notes": "",
    rf.SYNTHETIC_COLUMN: rf.SYNTHETIC_NOTICE,
}


def test_manifest_row():
    assert valid("manifest_row", MANIFEST_OK)
    assert fields("manifest_row", {**MANIFEST_OK, "risk_tier": "L6"}) == {"risk_tier"}
    assert fields("manifest_row", {**MANIFEST_OK, "text_only_answerable": "false"}) == {
        "text_only_answerable"
    }
    assert fields("manifest_row", {**MANIFEST_OK, "case_id": "MVB 0001"}) == {"case_id"}
    assert fields("manifest_row", {**MANIFEST_OK, "case_id": ""}) == {"case_id"}
    assert fields("manifest_row", {**MANIFEST_OK, "question": ""}) == {"question"}
    missing = dict(MANIFEST_OK)
    del missing["gold_answer"]
    assert fields("manifest_row", missing) == {"gold_answer"}


GROUNDING_OK = {
    "case_id": "MVB-0001",
    "roi_bbox_norm": [0.1, 0.2, 0.5, 0.6],
    "rationale": "",
    "differential_set": ["a", "b"],
    "clinical_context": "",
    "laterality_dependent": None,
    "gold_after_lr_flip": "",
}


def test_grounding_row():
    assert valid("grounding_row", GROUNDING_OK)
    assert valid(
        "grounding_row", {**GROUNDING_OK, "roi_bbox_norm": None, "laterality_dependent": True}
    )
    assert fields("grounding_row", {**GROUNDING_OK, "roi_bbox_norm": [0.1, 0.2, 0.5]}) == {
        "roi_bbox_norm"
    }
    assert fields("grounding_row", {**GROUNDING_OK, "roi_bbox_norm": [0.1, 0.2, 0.5, "x"]}) == {
        "roi_bbox_norm"
    }
    assert fields("grounding_row", {**GROUNDING_OK, "differential_set": "a; b"}) == {
        "differential_set"
    }
    assert fields("grounding_row", {**GROUNDING_OK, "laterality_dependent": "yes"}) == {
        "laterality_dependent"
    }


MCQ_OK = {
    "probe_id": "MVB-0001-original",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "question": "What is shown?",
    **{f"choice_{letter}": f"option {letter}" for letter in rf.LETTERS},
    "correct_letter": "A",
    "image_file": "images/MVB-0001.jpg",
}


def test_mcq_probe_row():
    assert valid("mcq_probe_row", MCQ_OK)
    assert valid("mcq_probe_row", {**MCQ_OK, "probe_kind": "knowledge_only", "image_file": None})
    assert fields("mcq_probe_row", {**MCQ_OK, "probe_kind": "trap"}) == {"probe_kind"}
    assert fields("mcq_probe_row", {**MCQ_OK, "correct_letter": "F"}) == {"correct_letter"}
    assert fields("mcq_probe_row", {**MCQ_OK, "correct_letter": "a"}) == {"correct_letter"}
    assert fields("mcq_probe_row", {**MCQ_OK, "image_file": ""}) == {
        "image_file"
    }  # empty cells become null


def test_open_probe_and_triplet_rows():
    open_ok = {
        "case_id": "MVB-0001",
        "probe_id": "MVB-0001-open",
        "probe_axis": "safety",
        "probe_kind": "halluc_trap",
        "question": "Describe the lesion.",
        "expected_behavior": "refuse",
        "expected_answer_or_set": ["no lesion"],
        "halluc_explanation": "",
        "image_file": None,
        "provenance": "",
    }
    assert valid("open_probe_row", open_ok)
    assert fields("open_probe_row", {**open_ok, "expected_answer_or_set": "no lesion"}) == {
        "expected_answer_or_set"
    }
    triplet = {
        "case_id": "MVB-0001",
        "anchor_question": "a",
        "tcf_question": "b",
        "vcf_question": "c",
        "anchor_gold": "yes",
        "tcf_gold": "yes",
        "vcf_gold": "no",
    }
    assert valid("triplet_row", triplet)
    assert fields("triplet_row", {**triplet, "vcf_gold": ""}) == {"vcf_gold"}


def test_split_file():
    assert valid(
        "split_file", {"L1": ["MVB-0001"], "L2": [], rf.SYNTHETIC_JSON_KEY: rf.SYNTHETIC_NOTICE}
    )
    assert valid("split_file", ["MVB-0001", "MVB-0002"])  # a bare list (text_only_subset)
    assert valid("split_file", {"_meta": {"anything": [1, 2]}})
    assert not valid("split_file", {"L1": "MVB-0001"})
    assert not valid("split_file", {"L1": [1]})
    assert not valid("split_file", {"L1": ["MVB 0001"]})
    assert not valid("split_file", "L1")
    assert fields("split_file", {"L1": [3]}) == {"L1.0"}


def test_clinician_baseline_and_pointer_rows():
    row = {
        "probe_kind": "halluc_trap",
        "risk_tier": "ALL",
        "acc_or_sfr_pct": 12.5,
        "n_probes": 40,
        "n_correct": 35,
    }
    assert valid("clinician_baseline_row", row)
    assert valid(
        "clinician_baseline_row",
        {**row, "acc_or_sfr_pct": None, "n_probes": None, "n_correct": None},
    )
    assert fields("clinician_baseline_row", {**row, "acc_or_sfr_pct": 120}) == {"acc_or_sfr_pct"}
    assert fields("clinician_baseline_row", {**row, "n_probes": 2.5}) == {"n_probes"}
    assert fields("clinician_baseline_row", {**row, "risk_tier": "L0"}) == {"risk_tier"}
    pointer = {"case_id": "MVB-0004", "source_path": "files/p10/x.jpg", "sha256": "0" * 64}
    assert valid("pointer_row", pointer)
    assert fields("pointer_row", {**pointer, "sha256": "A" * 64}) == {"sha256"}
    assert fields("pointer_row", {**pointer, "source_path": ""}) == {"source_path"}


def test_harness_result_row():
    row = {
        "probe_id": "p1",
        "case_id": "c1",
        "probe_kind": "halluc_trap",
        "model_letter": "E",
        "correct_letter": "E",
        "status": "ok",
        "raw_response": "E",
        "latency_ms": 812,  # the harness writes more than we read
    }
    assert valid("harness_result_row", row)
    assert valid("harness_result_row", {**row, "model_letter": None, "status": "parse_fail"})
    assert fields("harness_result_row", {**row, "correct_letter": "Z"}) == {"correct_letter"}
    assert fields("harness_result_row", {**row, "retries": -1}) == {"retries"}
    for name in rf.HARNESS_REQUIRED_FIELDS + rf.HARNESS_OK_FIELDS:
        partial = {k: v for k, v in row.items() if k != name}
        assert fields("harness_result_row", partial) == {name}
    # the runner's failed-call row (scripts/bench_run_baseline.py): no letters at all
    error_row = {
        "probe_id": "p1",
        "case_id": "c1",
        "probe_kind": "original",
        "format": "mcq",
        "model_id": "m",
        "model_answer": "",
        "status": "error: 529 overloaded",
        "timestamp": "2026-05-01T00:00:00Z",
    }
    assert valid("harness_result_row", error_row)
    assert refused_rows("harness_result_row", [error_row, {**error_row, "status": "ok"}]) == [1]
    assert fields("harness_result_row", {**error_row, "status": "ok"}) == {
        "model_letter",
        "correct_letter",
    }


def test_score_summary():
    summary = {
        "suite": "medvigil",
        "release_digest": "0" * 64,
        "params": {
            "tier_weights": [1, 2, 3, 5, 8],
            "sfr_w_denominator": "present_tiers",
            "n_resamples": 500,
        },
        "models": {
            "always_a": {
                "metrics": {"SFR_w": 100.0, "VGR": None, "MCS": 0.0},
                "ci": {"SFR_w": {"low": 100.0, "high": 100.0, "level": 0.95, "n_resamples": 500}},
                "reasons": {"VGR": "no roi_only probes scored"},
                "n_probes": {"halluc_trap": 24, "original": 12},
                "n_cases": 12,
                "skipped": {"status != ok": 3},
                "strata": {"by_tier": {"L1": {"metrics": {"SFR": 100.0}, "n_probes": 6}}},
            },
            "flat_model": {"SFR_w": 25.2, "by_tier": {"L5": {"SFR": 30.0}}, "n_probes": 2556},
        },
    }
    assert valid("score_summary", summary)
    broken = json.loads(json.dumps(summary))
    broken["models"]["always_a"]["ci"]["SFR_w"]["low"] = "100"
    assert fields("score_summary", broken) == {"models.always_a.ci.SFR_w.low"}
    broken = json.loads(json.dumps(summary))
    broken["models"]["always_a"]["metrics"]["MCS"] = "n/a"
    assert not valid("score_summary", broken)
    broken = json.loads(json.dumps(summary))
    broken["models"]["flat_model"]["SFR_w"] = "25.2"
    assert not valid("score_summary", broken)
    broken = json.loads(json.dumps(summary))
    broken["models"]["always_a"]["skipped"]["status != ok"] = -1
    assert not valid("score_summary", broken)
    assert fields("score_summary", {"suite": "other", "models": {}}) == {"suite"}
    assert fields("score_summary", {"suite": "medvigil"}) == {"models"}


# --------------------------------------------------------------------------- fast path

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=150),
    st.sampled_from(
        [
            "",
            " ",
            "A",
            "F",
            "L1",
            "L6",
            "ALL",
            "original",
            "tcf",
            "MVB-0001",
            "a b",
            "x/y",
            "0" * 64,
        ]
    ),
    st.text(max_size=6),
)
_value = st.one_of(_scalar, st.lists(_scalar, max_size=5))


VALID_ROWS = {
    "manifest_row": MANIFEST_OK,
    "grounding_row": GROUNDING_OK,
    "mcq_probe_row": MCQ_OK,
    "open_probe_row": {
        "case_id": "c",
        "probe_id": "p",
        "probe_axis": "",
        "probe_kind": "k",
        "question": "q",
        "expected_behavior": "",
        "expected_answer_or_set": [],
        "halluc_explanation": "",
        "image_file": None,
        "provenance": "",
    },
    "triplet_row": dict.fromkeys(rf.TRIPLETS_COLUMNS, "x"),
    "clinician_baseline_row": {
        "probe_kind": "tcf",
        "risk_tier": "L1",
        "acc_or_sfr_pct": 50.0,
        "n_probes": 2,
        "n_correct": 1,
    },
    "pointer_row": {"case_id": "c", "source_path": "s", "sha256": "0" * 64},
}


@pytest.mark.parametrize("name", sorted(ROW_COLUMNS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_many_rows_get_the_problems_of_one_by_one(name, data):
    """Start from a valid row, replace one to three cells by arbitrary values: the readers' bulk
    check (jsonschema_rs built from the schema, jsonschema on what it refuses) finds the same
    problems as jsonschema alone."""
    record = dict(VALID_ROWS[name])
    for key in data.draw(st.lists(st.sampled_from([*record, "extra"]), min_size=1, max_size=3)):
        if data.draw(st.booleans(), label="drop") and key in record:
            del record[key]
        else:
            record[key] = data.draw(_value)
    assert problems_for_records(name, [record], "f") == problems_for(name, record, "f", 1)


@pytest.mark.parametrize("name", sorted(ROW_COLUMNS))
def test_valid_rows_pass_the_bulk_check(name):
    assert valid(name, VALID_ROWS[name])
    assert refused_rows(name, [VALID_ROWS[name]]) == []
