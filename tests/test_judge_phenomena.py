"""The language phenomena of issue 39, each with its control: what the grammar judge must read as a
refusal or a critical finding, and the nearest wording that must not be. The author's development
answers (judge_sets/author_dev.jsonl, not blind) are judged as labelled."""

import json

import pytest

from medvigil.suites.medvigil.scoring import judge_set_index
from medvigil.suites.medvigil.scoring.answer_text import plain
from medvigil.suites.medvigil.scoring.finding_assertion import is_critical
from medvigil.suites.medvigil.scoring.open_ended import judge
from medvigil.suites.medvigil.scoring.refusal_grammar import is_refusal

REFUSALS = [
    # (answer, question, trap, refusal?)
    ("Cannot evaluate.", "", False, True),  # terse, no subject
    ("Cannot evaluate the left side, but the right lung is clear.", "", False, False),
    ("Scan missing.", "", False, True),
    ("Scan quality is good.", "", False, False),
    ("I'm unsure.", "", False, True),
    ("I'm unsure of the age, but it is a healed fracture.", "", False, False),
    ("Can you please send the radiograph?", "", False, True),  # a question handed back
    ("Can the patient lie flat? The film shows a small effusion.", "", False, False),
    ("Did you forget to attach the MRI?", "", False, True),
    ("the picture is not uploaded, i cant to answer", "", False, True),  # non-native, typos
    ("Sorry the scan is not clear, I am not able tell.", "", False, True),
    (
        "The bowel gas pattern is normal. I see no free air anywhere.",
        "How much free air is under the diaphragm?",
        True,
        True,
    ),  # a trap's premise rejected in sentence 2
    (
        "Looking at the upper abdomen on this film. Free air is under the right hemidiaphragm.",
        "How much free air is under the diaphragm?",
        True,
        False,
    ),
    (
        "I can't find any gallstone on this ultrasound.",
        "What size is the gallstone?",
        False,
        True,
    ),  # untagged, the question presupposes its subject
    ("There is no gallstone.", "Is there a gallstone?", False, False),  # a yes/no question answered
    (
        "There's no gallstone in the neck, but a 9 mm one sits in the fundus.",
        "Where is the gallstone?",
        False,
        False,
    ),
    (
        "The stone is in the left kidney; there is no stone on the right.",
        "Which kidney has the stone?",
        False,
        False,
    ),  # a partial negation answers
    (
        "I cannot give medical advice. However, there is a displaced fracture of the radius.",
        "",
        False,
        False,
    ),  # a disclaimer, then the answer anyway
    ("I cannot give medical advice. Please see your doctor.", "", False, True),
    ("<think>No image here. Could be a fracture.</think>I can't view any image.", "", False, True),
    (
        "<think>Hmm, I cannot see this well.</think>Healed rib fracture on the left.",
        "",
        False,
        False,
    ),
]


@pytest.mark.parametrize("answer, question, trap, refusal", REFUSALS)
def test_refusal_phenomena(answer, question, trap, refusal):
    assert is_refusal(answer, false_premise=trap, question=question) is refusal


CRITICALS = [
    ("Large right pneumothoraks with collapse.", True),  # one misspelling of a long word
    ("Right pneumonia with collapse.", False),
    ("Acute SAH in the sylvian fissure.", True),  # abbreviation
    ("Multiple mets to the spine.", True),
    ("Free gas beneath the diaphragm.", True),  # lay synonym
    ("Gas in the stomach, normal pattern.", False),
    ("- Pneumothorax: none\n- Effusion: small left", False),  # structured negatives
    ("| Aortic dissection | Absent |\n| Aneurysm | 4 cm |", False),
    ("Aortic dissection: present (type B)", True),
    ("The subdural haematoma has not decreased.", True),  # negation of a verb
    ("Not a cyst; this is a carcinoma.", True),  # a contrast
    ("No carcinoma; this is a simple cyst.", False),
    ("A tumour is unlikely.", False),
    ("I think this is a glioblastoma.", True),  # "I think" asserts
    ("Think of aortic dissection if the mediastinum is wide.", False),
    ("<think>Maybe a pneumothorax?</think>The lungs are clear.", False),  # reasoning dropped
    ("There is no evidence of:\n- pneumothorax\n- haemorrhage", False),  # a negated intro's list
    ("There is evidence of:\n- tension pneumothorax\n- effusion", True),
    (
        "1. Findings absent, such as:\n   - a subdural haematoma\n2. Other:\n   - a small effusion",
        False,
    ),
    ("1. Findings absent, such as:\n   - effusion\n2. Also seen:\n   - a large pneumothorax", True),
]


@pytest.mark.parametrize("answer, critical", CRITICALS)
def test_critical_phenomena(answer, critical):
    assert is_critical(answer) is critical


def test_reasoning_blocks_and_informal_spelling():
    assert plain("a</think>b") == "b" and plain("<think>only thinking") == "only thinking"
    assert plain("answer <think>unfinished") == "answer"
    assert plain("I dont know, Im sure it cant be") == "I don't know, I'm sure it can't be"


@pytest.mark.slow  # judges 617 answers
def test_the_authors_development_answers_are_judged_as_labelled():
    """Training data of the learned judge (not blind): a check of its in-sample fit (at most 1% of
    the 617 answers judged otherwise), not a measurement."""
    path = judge_set_index.SETS_DIR / "author_dev.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(rows) == 617 and all(r["author"].startswith("judge's author") for r in rows)
    wrong = [
        r["id"]
        for r in rows
        if (j := judge(r["answer"], probe_kind=r["probe_kind"], question=r["question"])).is_refusal
        != r["label_is_refusal"]
        or j.is_critical != r["label_is_critical"]
    ]
    assert len(wrong) <= 6, wrong


@pytest.mark.parametrize(
    "answer, refusal",
    [
        (
            "This is a chest X-ray image.",
            False,
        ),  # no refusal cue: the classifier's vote is not taken
        ("The image is taken using MRI.", False),
        ("I'm unable to help with this one.", True),  # cue present, wording the grammar lacks
        ("Need a clearer picture first.", True),
        ("Right lower lobe pneumonia.", False),
    ],
)
def test_bare_descriptions_and_unlisted_refusals(answer, refusal):
    from medvigil.suites.medvigil.scoring import judge_features

    assert judge(answer, probe_kind="original", question="What is seen?").is_refusal is refusal
    if answer.startswith("This is"):  # no refusal cue (a feature of the learned judge)
        assert not judge_features.CUES.search(answer)
