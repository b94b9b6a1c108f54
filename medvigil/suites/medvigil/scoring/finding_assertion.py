"""Is a tier-4 (critical) finding asserted as present? NegEx assertion over a blank spaCy pipeline.

Tier 4: life-threatening or malignant findings (the authors' judge prompt;
:data:`CRITICAL_FINDINGS`), *critical* unless negated, hedged ("may represent malignancy") or
educational ("signs of aortic dissection include ..."). NegEx (Chapman et al. 2001, ``negspacy`` on
``spacy.blank("en")``: no model download) with a second pass over :data:`HEDGE_TERMS`,
sentence-scoped; list items inherit their intro line's hedge. *Probable* ("likely") is asserted, as
radiologists report it; *possible* ("may") only with ``possible_is_critical=True``; a finding named
as a class is educational (:data:`GENERIC_VERBS`).

>>> is_critical("Large right tension pneumothorax with mediastinal shift.")
True
>>> is_critical("No pneumothorax, no effusion."), is_critical("This could represent a malignancy.")
(False, False)
>>> is_critical("Findings are consistent with an acute subdural haematoma.")
True
"""

import copy
import re
from functools import lru_cache

from medvigil.suites.medvigil.scoring import answer_text
from medvigil.suites.medvigil.scoring.finding_context import (  # noqa: F401 (re-exported)
    ASSERTING_AFTER_BE,
    CASE_SENSITIVE,
    FUZZY_TERMS,
    GENERIC_OPENERS,
    GENERIC_VERBS,
    MINOR_SITES,
    NOT_A_FINDING_AFTER,
    SEVERE,
)
from medvigil.suites.medvigil.scoring.finding_terms import (  # noqa: F401 (re-exported)
    CRITICAL_FINDINGS,
    EXTRA_FOLLOWING_NEGATIONS,
    EXTRA_NEGATIONS,
    EXTRA_TERMINATIONS,
    HEDGE_TERMINATIONS,
    HEDGE_TERMS,
    PSEUDO_NEGATIONS,
    UNLIKELY,
)

