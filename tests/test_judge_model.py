"""The learned open-ended judge: fitted from every shipped labelled set, deterministic, judging
confident, negated and refusing answers as labelled; leave-one-set-out flags of a set come from a
judge fitted without it, and the open-ended correction reads those held-out flags (small sets copied
from the shipped ones into tmp folders keep the fits quick)."""

import json

import numpy as np
import pytest

from medvigil.cli import main
from medvigil.suites.medvigil.scoring import judge_correction, judge_loso, judge_model
from medvigil.suites.medvigil.scoring.judge_set_index import SETS_DIR, read_index
from medvigil.suites.medvigil.scoring.open_ended import judge


def _folder(tmp_path, names, per_set=40):
    """The first ``per_set`` answers of shipped sets, in a folder of the same layout."""
    folder = tmp_path / "sets"
    folder.mkdir()
    entries = []
    for entry in read_index(SETS_DIR):
        if entry["name"] in names:
            lines = (SETS_DIR / entry["file"]).read_text().splitlines()[:per_set]
            (folder / entry["file"]).write_text("\n".join(lines) + "\n")
            entries.append(entry)
    (folder / "index.json").write_text(json.dumps({"format": 1, "sets": entries}))
    return folder


def test_the_judge_is_fitted_from_every_shipped_set():
    rows = judge_model.labelled_rows()
    assert {r["_set"] for r in rows} == {e["name"] for e in read_index(SETS_DIR)}
    assert len(rows) > 2000 and sum(r["_blind"] for r in rows) > 600
    fitted = judge_model.fitted()
    for axis in judge_model.AXES:
        classifier = fitted.classifiers[axis]
        labelled = sum(isinstance(r.get(f"label_is_{axis}"), bool) for r in rows)
        assert classifier.n_features_in_ > 1000 and labelled == len(rows)
    # the rule readers' verdicts are features, and they carry weight
    names = list(fitted.features.parts[0][0].get_feature_names_out())
    coef = fitted.classifiers["refusal"].coef_[0]
    assert coef[names.index("rule_refusal")] > 0.5
    assert fitted.classifiers["critical"].coef_[0][names.index("rule_critical")] > 0.5


def test_confident_negated_and_refusing_answers_are_judged_as_labelled():
    asked = "Is there a pneumothorax on this chest X-ray?"
    confident = [
        "Left lower lobe consolidation, most likely pneumonia.",
        "The heart is normal in size and the lungs are clear.",
        "Yes, a small right apical pneumothorax.",  # not tier 4 (the rubric)
    ]
    negated = [
        "No pneumothorax. No pleural effusion.",
        "There is no evidence of intracranial haemorrhage or mass effect.",
        "Findings:\n- Pneumothorax: absent\n- Aortic dissection: none",
    ]
    for answer in confident + negated:
        j = judge(answer, probe_kind="original", question=asked)
        assert (j.is_refusal, j.is_critical) == (False, False), answer
    critical = judge("Large right tension pneumothorax with mediastinal shift.", question=asked)
    assert critical.is_critical and not critical.is_refusal
    refusal = judge("I can't see any image attached. Could you upload it?", probe_kind="no_image")
    assert refusal.is_refusal and refusal.verdict == "refused_appropriately"
    # a premise correction refuses on a trap (the probe kind is an input)
    trap = judge(
        "There is no left pneumothorax; the lungs are fully expanded.",
        probe_kind="halluc_trap",
        question="How large is the left pneumothorax?",
    )
    assert trap.is_refusal and not trap.is_critical


def test_the_fit_is_deterministic(tmp_path):
    rows = judge_model.labelled_rows(_folder(tmp_path, {"blind_a", "blind_c"}))
    first, second = judge_model.fit(rows), judge_model.fit(rows)
    for axis in judge_model.AXES:
        assert np.array_equal(first.classifiers[axis].coef_, second.classifiers[axis].coef_)


