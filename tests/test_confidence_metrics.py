"""The evaluate modules selective_risk and calibration_error against hand-computed values.

Each loads offline from the repository, runs its doctests, equals the core
(:mod:`medvigil.scoring.confidence`) and values worked out by hand on small inputs (ties,
N = 1, all correct, a perfectly calibrated toy, bin edges), and refuses bad input.
"""

import doctest
import functools
import inspect
import math
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
evaluate = pytest.importorskip("evaluate")

from medvigil.scoring import confidence

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("selective_risk", "calibration_error")
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
def _load(name):
    return evaluate.load(f"metrics/{name}")


@pytest.mark.parametrize("name", NAMES)
def test_doctests_shape_and_card(name):
    metric = _load(name)
    module = sys.modules[type(metric).__module__]
    test = doctest.DocTestParser().get_doctest(
        module._KWARGS_DESCRIPTION, {"evaluate": evaluate}, name, None, 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: print(s, end=""))
    result = runner.summarize(verbose=False)
    assert result.attempted > 1 and result.failed == 0
    params = inspect.signature(type(metric)._compute).parameters.values()
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    assert {"confidences", "correct"} <= set(metric.features)
    text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    positions = [text.find(section) for section in CARD_SECTIONS]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    with pytest.raises(ValueError, match="unknown configuration"):
        evaluate.load(f"metrics/{name}", "nonsense")


def test_core_doctests():
    failed, attempted = doctest.testmod(confidence)
    assert attempted > 1 and failed == 0


def _selective(confidences, correct) -> dict:
    return _load("selective_risk").compute(confidences=confidences, correct=correct)


def _calibration(confidences, correct, n_bins=10) -> dict:
    return _load("calibration_error").compute(
        confidences=confidences, correct=correct, n_bins=n_bins
    )


def test_selective_risk_by_hand():
    # ties keep the input order: (0.5, wrong) before (0.5, right), then 0.9 ahead of both
    r = _selective([0.5, 0.9, 0.5, 0.1], [0, 1, 1, 0])
    # order: 0.9 (right), 0.5 (wrong), 0.5 (right), 0.1 (wrong)
    assert r["risk"] == [0.0, 0.5, 1 / 3, 0.5]
    assert r["coverage"] == [0.25, 0.5, 0.75, 1.0]
    assert r["aurc"] == pytest.approx((0 + 0.5 + 1 / 3 + 0.5) / 4, abs=1e-15)
    oracle = (0 + 0 + 1 / 3 + 0.5) / 4  # right, right, wrong, wrong
    assert r["e_aurc"] == pytest.approx(r["aurc"] - oracle, abs=1e-15)
    # the same tie the other way round: the right answer first
    assert _selective([0.5, 0.9, 0.5, 0.1], [1, 1, 0, 0])["e_aurc"] == 0.0
    # N = 1
    assert _selective([0.7], [1]) == {"aurc": 0.0, "e_aurc": 0.0, "coverage": [1.0], "risk": [0.0]}
    assert _selective([0.7], [0])["aurc"] == 1.0 and _selective([0.7], [0])["e_aurc"] == 0.0
    # all correct: no risk anywhere; all wrong: risk 1 everywhere, and no ranking can do better
    assert _selective([0.2, 0.9, 0.4], [1, 1, 1])["aurc"] == 0.0
    wrong = _selective([0.2, 0.9, 0.4], [0, 0, 0])
    assert wrong["aurc"] == 1.0 and wrong["e_aurc"] == 0.0
    # the worst ranking: errors first
    worst = _selective([0.9, 0.1], [0, 1])
    assert worst["risk"] == [1.0, 0.5] and worst["e_aurc"] == pytest.approx(0.75 - 0.25)
    assert all(isinstance(x, float) for x in (*worst["risk"], worst["aurc"], worst["e_aurc"]))


def test_calibration_error_by_hand():
    # perfectly calibrated toy: confidence 0.25 right 1 of 4, 0.75 right 3 of 4
    r = _calibration([0.25] * 4 + [0.75] * 4, [1, 0, 0, 0, 1, 1, 1, 0], n_bins=4)
    assert r["ece"] == 0.0 and r["mce"] == 0.0
    assert r["brier"] == pytest.approx((0.75**2 + 3 * 0.25**2) * 2 / 8, abs=1e-15)
    # right-closed bins: 0.3 is in (0.2, 0.3], 0.0 in the first bin, 1.0 in the last
    assert confidence.bin_index(
        confidence.np.array([0.0, 0.1, 0.3, 0.30001, 1.0]), 10
    ).tolist() == [
        0,
        0,
        2,
        3,
        9,
    ]
    r = _calibration([0.0, 0.1, 1.0], [0, 1, 1], n_bins=10)
    # bin 0 holds 0.0 (wrong) and 0.1 (right): acc 0.5, conf 0.05, gap 0.45; bin 9: gap 0
    assert r["ece"] == pytest.approx(2 / 3 * 0.45, abs=1e-15) and r["mce"] == pytest.approx(0.45)
    assert r["brier"] == pytest.approx((0 + 0.81 + 0) / 3, abs=1e-15)
    # N = 1 and all correct
    assert _calibration([0.6], [1]) == pytest.approx({"ece": 0.4, "mce": 0.4, "brier": 0.16})
    r = _calibration([1.0, 1.0, 0.5], [1, 1, 1], n_bins=2)
    assert r["ece"] == pytest.approx(0.5 / 3) and r["mce"] == 0.5
    assert r["brier"] == pytest.approx(0.25 / 3)
    # one bin: ECE = |accuracy - mean confidence|
    r = _calibration([0.9, 0.6, 0.3], [1, 0, 1], n_bins=1)
    assert r["ece"] == pytest.approx(abs(2 / 3 - 0.6)) == r["mce"]
    assert set(r) == {"ece", "mce", "brier"} and all(isinstance(v, float) for v in r.values())
    core = confidence.calibration_error([0.9, 0.6, 0.3], [True, False, True], n_bins=1)
    assert core["bins"] == {"count": [3], "accuracy": [2 / 3], "confidence": [0.6]}


BAD = [
    ([0.1, 0.2], [1], "differ in length"),
    ([], [], "empty"),
    ([0.2, math.nan], [1, 0], r"confidences\[1\] is NaN"),
    ([0.2, 1.5], [1, 0], r"confidences\[1\] = 1.5 is outside \[0, 1\]"),
    ([-0.1], [1], "outside"),
    ([0.5], [2], r"correct\[0\] must be"),
]


@pytest.mark.parametrize("confidences, correct, message", BAD)
def test_bad_input_is_refused(confidences, correct, message):
    for kernel in (confidence.selective_risk, confidence.calibration_error):
        with pytest.raises(ValueError, match=message):
            kernel(confidences, correct)
    for name in NAMES:
        with pytest.raises(ValueError):  # lengths that differ are refused by evaluate first
            _load(name).compute(confidences=confidences, correct=correct)
    with pytest.raises(ValueError, match="n_bins"):
        confidence.calibration_error([0.5], [1], n_bins=0)
    with pytest.raises(ValueError, match="n_bins"):
        _calibration([0.5], [1], n_bins=2.5)