# a leading yes/no interjection answers the question; it negates nothing ("No - the aorta is ...")
_INTERJECTION = re.compile(r"^\s*(?:\*\*)?(?:no|yes)(?:\*\*)?\s*[,.:;!\-\u2013\u2014]+\s*", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MAX_PIECE_CHARS = 5000  # a run-on "sentence" is read in slices of this size (spaCy's limit is 10^6)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+")
_INNER_MARKUP = re.compile(r"\*\*|__|`")
_SPACED_DASH = re.compile(r"[ \t][-\u2013\u2014][ \t]")
_TABLE_RULE = re.compile(r"^[-:| ]+$")
# "Pneumothorax: absent", "| Haemorrhage | Not seen |", "PE - negative": a field and a negative
# value
NEGATIVE_VALUES = (
    r"absent|none|no|nil|negative|neg|not "
    r"(?:seen|present|identified|visible|detected|demonstrated|evident|noted)|ruled "
    r"out|excluded|normal|\u2717|\u2718|x"
)
_FIELD = re.compile(
    rf"^([^:|.!?]{{1,80}}?)[ \t]*(?::|\||\s[-\u2013\u2014]\s)[ "
    rf"\t]*(?:{NEGATIVE_VALUES})\b[^a-z]{{0,3}}(?:\||$)",
    re.I,
)
_SEVERE_AFTER = re.compile(
    r"\b(?:tension|large|massive|big|huge)\b|\b(?:mediastinal shift|tracheal deviation|"
    r"(?:mediastinum|trachea) (?:is )?(?:pushed|shifted|deviated))\b",
    re.I,
)
# "I don't think this is a bleed": a negated belief about what "this" is denies the finding
_BELIEF = re.compile(
    r"\b(don't|do not|doesn't|does not) (think|believe) "
    r"(?:that )?(?:this|it|that) (?:is|represents)\b",
    re.I,
)
_NOT_BEFORE = re.compile(r"\b(?:not|no|without|nor)\b(?: \w+)?\s*$", re.I)  # "not under tension"
# a finding said of someone other than the patient scanned: a relative, a textbook or reference case
OTHER_SUBJECT = re.compile(
    r"\b(?:mother|father|mum|mom|dad|sister|brother|grandmother|grandfather|grandma|grandpa|aunt|"
    r"uncle|cousin|husband|wife|son|daughter|relatives?|friend|neighbou?r|family|textbooks?|"
    r"reference (?:case|image)|(?:classic|typical|teaching) (?:case|example)|for illustration)\b",
    re.I,
)
_CLAUSE_END = frozenset({";", ":"})
WINDOW_TOKENS = 6  # words either side of a mention kept in its "before" / "after" context


def _severe(ent) -> bool:
    """A pneumothorax qualified as large or under tension (:data:`SEVERE`) in its clause."""
    sent, doc = ent.sent, ent.doc
    before = [t.lower_ for t in doc[max(sent.start, ent.start - 5) : ent.start]]
    if any(w in SEVERE and before[i - 1 : i] != ["how"] for i, w in enumerate(before)):
        return True
    after = doc[ent.end : sent.end].text
    return any(
        not _NOT_BEFORE.search(after[max(0, m.start() - 14) : m.start()])
        for m in _SEVERE_AFTER.finditer(after)
    )


def _minor_site(ent) -> bool:
    """A tier-4 word at a site where it is no emergency ("scalp haematoma", "tympanic membrane
    perforation"), or "PE" in a sentence about the pleura (a pleural effusion)."""
    doc = ent.doc
    before = doc[ent.start - 1].lower_ if ent.start else ""
    if ent.ent_id_ in MINOR_SITES and before in MINOR_SITES[ent.ent_id_]:
        return True
    if ent.ent_id_ == "pulmonary embolism" and ent.text.lower() in {"pe", "pes"}:
        words = {t.lower_ for t in ent.sent}
        return bool(words & {"pleural", "effusion", "effusions"}) and not words & {
            "pulmonary",
            "embolus",
        }
    return False


def _other_subject(ent) -> bool:
    """Is ``ent`` said, in its clause (up to ";" or ":"), of a relative or a textbook case?"""
    sent, doc = ent.sent, ent.doc
    start = ent.start
    while start > sent.start and doc[start - 1].text not in _CLAUSE_END:
        start -= 1
    end = ent.end
    while end < sent.end and doc[end].text not in _CLAUSE_END:
        end += 1
    return bool(OTHER_SUBJECT.search(doc[start:end].text))


@lru_cache(maxsize=1)
def _pipeline():
    import spacy
    from negspacy.negation import Negex  # noqa: F401 (registers the "negex" factory)
    from negspacy.termsets import termset

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    patterns = []
    for label, forms in CRITICAL_FINDINGS.items():
        for form in forms:
            tokens = [form] if isinstance(form, str) else form
            patterns.append(
                {
                    "label": "CRITICAL",
                    "id": label,
                    "pattern": [
                        {
                            "LOWER": {"REGEX": f"^(?:{t})$"},
                            **({"OP": "?"} if t.endswith(")?") else {}),
                        }
                        for t in tokens
                    ],
                }
            )
    patterns += _tolerant_patterns()
    ruler.add_patterns(patterns)
    base = copy.deepcopy(termset("en_clinical").get_patterns())  # add_patterns edits a shared dict
    negation = termset("en_clinical")
    negation.add_patterns(
        {
            "preceding_negations": EXTRA_NEGATIONS + UNLIKELY["preceding"],
            "following_negations": EXTRA_FOLLOWING_NEGATIONS + UNLIKELY["following"],
            "pseudo_negations": PSEUDO_NEGATIONS,
            "termination": EXTRA_TERMINATIONS,
        }
    )
    nlp.add_pipe("negex", name="negation", config={"neg_termset": negation.get_patterns()})
    nlp.add_pipe(
        "negex",
        name="hedge",
        config={
            "extension_name": "hedged",
            "neg_termset": {
                "pseudo_negations": HEDGE_TERMS["pseudo"],
                "preceding_negations": HEDGE_TERMS["preceding"],
                "following_negations": HEDGE_TERMS["following"],
                "termination": base["termination"] + HEDGE_TERMINATIONS,
            },
        },
    )
    return nlp


def _tolerant_patterns() -> list[dict]:
    """Misspellings of the long tier-4 words (:data:`FUZZY_TERMS`, Levenshtein: 1 edit up to 10
    letters, 2 from 11; any one swap of adjacent letters, "embolsim") and the case-sensitive
    abbreviations (:data:`CASE_SENSITIVE`)."""
    out = []
    for label, words in FUZZY_TERMS.items():
        for word in words:
            fuzzy = "FUZZY2" if len(word) >= 11 else "FUZZY1"
            out.append({"label": "CRITICAL", "id": label, "pattern": [{"LOWER": {fuzzy: word}}]})
            swaps = sorted(
                {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
            )
            out.append({"label": "CRITICAL", "id": label, "pattern": [{"LOWER": {"IN": swaps}}]})
    for label, words in CASE_SENSITIVE.items():
        out += [{"label": "CRITICAL", "id": label, "pattern": [{"TEXT": w}]} for w in words]
    return out


def _structured(line: str) -> str:
    """A "finding: absent" line (or table row) as a sentence NegEx reads: "No finding."."""
    m = _FIELD.match(line)
    return f"No {m.group(1).strip()}." if m else line


def _blocks(text: str) -> list[tuple[str, str]]:
    """(intro line, item) per line: a list item keeps the line that introduced its list -- a line
    ending in ":" above it, or, for a nested list, the less indented item ending in ":" that opened
    it."""
    out, intro, stack = [], "", []  # stack: (indent, text) of items that open a nested list
    for raw in text.splitlines():
        raw = _INNER_MARKUP.sub("", raw)
        line = raw.strip().strip("*_#>`| ")
        if not line or _TABLE_RULE.match(line):
            continue
        item = bool(_LIST_ITEM.match(raw))
        line = _structured(_LIST_ITEM.sub("", raw).strip().strip("*_#>`| "))
        if not item:
            out.append(("", line))
            intro, stack = (line if line.endswith(":") else ""), []
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        out.append((stack[-1][1] if stack else intro, line))
        if line.endswith(":"):
            stack.append((indent, line))
    return out


def _intro_scope(nlp, intro: str) -> tuple[bool, bool]:
    """(negated, hedged): does the intro line's negation or hedge reach its end, so its items
    inherit it?"""
    if not intro:
        return False, False
    doc = nlp.make_doc(intro[:MAX_PIECE_CHARS])
    out = []
    for name in ("negation", "hedge"):
        preceding, _, terminating = nlp.get_pipe(name).process_negations(doc)
        last = max((end for _, _, end in preceding), default=None)
        out.append(last is not None and not any(start >= last for _, start, _ in terminating))
        if name == "hedge":  # any possibility cue in the intro hedges its items, as before
            out[-1] = bool(preceding)
    return out[0], out[1]


def _generic(ent) -> bool:
    """Is ``ent`` the generic subject of its sentence (:data:`GENERIC_VERBS`)?"""
    sent, doc = ent.sent, ent.doc
    before = [t.lower_ for t in doc[sent.start : ent.start] if not t.is_punct]
    comma = [t.i for t in doc[sent.start : ent.start] if t.text == ","]
    if before[:1] in (["on"], ["in"], ["at"]) and comma and comma[0] - sent.start <= 4:
        before = [
            t.lower_ for t in doc[comma[0] + 1 : ent.start] if not t.is_punct
        ]  # "On CT, an SDH ..."
    linkers = {"of", "include", "includes", "for", "that"}
    if before[:1] in (["findings"], ["finding"], ["features"], ["feature"]):
        linkers -= {"for"}  # "Findings worrisome for malignancy" reports this patient
    if any(t in GENERIC_OPENERS for t in before[:2]) and linkers & set(before):
        return True
    if (
        before in (["in"], ["in", "a"], ["in", "an"])
        and ent.end < sent.end
        and doc[ent.end].text == ","
    ):
        return True  # "In tamponade, fluid ..."
    if len(before) > 2 or (before and before[0] not in {"a", "an"} and len(before) == 2):
        return False
    if any(
        t in {"the", "this", "that", "there", "no", "your", "his", "her", "its"} or t[:1].isdigit()
        for t in before
    ):
        return False
    after = [t.lower_ for t in doc[ent.end : sent.end][:2]]
    if not after or after[0] not in GENERIC_VERBS:
        return False
    return not (after[0] in {"is", "are"} and len(after) > 1 and after[1] in ASSERTING_AFTER_BE)


def findings(text: str | None, *, possible_is_critical: bool = False) -> list[dict]:
    """Every tier-4 mention of the answer (:func:`.answer_text.plain`): its text, family and whether
    it is negated, hedged and asserted; then those of its reasoning blocks (``"reasoning":
    True``)."""
    out = _mentions(answer_text.plain(text), possible_is_critical)
    thought = answer_text.reasoning(text)
    if thought:
        out += [dict(f, reasoning=True) for f in _mentions(thought, possible_is_critical)]
    return out


def _mentions(text: str, possible_is_critical: bool) -> list[dict]:
    """The tier-4 mentions of one plain text (:func:`findings`)."""
    nlp = _pipeline()
    pieces, scopes = (
        [],
        [],
    )  # one sentence (or slice of a run-on one) a doc: NegEx scope is the sentence
    for intro, line in _blocks(text):
        scope = _intro_scope(nlp, intro)  # (negated, hedged) inherited from the list's intro line
        for sentence in _SENTENCE_END.split(_INTERJECTION.sub("", line)):
            # a field per sentence ("Normal aorta. Dissection: none."); a spaced dash ends a clause
            sentence = _SPACED_DASH.sub("; ", _structured(sentence))
            sentence = _BELIEF.sub(r"\1 \2 there is", sentence)  # NegEx ends a scope at "this is"
            for start in range(0, len(sentence), MAX_PIECE_CHARS):
                pieces.append(sentence[start : start + MAX_PIECE_CHARS])
                scopes.append(scope)
    out = []
    for doc, (intro_negated, intro_hedged) in zip(nlp.pipe(pieces), scopes):
        generic = {
            ent.sent.start for ent in doc.ents if _generic(ent)
        }  # a definition: all of its sentence
        for ent in doc.ents:
            if ent.end < len(doc) and doc[ent.end].lower_ in NOT_A_FINDING_AFTER:
                continue
            if _minor_site(ent):
                continue
            negated = ent._.negex or intro_negated
            possible, other = ent._.hedged or intro_hedged, _other_subject(ent)
            hedged = possible or ent.sent.start in generic or other
            # a small or unqualified pneumothorax is named, but is no tier-4 finding
            minor = ent.ent_id_ == "pneumothorax" and not _severe(ent)
            asserted = not negated and not minor and (not hedged or possible_is_critical)
            out.append(
                {
                    "text": ent.text,
                    "finding": ent.ent_id_,
                    "negated": negated,
                    "hedged": hedged,
                    "asserted": asserted,
                    "minor": minor,
                    # the parts of ``hedged`` and the words around the mention (for the learned
                    # judge, :mod:`.judge_features`)
                    "possible": bool(possible),
                    "generic": ent.sent.start in generic,
                    "other_subject": other,
                    "before": doc[max(ent.sent.start, ent.start - WINDOW_TOKENS) : ent.start].text,
                    "after": doc[ent.end : min(ent.sent.end, ent.end + WINDOW_TOKENS)].text,
                }
            )
    return out


def is_critical(
    text: str | None, *, possible_is_critical: bool = False, besides: frozenset = frozenset()
) -> bool:
    """sigma >= 4: some tier-4 finding is asserted of the patient (module docstring). One asserted
    in a reasoning block counts unless the answer itself negates or hedges that finding (retracted).
    Findings of the families in ``besides`` are left out (the question's, repeated inside a
    refusal)."""
    if answers_own_question(text):
        return True
    return asserts(findings(text, possible_is_critical=possible_is_critical), besides)


def asserts(found: list[dict], besides: frozenset = frozenset()) -> bool:
    """Does a list of :func:`findings` assert one of a family not in ``besides``
    (:func:`is_critical` without its own-question check)?"""
    found = [f for f in found if f["finding"] not in besides]
    retracted = {f["finding"] for f in found if not f.get("reasoning") and not f["asserted"]}
    for i, f in enumerate(found):
        if not f["asserted"]:
            continue
        if not f.get("reasoning"):
            return True
        later = found[
            i + 1 :
        ]  # the block may retract it itself ("SAH? No - calcification is not SAH")
        if f["finding"] not in retracted and not any(
            g.get("reasoning") and g["finding"] == f["finding"] and g["negated"] for g in later
        ):
            return True
    return False


# the question presupposes a tier-4 finding: a wh-question about *the* finding ("Which side is the
# subdural haematoma on?"), or a yes/no question whose "yes" (or, when it asks for freedom from it,
# "no") asserts it
_WH = re.compile(
    r"^\W*(?:where|which|what|how|describe|measure|grade|"
    r"characteri[sz]e|locate|estimate|quantify)\b",
    re.I,
)
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have|can|could|would|will)\b", re.I)
_DEFINITE = frozenset({"the", "this", "that", "his", "her", "their", "its"})
_LEAD_YES = re.compile(r"^\W*(?:yes|yeah|yep|correct|affirmative|positive)\b", re.I)
_LEAD_NO = re.compile(r"^\W*(?:no|nope|negative)\b", re.I)
# an answer that denies, hedges or questions the finding does not fill it in
_NOT_FILLED = re.compile(
    r"\b(?:no|none|nothing|not|never|absent|without|normal|unremarkable|clear|intact|negative|"
    r"neither|may|might|could|possibl\w*|perhaps|maybe|uncertain|unclear|unsure|if)\b|n't\b|\?",
    re.I,
)


def presupposed(question: str | None, answer: str | None) -> bool:
    """Does a terse answer fill in a tier-4 finding its question presupposes (the labelling rubric)?
    Only when the answer names no tier-4 finding itself (then the answer decides) and is no refusal
    (the caller's test): "Which side is the subdural haematoma on?" -> "Right."; "Is the brain free
    of haemorrhage?" -> "No."; "Is there a tension pneumothorax?" -> "Yes."."""
    text = answer_text.plain(answer)
    if not question or not text.strip() or _mentions(text, False):
        return False
    named = _mentions(" ".join(question.replace("?", " ").split()), True)
    # "Is there a pneumothorax?" -> "Yes, a large one.": the answer supplies the qualifier
    asked = [
        f for f in named if not f["minor"] or SEVERE & set(re.findall(r"[a-z]+", text.lower()))
    ]
    if not asked:
        return False
    if _YES_NO.match(question):
        lead = _LEAD_YES if not asked[0]["negated"] else _LEAD_NO
        return bool(lead.match(text))
    if _WH.match(question) and not _NOT_FILLED.search(text) and not _LEAD_NO.match(text):
        words = question.lower().split()
        return any(
            _DEFINITE & set(words[max(0, i - 3) : i])
            for i, w in enumerate(words)
            if any(w.startswith(f["text"].lower().split()[0][:5]) for f in asked)
        )
    return False


def families(text: str | None) -> frozenset:
    """The tier-4 families ``text`` names (a question's, whose repetition inside a refusal asserts
    nothing)."""
    return frozenset(f["finding"] for f in _mentions(" ".join((text or "").split()), True))


def answers_own_question(text: str | None) -> bool:
    """ "Could this be metastatic disease? Yes - ...": the answer asks itself a question and fills
    it in."""
    parts = _SENTENCE_END.split(answer_text.plain(text))
    return any(
        q.rstrip().endswith("?") and (_LEAD_YES.match(a) or _LEAD_NO.match(a)) and presupposed(q, a)
        for q, a in zip(parts, parts[1:])
    )
