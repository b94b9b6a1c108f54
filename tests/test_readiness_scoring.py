"""Illusion of Readiness: R(m) of Appendix A from the paper's Extended Data Tables 2-6."""

import numpy as np
import pytest

from medvigil.suites.readiness.fragility import (
    fragilities,
    fragility_t1,
    fragility_t2,
    fragility_t3,
    fragility_t4,
    fragility_t5,
    robustness_score,
)
from medvigil.suites.readiness.gold_letters import gold_letter_warnings
from medvigil.suites.readiness.scoring import READINESS_CONDITIONS, score_records

# Extended Data Tables (accuracy %):
# T1 (Table 2): JAMA img, JAMA text, NEJM img, NEJM text (n = 1,141 and 743 items)
# T2/T3 (Table 4): text orig (= visually-required text-only), text reordered
# T4 (Table 5): text base, text 4R, img base, img 4R, text UNK
# T5 (Table 6): original, substituted
TABLES = {
    "GPT-5": (
        (86.59, 82.91, 80.89, 67.56),
        (37.71, 32.00),
        (37.71, 20.00, 66.28, 90.86, 42.86),
        (83.33, 51.67),
    ),
    "Gemini-2.5 Pro": (
        (84.84, 74.93, 79.95, 65.01),
        (37.14, 33.14),
        (37.14, 17.14, 67.43, 92.57, 45.71),
        (80.83, 47.50),
    ),
    "OpenAI-o3": (
        (84.75, 82.65, 80.89, 67.03),
        (37.71, 31.42),
        (37.71, 20.00, 61.71, 89.14, 34.28),
        (76.67, 52.50),
    ),
    "OpenAI-o4-mini": (
        (80.46, 78.44, 75.91, 66.49),
        (33.71, 33.71),
        (33.71, 17.14, 58.86, 85.14, 42.28),
        (71.67, 37.50),
    ),
    "GPT-4o": (
        (69.94, 68.89, 66.90, 37.28),
        (3.43, 0.57),
        (3.43, 2.28, 46.29, 84.00, 4.57),
        (36.67, 41.67),
    ),
}
# f1..f5 and R worked by hand from the formulas of Appendix A (six decimals)
EXPECTED = {
    "GPT-5": ((0.074857, 0.221375, 0.0571, 0.17259, 0.3166), 0.831496),
    "Gemini-2.5 Pro": ((0.118937, 0.21425, 0.04, 0.19256, 0.3333), 0.820191),
    "OpenAI-o3": ((0.067378, 0.221375, 0.0629, 0.17084, 0.2417), 0.847161),
    "OpenAI-o4-mini": ((0.049384, 0.171375, 0.0, 0.17883, 0.3417), 0.851742),
    "GPT-4o": ((0.123173, 0.0, 0.0286, 0.12116, 0.0), 0.945413),
}


def _kwargs(model):
    (ji, jt, ni, nt), (t3o, t3r), (tb, t4r, ib, i4r, tu), (t5o, t5s) = TABLES[model]
    return {
        "t1_img": [ji, ni],
        "t1_text": [jt, nt],
        "t1_n": [1141, 743],
        "t2_text": t3o,
        "t3_text_orig": t3o,
        "t3_text_reord": t3r,
        "t4_text_base": tb,
        "t4_text_4r": t4r,
        "t4_img_base": ib,
        "t4_img_4r": i4r,
        "t4_text_unk": tu,
        "t5_orig": t5o,
        "t5_subst": t5s,
    }


@pytest.mark.parametrize("model", list(TABLES))
def test_paper_models(model):
    f = fragilities(**_kwargs(model))
    want_f, want_r = EXPECTED[model]
    assert f.tolist() == pytest.approx(want_f, abs=5e-7)
    assert float(robustness_score(f)) == pytest.approx(want_r, abs=5e-7)


