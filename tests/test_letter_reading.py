"""Reading the option letter of a reply (medvigil.scoring.letters.read_option_letter): reasoning
blocks removed first, an explicit final answer preferred, the article "A" never an option. The
phrasings below are written the way models answer, not derived from the rules."""

import doctest

import pytest

import medvigil.scoring.letters as letters
from medvigil.mcq.prompting import parse_letter, parse_option_letter
from medvigil.scoring.letters import read_option_letter, strip_reasoning

PHRASINGS = [
    # reasoning models
    ("<think>The lesion could be A, but the margins suggest otherwise.</think>\nB", "B"),
    ("<think>\nOption A: head. Option C: pelvis.\nThe slice shows the skull.\n</think>\n\nA", "A"),
    ("<THINK>maybe A</THINK>**D**", "D"),
    ("<thinking>A? C?</thinking> The answer is C.", "C"),
    ("Okay, the image shows a knee... so A is wrong.</think>\nB", "B"),  # template opened the block
    ("<think>Let me look. A is the head. Considering B", None),  # ran out of tokens while thinking
    ("<|begin_of_thought|>A or E<|end_of_thought|><|begin_of_solution|>E<|end_of_solution|>", "E"),
    ("<reasoning>It is not A.</reasoning>Final: C", "C"),
    # the article
    ("A patient with this finding would need a biopsy, so D.", "D"),
    ("A 45-year-old's scan like this one most likely shows (B).", "B"),
    ("A chest radiograph cannot show this. E", "E"),
    ("a small nodule is visible; I choose C", "C"),
    ("A", "A"),
    ("A.", "A"),
    ("A. Head", "A"),
    ("A) Head", "A"),
    ("(A) Head", "A"),
    ("**A**", "A"),
    ("A\n", "A"),
    # explicit answers
    ("The correct answer is **B**.", "B"),
    ("Answer: (D)", "D"),
    ("answer - E", "E"),
    ("Final answer: \\boxed{C}", "C"),
    ("\\boxed{ D }", "D"),
    ("Option A (head) is unlikely given the bony pelvis visible. The answer is C.", "C"),
    ("Answer: A. On reflection the answer is B", "B"),
    ("My answer is option B.", "B"),
    # no answer
    ("I cannot determine this from the image.", None),
    ("Both are possible.", None),
    ("", None),
    ("<think>C</think>", None),
    ("Insufficient visual evidence.", None),
]


@pytest.mark.parametrize("reply, expected", PHRASINGS)
def test_phrasings(reply, expected):
    assert read_option_letter(reply, 5) == expected
    assert parse_letter(reply) == expected  # the MedVIGIL tasks' parser is the same reader


def test_fewer_options():
    assert parse_option_letter("<think>C or D</think>B", 2) == "B"
    assert parse_option_letter("A patient, so B", 2) == "B"
    assert (
        parse_option_letter("The answer is C", 2) is None
    )  # not an option of a two-option question


def test_lower_case_only_when_asked():
    assert read_option_letter("answer: e", 5) is None
    assert read_option_letter("answer: e", 5, case_sensitive=True) is None
    assert read_option_letter("answer: e", 5, case_sensitive=False) == "E"
    assert read_option_letter("a lesion, so c", 5, case_sensitive=False) == "C"


def test_strip_reasoning_keeps_the_reply():
    assert strip_reasoning("no tags here: B") == "no tags here: B"
    assert strip_reasoning("<think>x</think>B<think>y</think>") == "B"


def test_checks():
    with pytest.raises(TypeError, match="response"):
        read_option_letter(3, 5)
    with pytest.raises(ValueError, match="n_options"):
        read_option_letter("A", 0)


def test_doctests():
    assert doctest.testmod(letters).failed == 0


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("A or B", "A"),
        ("A is correct", "A"),
        ("A because the skull is visible", "A"),
    ],
)
def test_letter_followed_by_prose_is_an_option(reply, expected):
    assert read_option_letter(reply, 5) == expected


RIGHT_LEFT = [
    "Left parietal lobe",
    "Right parietal lobe",
    "Parietal lobe",
    "Type B dissection",
    "None",
]
CONTENT = [
    # the option's content instead of its letter (Illusion of Readiness: "index and content")
    ("Right parietal lobe", "B"),
    ("right parietal lobe.", "B"),
    ("The haemorrhage is in the right parietal lobe.", "B"),  # the longer named option wins
    ("Parietal lobe", "C"),
    ("Type B dissection", "D"),  # exactly an option's text: not the letter B inside it
    ("B. Right parietal lobe", "B"),  # index and content
    ("Left parietal lobe or right parietal lobe", None),  # two options named
    ("The lesion is in the temporal lobe.", None),
]


@pytest.mark.parametrize("reply, expected", CONTENT)
def test_option_content_answers(reply, expected):
    assert read_option_letter(reply, 5, options=RIGHT_LEFT) == expected
    assert parse_option_letter(reply, 5, RIGHT_LEFT) == expected


def test_option_content_needs_every_text():
    with pytest.raises(ValueError, match="options must hold n_options = 5"):
        read_option_letter("Left", 5, options=["Left", "Right"])
    assert read_option_letter("Right parietal lobe", 5) is None  # without the texts: no letter
