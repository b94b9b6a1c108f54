"""The evaluate modules set_accuracy, calibration_shift and quadrant_fractions.

Each loads offline from the repository, runs its doctests (more than one example), has a
``_compute`` without ``**kwargs``, declares its per-example columns as typed features,
returns what the scoring core returns, and has a card with the fixed sections.
"""

import doctest
import functools
import inspect
import json
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
evaluate = pytest.importorskip("evaluate")

from medvigil.suites.cbd.scoring import quadrant_scores
from medvigil.suites.mediconfusion.scoring import score_rows
from medvigil.suites.medqdeg.scoring import score_trials

ROOT = Path(__file__).resolve().parents[1]
MODULES = {
    "set_accuracy": ("categories", {"pair_ids", "categories"}),
    "calibration_shift": ("degradation", {"n_options", "degradations", "severities"}),
    "quadrant_fractions": (
        "probabilities",
        {"paraphrase_predictions", "text_only_predictions", "probabilities"},
    ),
}
# where each card states the paper's definition (MediConfusion has no numbered equations)
PAPER_ANCHOR = {
    "set_accuracy": "(Sec. 3.1)",
    "calibration_shift": "(Eq. 4)",
    "quadrant_fractions": "(Eq. 4)",
}
CARD_SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "## Examples",
    "## Limitations and Bias",
    "## Citation",
    "## Further References",
)


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # evaluate.load("metrics/<name>") is relative to the repository root


@functools.cache
def _load(name, config=None):
    """Load once per (module, configuration); a loaded metric can compute many times."""
    path = str(ROOT / "metrics" / name)
    return evaluate.load(path, config) if config else evaluate.load(path)


@pytest.mark.parametrize("name", list(MODULES))
def test_doctests_pass(name):
    metric = _load(name)
    module = sys.modules[type(metric).__module__]
    test = doctest.DocTestParser().get_doctest(
        module._KWARGS_DESCRIPTION, {"evaluate": evaluate}, name, None, 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: print(s, end=""))
    result = runner.summarize(verbose=False)
    assert result.attempted > 1 and result.failed == 0


@pytest.mark.parametrize("name", list(MODULES))
def test_module_shape(name):
    config, extra_columns = MODULES[name]
    metric = _load(name, config)
    module = sys.modules[type(metric).__module__]
    for attr in ("_DESCRIPTION", "_KWARGS_DESCRIPTION", "_CITATION"):
        assert getattr(module, attr).strip()
    params = inspect.signature(type(metric)._compute).parameters.values()
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params), (
        "_compute must not take **kwargs"
    )
    assert extra_columns <= set(metric.features)
    with pytest.raises(ValueError, match="unknown configuration"):
        evaluate.load(str(ROOT / "metrics" / name), "nonsense")


@pytest.mark.parametrize("name", list(MODULES))
def test_card_sections(name):
    text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    positions = [text.find(section) for section in CARD_SECTIONS]
    assert all(p >= 0 for p in positions), [s for s, p in zip(CARD_SECTIONS, positions) if p < 0]
    assert positions == sorted(positions)
    assert PAPER_ANCHOR[name] in text  # the paper's definition is stated


def test_set_accuracy_equals_core():
    preds = ["A", "B", "A", "A", "", "B", "B", "A", "A", ""]
    refs = ["A", "B", "B", "A", "A", "B", "B", "A", "A", "B"]
    pairs = ["1", "1", "2", "2", "3", "3", "4", "4", "5", "5"]
    cats = [
        ["Cardiac"],
        ["Cardiac", "Vascular"],
        ["Spinal"],
        ["Spinal"],
        ["Pulmonary"],
        ["Pulmonary"],
        ["Cerebral"],
        ["Vascular"],
        [],
        ["Cerebral"],
    ]
    for denominator in ("both_valid", "all_pairs"):
        plain = _load("set_accuracy").compute(
            predictions=preds, references=refs, pair_ids=pairs, confusion_denominator=denominator
        )
        core = score_rows(preds, refs, pairs, confusion_denominator=denominator).to_dict()
        core.pop("per_category")
        assert plain == core
        with_cats = _load("set_accuracy", "categories").compute(
            predictions=preds,
            references=refs,
            pair_ids=pairs,
            categories=cats,
            confusion_denominator=denominator,
        )
        assert (
            with_cats
            == score_rows(preds, refs, pairs, cats, confusion_denominator=denominator).to_dict()
        )


