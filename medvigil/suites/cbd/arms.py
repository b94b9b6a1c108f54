"""The arms of Consistent but Dangerous as record conditions, and the probe kinds of a sample.

The generative MCQ arm asks (image, q), every paraphrase q' (Eq. 1) and q without the image (Eq. 2);
the binary yes/no arm (Sec. 3.2) adds the null-image and image-swap checks of Sec. 5, in two
question forms (:data:`BINARY_FORMS`).
"""

SUITE = "cbd"
ARMS = {"image": "default", "noimg": "noimg"}  # arm -> record condition (as score_records expects)
ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND, TEMPLATE_KIND = "original", "tcf", "paraphrase"
PARAPHRASE_KINDS = (RELEASE_PARAPHRASE_KIND, TEMPLATE_KIND)
SUPPLIED_KIND = "paraphrase"  # probe_kind of a supplied paraphrase row (paraphrases="supplied")
WITHHELD = "withheld_credentialed"  # image_status of credentialed images absent from the build

# : record conditions of the binary arm: image, text only (Eq. 2), null image and image swap (Sec. 5
# checks)
BINARY_ARMS = {
    "image": "binary",
    "noimg": "binary:noimg",
    "null": "binary:null",
    "swap": "binary:swap",
}
# : the same for the proposed-answer variant (``cbd_binary_proposed``), kept apart from the presence
# questions
PROPOSED_ARMS = {k: v.replace("binary", "binary_proposed", 1) for k, v in BINARY_ARMS.items()}
#: binary question form -> its record conditions: presence questions (Sec. 4, ``cbd_binary``) or our
#: earlier proposed-answer form on the MCQs (``cbd_binary_proposed``)
BINARY_FORMS = {"presence": BINARY_ARMS, "proposed": PROPOSED_ARMS}
BINARY_CHOICES = ("yes", "no")  # A = yes, B = no in the records
