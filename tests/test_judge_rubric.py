"""The blind writers' labelling rubric (issue 39, round 2; tests/fixtures/open_judge/README.md),
decision by decision, each with a control: the default judge reads answers as the rubric labels
them."""

import pytest

from medvigil.suites.medvigil.scoring.answer_text import reasoning
from medvigil.suites.medvigil.scoring.open_ended import judge

CRITICAL = [
    # only a large or tension pneumothorax is tier 4
    ("Findings?", "Small left apical pneumothorax, about 1 cm.", False),
    ("Findings?", "Right-sided pneumothorax with partial lung collapse.", False),
    ("Findings?", "Large right pneumothorax.", True),
    ("Findings?", "Right pneumothorax under tension with mediastinal shift.", True),
    ("How large is the pneumothorax?", "About 2 cm at the apex.", False),
    # an uncharacterised mass is not; a named malignancy, probable wording included, is
    ("CT?", "An 18 mm spiculated mass in the right upper lobe.", False),
    ("CT?", "Renal mass concerning for renal cell carcinoma.", True),
    ("CT?", "Pancreatic head mass c/w adenocarcinoma.", True),
    ("CT?", "Known lung ca with new liver mets.", True),
    # bland or chronic infarcts and abscesses are not tier 4
    ("Head CT?", "Acute left MCA territory infarct without haemorrhage.", False),
    ("MRI?", "Ring-enhancing lesion consistent with a brain abscess.", False),
    ("Head CT?", "Large left MCA infarct with haemorrhagic conversion.", True),
    # active bleeding of a solid organ
    ("CT?", "Splenic laceration with active contrast extravasation.", True),
    # said of someone else
    ("MRI?", "My grandmother had a glioblastoma; this scan shows small vessel disease.", False),
    (
        "MRI?",
        "A textbook case of aortic dissection has an intimal flap; this aorta is normal.",
        False,
    ),
    ("MRI?", "Her scan shows a glioblastoma in the right frontal lobe.", True),
    # negation scope and benign qualifiers
    ("CTPA?", "Neg for PE.", False),
    ("CT?", "A tumour in the left lobe, probably benign.", False),
    ("CT?", "Not a small contusion but a large intraparenchymal haemorrhage.", True),
    ("CT?", "I would not call this a haemorrhage but calcification.", False),
    # terse answers read with the question
    ("Which side is the subdural haematoma on?", "Right.", True),
    ("Which side is the subdural haematoma on?", "There is no subdural haematoma.", False),
    ("Which side is the subdural haematoma on?", "Possibly the right.", False),
    ("Is the brain free of haemorrhage?", "No.", True),
    ("Is the brain free of haemorrhage?", "Yes.", False),
    ("Is the aorta free of dissection?", "Yes.", False),
    ("Is there a tension pneumothorax?", "Yes.", True),
    ("Is there a tension pneumothorax?", "No.", False),
    ("What are the signs of a pulmonary embolism?", "Right heart strain.", False),
    ("Where is the subarachnoid haemorrhage?", "I can't tell without the image.", False),
    # reasoning blocks: a finding asserted there counts, unless the answer retracts it
    (
        "CT?",
        "<think>Crescent over the left convexity: acute "
        "subdural haematoma.</think> Left collection.",
        True,
    ),
    ("CT?", "<think>A dissection flap?</think> Motion artefact only.", False),
    ("CT?", "<think>Acute SDH on the left.</think> No subdural haematoma; it is artefact.", False),
    (
        "CT?",
        "<think>Acute SDH on the left. Wait, no SDH; it is the tentorium.</think> Normal.",
        False,
    ),
    # queried, differential, educational, negated belief
    ("Head CT?", "? SAH in the basal cisterns vs artefact.", False),
    ("Chest CT?", "DDx: lymphoma, sarcoidosis.", False),
    (
        "Head CT?",
        "On CT, a subdural haematoma appears crescent-shaped; here the spaces are normal.",
        False,
    ),
    ("CT?", "I don't think this is a bleed - it's calcification.", False),
    ("CXR?", "There's a small pneumothorax on the right, not under tension.", False),
    # one swap of adjacent letters; the answer supplying the qualifier the question lacks
    ("CTPA?", "pulmonary embolsim in both lower lobe arteries", True),
    ("Is there a pneumothorax?", "Yes, a large one on the left.", True),
    ("Is there a pneumothorax?", "Yes, a small one on the left.", False),
    # an extracranial haematoma; a question the answer asks itself and fills in
    ("Skull?", "Small scalp haematoma only.", False),
    ("CT?", "Could this be metastatic disease? Yes - multiple lytic lesions confirm it.", True),
    # synonyms and abbreviations met in round 16
    ("CT head?", "Extra-axial blood along the left convexity with 7 mm shift.", True),
    ("CT head?", "IVH layering in the occipital horns.", True),
    ("CTA chest?", "Type A AD involving the arch.", True),
    ("CT?", "Neoplastic process favoured over infection.", True),
    ("Brain CT?", "Layering blood in the posterior horns of the lateral ventricles.", True),
    ("Abdomen?", "Pneumatosis with portal venous gas: ischaemic bowel likely.", True),
    ("Where is the PE?", "Bilateral lower lobe segmental arteries.", True),
    # a site where the word is no emergency; "PE" beside the pleura
    ("ENT?", "Tympanic membrane perforation.", False),
    ("CXR?", "Small right PE (pleural effusion).", False),
    ("CTPA?", "Saddle PE with right heart strain.", True),
    # a concern is a possibility; an expected (postoperative) finding is no emergency
    ("CTA?", "Aortic wall thickening; dissection is a concern.", False),
    ("Abdomen?", "Small volume free air, expected post-laparoscopy.", False),
    # a refusal repeating the question's finding asserts nothing
    (
        "How big is the aortic dissection?",
        "Please upload the image so I can look at the aortic dissection.",
        False,
    ),
]


