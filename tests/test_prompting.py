import doctest

import pytest

import medvigil.mcq.prompting as prompting
from medvigil.mcq.prompting import build_mcq_prompt, parse_letter


def test_doctests():
    assert doctest.testmod(prompting).failed == 0


@pytest.mark.parametrize(
    "response, expected",
    [
        ("A", "A"),
        (" E\n", "E"),
        ("B: No", "B"),
        ('A") because', "A"),
        ("The answer is C.", "C"),
        ("(D)", "D"),
        ("", None),
        ("   ", None),
        ("Both options", None),
        ("I cannot answer", None),
        ("F", None),
        ("answer: e", None),
        ("A1 is a vertebra; B", "B"),
    ],
)
def test_parse_letter(response, expected):
    assert parse_letter(response) == expected


def test_parse_letter_case_insensitive_option():
    assert parse_letter("answer: e", case_sensitive=False) == "E"


def test_parse_letter_rejects_non_string():
    with pytest.raises(TypeError, match="response"):
        parse_letter(3)


def test_prompt_layout_is_exact():
    text = build_mcq_prompt(" Q? ", ["a", "b", "c", "d", "e"])
    assert text.splitlines() == ["Q?", "Options:", "A. a", "B. b", "C. c", "D. d", "E. e"]


def test_prompt_needs_five_options():
    with pytest.raises(ValueError, match="options"):
        build_mcq_prompt("Q?", ["a", "b"])


def test_parse_prompt_drops_system_pre_prompt():
    from medvigil.mcq.prompting import parse_mcq_prompt
    from medvigil.suites.medvigil.release.release_format import SYSTEM_PROMPT

    question, options = parse_mcq_prompt(
        SYSTEM_PROMPT + "\n" + build_mcq_prompt("Q?", list("abcde"))
    )
    assert question == "Q?" and options["C"] == "c"
