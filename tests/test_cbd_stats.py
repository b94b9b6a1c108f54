"""Consistent but Dangerous: bootstrap CIs, flip-rate vs Dangerous correlation, phenomena, binary
arm.

Worked numbers: the paper's Table 1 counts (seed 004) recomputed into the printed fractions and
the flip rates quoted in Sec. 4.2; hand-computed small cases for everything else.
"""

import math

import numpy as np
import pytest

from medvigil.scoring.bootstrap import resample_indices
from medvigil.suites.cbd.arm_scoring import binary_table
from medvigil.suites.cbd.binary_docs import N_SWAPS, binary_candidate, plan_binary_docs
from medvigil.suites.cbd.records import make_binary_record, p_yes
from medvigil.suites.cbd.result import suite_result
from medvigil.suites.cbd.scoring import bootstrap_rates, rate_correlation

# Table 1: model, dataset, n, Ideal, Fragile, Dangerous, Worst (counts) and the printed fractions
# (%)
TABLE_1 = [
    ("MedGemma Base", "MIMIC", 98, 31, 13, 25, 29, (31.6, 13.3, 25.5, 29.6)),
    ("MedGemma Base", "PadChest", 861, 80, 412, 78, 291, (9.3, 47.9, 9.1, 33.8)),
    ("Targeted LoRA", "MIMIC", 98, 21, 13, 57, 7, (21.4, 13.3, 58.2, 7.1)),
    ("Targeted LoRA", "PadChest", 861, 23, 220, 463, 155, (2.7, 25.6, 53.8, 18.0)),
    ("Full LoRA", "MIMIC", 98, 17, 2, 77, 2, (17.3, 2.0, 78.6, 2.0)),
    ("Full LoRA", "PadChest", 861, 133, 52, 523, 153, (15.4, 6.0, 60.7, 17.8)),
    ("LLaVA-Rad Base", "MIMIC", 78, 3, 13, 51, 11, (3.9, 16.7, 65.4, 14.1)),
    ("LLaVA-Rad Base", "PadChest", 732, 0, 5, 721, 6, (0.0, 0.7, 98.5, 0.8)),
    ("LLaVA-Rad LoRA", "MIMIC", 78, 17, 8, 44, 9, (21.8, 10.3, 56.4, 11.5)),
    ("LLaVA-Rad LoRA", "PadChest", 732, 219, 38, 327, 148, (29.9, 5.2, 44.7, 20.2)),
]
QUOTED_FLIP_RATES = {
    ("MedGemma Base", "MIMIC"): 42.9,
    ("Targeted LoRA", "MIMIC"): 20.4,
    ("Full LoRA", "MIMIC"): 4.1,
    ("LLaVA-Rad Base", "PadChest"): 1.5,
    ("MedGemma Base", "PadChest"): 81.7,
}


def _quadrants(counts):
    return np.repeat(np.arange(4), counts)


def test_table_1_recomputed():
    flips, dangers = [], []
    for model, data, n, *counts, printed in TABLE_1:
        quad = _quadrants(counts)
        assert quad.size == n
        fractions = np.bincount(quad, minlength=4) / n
        got = [round(100 * f, 1) for f in fractions]
        if (model, data) == ("LLaVA-Rad Base", "MIMIC"):  # the paper prints 3.9 for 3/78 = 3.85 %
            got[0] = 3.9 if abs(100 * fractions[0] - 3.846) < 1e-3 else got[0]
        assert got == pytest.approx(list(printed), abs=1e-9), (model, data)
        flip = (counts[1] + counts[3]) / n
        if (model, data) in QUOTED_FLIP_RATES:
            # 81.7 for MedGemma/PadChest is the sum of the rounded 47.9 + 33.8 (703/861 = 81.65 %)
            assert 100 * flip == pytest.approx(QUOTED_FLIP_RATES[(model, data)], abs=0.06)
        flips.append(flip)
        dangers.append(counts[2] / n)
    corr = rate_correlation(flips, dangers)
    # Sec. 4.2: a negative correlation across the ten model-dataset combinations
    assert corr["n"] == 10 and corr["pearson"] < -0.5 and corr["spearman"] < -0.5
    assert corr["pearson"] == pytest.approx(float(np.corrcoef(flips, dangers)[0, 1]))
    assert rate_correlation([0.1, 0.2], [0.3, 0.1])["pearson"] is None  # fewer than three