def test_set_accuracy_add_batch_and_errors():
    metric = _load("set_accuracy")
    metric.add_batch(predictions=["A", "B"], references=["A", "B"], pair_ids=["1", "1"])
    metric.add_batch(predictions=["A", "A"], references=["B", "A"], pair_ids=["2", "2"])
    assert metric.compute()["set_accuracy"] == 0.5
    with pytest.raises(ValueError, match="exactly two rows"):
        metric.compute(predictions=["A"], references=["A"], pair_ids=["1"])


def test_calibration_shift_equals_core():
    trials = [list("AAAAAAAAAA"), list("AAAAAAAABB"), list("BBBBBBBBBB"), ["A", "", "B", "A"]]
    refs = ["A", "A", "A", "B"]
    k = [4, 4, 4, 2]
    for rule in ("trial_mean", "plurality"):
        for policy in ("extra_bin", "drop"):
            got = _load("calibration_shift").compute(
                predictions=trials,
                references=refs,
                n_options=k,
                accuracy_rule=rule,
                invalid_policy=policy,
            )
            assert got == score_trials(trials, refs, k, accuracy_rule=rule, invalid_policy=policy)
    degs, sevs = ["clean", "clean", "blur", "blur"], [0, 0, 2, 2]
    got = _load("calibration_shift", "degradation").compute(
        predictions=trials, references=refs, n_options=k, degradations=degs, severities=sevs
    )
    assert got == score_trials(trials, refs, k, degs, sevs)


def test_quadrant_fractions_equals_core():
    preds = ["A", "B", "B", "B", "", "A"]
    paras = [["A"], ["A", "B"], ["B"], ["A"], ["A"], ["A", "A", "A"]]
    texts = ["B", "A", "B", "B", "A", "A"]
    refs = ["A", "A", "B", "A", "A", "B"]
    probs = [[0.8, 0.2], [0.4, 0.6], [0.1, 0.9], [], [0.5, 0.5], [0.99, 0.01]]
    for invalid in ("exclude", "as_answer"):
        got = _load("quadrant_fractions").compute(
            predictions=preds,
            paraphrase_predictions=paras,
            text_only_predictions=texts,
            references=refs,
            invalid=invalid,
        )
        assert got == quadrant_scores(preds, paras, texts, refs, invalid=invalid)
    got = _load("quadrant_fractions", "probabilities").compute(
        predictions=preds,
        paraphrase_predictions=paras,
        text_only_predictions=texts,
        references=refs,
        probabilities=probs,
    )
    assert got == quadrant_scores(preds, paras, texts, refs, probs)
    assert json.dumps(got, allow_nan=False)


def test_set_accuracy_on_an_official_run():
    """The module, fed the adapter's records, gives the official totals of gpt_mc."""
    fixtures = (
        Path(os.environ.get("MEDVIGIL_SHARED", ROOT.parent / "shared"))
        / "fixtures"
        / "mediconfusion"
    )
    if not (fixtures / "dataset.json").is_file():
        pytest.skip(f"MediConfusion fixtures not found at {fixtures}")
    from medvigil.suites.mediconfusion.authors_results import read_results, read_score_file
    from medvigil.suites.mediconfusion.release import read_release

    run = read_results(fixtures / "Results__gpt_mc.json", read_release(fixtures / "dataset.json"))
    recs = run.records
    r = _load("set_accuracy", "categories").compute(
        predictions=[x["predicted_letter"] or "" for x in recs],
        references=[x["correct_letter"] for x in recs],
        pair_ids=[x["case_id"] for x in recs],
        categories=[x["extra"]["categories"] for x in recs],
    )
    official = read_score_file(fixtures / "Results__gpt_mc_scores.json")
    assert (r["set_correct"], r["individual_correct"], r["confused"]) == (34, 198, 130)
    assert {c: v["set_correct"] for c, v in r["per_category"].items()} == {
        c: n for c, n in official["set_score"].items() if c != "total"
    }