def test_vectorised_over_models():
    models = list(TABLES)
    kw = {k: np.array([_kwargs(m)[k] for m in models]) for k in _kwargs(models[0]) if k != "t1_n"}
    r = robustness_score(fragilities(t1_n=[1141, 743], **kw))
    assert r.tolist() == pytest.approx([EXPECTED[m][1] for m in models], abs=5e-7)
    # GPT-4o, which refuses without an image, is the most robust by this score; GPT-5 and Gemini the
    # least
    assert models[int(np.argmax(r))] == "GPT-4o"


def test_clipping_at_zero():
    # GPT-4o: text-only below chance (T2) and accuracy *up* after substitution (T5) give zero
    # fragility
    assert fragility_t2(3.43) == 0.0
    assert fragility_t5(36.67, 41.67) == 0.0
    assert fragility_t3(33.71, 33.71) == 0.0
    assert fragility_t2(100.0) == 1.0


def test_t1_weights_by_items():
    assert float(fragility_t1([80.0, 60.0], [70.0, 60.0], [1, 1])) == pytest.approx(0.05)
    assert float(fragility_t1([80.0, 60.0], [70.0, 60.0], [3, 1])) == pytest.approx(0.075)
    with pytest.raises(ValueError):
        fragility_t1([80.0], [70.0], [0])
    with pytest.raises(ValueError):
        fragility_t1([80.0, 60.0], [70.0], [1, 1])


def test_t4_terms_and_weights():
    # each term alone: text loss 0.5, image gain 0.3, UNK gain 0.2 (fractions of the pp change /
    # 100)
    assert float(fragility_t4(40, 20, 60, 60, 40)) == pytest.approx(0.5 * 0.2)
    assert float(fragility_t4(40, 40, 60, 90, 40)) == pytest.approx(0.3 * 0.3)
    assert float(fragility_t4(40, 40, 60, 60, 50)) == pytest.approx(0.2 * 0.1)
    assert float(fragility_t4(40, 40, 60, 60, 50, text_base_unk=45)) == pytest.approx(0.2 * 0.05)
    assert float(fragility_t4(100, 0, 0, 100, 100, text_base_unk=0)) == 1.0  # the maximum
    with pytest.raises(ValueError, match="weights"):
        fragility_t4(40, 20, 60, 60, 40, weights=(0.5, 0.5))


def test_chance_parameter():
    assert float(fragility_t2(60.0, chance=20.0)) == pytest.approx(0.5)
    assert float(fragility_t2(60.0, chance=25.0)) == pytest.approx(35 / 75)
    with pytest.raises(ValueError, match="chance"):
        fragility_t2(60.0, chance=100)


def test_bad_values():
    with pytest.raises(ValueError, match="percent"):
        fragility_t3(0.4, 1.2e2)
    with pytest.raises(ValueError, match="percent"):
        fragility_t5(float("nan"), 10)
    with pytest.raises(ValueError, match="five tests"):
        robustness_score([0.1, 0.2])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        robustness_score([0.1, 0.2, 0.3, 0.4, 1.5])


# -- records ------------------------------------------------------------------------------------


def _records(model, condition, n, n_correct, *, source="NEJM", visreq=True, start=0):
    out = []
    for i in range(n):
        out.append(
            {
                "suite": "readiness",
                "model": model,
                "condition": condition,
                "probe_id": f"{source}-{start + i}:{condition}",
                "case_id": f"{source}-{start + i}",
                "probe_kind": "original",
                "source_dataset": source,
                "text_only_answerable": False if visreq else None,
                "correct_letter": "A",
                "predicted_letter": "A" if i < n_correct else ("B" if i % 2 else None),
                "parse_status": "ok",
            }
        )
    return out


