"""The log reader decodes a record repeated under every metric key once
(``lmms_eval_logs._folded``): every line, well formed or damaged, decodes to what ``loads_json``
gives, or is refused with its problem."""

from __future__ import annotations

import json
import random

import lmms_runs
import pytest

from medvigil.errors import DataError
from medvigil.files.input_files import RepeatedKey, loads_json, no_repeated_keys
from medvigil.records import lmms_eval_logs

RECORD = {
    "suite": "cbd",
    "model": "lmms-eval-run",
    "condition": "default",
    "probe_id": "P1",
    "case_id": "C1",
    "probe_kind": "original",
    "extra": {"votes": ["A", None], "params": {"c": 0.5}, "s": "\u0000x"},
    "raw_response": "A",
}
LINES = [
    lmms_runs.sample_line(
        RECORD, ("acc", "flip_rate", "excluded")
    ),  # the stress tasks: the record under each key
    lmms_runs.sample_line(RECORD, ("mcs",)),  # once
    json.dumps(
        {
            "doc_id": 0,
            "mcs": RECORD,
            **dict.fromkeys(("cap", "safe", "sfr"), ["cbd", "P1", [["images_sent", 1]]]),
            "input": "Q?",
        }
    )
    + "\n",  # MedVIGIL's tasks: once, then its scoring row under the other keys
    lmms_runs.sample_line(
        RECORD, ("a", "b"), text='a prompt with {"suite": 1} and "\\u0000" in it'
    ),
    lmms_runs.sample_line(
        RECORD, ("a", "b"), doc={"nested": RECORD}
    ),  # a record inside another value first
]
# what damage inserts: JSON's structure, the placeholder, a record's start, a key between values, a
# tab
PIECES = [
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    '"\\u0000"',
    "1",
    '{"suite": ',
    ', "k": ',
    "\t",
]


# not JSON (``\{`` is no escape), but JSON once the first record's text is replaced by the
# placeholder, which then lands inside a string (``"a\"\u0000"``); the second also holds a
# placeholder of its own
ESCAPED = [
    '{"input": "a\\{"suite": 1}, "x": {"suite": 2}}\n',
    '{"input": "a\\{"suite": 1}, "z": "\\u0000", "x": {"suite": 2}}\n',
]


def _strict(line: str):
    try:
        return loads_json(
            line, "f.jsonl", row=1, allow_non_finite=True, object_pairs_hook=no_repeated_keys
        )
    except DataError as exc:
        return [p.message for p in exc.problems]


def _read(line: str):
    """What the reader makes of one line (``_by_lines``)."""
    try:
        return lmms_eval_logs._folded(line, lmms_eval_logs._decoder({}))
    except (ValueError, RepeatedKey, RecursionError):
        return _strict(line)


def _damaged(line: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        at, what = rng.randrange(len(line)), rng.random()
        if what < 0.4:
            line = line[:at] + rng.choice(PIECES) + line[at:]
        elif what < 0.7:
            line = line[:at] + line[at + rng.randint(1, 3) :]
        else:  # a piece of the line elsewhere: a copy that is not one
            start = rng.randrange(len(line))
            line = line[:at] + line[start : start + rng.randint(1, 40)] + line[at:]
    return line


def test_the_copies_are_decoded_once():
    sample = _read(LINES[0])
    assert (
        sample["acc"] is sample["flip_rate"] is sample["excluded"]
        and sample["acc"]["probe_id"] == "P1"
    )
    sample = _read(LINES[2])
    assert sample["cap"] is sample["safe"] is sample["sfr"] and sample["mcs"]["probe_id"] == "P1"


@pytest.mark.parametrize("line", ESCAPED)
def test_a_placeholder_off_the_top_level_is_no_fold(line):
    assert isinstance(_strict(line), list) and _read(line) == _strict(line)


@pytest.mark.parametrize("line", LINES)
def test_a_well_formed_line_decodes_as_loads_json_decodes_it(line):
    assert _read(line) == _strict(line)
    assert _read(
        line.replace('"raw_response": "A"', '"raw_response": "A", "raw_response": "B"', 1)
    ) == _strict(
        line.replace('"raw_response": "A"', '"raw_response": "A", "raw_response": "B"', 1)
    )  # a key twice in the first copy


def test_damaged_lines_decode_or_fail_as_loads_json():
    rng, decoded = random.Random(0), 0
    for _ in range(4000):
        line = _damaged(rng.choice(LINES), rng)
        assert _read(line) == _strict(line), line
        decoded += isinstance(_strict(line), dict)
    assert decoded > 500  # damage that leaves JSON (a copy changed, a string longer) is among them
