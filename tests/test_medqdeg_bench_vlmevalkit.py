"""``medvigil score --suite medqdeg --vlmevalkit``: VLMEvalKit's MedQ-DEG-Bench prediction files.

The expected ``vlmevalkit`` blocks are worked out by hand from VLMEvalKit's
``MedQDEGBenchDataset.evaluate`` (``vlmeval/dataset/medq_deg_bench.py``, read at
open-compass/VLMEvalKit e8e78f05; VLMEvalKit is not installed here): hit =
``str(answer).strip().upper() == str(_extract_option_letter(prediction)).upper()``, ``Overall`` =
mean hit, ``Total`` = rows, then per sorted non-missing value of ``modality``, ``degradation_type``,
``degradation_severity``, ``source`` the mean hit (``Modality_``, ``DegType_``, ``Severity_``,
``Source_``). The files are written as its inference loop writes them
(tests/medqdeg_bench_files.py).
"""

import json
import math
from pathlib import Path

import pytest
from medqdeg_bench_files import HEADER, png_base64, tsv_rows, write_predictions, write_tsv

from medvigil.cli import main
from medvigil.errors import DataError
from medvigil.suites.medqdeg import bench_vlmevalkit as V

# index, options, answer, modality ("" = missing), degradation_type, degradation_severity, source
ROWS = (
    (1, ["Liver", "Lung", "Brain", "Kidney", ""], "A", "CT", "noise", "1", "S1"),
    (2, ["Yes", "No", "", "", ""], "B", "CT", "blur", "2", "S1"),
    (3, ["T1", "T2", "FLAIR", "DWI", "SWI"], "C", "MRI", "noise", "1", "S2"),
    (4, ["H&E", "IHC", "PAS", "", ""], "A", "", "blur", "2", "S2"),
    (5, ["a", "b", "c", "d", ""], "D", "MRI", "noise", "2", "S1"),
    (6, ["x", "y", "z", "", ""], "B", "X-Ray", "blur", "1", "S2"),
)
PREDICTIONS = {
    # 1 "a": one letter, upper-cased -> A, hit. 2 "B. Lung": a leading letter and "." -> B, hit. 3
    # "The answer is C": C stands alone -> C, hit. 4 "None": pandas reads it as missing -> "NAN",
    # miss. 5 "I think (D)": the first A-E with no letter beside it -> D, hit. 6 "A": miss (answer
    # B).
    "ModelOne": ["a", "B. Lung", "The answer is C", "None", "I think (D)", "A"],
    # 1 "E": miss. 2 "": missing, miss. 3 "Option C is correct": C stands alone -> C, hit. 4 "A:
    # because": a leading letter then ":" -> A, hit. 5 "BD": no rule applies, the text stays, miss.
    # 6 "b)": a leading letter and ")" -> B, hit.
    "ModelTwo": ["E", "", "Option C is correct", "A: because", "BD", "b)"],
}
# hits ModelOne 1,1,1,0,1,0 and ModelTwo 0,0,1,1,0,1 over rows 1-6; row 4's modality is missing, so
# it is in no Modality_ key; degradation_severity is read as integers, so the keys are Severity_1,
# Severity_2.
EXPECTED = {
    "ModelOne": {
        "Overall": 4 / 6,
        "Total": 6,
        "Modality_CT": 2 / 2,  # rows 1, 2
        "Modality_MRI": 2 / 2,  # rows 3, 5
        "Modality_X-Ray": 0 / 1,  # row 6
        "DegType_blur": 1 / 3,  # rows 2, 4, 6
        "DegType_noise": 3 / 3,  # rows 1, 3, 5
        "Severity_1": 2 / 3,  # rows 1, 3, 6
        "Severity_2": 2 / 3,  # rows 2, 4, 5
        "Source_S1": 3 / 3,  # rows 1, 2, 5
        "Source_S2": 1 / 3,  # rows 3, 4, 6
    },
    "ModelTwo": {
        "Overall": 3 / 6,
        "Total": 6,
        "Modality_CT": 0 / 2,
        "Modality_MRI": 1 / 2,
        "Modality_X-Ray": 1 / 1,
        "DegType_blur": 2 / 3,
        "DegType_noise": 1 / 3,
        "Severity_1": 2 / 3,
        "Severity_2": 1 / 3,
        "Source_S1": 0 / 3,
        "Source_S2": 3 / 3,
    },
}


def _tsv(path: Path) -> Path:
    rows = [
        [str(i), png_base64(i), f"Question {i}?", *opts, ans, mod, deg, sev, src, "extra"]
        for i, opts, ans, mod, deg, sev, src in ROWS
    ]
    return write_tsv(path, rows, HEADER)


