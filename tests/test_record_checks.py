"""The suites' ``extra`` checks name each bad field, with its file and line."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import medvigil.suites.cbd
import medvigil.suites.mediconfusion
import medvigil.suites.medqdeg
import medvigil.suites.readiness  # noqa: F401  (each suite's package registers its extra check)
from medvigil.records.record_checks import CHECKS, extra_problems, extras_problems

_ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.sampled_from([10**400, -(10**30), 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["0", "1", "2", "L1", "l2", "L3", "", "LL1", "A", "x"]),
    st.lists(st.sampled_from(["A", "B", "Z", "A\n", None, "a", 1, "AB", ""]), max_size=4),
    st.just([["A"]]),
    st.just({"A": 1}),
    st.dictionaries(
        st.sampled_from(["A", "B", "C"]),
        st.one_of(
            st.integers(-2, 5),
            st.floats(allow_nan=True),
            st.booleans(),
            st.sampled_from(["3", None, 10**400]),
        ),
    ),
)
_FIELDS = [
    "votes",
    "n_options",
    "severity",
    "degradation",
    "margin",
    "paraphrase_index",
    "laterality_dependent",
    "other",
]
_EXTRA = st.one_of(
    st.none(),
    st.sampled_from([[], "x", 3]),
    st.dictionaries(st.sampled_from(_FIELDS), _ODD, max_size=6),
)
_RECORD = st.fixed_dictionaries(
    {
        "suite": st.sampled_from(
            ["medqdeg", "mediconfusion", "cbd", "readiness", "medvigil", None, ["medqdeg"], 7]
        ),
        "extra": _EXTRA,
    }
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_RECORD, max_size=12))
def test_odd_records_give_problems_not_exceptions(records):
    """Any ``extra`` (odd types, numbers beyond a double, NaN) is checked without an exception."""
    rows = list(range(1, len(records) + 1))
    assert all(p.row in rows for p in extras_problems(records, "f.jsonl", rows))


def _valid(suite):
    return {
        "medqdeg": {
            "votes": ["A", None, "B"],
            "n_options": 5,
            "severity": "L2",
            "degradation": "gaussian_blur",
        },
        "mediconfusion": {"votes": {"A": 3, "B": 0.5}, "margin": 2},
        "cbd": {"paraphrase_index": 0},
        "readiness": {"laterality_dependent": None},
    }[suite]


@pytest.mark.parametrize(
    "suite, field, value",
    [
        ("medqdeg", "votes", []),
        ("medqdeg", "votes", ["A", "ab"]),
        ("medqdeg", "votes", [["A"]]),
        ("medqdeg", "n_options", True),
        ("medqdeg", "n_options", 27),
        ("medqdeg", "severity", "L3"),
        ("medqdeg", "severity", True),
        ("medqdeg", "degradation", 1),
        ("mediconfusion", "votes", {"A": -1}),
        ("mediconfusion", "votes", {"A": math.nan}),
        ("mediconfusion", "votes", {"A": True}),
        ("mediconfusion", "margin", math.inf),
        ("mediconfusion", "margin", "1"),
        ("cbd", "paraphrase_index", -1),
        ("cbd", "paraphrase_index", 1.0),
        ("readiness", "laterality_dependent", "yes"),
    ],
)
def test_each_bad_field_is_named(suite, field, value):
    records = [
        {"suite": suite, "extra": _valid(suite)},
        {"suite": suite, "extra": {**_valid(suite), field: value}},
    ]
    problems = extras_problems(records, "f.jsonl", [4, 5])
    assert [(p.file, p.row, p.field) for p in problems] == [("f.jsonl", 5, f"extra.{field}")]


def test_vote_counts_beyond_a_double_are_numbers():
    record = {"suite": "mediconfusion", "extra": {"votes": {"A": 10**400}, "margin": 10**400}}
    assert extra_problems(record, "f.jsonl", 1) == [] == extras_problems([record], "f.jsonl", [1])


def test_each_suite_registers_its_own_check():
    """The checks live in the suites' rooms, each under its own name; a suite without one has
    none."""
    from medvigil.records.record_checks import check_of
    from medvigil.suites.registry import SUITES

    found = {name: check_of(name) for name in SUITES}
    assert {name: check.__module__ for name, check in found.items() if check} == {
        name: f"medvigil.suites.{name}.record_check"
        for name in ("medqdeg", "mediconfusion", "cbd", "readiness")
    }
    assert CHECKS.keys() >= {name for name, check in found.items() if check}


def test_a_reader_without_the_suite_package_loaded_still_checks_its_records():
    """The check is found from the record's suite, not from what happens to be imported."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from medvigil.records.record_checks import extra_problems\n"
        "assert 'medvigil.suites.cbd' not in sys.modules\n"
        "bad = {'suite': 'cbd', 'extra': {'paraphrase_index': 'x'}}\n"
        "print([p.field for p in extra_problems(bad, 'f.jsonl', 3)])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['extra.paraphrase_index']"