def test_bootstrap_equals_a_naive_loop_over_cases():
    # 6 cases: quadrants Ideal, Fragile, Dangerous, Dangerous, Worst, not evaluable
    quad = np.array([0, 1, 2, 2, 3, -1])
    cases = [f"c{i}" for i in range(6)]
    ci = bootstrap_rates(quad, cases, n_resamples=200, seed=7)
    flips, dangers = [], []
    for row in resample_indices(6, 200, 7):
        q = quad[row]
        ev = q >= 0
        flips.append(np.sum((q == 1) | (q == 3)) / ev.sum() if ev.any() else np.nan)
        dangers.append(np.sum(q == 2) / ev.sum() if ev.any() else np.nan)
    for name, values in (("flip_rate", flips), ("dangerous_fraction", dangers)):
        v = np.asarray(values)
        v = v[np.isfinite(v)]
        assert ci[name]["low"] == pytest.approx(np.percentile(v, 2.5)) and ci[name][
            "high"
        ] == pytest.approx(np.percentile(v, 97.5))
    every = bootstrap_rates(np.full(5, 2), list("abcde"), n_resamples=50)
    assert every["dangerous_fraction"]["low"] == every["dangerous_fraction"]["high"] == 1.0


def test_binary_helpers():
    assert p_yes([(0.0, True), (-1e4, False)]) == pytest.approx(1.0)
    assert p_yes([math.log(0.2), math.log(0.6)]) == pytest.approx(0.25)  # 0.2 / (0.2 + 0.6)
    assert p_yes(["(0.0, True)", "(-2.0, False)"]) == pytest.approx(
        1 / (1 + math.exp(-2))
    )  # lmms-eval's filter output
    with pytest.raises(ValueError, match="two finite"):
        p_yes([0.0])
    from medvigil.baselines.sampling import choice_log_probability

    assert math.exp(choice_log_probability(True, 2, 1.0)) == pytest.approx(
        math.e**2 / (math.e**2 + 1)
    )
    assert math.exp(choice_log_probability(False, 2, 1.0)) == pytest.approx(1 / (math.e**2 + 1))
    rows = [
        {
            "case_id": f"c{i}",
            "options": ["gold", "d1", "d2", "d3", "safe"],
            "correct_letter": "A",
            "safe_letter": "E",
        }
        for i in range(200)
    ]
    picks = [binary_candidate(r) for r in rows]
    assert 70 <= sum(yes for _, yes in picks) <= 130  # about half yes
    assert all((text == "gold") == yes and text != "safe" for text, yes in picks)


def _plan_rows():
    def case(c, q):
        opts = ["Left side", "Right side", "Both sides", "Midline", "Cannot tell"]
        return [
            {
                "probe_id": f"{c}-original",
                "probe_kind": "original",
                "case_id": c,
                "question": q,
                "options": opts,
                "correct_letter": "A",
                "safe_letter": "E",
            },
            {
                "probe_id": f"{c}-tcf",
                "probe_kind": "tcf",
                "case_id": c,
                "question": q + " (reworded)",
                "options": opts,
                "correct_letter": "A",
                "safe_letter": "E",
            },
        ]

    return case("C1", "Is there a pleural effusion on this chest radiograph?") + case(
        "C2", "What is the most urgent finding?"
    )


def test_proposed_variant_plan_has_every_arm_and_check():
    rows = _plan_rows()
    plans = plan_binary_docs(rows, form="proposed")
    conds = [o["condition"] for _, o in plans]
    assert (
        conds.count("binary_proposed:noimg") == 2
        and conds.count("binary_proposed:null") == 2
        and conds.count("binary_proposed:swap") == 2
    )
    swap = [(i, o) for i, o in plans if o["condition"] == "binary_proposed:swap"]
    for i, o in swap:  # the donor row's image, this case's question and label
        assert rows[i]["case_id"] != o["case_id"] and o["swap_from"] == rows[i]["case_id"]
    assert [o["swap_index"] for _, o in swap] == [0, 0]  # one other case: one swap each
    c1 = [o for _, o in plans if o["case_id"] == "C1" and o["condition"] == "binary_proposed"]
    assert {o["paraphrase_source"] for o in c1} >= {"negation", "scope", "specificity"}
    neg = next(o for o in c1 if o["paraphrase_source"] == "negation")
    assert neg["question"].startswith(
        "Is it untrue that there is no pleural effusion "
        "on this chest radiograph?\nProposed answer: "
    )
    assert neg["question"].endswith("Is the proposed answer correct? Answer yes or no.")
    assert {o["correct_letter"] for o in c1} == {"A" if c1[0]["binary_label"] == "yes" else "B"}


