"""Consistent but Dangerous: quadrants (Eqs. 1-2), flip rate (Eq. 3), Dangerous fraction (Eq. 4),
per-quadrant accuracy (Table 2) and entropy; the paper's Table 1 counts reproduced."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.suites.cbd.scoring import (
    QUADRANTS,
    classify,
    predictive_entropy,
    quadrant_scores,
    score_records,
)

# A sample of each quadrant (letters: A = yes, B = no): (image+q, paraphrases, text-only)
PATTERN = {
    "Ideal": ("A", ["A", "A"], "B"),
    "Fragile": ("A", ["A", "B"], "B"),
    "Dangerous": ("A", ["A", "A"], "A"),
    "Worst": ("A", ["B", "A"], "A"),
}


def _samples(counts: dict[str, int], correct: dict[str, int] | None = None):
    preds, paras, texts, refs = [], [], [], []
    for quadrant, n in counts.items():
        orig, para, text = PATTERN[quadrant]
        k = (correct or {}).get(quadrant, n)
        for i in range(n):
            preds.append(orig)
            paras.append(list(para))
            texts.append(text)
            refs.append("A" if i < k else "B")
    return preds, paras, texts, refs


def test_definitions_one_sample_each():
    preds, paras, texts, _ = _samples({q: 1 for q in QUADRANTS})
    flags = classify(preds, paras, texts)
    assert flags["consistent"].tolist() == [True, False, True, False]
    assert flags["image_reliant"].tolist() == [True, True, False, False]
    assert [QUADRANTS[q] for q in flags["quadrant"]] == list(QUADRANTS)


def test_strict_consistency_and_ragged_paraphrases():
    # one disagreeing paraphrase among many makes the sample inconsistent (Eq. 1 is strict)
    flags = classify(["A", "A"], [["A"] * 9 + ["B"], ["A"]], ["B", "B"])
    assert flags["consistent"].tolist() == [False, True]
    with pytest.raises(ValueError, match="at least one"):
        classify(["A"], [[]], ["B"])
    with pytest.raises(TypeError):
        classify(["A"], ["A"], ["B"])
    with pytest.raises(ValueError, match="one entry per sample"):
        classify(["A", "B"], [["A"], ["B"]], ["B"])


# -- Table 1: counts -> fractions, flip rate, Dangerous fraction ---------------------------------

# model, dataset: N, (Ideal, Fragile, Dangerous, Worst), fractions (%) as printed
TABLE_1 = [
    ("MedGemma Base", "MIMIC", 98, (31, 13, 25, 29), (31.6, 13.3, 25.5, 29.6)),
    ("MedGemma Base", "PadChest", 861, (80, 412, 78, 291), (9.3, 47.9, 9.1, 33.8)),
    ("Targeted LoRA", "MIMIC", 98, (21, 13, 57, 7), (21.4, 13.3, 58.2, 7.1)),
    ("Targeted LoRA", "PadChest", 861, (23, 220, 463, 155), (2.7, 25.6, 53.8, 18.0)),
    ("Full LoRA", "MIMIC", 98, (17, 2, 77, 2), (17.3, 2.0, 78.6, 2.0)),
    ("Full LoRA", "PadChest", 861, (133, 52, 523, 153), (15.4, 6.0, 60.7, 17.8)),
    ("LLaVA-Rad Base", "MIMIC", 78, (3, 13, 51, 11), (3.9, 16.7, 65.4, 14.1)),
    ("LLaVA-Rad Base", "PadChest", 732, (0, 5, 721, 6), (0.0, 0.7, 98.5, 0.8)),
    ("LLaVA-Rad LoRA", "MIMIC", 78, (17, 8, 44, 9), (21.8, 10.3, 56.4, 11.5)),
    ("LLaVA-Rad LoRA", "PadChest", 732, (219, 38, 327, 148), (29.9, 5.2, 44.7, 20.2)),
]
# flip rates and Dangerous fractions quoted in the text (Sec. 4.2, 4.1, 5)
TEXT_VALUES = {
    ("MedGemma Base", "MIMIC"): (42.9, 25.5),
    ("Targeted LoRA", "MIMIC"): (20.4, 58.2),
    ("Full LoRA", "MIMIC"): (4.1, 78.6),
    ("LLaVA-Rad Base", "PadChest"): (1.5, 98.5),
    ("MedGemma Base", "PadChest"): (81.7, 9.1),
}


# Printed values that are not the rounding of the paper's own counts (off by 0.1): LLaVA-Rad Base /
# MIMIC Ideal 3/78 = 3.85 % is printed 3.9; MedGemma Base / PadChest flip rate 703/861 = 81.65 % is
# quoted 81.7, the sum of the rounded Fragile and Worst fractions (47.9 + 33.8).
PRINTED_OFF_BY_ROUNDING = {
    ("LLaVA-Rad Base", "MIMIC", "Ideal"),
    ("MedGemma Base", "PadChest", "flip_rate"),
}


def _printed(value: float, printed: float, key: tuple) -> bool:
    tolerance = 0.1 + 1e-9 if key in PRINTED_OFF_BY_ROUNDING else 1e-9
    return abs(round(100 * value, 1) - printed) <= tolerance


@pytest.mark.parametrize("model, dataset, n, counts, fractions", TABLE_1)
def test_table_1(model, dataset, n, counts, fractions):
    r = quadrant_scores(*_samples(dict(zip(QUADRANTS, counts)))[:3])
    assert r["n_evaluable"] == n and tuple(r["counts"].values()) == counts
    for q, printed in zip(QUADRANTS, fractions):
        assert _printed(r["fractions"][q], printed, (model, dataset, q)), q
    assert r["flip_rate"] == pytest.approx((counts[1] + counts[3]) / n)
    assert r["dangerous_fraction"] == pytest.approx(counts[2] / n)
    if (model, dataset) in TEXT_VALUES:
        fr, df = TEXT_VALUES[(model, dataset)]
        assert _printed(r["flip_rate"], fr, (model, dataset, "flip_rate"))
        assert _printed(r["dangerous_fraction"], df, (model, dataset, "dangerous_fraction"))


# -- Table 2: per-quadrant accuracy on PadChest
# ------------------------------------------------------

# (Ideal, Fragile, Dangerous, Worst, Overall) accuracy % as printed; None = "-"
TABLE_2 = {
    "MedGemma Base": ((80, 412, 78, 291), (6.2, 0.2, 96.2, 97.2), 42.3),
    "Targeted LoRA": ((23, 220, 463, 155), (26.1, 0.4, 99.6, 96.1), 71.7),
    "Full LoRA": ((133, 52, 523, 153), (1.5, 5.8, 54.7, 43.1), 41.5),
    "LLaVA-Rad Base": ((0, 5, 721, 6), (None, 100.0, 82.5, 83.3), 82.6),
    "LLaVA-Rad LoRA": ((219, 38, 327, 148), (0.0, 7.9, 93.0, 98.0), 61.7),
}


@pytest.mark.parametrize("model", list(TABLE_2))
def test_table_2_per_quadrant_accuracy(model):
    counts, accs, overall = TABLE_2[model]
    # correct answers per quadrant: the integer nearest to the printed accuracy
    correct = {
        q: (0 if a is None else round(a * n / 100)) for q, n, a in zip(QUADRANTS, counts, accs)
    }
    r = quadrant_scores(*_samples(dict(zip(QUADRANTS, counts)), correct))
    for q, a in zip(QUADRANTS, accs):
        got = r["accuracy_by_quadrant"][q]
        if a is None:
            assert got is None  # empty quadrant ("-")
        else:
            assert 100 * got == pytest.approx(a, abs=0.06)  # rounding of the printed value
    # the overall accuracy is the count-weighted mean of the quadrants
    assert 100 * r["accuracy"] == pytest.approx(overall, abs=0.1)
    # Dangerous accuracy exceeds Ideal wherever there are Ideal samples (Sec. 4.3)
    if r["accuracy_by_quadrant"]["Ideal"] is not None:
        assert r["accuracy_by_quadrant"]["Dangerous"] > r["accuracy_by_quadrant"]["Ideal"]


# -- Table 3: one example per quadrant with P(yes) -------------------------------------------------

# quadrant: (P(yes | image), P(yes | text only), ground truth)
TABLE_3 = {
    "Ideal": (0.82, 0.41, "A"),
    "Fragile": (0.07, 0.79, "A"),
    "Dangerous": (0.07, 0.18, "B"),
    "Worst": (0.38, 0.41, "A"),
}


def test_table_3_examples_and_entropy():
    def letter(p):
        return "A" if p >= 0.5 else "B"

    preds, paras, texts, refs, probs = [], [], [], [], []
    for quadrant, (p_img, p_txt, gt) in TABLE_3.items():
        pred = letter(p_img)
        consistent = quadrant in ("Ideal", "Dangerous")
        preds.append(pred)
        paras.append([pred if consistent else ("B" if pred == "A" else "A")])
        texts.append(letter(p_txt))
        refs.append(gt)
        probs.append([p_img, 1 - p_img])
    r = quadrant_scores(preds, paras, texts, refs, probs)
    assert r["counts"] == {q: 1 for q in QUADRANTS}
    assert r["accuracy_by_quadrant"] == {
        "Ideal": 1.0,
        "Fragile": 0.0,
        "Dangerous": 1.0,
        "Worst": 0.0,
    }

    def h(p):
        return -(p * math.log(p) + (1 - p) * math.log(1 - p))

    assert r["mean_entropy_by_quadrant"] == pytest.approx({q: h(v[0]) for q, v in TABLE_3.items()})
    # 1-D input = P(first class); the Dangerous sample is confident (low entropy)
    assert predictive_entropy([0.07])[0] == pytest.approx(h(0.07))
    assert r["mean_entropy_by_quadrant"]["Dangerous"] < r["mean_entropy_by_quadrant"]["Worst"]


def test_entropy_input_handling():
    h = predictive_entropy(
        [[2.0, 2.0], [np.nan, np.nan], [1.0, 0.0, 0.0]]
    )  # rows renormalised; NaN row = not given
    assert h[0] == pytest.approx(math.log(2)) and math.isnan(h[1]) and h[2] == 0.0
    assert predictive_entropy([[0.5, 0.5], [0.2, 0.3, 0.5]])[0] == pytest.approx(
        math.log(2)
    )  # ragged rows padded
    with pytest.raises(ValueError):
        predictive_entropy([[-0.1, 1.1]])
    with pytest.raises(ValueError):
        predictive_entropy([[0.0, 0.0]])


# -- invalid predictions -------------------------------------------------------------------------


def test_invalid_policies():
    preds = ["A", None, "A", "A"]
    paras = [["A"], ["A"], [""], ["A"]]
    texts = ["B", "B", "B", None]
    r = quadrant_scores(preds, paras, texts, ["A"] * 4)
    assert (r["n_samples"], r["n_evaluable"], r["n_excluded"]) == (4, 1, 3)
    assert r["counts"]["Ideal"] == 1
    r = quadrant_scores(preds, paras, texts, ["A"] * 4, invalid="as_answer")
    assert r["n_evaluable"] == 4
    # sample 2: invalid vs B text -> reliant; paraphrase A != invalid -> inconsistent => Fragile
    # sample 3: paraphrase invalid -> inconsistent; A vs B -> reliant => Fragile
    # sample 4: text invalid != A -> reliant; consistent => Ideal
    assert r["counts"] == {"Ideal": 2, "Fragile": 2, "Dangerous": 0, "Worst": 0}
    with pytest.raises(ValueError, match="invalid"):
        quadrant_scores(preds, paras, texts, invalid="drop")
    empty = quadrant_scores([None], [["A"]], ["A"], ["A"])
    assert empty["flip_rate"] is None and empty["accuracy_by_quadrant"]["Ideal"] is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("AB"),
            st.lists(st.sampled_from("AB"), min_size=1, max_size=4),
            st.sampled_from("AB"),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_fractions_are_a_partition(rows):
    r = quadrant_scores([x[0] for x in rows], [x[1] for x in rows], [x[2] for x in rows])
    assert sum(r["counts"].values()) == len(rows)
    assert sum(r["fractions"].values()) == pytest.approx(1.0)
    assert r["flip_rate"] == pytest.approx(r["fractions"]["Fragile"] + r["fractions"]["Worst"])
    assert r["image_reliance_rate"] == pytest.approx(
        r["fractions"]["Ideal"] + r["fractions"]["Fragile"]
    )


# -- records
# ----------------------------------------------------------------------------------------


def _rec(model, case, kind, pred, condition="default", gold="A", **extra):
    return {
        "suite": "cbd",
        "model": model,
        "condition": condition,
        "probe_id": f"{case}:{kind}:{condition}:{len(extra)}",
        "case_id": case,
        "probe_kind": kind,
        "correct_letter": gold,
        "predicted_letter": pred,
        "parse_status": "ok",
        "extra": extra,
    }


def test_score_records():
    recs = []
    for model in ("m1", "m2"):
        for case, quadrant in zip(("c1", "c2", "c3", "c4"), QUADRANTS):
            orig, paras, text = PATTERN[quadrant]
            recs.append(_rec(model, case, "original", orig, probabilities={"A": 0.9, "B": 0.1}))
            recs.append(_rec(model, case, "original", text, condition="noimg"))
            recs += [_rec(model, case, "paraphrase", p, k=i) for i, p in enumerate(paras)]
        recs.append(_rec(model, "c1", "halluc_trap", "E"))  # other kinds are ignored
    out = score_records(recs)
    assert set(out) == {"m1", "m2"}
    assert out["m1"]["counts"] == {q: 1 for q in QUADRANTS}
    assert out["m1"]["mean_entropy_by_quadrant"]["Ideal"] == pytest.approx(
        -(0.9 * math.log(0.9) + 0.1 * math.log(0.1))
    )
    with pytest.raises(ValueError, match="lacks its text"):
        score_records([r for r in recs if r["condition"] != "noimg"])
    with pytest.raises(
        ValueError,
        match="case 'c1' of model 'm1' has two 'original' records under condition 'default' "
        r"\(fields 'probe_kind', 'condition'\)",
    ):
        score_records(recs + [recs[0]])
    with pytest.raises(ValueError, match="suite"):
        score_records([{**recs[0], "suite": "medqdeg"}])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["A", "B", "C", None, ""]), min_size=1, max_size=5), max_size=8
    )
)
def test_paraphrase_matrix_places_each_answer_in_its_row_and_column(rows):
    from medvigil.scoring.letters import encode_letters
    from medvigil.suites.cbd.scoring import _PAD, _paraphrase_matrix

    got = _paraphrase_matrix(rows, len(rows))
    assert got.shape == (len(rows), max((len(r) for r in rows), default=0))
    for i, row in enumerate(rows):
        assert got[i, : len(row)].tolist() == encode_letters(row).tolist()
        assert (got[i, len(row) :] == _PAD).all()