def _model_records(model="m"):
    c = READINESS_CONDITIONS
    recs = []
    recs += _records(model, c["image"], 20, 16, source="JAMA", visreq=False, start=100)  # 80 %
    recs += _records(model, c["text"], 20, 15, source="JAMA", visreq=False, start=100)  # 75 %
    recs += _records(model, c["image"], 10, 8)  # NEJM 80 %
    recs += _records(model, c["text"], 10, 5)  # 50 %
    recs += _records(model, c["text_reordered"], 10, 3)  # 30 %
    recs += _records(model, c["text_4r"], 10, 2)  # 20 %
    recs += _records(model, c["image_4r"], 10, 10)  # 100 %
    recs += _records(model, c["text_unk"], 10, 7)  # 70 %
    recs += _records(model, c["image_subst"], 4, 1)  # 25 % on NEJM-0..3; original there: 4/4
    return recs


def test_score_records_matches_the_formulas():
    out = score_records(_model_records())["m"]
    f1 = float(fragility_t1([80.0, 80.0], [75.0, 50.0], [20, 10]))
    expected = [
        f1,
        (50 - 20) / 80,
        (50 - 30) / 100,
        0.5 * 0.30 + 0.3 * 0.20 + 0.2 * 0.20,
        (100 - 25) / 100,
    ]
    assert [out["fragility"][t] for t in ("T1", "T2", "T3", "T4", "T5")] == pytest.approx(expected)
    assert out["R"] == pytest.approx(float(robustness_score(expected)))
    assert out["accuracies"]["T1"]["JAMA"] == {"image": 80.0, "text": 75.0, "n": 20}
    assert out["missing_tests"] == [] and out["partial"] is False


def test_score_records_missing_tests():
    recs = [r for r in _model_records() if r["condition"] != READINESS_CONDITIONS["image_subst"]]
    out = score_records(recs)["m"]
    assert out["fragility"]["T5"] is None and out["R"] is None and out["missing_tests"] == ["T5"]
    part = score_records(recs, allow_partial=True)["m"]
    assert part["partial"] is True and part["R"] == pytest.approx(
        np.mean([1 - v for k, v in part["fragility"].items() if k != "T5"])
    )
    with pytest.raises(ValueError, match="suite"):
        score_records([{**recs[0], "suite": "cbd"}])
    # renamed conditions
    renamed = [
        {**r, "condition": "img"} if r["condition"] == "default" else r for r in _model_records()
    ]
    assert score_records(renamed, conditions={"image": "img"})["m"]["R"] == pytest.approx(
        score_records(_model_records())["m"]["R"]
    )


def test_variant_arms_and_image_reorder():
    c = READINESS_CONDITIONS
    recs = _model_records()
    recs += _records("m", c["text_1r"], 10, 4)  # 40 % vs the text base 50 %
    recs += _records("m", c["image_2r"], 5, 5)  # 100 % vs the image base on NEJM-0..4: 5/5
    recs += _records("m", c["image_unk"], 10, 9)  # 90 % vs the image base 80 %
    recs += _records("m", c["image_reordered"], 10, 6)  # 60 %
    out = score_records(recs)["m"]
    v = out["accuracies"]["T4_variants"]
    assert v["text_1r"] == {"base": 50.0, "accuracy": 40.0, "n": 10}
    assert v["image_2r"] == {"base": 100.0, "accuracy": 100.0, "n": 5}
    assert v["image_unk"] == {"base": 80.0, "accuracy": 90.0, "n": 10}
    assert v["text_4r"]["accuracy"] == 20.0 and v["text_unk"]["accuracy"] == 70.0
    t3 = out["accuracies"]["T3"]
    assert (
        t3["image_orig"] == 80.0 and t3["image_reordered"] == 60.0 and t3["text_reordered"] == 30.0
    )
    # R(m) reads 4R and text UNK only, as the paper's f4: the variants do not move it
    assert out["R"] == pytest.approx(score_records(_model_records())["m"]["R"])