def test_five_swap_images_per_sample():
    """Sec. 5: five replacement images per sample, from five distinct other cases, in a seeded
    order."""
    rows = [
        r
        for k in range(7)
        for r in _plan_rows()[:2]
        for r in [{**r, "case_id": f"C{k}", "probe_id": f"C{k}-{r['probe_kind']}"}]
    ]
    plans = plan_binary_docs(rows, form="proposed")
    for case in {r["case_id"] for r in rows}:
        swaps = [
            (i, o)
            for i, o in plans
            if o["case_id"] == case and o["condition"] == "binary_proposed:swap"
        ]
        assert [o["swap_index"] for _, o in swaps] == list(range(N_SWAPS)) == list(range(5))
        donors = [o["swap_from"] for _, o in swaps]
        assert (
            len(set(donors)) == 5
            and case not in donors
            and all(rows[i]["case_id"] == o["swap_from"] for i, o in swaps)
        )
    record = make_binary_record(swaps[3][1], [(-0.1, True), (-2.0, False)])
    assert record["extra"]["swap_index"] == 3 and record["probe_id"] == f"{case}-original:swap3"


def _binary_rec(case, cond, kind, p, label, phenomenon=None, source="original", model="m"):
    return {
        "suite": "cbd",
        "model": model,
        "condition": cond,
        "probe_id": f"{case}-{source}",
        "case_id": case,
        "probe_kind": kind,
        "correct_letter": "A" if label == "yes" else "B",
        "predicted_letter": "A" if p >= 0.5 else "B",
        "parse_status": "ok",
        "extra": {
            "paraphrase_index": 0 if kind == "original" else 1,
            "paraphrase_source": source,
            "phenomenon": phenomenon,
            "p_yes": p,
            "probabilities": [p, 1 - p],
            "label": label,
            "question": f"Is there X in {case}?",
        },
    }


def test_suite_result_binary_hand_case():
    # c1 Ideal (yes with image 0.9, no without 0.2; paraphrase agrees), c2 Dangerous (yes 0.8 /
    # 0.7), c3 Worst (no 0.3 / 0.4; the scope paraphrase flips to yes 0.6), c4 Dangerous (no 0.1 /
    # 0.2)
    spec = {
        "c1": (0.9, 0.2, 0.8, "yes"),
        "c2": (0.8, 0.7, 0.9, "yes"),
        "c3": (0.3, 0.4, 0.6, "no"),
        "c4": (0.1, 0.2, 0.3, "no"),
    }
    recs = []
    for case, (img, txt, para, label) in spec.items():
        recs += [
            _binary_rec(case, "binary", "original", img, label),
            _binary_rec(case, "binary:noimg", "original", txt, label),
            _binary_rec(case, "binary", "paraphrase", para, label, "scope quantification", "scope"),
        ]
    recs.append(_binary_rec("c2", "binary:null", "original", 0.75, "yes"))  # unchanged (yes)
    recs.append(_binary_rec("c4", "binary:null", "original", 0.6, "no"))  # changed (no -> yes)
    recs.append(_binary_rec("c1", "binary:swap", "original", 0.4, "yes"))  # changed
    for k, p in enumerate(
        (0.9, 0.7, 0.6, 0.55, 0.3)
    ):  # c2's five swaps: the last changes yes -> no
        rec = _binary_rec("c2", "binary:swap", "original", p, "yes")
        recs.append({**rec, "extra": {**rec["extra"], "swap_index": k}})
    out = suite_result(recs, n_resamples=100)
    m = out["models"]["m [binary]"]
    assert (
        m["counts"] == {"Ideal": 1, "Fragile": 0, "Dangerous": 2, "Worst": 1}
        and m["arm"] == "binary"
    )
    h = lambda p: -(p * math.log(p) + (1 - p) * math.log(1 - p))  # noqa: E731
    assert m["mean_entropy_by_quadrant"]["Dangerous"] == pytest.approx((h(0.8) + h(0.1)) / 2)
    assert (
        m["mean_entropy_by_quadrant"]["Ideal"] == pytest.approx(h(0.9))
        and m["mean_entropy_by_quadrant"]["Fragile"] is None
    )
    b = m["binary_by_quadrant"]
    assert b["Dangerous"]["mean_p_yes_image"] == pytest.approx(0.45) and b["Dangerous"][
        "mean_p_yes_text"
    ] == pytest.approx(0.45)
    assert b["Dangerous"]["null_invariant"] == 0.5 and b["Dangerous"]["n_null"] == 2
    assert (
        b["Ideal"]["swap_invariant"] == 0.0
        and b["Worst"]["n_swap"] == 0
        and b["Worst"]["swap_invariant"] is None
    )
    # c2 (Dangerous) changes under one of its five swaps: not invariant; 4 of its 5 swapped answers
    # unchanged
    assert (
        b["Dangerous"]["swap_invariant"] == 0.0
        and b["Dangerous"]["swap_invariant_per_image"] == 0.8
    )
    assert b["Dangerous"]["n_swap"] == 1 and b["Dangerous"]["n_swap_images"] == 5
    # KL(image || text), nats: c1 0.9|0.2 -> 1.1457; c2 0.8|0.7 -> 0.0257; c4 0.1|0.2 -> 0.0367; c3
    # 0.3|0.4 -> 0.0216. Low KL flags Dangerous: above Ideal's in both pairs (AUROC 1); against
    # Ideal and Worst 2 of 4 pairs (0.5)
    kl = m["kl_check"]
    assert kl["mean_kl"]["Ideal"] == pytest.approx(0.9 * math.log(4.5) + 0.1 * math.log(0.125))
    assert kl["mean_kl"]["Dangerous"] == pytest.approx(
        (
            0.8 * math.log(8 / 7)
            + 0.2 * math.log(2 / 3)
            + 0.1 * math.log(0.5)
            + 0.9 * math.log(9 / 8)
        )
        / 2
    )
    assert (
        kl["auroc_dangerous_vs_ideal"] == 1.0
        and kl["auroc_dangerous_vs_rest"] == 0.5
        and kl["n"] == 4
    )
    assert kl["mean_kl"]["Fragile"] is None
    assert b["Ideal"]["example"] == {
        "case_id": "c1",
        "question": "Is there X in c1?",
        "image": "yes",
        "text": "no",
        "p_yes_image": 0.9,
        "p_yes_text": 0.2,
        "gt": "yes",
    }
    assert m["flip_rate_by_phenomenon"] == {"scope quantification": {"flip_rate": 0.25, "n": 4}}
    assert m["by_label"]["yes"]["counts"] == {"Ideal": 1, "Fragile": 0, "Dangerous": 1, "Worst": 0}
    assert m["by_label"]["no"]["fractions"]["Dangerous"] == 0.5
    assert m["ci"]["flip_rate"]["low"] <= 0.25 <= m["ci"]["flip_rate"]["high"]
    assert out["correlation"]["n"] == 1 and out["correlation"]["pearson"] is None


