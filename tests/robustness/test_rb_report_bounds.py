"""Issue 29: ``report`` inputs are bounded and its names escaped: too many models, a huge name, a
name that matplotlib would parse as mathtext, metrics of 1e308 and negative counts are refused with
the field named (exit 2, nothing written), each beside a control that is drawn."""

import copy
import json

import pytest
from conftest import run_cli


def _block(mcs=50.0):
    return {
        "metrics": {"mcs": mcs, "overall": 60.0, "sfr": 10.0, "sfr_w": 10.0, "vgr": -12.5},
        "accuracy": {"original": 60.0},
        "sfr_by_tier": {"L1": 10.0},
        "n_by_tier": {"L1": 3},
        "counts": {"n_records": 4, "by_kind": {"original": {"n_scored": 4}}},
        "n_cases": 4,
        "ci": {
            "mcs": {"low": 40.0, "high": 60.0, "level": 0.95, "n_resamples": 500, "seed": 20260505}
        },
    }


def _scores(models) -> dict:
    return {"suite": "medvigil", "models": models, "params": {}, "warnings": []}


def _report(capsys, tmp_path, data, *, code=2, says=()):
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "rep"
    run_cli(
        capsys,
        ["report", path, "--out", out],
        code=code,
        says=["scores.json", *says] if code else [],
        inputs=[path],
        absent=[] if code == 0 else [out],
    )
    return out


BAD = [
    ("metric 1e308", lambda b: b["metrics"].update(mcs=1e308), "field 'models.m1.metrics.mcs'"),
    (
        "metric -1e9",
        lambda b: b["accuracy"].update(original=-1e9),
        "field 'models.m1.accuracy.original'",
    ),
    (
        "ci bound 1e300",
        lambda b: b["ci"]["mcs"].update(high=1e300),
        "field 'models.m1.ci.mcs.high'",
    ),
    (
        "negative count",
        lambda b: b["counts"].update(n_records=-4),
        "field 'models.m1.counts.n_records'",
    ),
    (
        "negative nested count",
        lambda b: b["counts"]["by_kind"]["original"].update(n_scored=-1),
        "field 'models.m1.counts.by_kind.original.n_scored'",
    ),
    (
        "fractional tier count",
        lambda b: b["n_by_tier"].update(L1=2.5),
        "field 'models.m1.n_by_tier.L1'",
    ),
    ("negative n_cases", lambda b: b.update(n_cases=-3), "field 'models.m1.n_cases'"),
    (
        "negative resamples",
        lambda b: b["ci"]["mcs"].update(n_resamples=-500),
        "field 'models.m1.ci.mcs.n_resamples'",
    ),
]


@pytest.mark.parametrize(("name", "mutate", "named"), BAD, ids=[b[0] for b in BAD])
def test_implausible_numbers_are_refused(capsys, tmp_path, name, mutate, named):
    block = copy.deepcopy(_block())
    mutate(block)
    _report(capsys, tmp_path, _scores({"m1": block}), says=[named])


def test_too_many_models(capsys, tmp_path):
    from medvigil.report.blocks import MAX_MODELS

    _report(
        capsys,
        tmp_path,
        _scores({f"m{i}": _block() for i in range(10_000)}),
        says=["10,000 MedVIGIL models", f"at most {MAX_MODELS}"],
    )


@pytest.mark.parametrize("name", ["x" * 100_000, "", "tab\there", "bell\a"])
def test_unusable_model_names(capsys, tmp_path, name):
    _report(capsys, tmp_path, _scores({name: _block()}), says=["model name"])


def test_names_with_dollars_and_nested_braces_are_drawn_as_text(capsys, tmp_path):
    """Control for every case above: names at the limits are reported, and '$' with nested braces
    (once a RecursionError in matplotlib's mathtext) is drawn literally."""
    from medvigil.report.blocks import MAX_MODELS, MAX_NAME_CHARS

    models = {f"m{i}": _block(40.0 + i % 20) for i in range(MAX_MODELS - 2)}
    evil = "$" + "{" * 90 + "x" + "}" * 90 + "$"  # 60 levels already exhaust mathtext's parser
    assert len(evil) <= MAX_NAME_CHARS
    models[evil] = _block(10.0)
    models["y" * MAX_NAME_CHARS] = _block(20.0)
    out = _report(capsys, tmp_path, _scores(models), code=0)
    assert "{{{{" in (out / "report.md").read_text(encoding="utf-8")
    assert "{{{{" in (out / "report.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def deg_scores(tmp_path_factory):
    from conftest import write_log

    from medvigil.cli import main

    base = tmp_path_factory.mktemp("deg")
    write_log(base / "runs", "medqdeg")
    assert (
        main(["score", "--suite", "medqdeg", str(base / "runs"), "--json", str(base / "deg.json")])
        == 0
    )
    return json.loads((base / "deg.json").read_text())


SUITE_BAD = [
    (
        "accuracy 1e308",
        lambda m: m["overall"].update(accuracy=1e308),
        "field 'models.grounded.overall.accuracy'",
    ),
    ("negative n", lambda m: m["overall"].update(n=-4), "field 'models.grounded.overall.n'"),
    (
        "fractional n_excluded",
        lambda m: m.update(n_excluded_all_invalid=0.5),
        "field 'models.grounded.n_excluded_all_invalid'",
    ),
]


@pytest.mark.parametrize(("name", "mutate", "named"), SUITE_BAD, ids=[b[0] for b in SUITE_BAD])
def test_suite_results_with_implausible_numbers(capsys, tmp_path, deg_scores, name, mutate, named):
    data = copy.deepcopy(deg_scores)
    mutate(data["models"]["grounded"])
    _report(capsys, tmp_path, data, says=[named])


def test_suite_result_control(capsys, tmp_path, deg_scores):
    _report(capsys, tmp_path, deg_scores, code=0)
