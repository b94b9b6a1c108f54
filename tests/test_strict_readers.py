"""The readers' one place of validation keeps its contract.

* many records checked at once (:func:`medvigil.records.schema_validation.problems_for_records`:
  ``jsonschema_rs`` built from the schema file, ``jsonschema`` on what it refuses) get exactly
  the problems ``jsonschema`` finds record by record;
* the lmms-eval log reader and the harness reader name file, line and field: bytes that are not
  UTF-8, a key twice in one object, lines that are not JSON;
* ``medvigil score`` loads only what it needs.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import lmms_runs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.errors import DataError
from medvigil.records.lmms_eval_logs import read_samples
from medvigil.records.schema_validation import problems_for, problems_for_records, refused_rows

ROOT = Path(__file__).resolve().parents[1]

# a record as our medvigil_mcq task logs it (tasks/medvigil/utils.py), in lmms-eval 0.7.3's line
RECORD = {
    "suite": "medvigil",
    "model": "lmms-eval-run",
    "condition": "default",
    "probe_id": "MVB-0001-original",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "risk_tier": "L1",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "text_only_answerable": False,
    "correct_letter": "A",
    "predicted_letter": "A",
    "parse_status": "ok",
    "raw_response": "A",
    "retries": 0,
    "extra": {"condition_source": "lmms-eval"},
}
HARNESS_ROW = {
    "probe_id": "MVB-0001__orig",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "format": "mcq",
    "model_id": "m",
    "model_answer": "A",
    "status": "ok",
    "model_letter": "A",
    "correct_letter": "A",
}
GROUNDING_ROW = {
    "case_id": "MVB-0001",
    "roi_bbox_norm": [0.1, 0.2, 0.5, 0.75],
    "rationale": "",
    "differential_set": ["a"],
    "clinical_context": "",
    "laterality_dependent": None,
    "gold_after_lr_flip": "",
}
MCQ_ROW = {
    "probe_id": "MVB-0001__orig",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "question": "Q?",
    **{f"choice_{x}": f"option {x}" for x in "ABCDE"},
    "correct_letter": "A",
    "image_file": None,
}
# checked in bulk; the release rows have arrays and oneOf, harness rows a conditional requirement
# (letters only when status is 'ok')
BULK = {
    "probe_record": RECORD,
    "grounding_row": GROUNDING_ROW,
    "mcq_probe_row": MCQ_ROW,
    "harness_result_row": HARNESS_ROW,
}


def sample_line(record: dict, metrics=("mcs", "cap", "safe", "sfr_w"), **lead) -> str:
    """A log line whose prompt holds braces and quotes (the key-count proof must not count them)."""
    return lmms_runs.sample_line(
        record, metrics, text=lmms_runs.INPUT + ' {not JSON} "quoted"', **lead
    )


# ---------------------------------------------------------------- schema agreement

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2),
    st.sampled_from(
        [
            "",
            "A",
            "AB",
            "a",
            "Z",
            "L1",
            "L6",
            "ok",
            "error",
            "parse_failure",
            "medvigil",
            "cbd",
            "x",
            "A\n",
        ]
    ),
    st.text(max_size=4),
)
_value = st.one_of(
    _scalar,
    st.lists(_scalar, max_size=3),
    st.dictionaries(st.sampled_from("ab"), _scalar, max_size=2),
)


@pytest.mark.parametrize("value", ["\x1f", "a\x1cb", "x\x00", "\x7f", "a b", "a/b"])
def test_both_paths_refuse_control_characters_and_spaces_in_ids(value):
    """Python's re counts \\x1c-\\x1f as whitespace and the Rust engine does not: the id
    pattern names the control characters itself, so the two paths agree (found by the test
    below)."""
    record = {**json.loads(json.dumps(BULK["mcq_probe_row"])), "probe_id": value}
    assert problems_for("mcq_probe_row", record, "f")
    assert refused_rows("mcq_probe_row", [record]) == [0]


@pytest.mark.parametrize("name", sorted(BULK))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_bulk_rejects_what_the_schema_rejects_on_the_same_field(name, data):
    """A batch of valid rows, some with one to three cells replaced, dropped or added: the bulk
    path flags exactly the rows jsonschema rejects and reports the same problems."""
    records = []
    for _ in range(data.draw(st.integers(1, 12), label="rows")):
        record = json.loads(json.dumps(BULK[name]))
        if data.draw(st.booleans(), label="mutate"):
            for key in data.draw(
                st.lists(st.sampled_from([*record, "extra_key"]), min_size=1, max_size=3)
            ):
                if data.draw(st.booleans(), label="drop") and key in record:
                    del record[key]
                else:
                    record[key] = data.draw(_value)
        records.append(
            record if data.draw(st.integers(0, 30), label="non-object") else data.draw(_scalar)
        )
    expected = [i for i, r in enumerate(records) if problems_for(name, r, "f")]
    assert set(expected) <= set(refused_rows(name, records))
    rows = list(range(101, 101 + len(records)))
    one_by_one = [p for i, r in enumerate(records) for p in problems_for(name, r, "f", rows[i])]
    assert problems_for_records(name, records, "f", rows) == one_by_one


def test_bulk_tells_1_1_0_and_true_apart():
    """1, 1.0 and True are equal in Python; the schema tells them apart."""
    records = [
        dict(RECORD, retries=1),
        dict(RECORD, retries=True),
        dict(RECORD, retries=1.0),
        dict(RECORD, retries=-1),
    ]
    assert refused_rows("probe_record", records) == [1, 3]
    found = problems_for_records("probe_record", records, "log.jsonl", [7, 8, 9, 10])
    assert [(p.row, p.field) for p in found] == [(8, "retries"), (10, "retries")]


# ---------------------------------------------------------------- one record out of a line


def _log(folder: Path, lines: list[str], task: str = "medvigil_mcq") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(
        json.dumps({"config": {"model": "constant", "model_args": "letter=A"}})
    )
    path = folder / f"20260101_000000_samples_{task}.jsonl"
    path.write_text("".join(lines))
    return path


def test_reader_names_file_line_and_field(tmp_path):
    second = dict(RECORD, probe_id="MVB-0002-original", case_id="MVB-0002", predicted_letter="AB")
    third = dict(RECORD, probe_id="MVB-0003-original", case_id="MVB-0003")
    del third["parse_status"]
    lines = [
        sample_line(RECORD),
        "\n",
        sample_line(second),
        sample_line(RECORD)[:500] + "\n",
        sample_line(third),
        json.dumps({"doc_id": 9, "acc": 1}) + "\n",
    ]
    path = _log(tmp_path / "run", lines)
    with pytest.raises(DataError) as err:
        read_samples([path])
    found = [(p.file, p.row, p.field) for p in err.value.problems]
    assert found == [
        (str(path), 3, "predicted_letter"),
        (str(path), 4, None),
        (str(path), 5, "parse_status"),
        (str(path), 6, "mcs"),
    ]
    assert "not valid JSON" in err.value.problems[1].message


def test_reader_gives_the_records_with_the_run_model(tmp_path):
    records = [
        dict(RECORD, probe_id=f"MVB-{i:04d}-original", case_id=f"MVB-{i:04d}") for i in range(1, 6)
    ]
    path = _log(tmp_path / "run", [sample_line(r) for r in records])
    assert read_samples([path]) == [dict(r, model="constant(letter=A)") for r in records]


# ---------------------------------------------------------------- what `medvigil score` loads


def test_score_command_loads_only_what_it_needs(tmp_path):
    """``medvigil score`` of lmms-eval logs: no datasets, matplotlib, scipy, jsonschema, pandas,
    PIL, lmms_eval or torch in the process (the modules present at exit)."""
    kinds = {"original": "A", "tcf": "A", "halluc_trap": "E", "lr_flip": "A"}
    records = [
        dict(
            RECORD,
            probe_id=f"MVB-{c:04d}-{k}",
            case_id=f"MVB-{c:04d}",
            probe_kind=k,
            correct_letter=gold,
            predicted_letter="A",
        )
        for c in range(1, 5)
        for k, gold in kinds.items()
    ]
    _log(tmp_path / "run", [sample_line(r) for r in records])
    code = (
        f"import sys, atexit\natexit.register(lambda: print('LOADED', sorted({{m.split('.')[0] "
        f"for m in sys.modules}}), file=sys.stderr))\nfrom medvigil.cli import "
        f"main\nsys.exit(main(['score', '--suite', 'medvigil', '--n-resamples', '20',\n   "
        f"            {str(next((tmp_path / 'run').glob('*_samples_*')))!r}, '--json', '-']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["models"]["constant(letter=A)"]["metrics"]
    loaded = set(ast.literal_eval(proc.stderr.split("LOADED", 1)[1].strip()))
    assert not loaded & {
        "datasets",
        "matplotlib",
        "scipy",
        "jsonschema",
        "pandas",
        "PIL",
        "lmms_eval",
        "torch",
    }, loaded


# ---------------------------------------------------------------- strict input, one reader per
# format

RESULT_ROW = {
    "probe_id": "MVB-0001-original",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "status": "ok",
    "model_letter": "A",
    "correct_letter": "A",
    "model_answer": "A",
}


def _harness_file(folder: Path, lines: list[bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "toy__mcq.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def _row(i: int, **changes) -> bytes:
    row = dict(RESULT_ROW, probe_id=f"MVB-{i:04d}-original", case_id=f"MVB-{i:04d}", **changes)
    return (json.dumps(row) + "\n").encode()


@pytest.mark.parametrize("as_table", [False, True], ids=["dicts", "table"])
def test_harness_reader_refuses_a_non_utf8_byte_with_file_and_line(tmp_path, as_table):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    path = _harness_file(
        tmp_path, [_row(1), _row(2), _row(3).replace(b'"A"}', b'"A\xff"}'), _row(4)]
    )
    with pytest.raises(DataError) as err:
        read_harness_files([path], as_table=as_table)
    (problem,) = err.value.problems
    assert (problem.file, problem.row) == (
        str(path),
        3,
    ) and "not valid UTF-8: byte 0xff" in problem.message


def test_score_command_refuses_a_non_utf8_result_file(tmp_path):
    """The regression of issue #28: a 0xff byte on line 3 of a result file exits non-zero, naming
    it."""
    path = _harness_file(
        tmp_path / "results", [_row(1), _row(2), b'{"probe_id": "MVB-0003-orig\xffinal"}\n']
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "medvigil",
            "score",
            "--suite",
            "medvigil",
            "--harness-compatible",
            "--n-resamples",
            "10",
            str(path),
            "--json",
            str(tmp_path / "out.json"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"{path}" in proc.stderr and "row 3" in proc.stderr and "0xff" in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_harness_reader_refuses_a_key_twice(tmp_path):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    twice = _row(2).replace(b'"status": "ok"', b'"status": "ok", "status": "error: x"')
    path = _harness_file(tmp_path, [_row(1), twice])
    with pytest.raises(DataError) as err:
        read_harness_files([path])
    (problem,) = err.value.problems
    assert (problem.row, problem.field) == (2, "status") and "appears twice" in problem.message


def test_harness_reader_takes_one_object_per_line(tmp_path):
    """Two rows on one line and one row over two lines make as many values as lines; each is refused
    at its line."""
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    two = _row(2).rstrip(b"\n") + b", " + _row(3)
    split = _row(4, note=[[1, 2]]).replace(
        b"[[1, 2]]", b"[[1\n2]]"
    )  # the lines joined by a comma are one row
    path = _harness_file(tmp_path, [_row(1), two, split, _row(5)])
    with pytest.raises(DataError) as err:
        read_harness_files([path], as_table=True)
    assert [p.row for p in err.value.problems] == [2, 3, 4]
    assert all("not valid JSON" in p.message for p in err.value.problems)


def test_harness_table_keeps_each_files_own_order_and_ids(tmp_path):
    """Files in one probe order share their id columns; a file in another order, or naming another
    case for a probe (no release to check it against), keeps its own row by row."""
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    def write(model: str, rows: list[bytes]) -> Path:
        path = tmp_path / f"{model}__mcq.jsonl"
        path.write_bytes(b"".join(rows))
        return path

    a = write("a", [_row(i, model_letter="B") for i in (1, 2, 3)])
    b = write("b", [_row(i) for i in (3, 1, 2)])
    c = write("c", [_row(i) for i in (1, 2, 3)])
    d = write(
        "d", [_row(1).replace(b'"case_id": "MVB-0001"', b'"case_id": "MVB-0009"'), _row(2), _row(3)]
    )
    table = read_harness_files([a, b, c, d], as_table=True).table
    assert table.model.values() == ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    order = [1, 2, 3, 3, 1, 2, 1, 2, 3, 1, 2, 3]
    assert table.probe.values() == [f"MVB-{i:04d}-original" for i in order]
    assert table.case.values() == [f"MVB-{i:04d}" for i in order[:9]] + [
        "MVB-0009",
        "MVB-0002",
        "MVB-0003",
    ]
    assert table.pred.tolist() == [1] * 3 + [0] * 9 and table.gold.tolist() == [0] * 12


def test_harness_reader_names_the_line_nested_too_deeply_and_reads_crlf_lines(tmp_path):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    deep = b'{"probe_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    path = _harness_file(tmp_path, [_row(1), deep, _row(3)])
    with pytest.raises(DataError) as err:
        read_harness_files([path], as_table=True)
    (problem,) = err.value.problems
    assert problem.row == 2 and "nested too deeply" in problem.message
    crlf = _harness_file(tmp_path / "crlf", [_row(i).replace(b"\n", b"\r\n") for i in (1, 2)])
    assert len(read_harness_files([crlf], as_table=True)) == 2


@pytest.mark.parametrize(
    "text, repeated",
    [
        ('{"a": {"b": 1, "b": 2}}', "b"),  # nested
        ('{"a" : 1, "a": 2}', "a"),  # whitespace before the colon
        ('{"a"\t:1,"a"\r:2}', "a"),
        ('{"a": [{"b": 1, "b": 1}]}', "b"),  # in an array
        ('{"a": "x\\":y", "b": {"c": {}}}', None),  # a string holding '":' is not a key
        ('[1, "a", null, {}]', None),
    ],
)
def test_harness_reader_finds_a_key_twice_anywhere_in_a_row(tmp_path, text, repeated):
    from medvigil.suites.medvigil.harness.harness import read_harness_files

    line = _row(2).replace(b'"model_answer": "A"', b'"model_answer": "A", "note": ' + text.encode())
    path = _harness_file(tmp_path, [_row(1), line])
    if repeated is None:
        assert len(read_harness_files([path], as_table=True)) == 2
        return
    with pytest.raises(DataError) as err:
        read_harness_files([path], as_table=True)
    (problem,) = err.value.problems
    assert (problem.row, problem.field) == (2, repeated) and "appears twice" in problem.message


def test_log_reader_refuses_a_key_twice_and_bad_bytes(tmp_path):
    twice = sample_line(RECORD).replace(
        '"suite": "medvigil"', '"suite": "medvigil", "suite": "cbd"', 1
    )
    assert twice != sample_line(RECORD)
    path = _log(tmp_path / "run", [sample_line(RECORD), twice])
    path.write_bytes(
        path.read_bytes() + sample_line(RECORD).replace("MVB", "MV\u00e9", 1).encode("latin-1")
    )
    with pytest.raises(DataError) as err:
        read_samples([path])
    found = [(p.row, p.field) for p in err.value.problems]
    assert found == [(2, "suite"), (3, None)]
    assert (
        "appears twice" in err.value.problems[0].message
        and "not valid UTF-8" in err.value.problems[1].message
    )
