"""The README main command's pipeline (``medvigil demo``), end to end at a small size.

Real lmms-eval runs of two baselines on every suite; the report must hold the MedVIGIL
audit and the three stress-test sections, each computed from the logs the runs wrote.
"""

import json

import pytest

from medvigil.pipeline import ModelSpec, run_demo

SLOW_FIXTURES = {"demo"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

pytest.importorskip("lmms_eval")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "out"
    report = run_demo(
        out,
        cases=8,
        seed=3,
        models=(ModelSpec("constant", "letter=A"), ModelSpec("grounded")),
        tasks=("medvigil_mcq",),
        n_resamples=20,
        own_models={"medqdeg": (ModelSpec("constant", "letter=A"),)},
    )
    return out, report


def test_report_has_every_suite(demo):
    out, report = demo
    md = (report / "report.md").read_text()
    for heading in (
        "## MedVIGIL",
        "## Consistent but Dangerous",
        "## MediConfusion",
        "## MedQ-Deg",
        "## Illusion of Readiness",
        "## Pressure",
    ):
        assert heading in md
    for figure in (
        "mcs_components",
        "cbd_quadrants",
        "mediconfusion_set_accuracy",
        "medqdeg_severity",
        "readiness_robustness",
        "pressure_rates",
    ):
        assert (report / "figures" / f"{figure}.png").stat().st_size > 1000
    assert set(json.loads((report / "scores.json").read_text())["models"]) == {
        "constant(letter=A)",
        "grounded",
    }


def test_suite_sections_equal_scoring_the_logs_again(demo):
    from medvigil.suites.medvigil.scoring.scoring import audit_to_json
    from medvigil.suites.registry import score

    out, report = demo
    for suite, where in (
        ("readiness", out / "runs"),
        ("cbd", out / "runs"),
        ("pressure", out / "runs"),
        ("medqdeg", out / "runs_medqdeg"),
    ):
        saved = json.loads((report / f"{suite}.json").read_text())
        again = json.loads(audit_to_json(score(suite, [where])))  # strict JSON, as saved
        assert saved["models"] == again["models"], suite
    # MediConfusion: the four modes of both models, from the lmms-eval logs; always-A is right on
    # one image per pair
    mc = json.loads((report / "mediconfusion.json").read_text())
    assert {(r["model"], r["mode_label"]) for r in mc["runs"]} == {
        (m, mode) for m in ("constant(letter=A)", "grounded") for mode in ("MC", "GD", "PS", "FF")
    }
    always_a = [r for r in mc["runs"] if r["model"] == "constant(letter=A)"]
    assert all(r["set_accuracy"] == 0.0 and r["individual_accuracy"] == 0.5 for r in always_a)
    # always-A is consistent and never needs the image: every CbD sample is Dangerous
    cbd = json.loads((report / "cbd.json").read_text())["models"]["constant(letter=A)"]
    assert cbd["fractions"]["Dangerous"] == 1.0 and cbd["image_reliance_rate"] == 0.0
