"""Codes of a columnar reader (:class:`Categorical`) recoded as if their values had been read one by
one: :func:`factorize` of a Categorical equals :func:`factorize` of its values, in both orders, with
repeated, unused and missing levels and values first seen anywhere in a long column; the duplicate
probe check finds the same rows whether it counts or sorts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.errors import DataError
from medvigil.scoring.categorical import Categorical, factorize
from medvigil.scoring.table import RecordTable

_LEVELS = st.lists(st.sampled_from(["b", "a", "c", "d", "zz", "L3"]), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    levels=_LEVELS,
    data=st.data(),
    late=st.integers(0, 6000),
    order=st.sampled_from([None, ("L1", "L2", "L3")]),
)
def test_factorize_of_codes_equals_factorize_of_values(levels, data, late, order):
    n_levels = len(levels)
    head = data.draw(st.lists(st.integers(-1, n_levels - 1), max_size=60))
    tail_code = data.draw(st.integers(-1, n_levels - 1))
    # a value may first appear after thousands of rows of others (past the first prefixes searched)
    codes = np.array(head + [head[0] if head else -1] * late + [tail_code], dtype=np.int32)
    cat = Categorical(codes, tuple(levels))
    values = cat.values()
    for sort in (True, False):
        got, expected = (
            factorize(cat, order=order, sort=sort),
            factorize(values, order=order, sort=sort),
        )
        assert got.levels == expected.levels, sort
        assert np.array_equal(got.codes, expected.codes), sort
        assert got.codes.dtype == np.int32


def _table(probe_codes: list[int], model_codes: list[int]) -> RecordTable:
    n = len(probe_codes)
    return RecordTable.from_columns(
        model=Categorical(np.array(model_codes, dtype=np.int32), ("m1", "m2")),
        case_id=["c"] * n,
        probe_kind=["original"] * n,
        correct_letter=["A"] * n,
        predicted_letter=["A"] * n,
        suite="medvigil",
        probe_id=Categorical(
            np.array(probe_codes, dtype=np.int32),
            tuple(f"p{i}" for i in range(max(probe_codes) + 1)),
        ),
    )


@pytest.mark.parametrize("spread", [False, True])
def test_a_probe_twice_for_one_model_is_named_by_both_rows(spread):
    """Probe ids dense (checked by counting) or many unused ids (checked by sorting): the same
    rows."""
    probes = [0, 1, 2, 1, 3] if not spread else [0, 40, 2, 40, 3]
    with pytest.raises(DataError) as caught:
        _table(probes, [0, 0, 0, 0, 1])
    (problem,) = caught.value.problems
    assert problem.row == 4 and problem.field == "probe_id" and "also at row 2" in problem.message
    _table(probes, [0, 0, 0, 1, 1])  # the same probe for two models: fine
