"""Binary presence questions of Consistent but Dangerous (seed 004, Sec. 4): "Is there [finding]?".

The paper asks yes/no presence questions about findings, about half of them with ground truth
yes, each with paraphrases of five linguistic kinds (after PSF-Med). MedVIGIL's probes are
multiple-choice questions, so a case's finding is read from its ``original`` probe
(:func:`case_finding`), and each case asked two questions, paired (:func:`presence_pairs`):

* **present**: "Is there {its finding}?" (ground truth yes);
* **absent**: "Is there {another finding of the same body region}?" (ground truth no), the
  finding drawn by ``sha256(seed:absent:case_id:finding)`` among the region's findings the case's
  probe does not name. On the synthetic release each case holds exactly one lesion, so the absent
  finding is absent by construction; on other data this assumes one finding per case (a mapped
  ``finding`` column gives the present finding; the absent one comes from the other cases').

Each question has the same paraphrase set, in a fixed order (:func:`presence_set`; index 0 is
the question itself):

====  ===============  ===========================  ============================================
idx   source           phenomenon (Sec. 4)          text
====  ===============  ===========================  ============================================
0     original         --                           Is there {a finding}?
1     lexical          lexical substitution         Is there {a synonym}? (:data:`FINDINGS`; without
                                                    one: Is there evidence of {a finding}?)
2     syntactic        syntactic restructuring      Is {a finding} present?
3     negation         negation                     Is there no {finding}?  (gold flips)
4     scope            scope quantification         Is there any {finding}?
5     specificity      specificity modulation       Is there {a finding} on this {study}?
====  ===============  ===========================  ============================================

**Negation flips the gold.** "Is there no X?" is answered "no" where X is present. Consistency
(Eq. 1) is about meaning, so records carry every answer *in the polarity of the original
question*: the reply to a negated paraphrase is inverted before it is compared (``extra.polarity``
``"negated"``, ``extra.answer_as_asked`` the reply itself); lmms-eval's target is the answer as
asked. A model answering "yes" to everything thus flips on the negated paraphrase.

A case whose probe names no finding of :data:`FINDINGS` (modality or body-region questions, a
normal study) is not asked; the task logs how many.
"""

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "FINDINGS",
    "PRESENCE_SOURCES",
    "absent_finding",
    "case_finding",
    "presence_pairs",
    "presence_set",
]

#: finding -> (body region, with its article, a synonym with its article)
FINDINGS = {
    "pneumothorax": ("chest", "a pneumothorax", "air in the pleural space"),
    "pleural effusion": ("chest", "a pleural effusion", "fluid in the pleural space"),
    "consolidation": ("chest", "an area of consolidation", "an airspace opacity"),
    "pulmonary nodule": ("chest", "a pulmonary nodule", "a lung nodule"),
    "infarct": ("head", "an infarct", "an area of infarction"),
    "intracranial haemorrhage": ("head", "an intracranial haemorrhage", "an intracranial bleed"),
    "intracranial mass": ("head", "an intracranial mass", "a space-occupying lesion"),
}
_SPELLINGS = {"intracranial hemorrhage": "intracranial haemorrhage"}
#: modality -> the study named by the specificity paraphrase
STUDY = {"X-ray": "radiograph", "CT": "CT scan", "MRI": "MRI scan"}
#: paraphrase source -> phenomenon, in index order
PRESENCE_SOURCES = {
    "original": None,
    "lexical": "lexical substitution",
    "syntactic": "syntactic restructuring",
    "negation": "negation",
    "scope": "scope quantification",
    "specificity": "specificity modulation",
}
_NAMES = sorted([*FINDINGS, *_SPELLINGS], key=len, reverse=True)
_NAMED = re.compile(r"\b(" + "|".join(map(re.escape, _NAMES)) + r")\b", re.I)
# a question asking whether the finding is there ("Is there ...", "Does this image show ...");
# "Is the X in ..." presupposes it
_PRESENCE = re.compile(r"^\s*(?:(?:is|are)\s+there|(?:does|do)\s+(?:this|the|it))\b", re.I)