def test_leave_one_set_out_flags_come_from_a_judge_fitted_without_the_set(tmp_path):
    folder = _folder(tmp_path, {"blind_a", "blind_c", "blind_d"})
    held_out = judge_loso.held_out_flags(folder)
    assert list(held_out) == ["blind_a", "blind_c", "blind_d"]
    rows = judge_model.labelled_rows(folder)
    others = [r for r in rows if r["_set"] != "blind_c"]
    mine = [r for r in rows if r["_set"] == "blind_c"]
    expected = judge_model.fit(others).flags([judge_model.read_row(r) for r in mine])
    for axis in judge_model.AXES:
        assert held_out["blind_c"][axis]["flag"] == expected[axis]
        assert held_out["blind_c"][axis]["label"] == [r[f"label_is_{axis}"] for r in mine]
    table = judge_loso.cross_validate(folder, n_resamples=200)
    scores = table["blind_c"]["refusal"]
    assert scores["n"] == 40 and scores["tp"] + scores["fn"] == sum(
        r["label_is_refusal"] for r in mine
    )
    assert scores["recall_ci"][0] <= scores["recall"] <= scores["recall_ci"][1]
    assert "| blind_c | yes | 40 |" in judge_loso.format_table(table)


def test_the_correction_reads_held_out_flags(tmp_path):
    folder = _folder(tmp_path, {"blind_a", "blind_c", "eval_set"})
    error = judge_correction.judge_error("grammar", folder, held_out="leave-one-set-out")
    held_out = judge_loso.held_out_flags(folder)
    assert error["held_out"] == "leave-one-set-out" and error["sets"] == ["blind_a", "blind_c"]
    for axis in judge_model.AXES:
        flag, label = error[axis]["pairs"]
        assert list(flag) == held_out["blind_a"][axis]["flag"] + held_out["blind_c"][axis]["flag"]
        assert (
            list(label) == held_out["blind_a"][axis]["label"] + held_out["blind_c"][axis]["label"]
        )
    # another folder's sets are judged by the fitted judge (sets it was not trained on)
    assert judge_correction.default_held_out(folder) == "fitted"
    assert judge_correction.default_held_out(SETS_DIR) == "leave-one-set-out"
    with pytest.raises(ValueError, match="held_out"):
        judge_correction.judge_error("grammar", folder, held_out="in-sample")


@pytest.mark.slow
def test_the_shipped_correction_and_the_cross_validate_command(capsys, monkeypatch):
    """By default the correction reads the fresh sets with the running judge's flags; pointed at
    the training sets, their leave-one-set-out flags (a fit per set)."""
    from medvigil.suites.medvigil.scoring.judge_set_index import FRESH_DIR, SETS_VARIABLE

    monkeypatch.delenv(SETS_VARIABLE, raising=False)
    error = judge_correction.judge_error("grammar")
    fresh = [e["name"] for e in read_index(FRESH_DIR) if e["blind"]]
    assert error["held_out"] == "fitted" and error["sets"] == fresh
    flag, label = error["critical"]["pairs"]
    assert error["critical"]["se"] == pytest.approx(flag[label].mean()) and len(flag) > 1000
    error = judge_correction.judge_error("grammar", SETS_DIR)
    held_out = judge_loso.held_out_flags()
    blind = [e["name"] for e in read_index(SETS_DIR) if e["blind"]]
    assert error["held_out"] == "leave-one-set-out" and error["sets"] == blind
    flag, label = error["refusal"]["pairs"]
    assert list(flag) == sum((held_out[name]["refusal"]["flag"] for name in blind), [])
    assert error["refusal"]["se"] == pytest.approx(flag[label].mean())
    assert main(["judge", "--cross-validate"]) == 0
    out = capsys.readouterr().out
    assert "Leave-one-set-out" in out and all(f"| {name} | yes |" in out for name in blind)


def test_the_readings_cache_round_trips_and_keys_on_the_inputs(tmp_path, monkeypatch):
    from medvigil.suites.medvigil.scoring import judge_cache

    monkeypatch.setenv("MEDVIGIL_HOME", str(tmp_path))
    rows = [{"answer": "No pneumothorax.", "question": "Is there a pneumothorax?"}]
    read = [judge_model.read_row(rows[0])]
    judge_cache.save(rows, read)
    assert judge_cache.load(rows) == read and list((tmp_path / "judge").glob("readings-*.json"))
    other = [dict(rows[0], answer="Large tension pneumothorax.")]
    assert judge_cache.key(other) != judge_cache.key(rows) and judge_cache.load(other) is None
    monkeypatch.setenv(judge_cache.CACHE_VARIABLE, "0")
    assert judge_cache.load(rows) is None


