import doctest

import pytest

import medvigil.open_ended as oe
from medvigil.open_ended import classify, matches, open_letters, rho


def test_doctests():
    assert doctest.testmod(oe).failed == 0


@pytest.mark.parametrize("text, label", [
    ("Insufficient visual evidence: the region needed to answer is not visible in this image.", "refusal"),
    ("I'm unable to assess this; please provide a complete image.", "refusal"),
    ("The area of interest is masked out.", "refusal"),
    ("The premise is incorrect: the infarct is in the left frontal lobe.", "premise_correction"),
    ("This is a CT image, not an MRI.", "premise_correction"),
    ("The image shows the head, not the abdomen.", "premise_correction"),
    ("Moderate.", "answer"),
    ("No, there is no pleural effusion.", "answer"),
    ("", "answer"),
    (None, "answer"),
])
def test_classify(text, label):
    assert classify(text) == label
    assert rho(text) == int(label != "answer")


def test_matches_whole_words_and_yes_no_start():
    assert matches("Finding on the patient's right lower zone.", ["Lower zone"])
    assert not matches("Slower zones", ["Lower zone"])
    assert matches("Yes, there is one.", ["Yes"]) and not matches("Well, yes", ["Yes"])
    assert matches("It is the head.", ["Chest", "Head"])


def test_open_letters_map_behaviour_to_the_mcq_record():
    assert open_letters("Head", "answer", ["Head"]) == ("A", "A", "answer")
    assert open_letters("Knee", "answer", ["Head"]) == ("A", "B", "answer")
    assert open_letters("Cannot be determined.", "answer", ["Head"]) == ("A", "E", "refusal")  # over-refusal
    assert open_letters("Small.", "correct_premise", ["The premise is incorrect"]) == ("E", "B", "answer")  # silent failure
    assert open_letters("The premise is wrong.", "correct_premise", []) == ("E", "E", "premise_correction")
