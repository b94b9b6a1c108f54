"""Word lists of :mod:`.finding_assertion` about a tier-4 word's context: a class named rather than
a finding (generic openers and predicates), spellings read through, words after or before it that
make it no finding of the patient, and the qualifiers that make a pneumothorax tier 4 (the blind
writers' rubric)."""

# A finding named as a class, not of this patient: the sentence opens with it (at most "a"/"an" and
# one modifier before it) and a generic predicate follows ("Aortic dissection is classified ...",
# "A STEMI is suspected when ...", "Free air usually means ..."); "is present/seen/..." asserts.
# a sentence opening with a class word lists or defines ("Signs of X include ...", "Causes of ...")
GENERIC_OPENERS = frozenset(
    {
        "signs",
        "sign",
        "features",
        "feature",
        "causes",
        "cause",
        "symptoms",
        "complications",
        "risk",
        "examples",
        "red",
        "findings",
        "things",
        "characteristics",
        "types",
    }
)
GENERIC_VERBS = frozenset(
    {
        "carries",
        "carry",
        "leads",
        "causes",
        "warrants",
        "is",
        "are",
        "means",
        "mean",
        "usually",
        "typically",
        "often",
        "generally",
        "refers",
        "occurs",
        "results",
        "involves",
        "describes",
        "requires",
        "can",
        "may",
        "classically",
        "commonly",
        "presents",
        "appears",
        "looks",
    }
)
ASSERTING_AFTER_BE = frozenset(
    {
        "present",
        "seen",
        "noted",
        "identified",
        "visible",
        "evident",
        "demonstrated",
        "shown",
        "confirmed",
        "again",
        "also",
        "now",
        "still",
        "unchanged",
        "larger",
        "smaller",
        "increased",
        "decreased",
        "measured",
        "measuring",
        "located",
        "on",
        "in",
        "at",
        "left",
        "right",
        "bilateral",
        "small",
        "large",
        "moderate",
        "massive",
        "tiny",
        "mild",
        "severe",
        "extensive",
        "likely",
        "probably",
        "consistent",
        "there",
        "here",
        "depicted",
    }
)
# long tier-4 words read through one misspelling (two from 11 letters): "pnuemothorax", "disection"
FUZZY_TERMS = {
    "pneumothorax": ["pneumothorax"],
    "pneumoperitoneum": ["pneumoperitoneum"],
    "haemorrhage": ["haemorrhage", "hemorrhage", "haematoma", "hematoma"],
    "aortic dissection": ["dissection"],
    "pulmonary embolism": ["embolism"],
    "malignancy": [
        "malignancy",
        "malignant",
        "carcinoma",
        "metastasis",
        "metastases",
        "metastatic",
        "neoplasm",
        "lymphoma",
        "melanoma",
        "glioblastoma",
        "adenocarcinoma",
        "mesothelioma",
    ],
    "tamponade": ["tamponade"],
    "perforation": ["perforation", "perforated"],
}
CASE_SENSITIVE = {"pulmonary embolism": ["PEs"]}
# a haematoma at these sites is neither intracranial nor a bleeding solid organ, a perforation here
# no perforated viscus (the rubric's tier 4)
MINOR_SITES = {
    "haemorrhage": frozenset(
        "scalp subgaleal subcutaneous soft-tissue tissue muscle intramuscular periorbital "
        "breast wound groin thigh calf gluteal rectus chest-wall septal subungual".split()
    ),
    "perforation": frozenset("tympanic membrane eardrum septal nasal".split()),
}
# a tier-4 word naming an institution or a concept, not a finding ("tumour board", "tumour grade")
NOT_A_FINDING_AFTER = frozenset(
    {
        "board",
        "boards",
        "centre",
        "center",
        "clinic",
        "team",
        "service",
        "screening",
        "grade",
        "grading",
        "staging",
        "markers",
        "marker",
        "risk",
        "surveillance",
        "specialist",
        "registry",
    }
)


# the labelling rubric: only a LARGE or TENSION pneumothorax is tier 4 (a small or unqualified one
# is not)
SEVERE = frozenset(
    (
        "large big huge massive enormous giant sizeable sizable extensive complete total lg tension"
    ).split()
)
