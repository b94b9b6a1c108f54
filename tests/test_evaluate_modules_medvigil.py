"""The mcs, sfr_w and vgr evaluate modules: load offline, run their doctests, declare typed
features for every input column, have explicit _compute parameters, and return exactly
what the scoring core returns."""

import doctest
import inspect
import math
import os
import sys
from pathlib import Path

import pytest

evaluate = pytest.importorskip("evaluate")
datasets = pytest.importorskip("datasets")

from medvigil.metrics import module_path
from medvigil.suites.medvigil.scoring.probe_columns import score_columns
from medvigil.suites.medvigil.scoring.scoring import audit

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("mcs", "sfr_w", "vgr")
COLUMNS = ("predictions", "references", "probe_kind", "case_id", "risk_tier")
CARD_SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "## Inputs",
    "## Output Values",
    "## Examples",
    "## Limitations and Bias",
    "## Citation",
    "## Further References",
)

KINDS = [
    "original",
    "tcf",
    "negation",
    "specificity_drop",
    "knowledge_only",
    "halluc_trap",
    "halluc_trap",
    "lr_flip",
    "roi_only",
    "roi_masked",
]
REFS = ["A", "A", "A", "A", "A", "E", "E", "A", "A", "E"]


def _inputs(n_cases=4):
    preds, refs, kinds, cases, tiers = [], [], [], [], []
    for c in range(n_cases):
        for j, (kind, ref) in enumerate(zip(KINDS, REFS)):
            right = (c + j) % 3 != 0
            preds.append(ref if right else ("" if j == 6 else "B"))
            refs.append(ref)
            kinds.append(kind)
            cases.append(f"MVB-{c:04d}")
            tiers.append(f"L{c % 5 + 1}" if c != 3 else "")
    return {
        "predictions": preds,
        "references": refs,
        "probe_kind": kinds,
        "case_id": cases,
        "risk_tier": tiers,
    }


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="module")
def loaded():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    return {name: evaluate.load(module_path(name)) for name in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_loads_by_relative_path_from_repo_root(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    metric = evaluate.load(f"metrics/{name}")
    assert type(metric).__name__.lower().replace("_", "") == name.replace("_", "")


@pytest.mark.parametrize("name", MODULES)
def test_doctests_run(name, loaded):
    module = sys.modules[type(loaded[name]).__module__]
    result = doctest.testmod(module, verbose=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 1


@pytest.mark.parametrize("name", MODULES)
def test_features_and_signature(name, loaded):
    metric = loaded[name]
    features = metric._info().features
    assert tuple(features) == COLUMNS
    for column in COLUMNS:
        assert features[column] == datasets.Value("string")
    params = inspect.signature(type(metric)._compute).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()), (
        "no **kwargs in _compute"
    )
    assert tuple(params)[1:6] == COLUMNS
    info = metric._info()
    assert "2605.07919" in info.citation and info.inputs_description.strip().startswith("Args:")


@pytest.mark.parametrize("name", MODULES)
def test_card_sections(name):
    text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    positions = [text.find(section) for section in CARD_SECTIONS]
    assert all(p >= 0 for p in positions), [s for s, p in zip(CARD_SECTIONS, positions) if p < 0]
    assert positions == sorted(positions)
    assert "harness_compatible" in text and "Eq." in text


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("n_resamples", [0, 40])
def test_results_equal_the_core(loaded, n_resamples):
    inputs = _inputs()
    core = score_columns(**inputs, n_resamples=n_resamples)
    mcs = loaded["mcs"].compute(**inputs, n_resamples=n_resamples)
    assert set(mcs) == set(core)
    assert all(_same(mcs[k], core[k]) for k in core)
    for key in (
        "mcs",
        "cap",
        "safe",
        "ground",
        "sfr_w",
        "vgr",
        "accuracy_original",
        "accuracy_roi_masked",
    ):
        assert key in mcs and isinstance(mcs[key], float)
    sfr = loaded["sfr_w"].compute(**inputs, n_resamples=n_resamples)
    assert all(_same(v, core[k]) for k, v in sfr.items())
    assert {"sfr_w", "sfr", "sfr_L1", "sfr_L5", "safe"} <= set(sfr)
    vgr = loaded["vgr"].compute(**inputs, n_resamples=n_resamples)
    assert all(_same(v, core[k]) for k, v in vgr.items())
    assert set(vgr) >= {"vgr", "roi_only", "roi_masked", "ground"}


def test_core_equals_audit_on_records(loaded):
    """score_columns is audit() on the equivalent probe records."""
    inputs = _inputs()
    records = [
        {
            "suite": "medvigil",
            "model": "x",
            "probe_id": f"p{i}",
            "case_id": c,
            "probe_kind": k,
            "risk_tier": t or None,
            "correct_letter": r,
            "predicted_letter": p or None,
            "parse_status": "ok" if p else "parse_failure",
        }
        for i, (p, r, k, c, t) in enumerate(zip(*(inputs[col] for col in COLUMNS)))
    ]
    metrics = audit(records, n_resamples=0)["models"]["x"]["metrics"]
    out = loaded["mcs"].compute(**inputs)
    assert all(_same(out[k], v) for k, v in metrics.items())


def test_options_pass_through(loaded):
    inputs = _inputs()
    for kwargs in (
        {"normalise": "all"},
        {"harness_compatible": True},
        {"weights": [1, 1, 1, 1, 1]},
    ):
        out = loaded["mcs"].compute(**inputs, **kwargs)
        core = score_columns(**inputs, **kwargs)
        assert all(_same(out[k], core[k]) for k in core), kwargs


def test_bad_inputs_raise(loaded):
    inputs = _inputs()
    with pytest.raises(ValueError, match="missing"):
        loaded["mcs"].compute(predictions=inputs["predictions"], references=inputs["references"])
    bad = dict(inputs, predictions=["Answer: B"] + inputs["predictions"][1:])
    with pytest.raises(ValueError, match="one capital letter"):
        loaded["mcs"].compute(**bad)
    with pytest.raises(ValueError, match="normalise"):
        loaded["mcs"].compute(**inputs, normalise="sometimes")


def test_add_batch_then_compute(loaded):
    metric = evaluate.load(module_path("vgr"))
    inputs = _inputs()
    half = len(inputs["references"]) // 2
    metric.add_batch(**{k: v[:half] for k, v in inputs.items()})
    metric.add_batch(**{k: v[half:] for k, v in inputs.items()})
    assert metric.compute() == loaded["vgr"].compute(**inputs)