# ---------------------------------------------------------------- presence questions (Sec. 4)


def _presence_rows():
    """Six cases whose original probes name a finding (chest and head), two that do not."""

    def case(c, q, options, letter="A", modality="X-ray"):
        return {
            "probe_id": f"{c}-original",
            "probe_kind": "original",
            "case_id": c,
            "question": q,
            "options": options,
            "correct_letter": letter,
            "safe_letter": "E",
            "modality": modality,
        }

    yes_no = ["Yes", "No", "Yes, on both sides", "No, but X", "Cannot tell"]
    return [
        case("C1", "Is there a pneumothorax in the upper zones?", yes_no),
        case("C2", "How large is the pleural effusion?", ["Small", "Large", "a", "b", "c"], "B"),
        case(
            "C3",
            "In which lobe is the infarct located?",
            ["Left", "Right", "a", "b", "c"],
            "B",
            "MRI",
        ),
        case(
            "C4",
            "What is the most urgent finding?",
            ["Right-sided intracranial haemorrhage", "No acute abnormality", "a", "b", "c"],
            modality="CT",
        ),  # fmt: skip
        case("C5", "Is there an area of consolidation?", yes_no, "B"),  # absent: no present finding
        case("C6", "What part of the body does this slice show?", ["Head", "Knee", "a", "b", "c"]),
        case(
            "C7",
            "Which lobe contains the intracranial mass?",
            ["Frontal", "Parietal", "a", "b", "c"],
            modality="CT",
        ),  # fmt: skip
        case(
            "C8",
            "Is the pulmonary nodule in the upper or lower zone?",
            ["Upper", "Lower", "a", "b", "c"],
        ),  # fmt: skip
    ]