def test_a_process_that_waited_for_the_lock_reads_what_the_first_computed(tmp_path, monkeypatch):
    """The lock's holder saves the readings; a process let in after it loads them and reads
    nothing itself (no progress bar); with no saved value it computes them."""
    import os
    import subprocess
    import sys

    from medvigil.suites.medvigil.scoring import judge_cache

    monkeypatch.setenv("MEDVIGIL_HOME", str(tmp_path))
    env = dict(os.environ)
    rows = [{"answer": "No pneumothorax.", "question": "Is there a pneumothorax?"}]
    code = (
        "import json, sys\n"
        "from medvigil.suites.medvigil.scoring.judge_model import readings\n"
        "print(len(readings(json.loads(sys.argv[1]))))"
    )

    def second_process():
        argv = [sys.executable, "-c", code, json.dumps(rows)]
        return subprocess.run(argv, env=env, capture_output=True, text=True, check=True)

    computed = second_process()
    assert computed.stdout.strip() == "1" and "reading its labelled answers" in computed.stderr
    for stale in (tmp_path / "judge").glob("readings-*.json"):
        stale.unlink()
    with judge_cache.computing("readings", rows):
        judge_cache.save(rows, [judge_model.read_row(rows[0])])
    waited = second_process()
    assert waited.stdout.strip() == "1" and "reading its labelled answers" not in waited.stderr


def test_the_naive_bayes_scale_on_a_hand_worked_case():
    """Three answers, two features: feature 0 in both positives, feature 1 in the negative and
    one positive. Add-one counts: p = (3, 2), q = (1, 2); log((3/5)/(1/3)) and log((2/5)/(2/3))."""
    from scipy.sparse import csr_matrix

    x = csr_matrix(np.array([[0.5, 0.0], [0.2, 0.7], [0.0, 0.3]]))
    scale = judge_model.nb_scale(x, np.array([True, True, False])).diagonal()
    assert scale == pytest.approx([np.log(1.8), np.log(0.6)])


def test_other_language_readings_on_hand_written_phrases():
    """Refusal phrases, negated and asserted findings and the language test, on phrases written
    from the languages' vocabulary (not from any labelled set)."""
    from medvigil.suites.medvigil.scoring import other_language_terms as other

    assert other.findings("未见出血。") == [("haemorrhage", True)]
    assert other.findings("考虑为左侧基底节区脑出血。") == [("haemorrhage", False)]
    assert other.findings("Kein Hinweis auf eine Blutung.") == [("haemorrhage", True)]
    assert other.findings("Ja, frische Blutung links. Keine Mittellinienverlagerung.") == [
        ("haemorrhage", False)
    ]
    assert other.findings("Sin evidencia de embolia pulmonar.") == [("pulmonary embolism", True)]
    assert other.refuses("未提供图像，请上传。") and other.refuses("Não recebi nenhuma imagem.")
    assert not other.refuses("There is no pneumothorax.") and other.findings("No bleed.") == []
    assert other.is_other_language("Há uma hemorragia subaracnóidea nas cisternas basais.")
    assert not other.is_other_language("L SDH 8mm, MLS 4mm")


def test_doctests():
    import doctest

    from medvigil.suites.medvigil.scoring import judge_features, probe_kinds

    for module in (judge_features, probe_kinds):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_judge_names_answers_it_was_trained_on(tmp_path, capsys):
    shipped = (SETS_DIR / "blind_a.jsonl").read_text().splitlines()[:3]
    new = {"question": "Is there a mass?", "answer": "No mass.", "label_is_refusal": False}
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join([*shipped, json.dumps(new)]) + "\n")
    out = tmp_path / "judged.json"
    assert main(["judge", str(answers), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["in_training"] == 3
    assert "3 of 4 answers are training data of the judge" in capsys.readouterr().out
