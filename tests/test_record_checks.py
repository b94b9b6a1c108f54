"""The suites' ``extra`` checks: the bulk path (fast accepts) finds exactly what the per-record check finds."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.records.record_checks import extra_problems, extras_problems

_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 30), st.sampled_from([10**400, -(10**30), 2**64]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["0", "1", "2", "L1", "l2", "L3", "", "LL1", "A", "x"]),
    st.lists(st.sampled_from(["A", "B", "Z", "A\n", None, "a", 1, "AB", ""]), max_size=4),
    st.just([["A"]]), st.just({"A": 1}),
    st.dictionaries(st.sampled_from(["A", "B", "C"]), st.one_of(st.integers(-2, 5), st.floats(allow_nan=True), st.booleans(),
                                                              st.sampled_from(["3", None, 10**400]))),
)
_FIELDS = ["votes", "n_options", "severity", "degradation", "margin", "paraphrase_index", "laterality_dependent", "other"]
_EXTRA = st.one_of(st.none(), st.sampled_from([[], "x", 3]), st.dictionaries(st.sampled_from(_FIELDS), _ODD, max_size=6))
_RECORD = st.fixed_dictionaries({
    "suite": st.sampled_from(["medqdeg", "mediconfusion", "cbd", "readiness", "medvigil", None, ["medqdeg"], 7]),
    "extra": _EXTRA,
})


@settings(max_examples=600, deadline=None)
@given(st.lists(_RECORD, max_size=12))
def test_bulk_finds_what_each_record_finds(records):
    rows = list(range(1, len(records) + 1))
    one_by_one = [p for record, row in zip(records, rows) for p in extra_problems(record, "f.jsonl", row)]
    assert extras_problems(records, "f.jsonl", rows) == one_by_one


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["medqdeg", "mediconfusion", "cbd", "readiness"]),
       st.lists(st.one_of(_EXTRA, st.dictionaries(st.sampled_from(_FIELDS), _ODD, max_size=1).map(lambda m: ("valid", m))),
                min_size=1, max_size=8))
def test_bulk_finds_what_each_record_finds_in_a_file_of_one_suite(suite, extras):
    """A whole file of one suite is what the fast accepts judge at once (valid extras, some
    with one field changed, among arbitrary ones)."""
    records = [{"suite": suite, "extra": {**_valid(suite), **e[1]} if isinstance(e, tuple) else e} for e in extras]
    rows = list(range(1, len(records) + 1))
    one_by_one = [p for record, row in zip(records, rows) for p in extra_problems(record, "f.jsonl", row)]
    assert extras_problems(records, "f.jsonl", rows) == one_by_one


def _valid(suite):
    return {
        "medqdeg": {"votes": ["A", None, "B"], "n_options": 5, "severity": "L2", "degradation": "gaussian_blur"},
        "mediconfusion": {"votes": {"A": 3, "B": 0.5}, "margin": 2},
        "cbd": {"paraphrase_index": 0},
        "readiness": {"laterality_dependent": None},
    }[suite]


@pytest.mark.parametrize("suite, field, value", [
    ("medqdeg", "votes", []), ("medqdeg", "votes", ["A", "ab"]), ("medqdeg", "votes", [["A"]]), ("medqdeg", "n_options", True),
    ("medqdeg", "n_options", 27), ("medqdeg", "severity", "L3"), ("medqdeg", "severity", True), ("medqdeg", "degradation", 1),
    ("mediconfusion", "votes", {"A": -1}), ("mediconfusion", "votes", {"A": math.nan}), ("mediconfusion", "votes", {"A": True}),
    ("mediconfusion", "margin", math.inf), ("mediconfusion", "margin", "1"), ("cbd", "paraphrase_index", -1),
    ("cbd", "paraphrase_index", 1.0), ("readiness", "laterality_dependent", "yes"),
])
def test_each_bad_field_is_named(suite, field, value):
    records = [{"suite": suite, "extra": _valid(suite)}, {"suite": suite, "extra": {**_valid(suite), field: value}}]
    problems = extras_problems(records, "f.jsonl", [4, 5])
    assert [(p.file, p.row, p.field) for p in problems] == [("f.jsonl", 5, f"extra.{field}")]


def test_vote_counts_beyond_a_double_are_numbers():
    record = {"suite": "mediconfusion", "extra": {"votes": {"A": 10**400}, "margin": 10**400}}
    assert extra_problems(record, "f.jsonl", 1) == [] == extras_problems([record], "f.jsonl", [1])
