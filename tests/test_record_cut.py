"""The compiled line loop of ``record_block`` (``medvigil/files/_record_cut.c``) cuts the same
bytes as the Python loop, or declines, on any input; it is built wherever a C compiler is."""

from __future__ import annotations

import json
import shutil
import sysconfig

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from medvigil.files import jsonl_bulk, mapped_lines

compiled = jsonl_bulk._compiled_cut
needs_compiled = pytest.mark.skipif(compiled is None, reason="medvigil.files._record_cut is not built")


def _python_cut(data, key=None, separator=b"\n", refuse=None, otherwise=None):
    return jsonl_bulk._cut_lines(data, key, separator, refuse, otherwise)


def test_the_compiled_loop_is_built_where_a_compiler_is():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    assert compiled is not None, "the install did not build medvigil.files._record_cut (see setup.py)"


def _line(record: dict, before: dict | None = None, after: dict | None = None) -> str:
    return json.dumps({**(before or {"doc_id": 0, "target": "A"}), "mcs": record, **(after or {"cap": ["A", 1]})})


_RECORDS = [
    {"suite": "medvigil", "probe_id": "p1", "extra": {"k": {"deep": [1, {"x": None}]}}},
    {"raw_response": "A {B}, ", "extra": {}},  # '}, "' inside the record: the braces decide
    {"raw_response": "back\\slash \"mcs\": {x}", "n": 1.5},
    {},
]


@needs_compiled
@pytest.mark.parametrize("key", [None, b"mcs", b"doc_id", b"other"])
@pytest.mark.parametrize("separator", [b"\n", b","])
def test_the_same_cut_on_log_lines(key, separator):
    lines = [_line(r) for r in _RECORDS] + [""] + [_line(_RECORDS[0], after={"z": {"a": 1}})]
    data = ("\n".join(lines) + "\n").encode()
    got = jsonl_bulk.record_block(data, key, separator)
    assert got == _python_cut(data, key, separator)
    if key == b"mcs":
        records = json.loads(b"[" + got[0].replace(b"\n", b",") + b"]")
        assert got[1] == len(records) == len(_RECORDS) + 1 and records == [*_RECORDS, _RECORDS[0]]


_FRAGMENTS = st.sampled_from(['{', '}', '"', '\\', '": ', '}, "', '"mcs": {', '"k": {', ', ', ':', ' ', 'a', 'mcs', '[', ']',
                              '\n', '\r', '\x00', 'é', '}}', '{"', '"}'])
_TEXT = st.lists(_FRAGMENTS, max_size=40).map("".join)
_PLAIN = st.sampled_from(["a", " ", "1", "mcs", ": "])
_SHORT = st.lists(st.one_of(_FRAGMENTS, *[_PLAIN] * 6), max_size=4).map("".join)
_KEYED = st.tuples(_SHORT, st.sampled_from(["mcs", "k", "a\\b", ""]), _SHORT, _SHORT).map(
    lambda p: '{"x": 1, ' + p[0] + '"' + p[1] + '": {' + p[2] + '}, "' + p[3] + '": 2}')  # nearly a log line
_LINE = st.one_of(*[_KEYED] * 8, _TEXT.map(lambda t: "{" + t + "}"), _TEXT, st.just(""))


@needs_compiled
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_LINE, min_size=1, max_size=6),
       key=st.sampled_from([None, b"mcs", b"k", b""]), separator=st.sampled_from([b"\n", b","]),
       trailing=st.booleans())
def test_the_same_cut_or_a_decline_on_any_bytes(lines, key, separator, trailing):
    data = ("\n".join(lines) + ("\n" if trailing else "")).encode()
    python = _python_cut(data, key, separator)
    pieces = bytearray()
    n = compiled(data, 0, len(data), key, separator, pieces)
    if n >= 0:  # the compiled loop answered: the Python loop gives the same bytes
        assert python == (pieces, n)
    assert jsonl_bulk.record_block(data, key, separator) == python


@needs_compiled
def test_bytes_that_are_not_utf8_or_a_refused_key_decline_the_file():
    good = (_line(_RECORDS[0]) + "\n").encode()
    assert jsonl_bulk.record_block(good + b'{"mcs": {"a": "\xff"}, "b": 1}', b"mcs") is None
    assert jsonl_bulk.record_block(good, b"mcs", refuse=b'"cap"') is None
    assert jsonl_bulk.record_block(good, b"mcs")[1] == 1


@needs_compiled
@pytest.mark.parametrize("window", [1, 7, 64, 10_000])
def test_windows_join_as_one_file(monkeypatch, window):
    """Records cut a window at a time (each call of the compiled loop appends to the same block)."""
    monkeypatch.setattr(mapped_lines, "WINDOW", window)
    data = ("\n".join(_line(r) for r in _RECORDS * 5) + "\n").encode()
    got = jsonl_bulk.record_block(data, b"mcs")
    assert got == _python_cut(data, b"mcs") and got[1] == len(_RECORDS) * 5


@needs_compiled
def test_a_declined_line_leaves_the_file_to_the_python_loop():
    """A line the compiled rule does not take (the record after another object) is cut by the
    Python loop with ``otherwise``, from the start of the file."""
    data = "\n".join([_line(_RECORDS[0]), _line(_RECORDS[1], before={"tokens": {"in": 3}})]).encode()
    later = data.index(b'"mcs": {', data.index(b"\n")) + len(b'"mcs": ')
    found = jsonl_bulk.record_block(data, b"mcs", otherwise=lambda d, pos, end: later if pos > 0 else -1)
    assert found is not None and found[1] == 2 and found[0].split(b"\n")[1] == json.dumps(_RECORDS[1]).encode()
    assert compiled(data, 0, len(data), b"mcs", b"\n", bytearray()) == -1


@needs_compiled
@pytest.mark.parametrize("pos, stop", [(-1, 3), (4, 3), (0, 10**6)])
def test_a_range_outside_the_data_is_an_error(pos, stop):
    with pytest.raises(ValueError):
        compiled(b"{}\n{}", pos, stop, None, b"\n", bytearray())


@needs_compiled
def test_wrong_argument_types_are_errors():
    with pytest.raises(TypeError):
        compiled(b"{}", 0, 2, "mcs", b"\n", bytearray())
    with pytest.raises(TypeError):
        compiled(b"{}", 0, 2, None, b"\n", b"not a bytearray")


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(text=st.lists(_FRAGMENTS, max_size=30).map("".join), needle=st.sampled_from(['"mcs"', '"', "", "mcs", '}, "', "é"]),
       pos=st.integers(0, 40), width=st.integers(0, 40))
def test_the_compiled_search_finds_what_the_buffer_search_finds(text, needle, pos, width):
    data, needle = text.encode(), needle.encode()
    pos = min(pos, len(data))
    stop = min(pos + width, len(data))
    assert jsonl_bulk._compiled_find(data, pos, stop, needle) == data.find(needle, pos, stop)
    assert jsonl_bulk.holds(data, needle, pos, stop) == (data.find(needle, pos, stop) >= 0)


@needs_compiled
@pytest.mark.parametrize("pos, stop", [(-1, 3), (4, 3), (0, 10**6)])
def test_a_search_outside_the_data_is_an_error(pos, stop):
    with pytest.raises(ValueError):
        jsonl_bulk._compiled_find(b"{}\n{}", pos, stop, b"}")