def _hash(*parts: Any) -> bytes:
    return hashlib.sha256(":".join(map(str, parts)).encode("utf-8")).digest()


def _named(text: str) -> list[str]:
    """The findings of :data:`FINDINGS` a text names, in order (canonical spelling)."""
    return [_SPELLINGS.get(m.lower(), m.lower()) for m in _NAMED.findall(str(text))]


def case_finding(row: Mapping[str, Any]) -> str | None:
    """The finding present in a case, from its ``original`` probe: a ``finding`` field when the row
    has one; else the finding its gold option names (not a "No ..." answer); else the finding its
    question names, when the question presupposes it ("the X") or asks for it and the gold answer is
    "Yes...".

    >>> row = {"question": "Is there an infarct in the frontal lobes?", "options": ["Yes", "No"]}
    >>> case_finding({**row, "correct_letter": "A"}), case_finding({**row, "correct_letter": "B"})
    ('infarct', None)
    >>> case_finding({"question": "How large is the pulmonary nodule?",
    ...               "options": ["Small", "Large"], "correct_letter": "B"})
    'pulmonary nodule'
    """
    if str(row.get("finding") or "").strip():
        return str(row["finding"]).strip()
    gold = str(row["options"]["ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(row["correct_letter"])])
    if _named(gold) and not gold.strip().lower().startswith("no"):
        return _named(gold)[0]
    asked = _named(row.get("question") or "")
    if not asked:
        return None
    if _PRESENCE.match(str(row.get("question"))):
        return asked[0] if gold.strip().lower().startswith("yes") else None
    return asked[0]


def absent_finding(
    row: Mapping[str, Any], present: str, others: Sequence[str], seed: int
) -> str | None:
    """The finding the case's *absent* question asks about (module docstring): one of the region's
    findings (``present`` in :data:`FINDINGS`) or else of ``others`` (the other cases' findings),
    not ``present`` and not named by the row's question or options; None when there is none."""
    named = set(_named(" ".join([str(row.get("question") or ""), *map(str, row["options"])])))
    if present in FINDINGS:
        pool = [f for f, (region, *_) in FINDINGS.items() if region == FINDINGS[present][0]]
    else:
        pool = sorted(set(others))
    pool = [f for f in pool if f.lower() != present.lower() and f not in named]
    if not pool:
        return None
    return min(pool, key=lambda f: _hash(seed, "absent", row["case_id"], f))


def presence_set(finding: str, modality: str | None = None) -> list[tuple[int, str, str, bool]]:
    """``(paraphrase_index, source, question, negated)`` of one finding (module docstring's table).

    >>> [q for _, _, q, _ in presence_set("pneumothorax", "X-ray")]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['Is there a pneumothorax?', 'Is there air in the pleural space?', 'Is a pneumothorax present?',
     'Is there no pneumothorax?', 'Is there any pneumothorax?',
     'Is there a pneumothorax on this radiograph?']
    """
    _, with_article, synonym = FINDINGS.get(finding, (None, finding, None))
    study = STUDY.get(str(modality), "image")
    texts = {
        "original": f"Is there {with_article}?",
        "lexical": f"Is there {synonym}?" if synonym else f"Is there evidence of {with_article}?",
        "syntactic": f"Is {with_article} present?",
        "negation": f"Is there no {finding}?",
        "scope": f"Is there any {finding}?",
        "specificity": f"Is there {with_article} on this {study}?",
    }
    return [(i, s, texts[s], s == "negation") for i, s in enumerate(PRESENCE_SOURCES)]


def presence_pairs(
    rows: Sequence[tuple[int, Mapping[str, Any]]], seed: int
) -> tuple[list[tuple[int, str, str]], int]:
    """``(row index, polarity, finding)`` for the present and absent question of every ``original``
    row given as ``(index, row)`` that has both (module docstring), and the number of rows left
    out."""
    present = {i: case_finding(row) for i, row in rows}
    others = [f for f in present.values() if f]
    out, left_out = [], 0
    for i, row in rows:
        absent = present[i] and absent_finding(row, present[i], others, seed)
        if not absent:
            left_out += 1
            continue
        out += [(i, "present", present[i]), (i, "absent", absent)]
    return out, left_out
