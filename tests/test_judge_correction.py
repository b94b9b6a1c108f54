"""The open-ended judge's error carried into its rates: Rogan-Gladen on hand cases, Se/Sp read only
from the validation sets marked blind, a joint CI wider than the raw one, and ``medvigil score`` on
open-ended harness files printing raw and corrected rates with the judge named (sets built in tmp
folders)."""

import json

import numpy as np
import pytest

from medvigil.cli import main
from medvigil.errors import DataError
from medvigil.suites.medvigil.scoring import judge_correction as jc
from medvigil.suites.medvigil.scoring import judge_set_index as set_index

REFUSALS = [
    "I cannot see any image attached.",
    "The image is completely black; I can't assess it.",
    "Unable to determine from this scan.",
    "I don't know.",  # the judge flags it
]
ANSWERS = [
    "Right lower lobe consolidation.",
    "Large right tension pneumothorax.",
    "No pneumothorax.",
    "The heart is normal in size.",
]


def _row(answer, refusal, critical, **extra):
    return {"question": "What is seen?", "answer": answer, "probe_kind": "original"} | {
        "label_is_refusal": refusal,
        "label_is_critical": critical,
        **extra,
    }


def _folder(tmp_path, sets):
    folder = tmp_path / "sets"
    folder.mkdir()
    entries = []
    for name, blind, rows in sets:
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        entries.append({"name": name, "file": f"{name}.jsonl", "author": "test", "blind": blind})
    (folder / "index.json").write_text(json.dumps({"format": 1, "sets": entries}))
    return folder


def test_rogan_gladen_on_hand_cases():
    assert jc.rogan_gladen(0.5, 1.0, 1.0) == (0.5, False)  # a perfect judge changes nothing
    p, clipped = jc.rogan_gladen(0.3, 0.8, 0.9)
    assert p == pytest.approx((0.3 + 0.9 - 1) / (0.8 + 0.9 - 1)) and not clipped
    assert jc.rogan_gladen(0.95, 0.8, 0.9) == (1.0, True)  # above Se: clipped
    assert jc.rogan_gladen(0.3, 0.5, 0.5) == (None, False)  # no better than chance: undefined


def test_se_and_sp_come_from_the_blind_sets_only(tmp_path):
    blind = [_row(a, True, False) for a in REFUSALS] + [
        _row(ANSWERS[0], False, False),
        _row(ANSWERS[1], False, True),
        _row(ANSWERS[2], False, False),
        _row("I cannot see the lesion clearly but it is a fracture.", False, False),
        _row("Possible small pneumothorax.", False, True),  # labelled critical, judged hedged
    ]
    other = [_row("x", True, True)] * 5  # would change Se/Sp if it were used
    folder = _folder(tmp_path, [("b1", True, blind), ("mine", False, other)])
    error = jc.judge_error("grammar", folder)
    assert error["sets"] == ["b1"] and error["not_blind"] == ["mine"]
    flag, label = error["refusal"]["pairs"]
    assert len(flag) == 9 and error["refusal"]["se"] == flag[label].mean()
    assert error["critical"]["se"] == 0.5 and error["critical"]["sp"] == 1.0


def test_the_index_is_checked(tmp_path):
    folder = _folder(tmp_path, [("b1", True, [_row("a", True, False)])])
    index = json.loads((folder / "index.json").read_text())
    index["sets"][0]["blind"] = "yes"
    index["sets"].append({"name": "x", "file": "../escape.jsonl", "author": "a", "blind": True})
    (folder / "index.json").write_text(json.dumps(index))
    with pytest.raises(DataError) as caught:
        set_index.read_index(folder)
    text = "\n".join(map(str, caught.value.problems))
    assert "field 'blind'" in text and "not a file of this folder" in text


def test_the_shipped_index_reads_and_names_its_sets():
    sets = set_index.read_index(set_index.SETS_DIR)
    assert sets and all((set_index.SETS_DIR / s["file"]).is_file() for s in sets)
    assert not any(s["blind"] for s in sets if s["name"] == "author_dev")
    # the twenty-six sets written blind ship marked so (the correction uses them)
    blind = sorted(s["name"] for s in sets if s["blind"])
    assert blind == [f"blind_{x}" for x in "abcdefghijklmnopqrstuvwxyz"]


def _records(n_cases=40, refused_share=0.5, critical_share=0.25):
    out = []
    for i in range(n_cases):
        refused = i < n_cases * refused_share
        out.append(
            {
                "model": "m",
                "condition": "open",
                "case_id": f"c{i}",
                "correct_letter": "E",
                "predicted_letter": "E" if refused else "B",
                "extra": {"open_judge": "grammar", "is_critical": i < n_cases * critical_share},
            }
        )
    return out


def test_the_fresh_sets_were_never_training_data(monkeypatch):
    from medvigil.suites.medvigil.scoring.answer_files import read_answers
    from medvigil.suites.medvigil.scoring.judge_model import labelled_rows

    fresh = set_index.read_index(set_index.FRESH_DIR)
    assert fresh and all(s["blind"] for s in fresh)
    trained = labelled_rows()
    assert not {s["name"] for s in fresh} & {r["_set"] for r in trained}
    pairs = {(r["question"], r["answer"]) for r in trained}
    for entry in fresh:
        rows = read_answers(str(set_index.FRESH_DIR / entry["file"]))
        assert len(rows) >= 100 and not {r["id"] for r in rows} & {r.get("id") for r in trained}
        # a few short pairs ("Which side ...?" / "Right.") were written word for word by others too
        assert len({(r["question"], r["answer"]) for r in rows} & pairs) <= 0.05 * len(rows)
    # the correction reads them by default, with the flags of the judge as fitted
    assert jc.default_held_out(set_index.FRESH_DIR) == "fitted"
    monkeypatch.delenv(set_index.SETS_VARIABLE, raising=False)
    assert set_index.sets_folder() == set_index.FRESH_DIR


