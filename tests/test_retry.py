"""The Appendix L retry protocol (medvigil.mcq.retry), independent of lmms-eval."""

import pytest

from medvigil.mcq.retry import AttemptLog, ask_with_retries, doc_key


def _scripted(scripts: list[list[str]]):
    """ask() that gives item i its scripted answers in turn; records each batch asked."""
    asked, cursor = [], [0] * len(scripts)

    def ask(indices):
        asked.append(list(indices))
        out = []
        for i in indices:
            out.append(scripts[i][cursor[i]])
            cursor[i] += 1
        return out

    return ask, asked


def test_retries_until_a_letter_then_stops():
    ask, asked = _scripted(
        [["B"], ["", "C"], ["x", "y", "z", "??"], ["", "", "", "", "never asked"]]
    )
    attempts = ask_with_retries(ask, 4, max_retries=3)
    assert attempts == [["B"], ["", "C"], ["x", "y", "z", "??"], ["", "", "", ""]]
    # one batch per round, only the still-failing items
    assert asked == [[0, 1, 2, 3], [1, 2, 3], [2, 3], [2, 3]]


def test_non_retryable_items_are_asked_once():
    ask, asked = _scripted([["free text"], ["", "D"], ["A"]])
    attempts = ask_with_retries(ask, 3, max_retries=2, retryable=lambda i: i != 0)
    assert attempts == [["free text"], ["", "D"], ["A"]]
    assert asked == [[0, 1, 2], [1]]


def test_zero_retries_and_bad_arguments():
    ask, _ = _scripted([[""]])
    assert ask_with_retries(ask, 1, max_retries=0) == [[""]]
    with pytest.raises(ValueError, match="max_retries"):
        ask_with_retries(ask, 1, max_retries=-1)
    with pytest.raises(RuntimeError, match="asked 2 items, got 1"):
        ask_with_retries(lambda idx: ["A"], 2)


def test_attempt_log_is_first_in_first_out_per_key():
    log = AttemptLog()
    log.put("k", ["", "A"])
    log.put("k", ["B"])
    assert log.take("k") == ["", "A"] and log.take("k") == ["B"] and log.take("k") is None


def test_doc_key_ignores_images_and_nulls_but_not_conditions():
    doc = {
        "probe_id": "P1",
        "options": ["a", "b"],
        "condition": "blur:2",
        "image": object(),
        "mask": None,
    }
    assert doc_key(doc) == doc_key({k: v for k, v in doc.items() if k not in ("image", "mask")})
    assert doc_key(doc) != doc_key({**doc, "condition": "blur:4"})
