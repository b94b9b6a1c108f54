"""medvigil.files.json_decode.loads_exact gives json.loads's value or exception on any text."""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.files import json_decode
from medvigil.files.json_decode import loads_exact, may_exceed_64_bits


def _same(a, b) -> bool:
    """Equal values of equal types (NaN equal to NaN, -0.0 apart from 0.0), keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _outcome(decode, data):
    try:
        return "value", decode(data)
    except (ValueError, RecursionError) as exc:
        return "error", type(exc)


def _agree(data: bytes) -> None:
    mine, reference = _outcome(loads_exact, data), _outcome(json.loads, data)
    assert mine[0] == reference[0], (data[:200], mine, reference)
    if mine[0] == "value":
        assert _same(mine[1], reference[1]), data[:200]
    else:
        assert mine[1] is reference[1]


def test_orjson_is_installed():
    assert json_decode.orjson is not None  # a dependency: without it, only the standard decoder runs


_INTEGERS = st.one_of(st.integers(), st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from(
    [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, -(2**64), 10**19, -(10**19), 10**30]))
_FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.floats(allow_nan=False, allow_infinity=False, width=32)
_TEXT = st.text() | st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()))
_VALUES = st.recursive(
    st.none() | st.booleans() | _INTEGERS | _FLOATS | _TEXT,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_TEXT, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.booleans())
def test_any_json_value(value, ascii_only):
    _agree(json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass"))


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.data())
def test_mutated_texts(value, data):
    text = bytearray(json.dumps(value).encode("utf-8", "surrogatepass"))
    for _ in range(data.draw(st.integers(0, 4))):
        at = data.draw(st.integers(0, len(text)))
        text[at:at + data.draw(st.integers(0, 3))] = data.draw(st.binary(max_size=4) | st.sampled_from(
            [b"NaN", b"-Infinity", b"1e400", b"\\ud800", b'"', b"{", b"]", b"\xef\xbb\xbf", b"-9" * 10, b"9" * 25]))
    _agree(bytes(text))


@pytest.mark.parametrize("text", [
    b"123456789012345678901234567890", b"-9223372036854775809", b"18446744073709551616", b"[9223372036854775808]",
    b"1e400", b"-1e400", b"NaN", b"[Infinity]", b'"\\ud800"', b'"\\udc00x"', b"\xef\xbb\xbf[1]", b'{"a":1,"b":2,"a":3}',
    b"2.4703282292062328e-324", b"1.7976931348623157e308", b"-0", b"-0.0", b"[1] x", b"", b"  ", b'"\xed\xa0\x80"',
    "[1]".encode("utf-16"), b"[" * 2000 + b"]" * 2000,
])
def test_edge_texts(text):
    _agree(text)


def test_bytearray_and_long_digit_runs():
    _agree(bytearray(b'{"seed": 1546324979594870101, "x": [-9223372036854775808]}'))
    assert may_exceed_64_bits(b'{"a": 12345678901234567890}')
    assert may_exceed_64_bits(b"[-1234567890123456789]")
    assert not may_exceed_64_bits(b'{"seed": 1546324979594870101, "x": -123456789012345678}')


def test_nesting_within_orjsons_limit_is_read():
    """The one documented difference: nesting the standard decoder refuses for the stack's sake."""
    text = b"[" * 1000 + b"]" * 1000
    with pytest.raises(RecursionError):
        json.loads(text)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        assert _same(loads_exact(text), json.loads(text))
    finally:
        sys.setrecursionlimit(limit)
