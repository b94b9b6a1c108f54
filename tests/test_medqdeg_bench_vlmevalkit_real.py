"""The ``vlmevalkit`` block of ``medvigil score --suite medqdeg --vlmevalkit`` against VLMEvalKit's
own ``MedQDEGBenchDataset.evaluate``, executed (tests/vlmevalkit_evaluate.py, in a subprocess).

Skipped unless ``MEDVIGIL_VLMEVALKIT_SRC`` names a folder holding VLMEvalKit's ``vlmeval`` package
(e.g. ``git archive HEAD vlmeval`` of open-compass/VLMEvalKit unpacked there); its import chain
needs ``validators`` and ``sty`` besides this project's dependencies. No stub replaces anything
evaluate runs; only the ``vlmeval`` and ``vlmeval.dataset`` package ``__init__`` files (torch, the
CLI, every other dataset) are bypassed. No judge model: this evaluate matches letters by regular
expressions only.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from medqdeg_bench_files import tsv_rows, write_predictions, write_tsv

from medvigil.cli import main

SRC = os.environ.get("MEDVIGIL_VLMEVALKIT_SRC")
RUNNER = Path(__file__).with_name("vlmevalkit_evaluate.py")

pytestmark = pytest.mark.skipif(
    not SRC or not (Path(SRC) / "vlmeval" / "dataset" / "medq_deg_bench.py").is_file(),
    reason="MEDVIGIL_VLMEVALKIT_SRC does not name a folder holding VLMEvalKit's vlmeval package",
)

# one per row of tsv_rows("simulate"); answers B x4, A x4 (two options), C x4, A x4, A x8
PREDICTIONS = {
    "ModelOne": [
        "",  # empty: missing, never a hit
        "The answer is B",
        "b",  # lowercase
        "Lung",  # the option's text, not its letter
        "A, B",  # several letters: the first standing alone
        "E",  # option E is empty in this row
        "Between B and A, the answer is A",  # "answer is" after another lone letter
        "I'd pick option A over B",  # "option A" after a lone D ("I'D")
        "c) FLAIR",
        "Answer: C",
        "FLAIR",  # option text with an A inside a word
        "CD",  # two letters run together
        "None",  # read back as missing
        " a ",
        "n/a",
        "(A) H&E",
        "The answer is A.",
        "option a",
        "A - CT",
        "a: CT",
        "The correct option is A",
        "X-Ray",
        "Answer is B, not A",
        "\nA\n",
    ],
    "ModelTwo": [
        "E",  # option E is empty in this row
        "B or C",
        "Option C is correct, not B",
        "The answer is option B",
        "nan",
        "answerisA",
        "A.",
        "Yes",  # the option's text
        "Based on the image, I choose C",
        "The answer: (C)",
        "c",
        "ANSWER IS C",
        "IHC",
        "A and C are wrong; the answer is B",
        "e",
        "",
        "Option A",
        "I think it is CT, so A",
        "MRI",
        "A/B",
        "The answer is a",
        "ABC",
        "  A  ",
        "Answer - A",
    ],
}


def _vlmevalkit(files: list[Path]) -> dict:
    done = subprocess.run(
        [sys.executable, str(RUNNER), SRC, *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv", ".csv"])
def test_vlmevalkit_block_equals_vlmevalkit_evaluate(tmp_path, suffix):
    tsv = write_tsv(tmp_path / "MedQ-Robust-simulate-test.tsv", tsv_rows("simulate"))
    files = [
        write_predictions(tsv, preds, tmp_path / f"{model}_MedQDEGBench_simulate_test{suffix}")
        for model, preds in PREDICTIONS.items()
    ]
    out = tmp_path / "scores.json"
    args = ["score", "--suite", "medqdeg", "--vlmevalkit", *map(str, files), "--json", str(out)]
    assert main(args) == 0
    ours = json.loads(out.read_text())["models"]
    theirs = _vlmevalkit(files)  # after ours: evaluate writes <stem>_score.json beside each file
    for path in files:
        block, expected = ours[path.stem]["vlmevalkit"], theirs[str(path)]
        assert list(block) == list(expected), path.name  # key for key, in evaluate's order
        assert block["Total"] == expected["Total"] == len(tsv_rows("simulate"))
        for key, value in expected.items():
            assert block[key] == pytest.approx(value, abs=1e-9), (path.name, key)