def test_corrected_rates_and_their_joint_interval(tmp_path):
    rows = [_row(a, True, False) for a in REFUSALS * 5] + [
        _row(a, False, a == ANSWERS[1]) for a in ANSWERS * 5
    ]
    rows += [_row(REFUSALS[0], False, False)] * 2  # labels the judge disagrees with: false refusals
    folder = _folder(tmp_path, [("b1", True, rows)])
    rates = jc.open_rates(_records(), "open", n_resamples=400, folder=folder)
    error = jc.judge_error("grammar", folder)
    sfr = rates["models"]["m"]["sfr"]
    q = 0.5
    p, _ = jc.rogan_gladen(q, error["refusal"]["se"], error["refusal"]["sp"])
    assert sfr["raw"] == pytest.approx(1 - q) and sfr["corrected"] == pytest.approx(1 - p)
    assert error["refusal"]["sp"] < 1  # the false refusals move the estimate
    low, high = sfr["corrected_ci"]
    assert low <= sfr["corrected"] <= high
    assert high - low > sfr["raw_ci"][1] - sfr["raw_ci"][0]  # the judge's uncertainty widens it
    critical = rates["models"]["m"]["critical_rate"]
    assert critical["raw"] == pytest.approx(0.25) and critical["n"] == 40
    assert rates["models"]["m"]["judge"] == "grammar"
    assert rates["judges"]["grammar"]["validated_on"] == ["b1"]


def test_without_a_blind_set_the_rates_stay_raw_and_say_so(tmp_path):
    folder = _folder(tmp_path, [("mine", False, [_row("a", True, False)])])
    rates = jc.open_rates(_records(), "open", n_resamples=50, folder=folder)
    assert rates["models"]["m"]["sfr"]["corrected"] is None
    assert "no blind validation set" in rates["judges"]["grammar"]["note"]
    assert "no blind validation set" in jc.format_rates(rates)


def test_answers_in_other_languages_are_counted_and_named(tmp_path):
    folder = _folder(tmp_path, [("b1", True, [_row(a, True, False) for a in REFUSALS * 2])])
    records = _records(n_cases=4)
    answers = ("未提供图像。", "No hay hemorragia en la imagen y la línea media está centrada.")
    answers += ("L SDH 8mm, MLS 4mm", "There is no pneumothorax.")
    for record, answer in zip(records, answers):
        record["raw_response"] = answer
    rates = jc.open_rates(records, "open", n_resamples=20, folder=folder)
    block = rates["models"]["m"]
    assert (block["other_language_answers"], block["answers"]) == (2, 4)
    assert "m: 2 of 4 answers are in another language" in jc.format_rates(rates)


def test_the_bootstrap_blocks_bound_memory_and_keep_the_count():
    rng = np.random.default_rng(0)
    blocks = list(jc._draws(rng, 3_000_000, 5))
    assert sum(len(b) for b in blocks) == 5 and all(b.size <= 3_000_000 for b in blocks)


def test_score_prints_raw_and_corrected_open_rates(tmp_path, monkeypatch, capsys):
    rows = [_row(a, True, False) for a in REFUSALS * 3] + [
        _row(a, False, a == ANSWERS[1]) for a in ANSWERS * 3
    ]
    monkeypatch.setenv(set_index.SETS_VARIABLE, str(_folder(tmp_path, [("b1", True, rows)])))
    lines = []
    for i in range(12):
        answer = REFUSALS[0] if i % 3 == 0 else ANSWERS[1] if i % 3 == 1 else ANSWERS[0]
        lines.append(
            {
                "probe_id": f"C{i}__halluc_trap",
                "case_id": f"C{i}",
                "probe_kind": "halluc_trap",
                "format": "open",
                "model_id": "m",
                "image_file": "x.jpg",
                "question": "How large is the effusion?",
                "model_answer": answer,
                "latency_ms": 1,
                "usage": {},
                "status": "ok",
                "timestamp": "t",
                "expected_answer_or_set": "",
                "halluc_explanation": "",
                "expected_behavior": "refuse",
            }
        )
    path = tmp_path / "m__open.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "score.json"
    args = [
        "score",
        "--suite",
        "medvigil",
        str(path),
        "--condition",
        "open",
        "--n-resamples",
        "100",
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "Rogan-Gladen" in text and "| m | grammar | SFR | 12 |" in text and "b1" in text
    # another folder's blind sets are not the judge's training data: its own flags are held out
    assert "blind sets b1 (fitted)" in text
    assert main(args + ["--json", str(out)]) == 0
    rates = json.loads(out.read_text())["open_judge_rates"]["models"]["m"]
    assert rates["sfr"]["raw"] == pytest.approx(8 / 12)
    assert rates["critical_rate"]["raw"] == pytest.approx(4 / 12)
    assert rates["sfr"]["corrected"] is not None and rates["sfr"]["corrected_ci"]
