"""The learned open-ended judge: two logistic regressions (refusal, critical) over the rule readers'
outputs and text n-grams (:mod:`.judge_features`), fitted when first used from every labelled set
shipped in :data:`.judge_set_index.SETS_DIR` -- no weights are shipped or downloaded.

Why: the refusal grammar and the finding reader, tuned round after round on their author's answers,
stayed short of the 0.90 bar on answers written blind by others (issue 39: critical recall 0.78 and
0.76, refusal recall 0.81 on the two fresh sets), each new writer bringing wordings no rule had
seen. Here the rules' verdicts become evidence among others, and the blind writers' answers become
training data; how well that carries to a set not trained on is measured by leaving one set out at
a time (:mod:`.judge_loso`).

Features (:class:`Features`): the rule features one-hot (``DictVectorizer``), TF-IDF char_wb 2-5
grams and word 1-2 grams of the plain answer, word 1-2 grams of its lead sentence and word 1-3 grams
of the windows around its tier-4 mentions (sublinear tf; n-grams seen in at least :data:`MIN_DF`
answers). Each label scales every feature by its naive-Bayes log-count ratio on that label
(:func:`nb_scale`, Wang & Manning 2012) and has its own ``LogisticRegression`` over the scaled
features (lbfgs, balanced classes, C = :data:`C`); a flag is P >= :data:`THRESHOLD`, never on an
empty answer. Rows of a blind set weigh :data:`BLIND_WEIGHT` (they are in the styles the judge
meets). Deterministic: no random state is drawn, one BLAS thread.

How it was chosen (issue 39, third round), with the leave-one-set-out figures of the five blind
sets in view, so those figures are optimistic: seven design iterations -- (1) this design with C 4
and blind weight 1; (2) C in {1, 4, 16} x blind weight in {1, 3}; (3) rescaled feature blocks (the
rule features x2 or x4, char n-grams x0.5, no lead or window block); (4) more rule features (the
question's subject named after the last refusal sentence, "the question names a tier-4 finding and
the answer denies nothing") and word n-grams of the question; (5) pairwise interactions of the rule
features; (6) stacking (the rule features and the out-of-fold margin of an n-gram-only model);
(7) thresholds 0.3-0.6 per label. Only (2) was kept (summed false flags over the five held-out sets
87 -> 80); (3)-(5) were within noise or worse, (6) within noise (78) at several times the fit time,
(7) flat (81-86). The errors of one held-out set (``blind_e``) were read once, between (2) and (3),
to pick the features of (4); no rule was changed for an answer. One more change came from a unit
test, not the figures: no feature for a missing probe kind (``eval_set``'s refusal styles have none,
and the judge had learned that).

Fourth round: a candidate with rule and lexicon changes chosen while reading the held-out errors
raised the LOSO figures but was no better on three fresh blind sets than this design trained on
more blind data (the judge card, "Fresh blind sets"), so it was not shipped; those sets joined the
training data instead.

Fifth round: four more fresh sets, each labelled twice blind and adjudicated, were measured once on
this design (the judge card, "Round 5") and then joined the training data; no weight, threshold or
rule was changed for them. Round 6's four sets were measured the same way and joined; then, with
the nineteen sets in view, one model change was tried and kept: the naive-Bayes feature scales
(leave-one-set-out over the fifteen blind sets of the day: critical errors 144 -> 126, McNemar
p = 0.01; refusal 120 -> 118). Round 7's sets measured it fresh (the judge card) and joined. Before
round 8, features of answers in other languages were added (:mod:`.other_language_terms`, from the
languages' vocabulary; errors 285 -> 281); round 8 measured them fresh and joined. Rounds 9 and 10
measured this judge as it ships and were kept out of its training data
(:data:`.judge_set_index.FRESH_DIR`).
"""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from medvigil.suites.medvigil.scoring.judge_features import Reading, reading

AXES = ("refusal", "critical")
C = {"refusal": 16.0, "critical": 16.0}
THRESHOLD = {"refusal": 0.5, "critical": 0.5}
MIN_DF = 2
BLIND_WEIGHT = 3.0
NB_ALPHA = 1.0  # add-one smoothing of the naive-Bayes feature scales
# the reading that vetoes a flag (the rubric's own rules: a deferral beside a committed answer is no
# refusal; a finding of a reasoning block that the answer negates is not asserted)
VETO = {"refusal": "deferral_beside_answer", "critical": "think_retracted"}


def labelled_rows(folder: Path | None = None) -> list[dict]:
    """Every answer of every set listed in ``folder``'s index (default the shipped sets), with its
    set's name (``_set``) and blindness (``_blind``)."""
    from medvigil.suites.medvigil.scoring.answer_files import read_answers
    from medvigil.suites.medvigil.scoring.judge_set_index import SETS_DIR, read_index

    folder = folder or SETS_DIR
    rows = []
    for entry in read_index(folder):
        rows += [
            {**r, "_set": entry["name"], "_blind": entry["blind"]}
            for r in read_answers(str(folder / entry["file"]))
        ]
    return rows


def read_row(row: dict) -> Reading:
    return _read(
        row["answer"],
        row.get("question", ""),
        row.get("probe_kind", ""),
        row.get("expected_behavior", ""),
    )


