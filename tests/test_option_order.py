"""Seeded option shuffles and circular rotations keep every answer text and move letters."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.mcq.option_order import (
    apply_order,
    circular_orders,
    displayed_letter,
    shuffled_order,
    to_published_letter,
)
from medvigil.suites.medvigil.release.release_format import LETTERS

OPTIONS = (
    "gold answer",
    "distractor one",
    "distractor two",
    "distractor three",
    "insufficient visual evidence",
)
probe_ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    probe_id=probe_ids,
    seed=st.integers(min_value=-(2**31), max_value=2**31),
    published=st.sampled_from(LETTERS),
)
def test_shuffle_keeps_texts_and_maps_letters_both_ways(probe_id, seed, published):
    order = shuffled_order(probe_id, seed)
    shown = apply_order(order, OPTIONS)
    assert sorted(shown) == sorted(OPTIONS)  # every answer text kept, none altered
    new = displayed_letter(order, published)
    assert shown[LETTERS.index(new)] == OPTIONS[LETTERS.index(published)]  # correct text unchanged
    assert to_published_letter(order, new) == published  # the scorer's inverse
    assert (
        tuple(shown[order.index(letter)] for letter in LETTERS) == OPTIONS
    )  # published order recovered


def test_shuffle_is_deterministic_and_depends_on_seed_and_probe():
    assert shuffled_order("p1", 0) == shuffled_order("p1", 0)
    orders_by_seed = {shuffled_order("p1", seed) for seed in range(50)}
    orders_by_probe = {shuffled_order(f"p{i}", 0) for i in range(50)}
    assert len(orders_by_seed) > 20 and len(orders_by_probe) > 20


def test_shuffled_correct_letters_are_roughly_uniform():
    # Published gold is A for most probes and E for traps: after shuffling, both spread evenly.
    n = 3000
    for published in ("A", "E"):
        counts = {letter: 0 for letter in LETTERS}
        for i in range(n):
            counts[displayed_letter(shuffled_order(f"case_{i:04d}_probe", 7), published)] += 1
        expected = n / len(LETTERS)
        chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
        assert chi2 < 18.47, counts  # chi-square, 4 dof, p = 0.001
    moved = sum(displayed_letter(shuffled_order(f"q{i}", 0), "A") != "A" for i in range(1000))
    assert 700 < moved < 900  # letters move for ~4/5 of probes


def test_circular_rotations_visit_every_letter_once():
    orders = circular_orders()
    assert orders[0] == "ABCDE" and len(orders) == 5
    for published in LETTERS:
        assert sorted(displayed_letter(o, published) for o in orders) == list(LETTERS)
    for r, order in enumerate(orders):
        shown = apply_order(order, OPTIONS)
        assert shown == OPTIONS[r:] + OPTIONS[:r]


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: shuffled_order("", 0), ValueError),
        (lambda: shuffled_order("p", "0"), TypeError),
        (lambda: shuffled_order("p", True), TypeError),
        (lambda: apply_order("ABCDA", OPTIONS), ValueError),
        (lambda: apply_order("ABCDE", OPTIONS[:4]), ValueError),
        (lambda: to_published_letter("ABCDE", "F"), ValueError),
        (lambda: to_published_letter(["A", "B", "C", "D", "E"], "A"), TypeError),
    ],
)
def test_bad_input_is_rejected(call, exc):
    with pytest.raises(exc):
        call()