def test_presence_docs_ask_is_there_finding_about_half_yes():
    import doctest

    from medvigil.suites.cbd import presence

    assert doctest.testmod(presence).failed == 0
    rows = _presence_rows()
    plans = plan_binary_docs(rows)
    docs = [o for _, o in plans]
    assert all("Proposed answer" not in o["question"] for o in docs)
    # C5 (no finding present) and C6 (no finding named) are not asked; every other case twice
    samples = sorted({o["case_id"] for o in docs})
    assert samples == sorted(f"C{k}:{p}" for k in (1, 2, 3, 4, 7, 8) for p in ("present", "absent"))
    originals = {
        o["case_id"]: o for o in docs if o["condition"] == "binary" and not o["paraphrase_index"]
    }
    assert originals["C1:present"]["question"] == "Is there a pneumothorax?"
    assert originals["C2:present"]["question"] == "Is there a pleural effusion?"
    assert originals["C4:present"]["question"] == "Is there an intracranial haemorrhage?"
    assert originals["C3:absent"]["question"] in (
        "Is there an intracranial haemorrhage?",
        "Is there an intracranial mass?",
    )  # another finding of the same region
    assert originals["C1:absent"]["finding"] in (
        "pleural effusion",
        "consolidation",
        "pulmonary nodule",
    )
    yes = [o["binary_label"] == "yes" for o in docs]
    assert 0.35 <= sum(yes) / len(yes) <= 0.65
    # five kinds of paraphrase per question, the phenomena of Sec. 4
    c1 = [o for o in docs if o["case_id"] == "C1:present" and o["condition"] == "binary"]
    assert [o["paraphrase_source"] for o in c1] == [
        "original", "lexical", "syntactic", "negation", "scope", "specificity",
    ]  # fmt: skip
    assert [o["question"] for o in c1][1:] == [
        "Is there air in the pleural space?",
        "Is a pneumothorax present?",
        "Is there no pneumothorax?",
        "Is there any pneumothorax?",
        "Is there a pneumothorax on this radiograph?",
    ]
    # the negated paraphrase flips the gold as asked; correct_letter stays in q's polarity
    neg = next(o for o in c1 if o["paraphrase_source"] == "negation")
    assert (
        neg["binary_label"] == "no"
        and neg["correct_letter"] == "A"
        and neg["polarity"] == "negated"
    )
    absent_neg = next(
        o for o in docs if o["case_id"] == "C1:absent" and o["paraphrase_source"] == "negation"
    )
    assert absent_neg["binary_label"] == "yes" and absent_neg["correct_letter"] == "B"
    conds = [o["condition"] for o in docs if o["case_id"] == "C1:present"]
    assert conds.count("binary:noimg") == conds.count("binary:null") == 1
    assert conds.count("binary:swap") == 5  # five other cases' images


def test_negated_answers_are_read_in_the_polarity_of_q():
    """'no' to "Is there no X?" is 'yes, X': the record's letter is A, the reply as asked is
    kept."""
    plans = plan_binary_docs(_presence_rows(), checks=False)
    neg = next(
        o for _, o in plans if o["case_id"] == "C1:present" and o["paraphrase_source"] == "negation"
    )
    says_no = make_binary_record(neg, [(-3.0, False), (-0.1, True)])
    assert says_no["predicted_letter"] == "A" == says_no["correct_letter"]
    assert says_no["extra"]["answer_as_asked"] == "no" and says_no["extra"]["polarity"] == "negated"
    says_yes = make_binary_record(neg, [(-0.1, True), (-3.0, False)])
    assert says_yes["predicted_letter"] == "B"
    # an always-yes model flips on the negation: every sample it answers is inconsistent
    recs = []
    for _, o in plans:
        recs.append({**make_binary_record(o, [(-0.1, True), (-3.0, False)]), "model": "m"})
    (table,) = binary_table(recs).values()
    assert table["flip_rate"] == 1.0


def test_infinite_kl_is_written_as_inf():
    """A text-only p(yes) of exactly 1 with an image p(yes) below it: KL(image || text) is infinite,
    written "inf" with its count (JSON has no infinity), and drawn as ∞ in the table."""
    import json

    from medvigil.suites.cbd.tables import cbd_tables

    recs = [
        _binary_rec("c1", "binary", "original", 0.9, "yes"),
        _binary_rec("c1", "binary:noimg", "original", 1.0, "yes"),
        _binary_rec("c1", "binary", "paraphrase", 0.8, "yes", "scope quantification", "scope"),
    ]
    out = suite_result(recs, n_resamples=20)
    kl = out["models"]["m [binary]"]["kl_check"]
    assert kl["mean_kl"]["Dangerous"] == "inf" and kl["n_infinite_kl"]["Dangerous"] == 1
    assert kl["n_infinite_kl"]["Ideal"] == 0 and kl["mean_kl"]["Ideal"] is None
    json.dumps(out, allow_nan=False)  # strict JSON
    table = next(t for t in cbd_tables(out) if "KL" in t.title)
    assert "∞" in table.markdown()
