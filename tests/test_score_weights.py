"""``medvigil score --weights``: the SFR_w tier weights (paper Eq. 3) as one option over one
constant."""

import csv
import json
import math
import subprocess
import sys

import pytest

from medvigil.constants import DEFAULT_TIER_WEIGHTS, TIERS


@pytest.fixture(scope="module")
def scored_inputs(synthetic_release, tmp_path_factory):
    """Two models' harness result files over the 40-case synthetic release: one always answers A,
    one always E (the safe letter: right on traps)."""
    folder = tmp_path_factory.mktemp("weights")
    with open(synthetic_release / "probes_mcq.csv", newline="", encoding="utf-8") as fh:
        probes = list(csv.DictReader(fh))
    files = []
    for model, letter in (("always-a", "A"), ("always-e", "E")):
        path = folder / f"{model}__mcq.jsonl"
        path.write_text(
            "".join(
                json.dumps(
                    {
                        "probe_id": p["probe_id"],
                        "case_id": p["case_id"],
                        "probe_kind": p["probe_kind"],
                        "status": "ok",
                        "model_letter": letter,
                        "correct_letter": p["correct_letter"],
                    }
                )
                + "\n"
                for p in probes
            ),
            encoding="utf-8",
        )
        files.append(str(path))
    return synthetic_release, files, folder


def _score(release, files, folder, *extra):
    out = folder / f"score{len(list(folder.glob('score*.json')))}.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "score",
            "--suite",
            "medvigil",
            "--release",
            str(release),
            "--n-resamples",
            "0",
            *files,
            "--json",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    return proc, (json.loads(out.read_text()) if proc.returncode == 0 else None)


def test_weights_option_weighs_the_tier_sfrs(scored_inputs):
    release, files, folder = scored_inputs
    default_run, default = _score(release, files, folder)
    flat_run, flat = _score(release, files, folder, "--weights", "1,1,1,1,1")
    assert default_run.returncode == 0 and flat_run.returncode == 0, (
        default_run.stderr[-2000:] + flat_run.stderr[-2000:]
    )
    assert default["params"]["weights"] == list(DEFAULT_TIER_WEIGHTS) and flat["params"][
        "weights"
    ] == [1.0] * len(TIERS)
    for result, weights in ((default, DEFAULT_TIER_WEIGHTS), (flat, (1.0,) * len(TIERS))):
        block = result["models"]["always-a"]
        by_tier = [(w, block["sfr_by_tier"].get(t)) for w, t in zip(weights, TIERS)]
        present = [
            (w, s)
            for w, s in by_tier
            if s is not None and not (isinstance(s, float) and math.isnan(s))
        ]
        expected = sum(w * s for w, s in present) / sum(
            w for w, _ in present
        )  # Eq. 3 over the tiers present
        assert block["metrics"]["sfr_w"] == pytest.approx(expected)
    # everything but SFR_w and what rests on it is the same
    a, b = default["models"]["always-a"], flat["models"]["always-a"]
    assert a["accuracy"] == b["accuracy"] and a["sfr_by_tier"] == b["sfr_by_tier"]


@pytest.mark.parametrize("bad", ["1,2,3", "1,2,3,5,x", "0,0,0,0,0", "1,2,3,5,-8", "1,2,3,5,inf"])
def test_bad_weights_are_refused_by_the_command_line(scored_inputs, bad):
    release, files, folder = scored_inputs
    proc, _ = _score(release, files, folder, "--weights", bad)
    assert proc.returncode == 2 and "--weights" in proc.stderr and "Traceback" not in proc.stderr