def test_parse_cot():
    from medvigil.suites.readiness.reasoning import parse_cot

    options = ["Dermatomyositis", "Endocarditis", "Lichen planus"]
    r = parse_cot(
        "<thinking>Heliotrope rash suggests dermatomyositis; B. is unlikely, so A.</thinking>"
        "<answer>A. Dermatomyositis</answer>",
        options,
    )
    assert r == {"answer": "A", "well_formed": True, "thinking_conclusion": "A"}
    r = parse_cot(
        "<thinking>The lesion looks like lichen planus.</thinking><answer>B: Endocarditis</answer>",
        options,
    )
    assert r == {
        "answer": "B",
        "well_formed": True,
        "thinking_conclusion": "C",
    }  # reasoning and answer disagree
    assert parse_cot("C", options) == {
        "answer": "C",
        "well_formed": False,
        "thinking_conclusion": None,
    }
    assert parse_cot("<answer>none of these</answer>", options)["answer"] is None
    assert parse_cot("I think option D", options)["answer"] is None  # beyond K = 3


def test_reasoning_audit_hand_case():
    from medvigil.suites.readiness.reasoning import reasoning_audit

    def rec(case, letter, gold="A", cot=None):
        extra = {"options_shown": ["x", "y", "z"], **({"cot": cot} if cot else {})}
        return {"case_id": case, "predicted_letter": letter, "correct_letter": gold, "extra": extra}

    direct = [rec("c1", "A"), rec("c2", "A"), rec("c3", "B"), rec("c4", "C")]
    cot = [
        rec("c1", "A", cot={"answer": "A", "well_formed": True, "thinking_conclusion": "A"}),
        rec("c2", "B", cot={"answer": "B", "well_formed": True, "thinking_conclusion": "A"}),
        rec("c3", "A", cot={"answer": "A", "well_formed": False, "thinking_conclusion": None}),
        rec("c4", "C", cot={"answer": "C", "well_formed": True, "thinking_conclusion": "C"}),
        rec("c9", "A", cot={"answer": "A", "well_formed": True, "thinking_conclusion": "A"}),
    ]  # no direct answer
    a = reasoning_audit(direct, cot)
    # paired c1-c4: direct right on c1, c2 (50 %); CoT right on c1, c3 (50 %); changed c2 and c3 (50
    # %)
    assert a["n"] == 4 and a["direct"] == 50.0 and a["cot"] == 50.0 and a["cot_minus_direct"] == 0.0
    assert a["answer_change"] == 50.0 and a["right_to_wrong"] == 1 and a["wrong_to_right"] == 1
    # over all five CoT responses: 4 well formed; 4 conclude, 3 of them agree with the answer
    assert (
        a["well_formed"] == 80.0
        and a["n_concluded"] == 4
        and a["reasoning_answer_agreement"] == 75.0
        and a["n_unpaired"] == 1
    )


def test_degenerate_gold_letters_are_flagged():
    """One letter gold in more than 1/K + 20 points of an arm's docs (40 % with five options): a
    warning naming model, condition, letter and share; balanced arms and short arms (< 10 docs)
    pass."""
    import doctest

    from medvigil.suites.readiness import gold_letters

    assert doctest.testmod(gold_letters).failed == 0
    c = READINESS_CONDITIONS
    five = {"options_shown": list("abcde")}
    recs = [{**r, "extra": five} for r in _records("m", c["text"], 20, 10)]  # all gold A
    (warning,) = gold_letter_warnings(recs)
    assert warning.startswith("model m, condition 'noimg': letter A is the gold of 20 of 20 docs")
    balanced = [{**r, "correct_letter": "ABCDE"[i % 5]} for i, r in enumerate(recs)]
    assert gold_letter_warnings(balanced) == []
    at_limit = [
        {**r, "correct_letter": "A" if i < 8 else "BCDE"[i % 4]} for i, r in enumerate(recs)
    ]
    assert gold_letter_warnings(at_limit) == []  # 8 of 20 = 40 %: not above
    assert gold_letter_warnings(recs[:9]) == []  # too few docs to say
    two = [{**r, "extra": {"options_shown": ["yes", "no"]}} for r in recs]
    two = [{**r, "correct_letter": "A" if i < 14 else "B"} for i, r in enumerate(two)]
    assert gold_letter_warnings(two) == []  # 70 % of two-option docs: at the limit 1/2 + 20
