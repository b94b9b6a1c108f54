"""The compiled draws of CPython's ``random`` stream (``medvigil/scoring/_mt_draws.c``), held to
``random.Random`` itself and to the numpy path of :class:`CPythonRandomStream`: any mix of
calls, sizes and ranges draws the same values and leaves the stream in the same place; bad
arguments are refused, never read past."""

from __future__ import annotations

import random
import shutil
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.scoring import bootstrap
from medvigil.scoring.bootstrap import CPythonRandomStream, count_rows

compiled = bootstrap._compiled_draws
needs_compiled = pytest.mark.skipif(compiled is None, reason="medvigil.scoring._mt_draws is not built")


def test_the_compiled_draws_are_built_where_a_compiler_is():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    assert compiled is not None, "the install did not build medvigil.scoring._mt_draws (see setup.py)"
    assert CPythonRandomStream(1).compiled and not CPythonRandomStream(1, compiled=False).compiled


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


_N = st.one_of(st.integers(1, 9), st.integers(1, 5000), st.sampled_from([2**k for k in range(12)] + [2**31, 2**32 - 1]))
_CALL = st.one_of(
    st.tuples(st.just("words"), st.just(0), st.integers(0, 1500)),
    st.tuples(st.just("choices"), _N, st.integers(0, 1500)),
    st.tuples(st.just("counts"), st.integers(1, 700), st.integers(0, 4)),
)


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**70), 2**70), calls=st.lists(_CALL, min_size=1, max_size=6))
def test_any_mix_of_calls_draws_what_cpython_draws(seed, calls):
    """Whole runs of 624 words, runs cut anywhere, a twist at the first call or not: the
    compiled stream, the numpy one and ``random.Random`` agree on every value and position."""
    rng = random.Random(seed)
    fast, slow = CPythonRandomStream(seed), CPythonRandomStream(seed, compiled=False)
    for call in calls:
        expected = _expected(rng, call)
        assert _drawn(fast, call) == expected, call
        assert _drawn(slow, call) == expected, call
    tail = [rng.getrandbits(32) for _ in range(3)]
    assert fast.getrandbits32(3).tolist() == tail and slow.getrandbits32(3).tolist() == tail


@needs_compiled
def test_counts_are_the_counted_choices_over_many_twists():
    """A block of resamples as the bootstrap asks for it (3,000 cases, 43 rows: 200 twists)."""
    fast, slow = CPythonRandomStream(20260505), CPythonRandomStream(20260505, compiled=False)
    got = fast.choice_counts(3000, 43)
    assert np.array_equal(got, count_rows(slow.choice_indices(3000, 43 * 3000).reshape(43, 3000), 3000))
    assert (got.sum(axis=1) == 3000).all()
    assert fast.getrandbits32(10).tolist() == slow.getrandbits32(10).tolist()


def _state(seed: int = 1) -> tuple[np.ndarray, int]:
    internal = random.Random(seed).getstate()[1]
    return np.array(internal[:-1], dtype=np.uint32), internal[-1]


@needs_compiled
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda mt, pos: compiled.words(mt[:-1].copy(), pos, np.empty(3, np.uint32)), "624 uint32"),
        (lambda mt, pos: compiled.words(mt.astype(np.int64), pos, np.empty(3, np.uint32)), "624 uint32"),
        (lambda mt, pos: compiled.words(mt, 625, np.empty(3, np.uint32)), "pos"),
        (lambda mt, pos: compiled.words(mt, -1, np.empty(3, np.uint32)), "pos"),
        (lambda mt, pos: compiled.words(mt, pos, np.empty(3, np.int64)), "uint32"),
        (lambda mt, pos: compiled.choices(mt, pos, 0, np.empty(3, np.uint32)), "n must be"),
        (lambda mt, pos: compiled.choices(mt, pos, 2**32, np.empty(3, np.uint32)), "n must be"),
        (lambda mt, pos: compiled.counts(mt, pos, 5, np.empty((2, 5), np.float64)), "float32"),
        (lambda mt, pos: compiled.counts(mt, pos, 5, np.empty(7, np.float32)), "whole rows"),
    ],
)
def test_bad_arguments_are_refused(call, message):
    mt, pos = _state()
    before = mt.copy()
    with pytest.raises(ValueError, match=message):
        call(mt, pos)
    assert np.array_equal(mt, before)  # nothing drawn


@needs_compiled
def test_buffers_that_cannot_be_written_in_place_are_refused():
    mt, pos = _state()
    with pytest.raises((BufferError, TypeError, ValueError)):
        compiled.words(mt, pos, np.empty(6, np.uint32)[::2])  # not contiguous
    frozen = mt.copy()
    frozen.flags.writeable = False
    with pytest.raises((BufferError, TypeError, ValueError)):
        compiled.words(frozen, pos, np.empty(3, np.uint32))
    with pytest.raises((BufferError, TypeError, ValueError)):
        compiled.words(mt, pos, b"123456789012")