@lru_cache(maxsize=8192)
def _read(answer: str, question: str, probe_kind: str, expected_behavior: str) -> Reading:
    return reading(answer, question, probe_kind, expected_behavior)


class Features:
    """Rule features and n-grams of readings as one sparse matrix (module docstring)."""

    def fit(self, readings: list[Reading]) -> "Features":
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.feature_extraction.text import TfidfVectorizer

        tfidf = dict(sublinear_tf=True, min_df=MIN_DF)
        self.parts = (
            (DictVectorizer(), lambda r: r.flags),
            (TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), **tfidf), lambda r: r.text),
            (TfidfVectorizer(ngram_range=(1, 2), **tfidf), lambda r: r.text),
            (TfidfVectorizer(ngram_range=(1, 2), **tfidf), lambda r: r.lead),
            (TfidfVectorizer(ngram_range=(1, 3), **tfidf), lambda r: r.window),
        )
        for vectorizer, field in self.parts:
            vectorizer.fit([field(r) for r in readings])
        return self

    def transform(self, readings: list[Reading]):
        from scipy.sparse import hstack

        return hstack(
            [vectorizer.transform([field(r) for r in readings]) for vectorizer, field in self.parts]
        ).tocsr()


@dataclass
class Judge:
    """A fitted learned judge: the features, and per label the naive-Bayes scale of each feature
    and a classifier over the scaled features."""

    features: Features
    scales: dict
    classifiers: dict

    def probabilities(self, readings: list[Reading]) -> dict:
        """Per label, P(label) of each reading."""
        x = self.features.transform(readings)
        return {
            axis: self.classifiers[axis].predict_proba(x @ self.scales[axis])[:, 1] for axis in AXES
        }

    def flags(self, readings: list[Reading]) -> dict:
        """Per label, the flag of each reading (P >= :data:`THRESHOLD`; never on an empty answer;
        no refusal where the grammar reads a deferral beside a committed answer, no critical finding
        where the answer retracts what its reasoning block asserted -- the rubric's own rules, too
        rare in the sets for the weights to learn)."""
        p = self.probabilities(readings)
        return {
            axis: [
                bool(v >= THRESHOLD[axis]) and bool(r.text.strip()) and not r.flags.get(VETO[axis])
                for v, r in zip(p[axis], readings)
            ]
            for axis in AXES
        }


def readings(rows: list[dict]) -> list[Reading]:
    """The readings of labelled rows, from the disk cache when it has them (:mod:`.judge_cache`)."""
    from tqdm.auto import tqdm

    from medvigil.suites.medvigil.scoring import judge_cache

    cached = judge_cache.load(rows)
    if cached is not None:
        return cached
    with judge_cache.computing("readings", rows):
        cached = judge_cache.load(rows)  # read by a process that held the lock first
        if cached is not None:
            return cached
        desc = "judge: reading its labelled answers (once; cached)"
        out = [read_row(r) for r in tqdm(rows, desc=desc, unit="answer", mininterval=1.0)]
        judge_cache.save(rows, out)
    return out


def fit(rows: list[dict], read: list[Reading] | None = None) -> Judge:
    """The learned judge fitted on labelled rows (each label on the rows that carry it; their
    readings ``read`` when known). One BLAS thread: the same fit, and no oversubscribed cores."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    read = readings(rows) if read is None else read
    with threadpool_limits(1):
        features = Features().fit(read)
        x = features.transform(read)
        scales, classifiers = {}, {}
        for axis in AXES:
            keep = [i for i, r in enumerate(rows) if isinstance(r.get(f"label_is_{axis}"), bool)]
            weights = [BLIND_WEIGHT if rows[i].get("_blind") else 1.0 for i in keep]
            labels = np.array([rows[i][f"label_is_{axis}"] for i in keep])
            scales[axis] = nb_scale(x[keep], labels)
            classifier = LogisticRegression(C=C[axis], max_iter=5000, class_weight="balanced")
            classifiers[axis] = classifier.fit(
                x[keep] @ scales[axis], labels, sample_weight=weights
            )
    return Judge(features, scales, classifiers)


def nb_scale(x, labels, alpha: float = NB_ALPHA):
    """The diagonal matrix of each feature's log-count ratio, log((p / |p|) / (q / |q|)) with p,
    q the smoothed counts of answers holding the feature among the label's positives and
    negatives (Wang & Manning 2012, NBSVM): a feature seen mostly on one side weighs more."""
    from scipy.sparse import diags

    present = (x > 0).astype(float)
    p = alpha + np.asarray(present[labels].sum(axis=0)).ravel()
    q = alpha + np.asarray(present[~labels].sum(axis=0)).ravel()
    return diags(np.log((p / p.sum()) / (q / q.sum())))


@lru_cache(maxsize=1)
def fitted() -> Judge:
    """The judge fitted on every shipped labelled set (module docstring)."""
    return fit(labelled_rows())


def judge_flags(
    answer: str | None, question: str = "", probe_kind: str = "", expected_behavior: str = ""
) -> tuple[bool, bool, Reading]:
    """(refusal, critical, the reading) of one answer by the fitted judge."""
    r = _read(answer or "", question or "", probe_kind or "", expected_behavior or "")
    flags = fitted().flags([r])
    return flags["refusal"][0], flags["critical"][0], r
