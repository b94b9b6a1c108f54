"""CPython's ``random`` stream drawn by :class:`CPythonRandomStream` (numpy's MT19937 from
``random.Random``'s state), held to ``random.Random`` itself: any mix of calls, sizes and ranges
draws the same values and leaves the stream in the same place."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.scoring.bootstrap import CPythonRandomStream, count_rows


def _expected(rng: random.Random, call: tuple) -> list:
    kind, n, size = call
    if kind == "words":
        return [rng.getrandbits(32) for _ in range(size)]
    if kind == "choices":
        return [rng.choice(range(n)) for _ in range(size)]
    counts = np.zeros((size, n), dtype=np.float32)
    for row in counts:
        for _ in range(n):
            row[rng._randbelow(n)] += 1
    return counts.tolist()


def _drawn(stream: CPythonRandomStream, call: tuple) -> list:
    kind, n, size = call
    if kind == "words":
        return stream.getrandbits32(size).tolist()
    if kind == "choices":
        return stream.choice_indices(n, size).tolist()
    got = stream.choice_counts(n, size)
    assert got.dtype == np.float32 and got.shape == (size, n)
    return got.tolist()


_N = st.one_of(
    st.integers(1, 9),
    st.integers(1, 5000),
    st.sampled_from([2**k for k in range(12)] + [2**31, 2**32 - 1]),
)
_CALL = st.one_of(
    st.tuples(st.just("words"), st.just(0), st.integers(0, 1500)),
    st.tuples(st.just("choices"), _N, st.integers(0, 1500)),
    st.tuples(st.just("counts"), st.integers(1, 700), st.integers(0, 4)),
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**70), 2**70), calls=st.lists(_CALL, min_size=1, max_size=6))
def test_any_mix_of_calls_draws_what_cpython_draws(seed, calls):
    """Whole runs of 624 words, runs cut anywhere, a twist at the first call or not: the
    stream and ``random.Random`` agree on every value and position."""
    rng = random.Random(seed)
    stream = CPythonRandomStream(seed)
    for call in calls:
        assert _drawn(stream, call) == _expected(rng, call), call
    assert stream.getrandbits32(3).tolist() == [rng.getrandbits(32) for _ in range(3)]


def test_counts_are_the_counted_choices_over_many_twists():
    """A block of resamples as the bootstrap asks for it (3,000 cases, 43 rows: 200 twists)."""
    counted, chosen = CPythonRandomStream(20260505), CPythonRandomStream(20260505)
    got = counted.choice_counts(3000, 43)
    assert np.array_equal(
        got, count_rows(chosen.choice_indices(3000, 43 * 3000).reshape(43, 3000), 3000)
    )
    assert (got.sum(axis=1) == 3000).all()
    assert counted.getrandbits32(10).tolist() == chosen.getrandbits32(10).tolist()
