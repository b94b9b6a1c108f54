"""The paraphrase set of a Consistent-but-Dangerous sample (seed 004, Sec. 3.3, after PSF-Med).

Paraphrase set of a case, in a fixed order (``paraphrase_index``, the same for every case; a
template that does not change the question is left out), its phenomenon in ``extra.phenomenon``
(:data:`PHENOMENA`):

0. ``original``: the release's question ``q``.
1. ``tcf``: the release's paraphrase probe (same options, same gold; checked).
2. ``lexical``: whole-word synonym substitution (PSF-Med "lexical substitution", Sec. 3.3) from
   :data:`LEXICAL`.
3. ``frame_prefix``: "Looking at the study provided, q" (an adverbial frame; syntactic
   restructuring).
4. ``frame_suffix``: "q Please choose the best option." (an instruction frame).
5. ``negation``: "Is there (evidence of) X ...?" -> "Is it untrue that there is no X ...?", a double
   negation keeping the answer (PSF-Med "negation patterns"); presence questions only.
6. ``scope``: "Is there a/an X" -> "Is there any X" (PSF-Med "scope quantification").
7. ``specificity``: "this chest radiograph|brain MRI|head CT|..." -> "this study" (PSF-Med
   "specificity modulation").

The rewordings are pure functions of the question (no seed); options and gold never change.
Every question is about its image, so the frames add no information; their words occur in no
option text of the release (a frame saying "image" or "answer" would lean towards option E,
"... needed to answer is not visible in this image").

**Supplied paraphrase sets** (``paraphrases="supplied"``; the task pack reads ``CBD_PARAPHRASES``):
the paper evaluates PSF-Med's documented paraphrases, not published with MedVIGIL. Given as rows
of ``probe_kind`` ``paraphrase`` (the adapter's ``kind`` column) beside each case's ``original``
row, a case's set is ``q`` and those rows (and a ``tcf`` row), in row order, with no template: the
paper's protocol on the paper's paraphrases. The default ``"templates"`` is our stand-in above.
"""

import re
from collections.abc import Mapping

from medvigil.suites.cbd.arms import ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND

# Whole-word, case-sensitive; applied in order, each at most once per occurrence.
LEXICAL = (
    ("chest radiograph", "chest X-ray"),
    ("frontal radiograph", "frontal X-ray"),
    ("located", "situated"),
    ("acquire", "obtain"),
    ("How large", "How big"),
    ("most likely", "most probable"),
    ("evidence of", "signs of"),
    ("produced", "generated"),
    ("shown", "depicted"),
    ("show", "depict"),
    ("appear", "look"),
)
_LEXICAL_RE = [(re.compile(rf"\b{re.escape(a)}\b"), b) for a, b in LEXICAL]


def _lexical(q: str) -> str:
    for pattern, replacement in _LEXICAL_RE:
        q = pattern.sub(replacement, q)
    return q


def _lower_first(q: str) -> str:
    word = q.split(" ", 1)[0]
    # "What" -> "what"; acronyms ("CT", "MRI") and proper capitals stay
    return q[0].lower() + q[1:] if word[:1].isupper() and word[1:].islower() else q


_PRESENCE = re.compile(r"^Is there (?:evidence of )?(?:an? )?(?P<rest>.+)\?$")
_ARTICLE = re.compile(r"^Is there (?:evidence of )?(a|an) ")
_STUDY = re.compile(
    r"\bthis (?:chest radiograph|frontal radiograph|brain MRI|head CT|axial "
    r"CT slice|axial MRI slice|axial image|frontal image|radiograph|scan)\b"
)


def _negation(q: str) -> str:
    m = _PRESENCE.match(q)
    return f"Is it untrue that there is no {m.group('rest')}?" if m else q


def _scope(q: str) -> str:
    m = _ARTICLE.match(q)
    return q[: m.start(1)] + "any " + q[m.end(1) + 1 :] if m else q


def _specificity(q: str) -> str:
    return _STUDY.sub("this study", q, count=1)


TEMPLATES = (
    ("lexical", _lexical),
    ("frame_prefix", lambda q: f"Looking at the study provided, {_lower_first(q)}"),
    ("frame_suffix", lambda q: f"{q} Please choose the best option."),
    ("negation", _negation),
    ("scope", _scope),
    ("specificity", _specificity),
)
#: paraphrase source -> linguistic phenomenon (seed 004 Sec. 3.3, after PSF-Med)
PHENOMENA = {
    "original": None,
    "tcf": "syntactic restructuring",
    "lexical": "lexical substitution",
    "frame_prefix": "syntactic restructuring",
    "frame_suffix": "syntactic restructuring",
    "negation": "negation",
    "scope": "scope quantification",
    "specificity": "specificity modulation",
    # the presence questions' (medvigil.suites.cbd.presence)
    "syntactic": "syntactic restructuring",
}
PARAPHRASE_SETS = ("templates", "supplied")
PARAPHRASES_ENV = "CBD_PARAPHRASES"
SOURCES = (ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND) + tuple(name for name, _ in TEMPLATES)


def paraphrase_set(question: str, release_paraphrase: str | None) -> list[tuple[int, str, str]]:
    """``(paraphrase_index, source, question)`` for one case; index 0 is ``q`` itself.

    >>> [s for _, s, _ in paraphrase_set("Is there an infarct?", "Does it show an infarct?")]
    ['original', 'tcf', 'frame_prefix', 'frame_suffix', 'negation', 'scope']
    """
    q = question.strip()
    out = [(0, ORIGINAL_KIND, q)]
    if release_paraphrase is not None:
        out.append((1, RELEASE_PARAPHRASE_KIND, release_paraphrase.strip()))
    for offset, (name, fn) in enumerate(TEMPLATES, start=2):
        text = fn(q)
        if all(text != seen for _, _, seen in out):
            out.append((offset, name, text))
    return out


def paraphrase_setting(env: Mapping[str, str] | None = None) -> str:
    """``CBD_PARAPHRASES``: ``templates`` (default) or ``supplied``."""
    import os

    value = ((os.environ if env is None else env).get(PARAPHRASES_ENV) or "templates").strip()
    if value not in PARAPHRASE_SETS:
        raise ValueError(
            f"{PARAPHRASES_ENV} must be one of {', '.join(PARAPHRASE_SETS)}, got {value!r}"
        )
    return value