def _same(block: dict, expected: dict) -> None:
    assert list(block) == list(expected)  # key for key, in evaluate's order
    for key, value in expected.items():
        assert block[key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv", ".csv"])
def test_two_models_match_vlmevalkit_evaluate(tmp_path, suffix, capsys):
    tsv = _tsv(tmp_path / "MedQ-Robust-simulate-test.tsv")
    files = [
        write_predictions(
            tsv, preds, tmp_path / "out" / f"{model}_MedQDEGBench_simulate_test{suffix}"
        )
        for model, preds in PREDICTIONS.items()
    ]
    out = tmp_path / "scores.json"
    args = ["score", "--suite", "medqdeg", "--vlmevalkit", *map(str, files), "--json", str(out)]
    assert main(args) == 0
    result = json.loads(out.read_text())
    assert set(result["models"]) == {f"{m}_MedQDEGBench_simulate_test" for m in PREDICTIONS}
    for model, expected in EXPECTED.items():
        entry = result["models"][f"{model}_MedQDEGBench_simulate_test"]
        _same(entry["vlmevalkit"], expected)
        assert entry["calibration"] is None and "3 or more" in entry["calibration_note"]
    table = capsys.readouterr().out  # markdown: underscores escaped
    assert "ModelOne\\_MedQDEGBench\\_simulate\\_test: VLMEvalKit evaluate" in table


def test_three_trials_give_a_calibration_shift_per_severity(tmp_path):
    tsvs = {}
    for kind in ("good", "simulate"):
        tsvs[kind] = write_tsv(tmp_path / f"MedQ-Robust-{kind}-test.tsv", tsv_rows(kind))
    folders = []
    for trial in range(3):  # the same stems in three folders: three trials
        folder = tmp_path / f"trial{trial}"
        for kind, tsv in tsvs.items():
            n = len(tsv_rows(kind))
            preds = [
                ("A", "b", "C. x", "The answer is B", "nothing")[(i + trial) % 5] for i in range(n)
            ]
            write_predictions(tsv, preds, folder / f"ModelOne_MedQDEGBench_{kind}_test.xlsx")
        folders.append(folder)
    result = V.score(folders)
    entry = result["models"]["ModelOne_MedQDEGBench_simulate_test"]
    assert len(entry["files"]) == 3 and len(entry["vlmevalkit_trials"]) == 3
    severities = entry["calibration"]["by_severity"]
    assert set(severities) == {"L1", "L2"}
    assert all(math.isfinite(v["calibration_shift"]) for v in severities.values())
    both = entry["calibration_with_clean"]  # with the good stem: L0 too, drops and the DKE flag
    assert set(both["by_severity"]) == {"L0", "L1", "L2"}
    assert all(math.isfinite(v["calibration_shift"]) for v in both["by_severity"].values())
    assert both["intra_model_dke"] in (True, False)
    assert (
        both["paired_drops"]["L1&L2"]["n_paired"] == 16
    )  # the 8 rows of the templated question: unpaired
    assert set(both["by_source"]) == {"OmniMedVQA", "GMAI-MMBench", "MedXpertQA"}
    # the first trial's accuracy by VLMEvalKit's hits is its Overall
    first = V.hits(V.read_predictions(Path(entry["files"][0])))
    assert entry["vlmevalkit"]["Overall"] == pytest.approx(sum(first) / len(first))


def test_trials_with_other_rows_and_foreign_files_are_refused(tmp_path):
    tsv = _tsv(tmp_path / "MedQ-Robust-simulate-test.tsv")
    for trial, preds in enumerate((["A"] * 6, ["A"] * 6, ["A"] * 6)):
        write_predictions(tsv, preds, tmp_path / f"t{trial}" / "M_MedQDEGBench_simulate_test.tsv")
    short = tmp_path / "t2" / "M_MedQDEGBench_simulate_test.tsv"
    short.write_text("\n".join(short.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(DataError, match="rows .index column. differ"):
        V.score([tmp_path / f"t{t}" for t in range(3)])
    other = tmp_path / "results.xlsx"
    write_predictions(tsv, ["A"] * 6, other)
    with pytest.raises(DataError, match="not <model>_MedQDEGBench_<split>"):
        V.score([other])
    broken = tmp_path / "M_MedQDEGBench_good_test.xlsx"
    broken.write_bytes(b"not a workbook")
    with pytest.raises(DataError, match="cannot be read as a .xlsx table"):
        V.score([broken])


def test_a_vlmevalkit_work_dir_counts_each_run_once(tmp_path):
    """VLMEvalKit writes each run under ``<work_dir>/<model>/T<stamp>/`` and links the latest run's
    files into ``<work_dir>/<model>/``: the link is the same file, read once and listed as
    skipped."""
    tsv = _tsv(tmp_path / "MedQ-Robust-simulate-test.tsv")
    model = tmp_path / "outputs" / "ModelOne"
    name = "ModelOne_MedQDEGBench_simulate_test.xlsx"
    for run in ("T20260101", "T20260102", "T20260103"):
        write_predictions(tsv, PREDICTIONS["ModelOne"], model / run / name)
    (model / name).symlink_to(Path("T20260103") / name)
    result = V.score([model])
    entry = result["models"]["ModelOne_MedQDEGBench_simulate_test"]
    assert len(entry["files"]) == 3 and entry["calibration"]["trials"] == 3
    assert result["skipped_files"] == [
        {"file": str(model / name), "reason": f"the same file as {model / 'T20260103' / name}"}
    ]
    _same(entry["vlmevalkit"], EXPECTED["ModelOne"])


def test_letter_extraction_follows_vlmevalkit():
    cases = {
        "c": "C",
        " D ": "D",
        "A. yes": "A",
        "answer is b": "B",
        "Option E": "E",
        # its "answer is X" / "option X" rule never applies (a lower-case pattern in upper-cased
        # text)
        "Between B and A, the answer is A": "B",
        "I'd pick option A over B": "D",  # the D of "I'D" stands alone
        "B - because": "B",
        "I choose (C)": "C",
        "ABC": "ABC",  # no letter stands alone: the text is returned
        "n/a": "A",  # "/" and the end are no letters: A stands alone
        float("nan"): None,
    }
    for text, letter in cases.items():
        got = V.extract_letter(text)
        assert (got == letter) if letter is not None else math.isnan(got), text