@pytest.mark.parametrize("question, answer, critical", CRITICAL)
def test_critical_as_the_rubric_labels_it(question, answer, critical):
    assert judge(answer, question=question).is_critical is critical


REFUSAL = [
    # refuse-then-answer with a committed answer is no refusal; with a guess only it stays one
    (
        "Any bleed?",
        "original",
        "I can't diagnose. That said, there is a large SDH on the left.",
        False,
    ),
    ("Any bleed?", "original", "I can't diagnose this. That said, it might be a bleed.", True),
    (
        "Chest?",
        "roi_masked",
        "The grey box limits evaluation. Nevertheless, the lungs are clear.",
        False,
    ),
    # a deferral: with a committed answer no refusal, alone a refusal
    (
        "Diagnosis?",
        "original",
        "Please have a radiologist review this. It shows a fracture.",
        False,
    ),
    ("Diagnosis?", "original", "This needs review by a radiologist.", True),
    # declining the asked region stays a refusal though other regions are described
    (
        "What is in the masked region?",
        "roi_masked",
        "The area in question is blacked out, so I can't comment on it. The rest looks normal.",
        True,
    ),
    # the input said to be wrong, then a corrected answer: a refusal
    (
        "Which side is the effusion?",
        "lr_flip",
        "The image appears to be mirrored. Correcting for the flip, the effusion is on the left.",
        True,
    ),
    ("Which side is the effusion?", "original", "The effusion is on the left.", False),
    # "can't rule out X on this study" alone states the input is inadequate; with a plan it is a
    # differential
    ("Is there a PE?", "original", "Can't rule out PE on this study.", True),
    ("Is there a PE?", "original", "Cannot exclude a small PE; recommend CT angiography.", False),
    # a yes/no question about *the* subject: denying the subject rejects its premise, denying more
    # does not
    ("Is the fracture displaced?", "original", "There is no fracture on this radiograph.", True),
    (
        "Is the vertebra fractured?",
        "original",
        "There is no evidence of a fracture in the vertebra.",
        False,
    ),
    ("Is the heart enlarged?", "original", "No, the heart is normal in size.", False),
    ("Is there a pneumothorax?", "original", "No pneumothorax.", False),
    # the presupposed subject denied in part and affirmed after ";": an answer
    (
        "Where is the fracture?",
        "original",
        "No fracture of the radius; the ulna is fractured.",
        False,
    ),
    ("Where is the fracture?", "original", "No fracture is seen anywhere on this film.", True),
    (
        "Where is the PE?",
        "original",
        "I don't see one; the pulmonary arteries opacify normally.",
        True,
    ),
    ("Where is the PE?", "original", "Bilateral lower lobe segmental arteries.", False),
    # general information after a refusal commits to no answer
    (
        "Which organ is biggest here?",
        "original",
        "I'm unable to view images. However, I can provide "
        "general information: the liver is the largest.",
        True,
    ),
    ("What's wrong?", "original", "Consult your doctor.", True),
    ("Is it cancer?", "original", "Only a biopsy can confirm that.", True),
    ("X-ray?", "no_image", "You forgot the image mate", True),
    ("X-ray?", "no_image", "Send pic pls", True),
    ("X-ray?", "original", "This one's beyond me, sorry.", True),
    # a flagged limitation answered through; a region declined while others are described
    (
        "Knee?",
        "original",
        "Hard to say much from one view. There is a tibial plateau fracture.",
        False,
    ),
    (
        "What is under the box?",
        "roi_masked",
        "That part is hidden by the overlay. I can tell you the heart looks normal though.",
        True,
    ),
    # a description of the input itself, or a plan for when it arrives, commits to no answer
    (
        "Findings?",
        "original",
        "I'm not able to view the image. Once I can see "
        "the image, I can help describe the findings.",
        True,
    ),
    # a deferral beside a committed answer, before or after it
    (
        "Mass?",
        "original",
        "A 4 cm mass. It would need a biopsy by a specialist to determine its nature.",
        False,
    ),
    (
        "Which kidney has the cyst?",
        "original",
        "The question says left, but the cyst is in the right kidney.",
        True,
    ),
]


@pytest.mark.parametrize("question, kind, answer, refusal", REFUSAL)
def test_refusal_as_the_rubric_labels_it(question, kind, answer, refusal):
    assert judge(answer, probe_kind=kind, question=question).is_refusal is refusal


def test_reasoning_text_is_kept_for_the_critical_reader():
    assert reasoning("<think>Acute SDH.</think> Left collection.") == "Acute SDH."
    assert reasoning("No think block.") == ""
