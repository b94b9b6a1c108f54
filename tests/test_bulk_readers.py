"""The bulk paths agree with the documented contract.

* :mod:`medvigil.records.schema_columns` (column-wise checks) rejects exactly the records that
  ``jsonschema`` rejects under the same schema, and the problems then name the same fields;
* :mod:`medvigil.files.jsonl_bulk` takes out of an lmms-eval samples line exactly the record that
  parsing the whole line gives, or declines;
* the lmms-eval log reader keeps naming file, line and field;
* ``medvigil score`` loads only what it needs.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medvigil.errors import DataError
from medvigil.files.jsonl_bulk import first_object_entry
from medvigil.records.lmms_eval_logs import _record_fast, _record_of, read_samples
from medvigil.records.schema_columns import compile_schema, compiled
from medvigil.records.schema_validation import problems_for, problems_for_records

ROOT = Path(__file__).resolve().parents[1]

# a record as our medvigil_mcq task logs it (tasks/medvigil/utils.py), in lmms-eval 0.7.3's line
RECORD = {"suite": "medvigil", "model": "lmms-eval-run", "condition": "default", "probe_id": "MVB-0001-original",
          "case_id": "MVB-0001", "probe_kind": "original", "risk_tier": "L1", "source_dataset": "VQA-RAD", "modality": "CT",
          "text_only_answerable": False, "correct_letter": "A", "predicted_letter": "A", "parse_status": "ok",
          "raw_response": "A", "retries": 0, "extra": {"condition_source": "lmms-eval"}}
HARNESS_ROW = {"probe_id": "MVB-0001__orig", "case_id": "MVB-0001", "probe_kind": "original", "format": "mcq",
               "model_id": "m", "model_answer": "A", "status": "ok", "model_letter": "A", "correct_letter": "A"}
GROUNDING_ROW = {"case_id": "MVB-0001", "roi_bbox_norm": [0.1, 0.2, 0.5, 0.75], "rationale": "", "differential_set": ["a"],
                 "clinical_context": "", "laterality_dependent": None, "gold_after_lr_flip": ""}
MCQ_ROW = {"probe_id": "MVB-0001__orig", "case_id": "MVB-0001", "probe_kind": "original", "question": "Q?",
           **{f"choice_{x}": f"option {x}" for x in "ABCDE"}, "correct_letter": "A", "image_file": None}
# checked column-wise (medvigil.records.schema_columns); the release rows have arrays and oneOf
BULK = {"probe_record": RECORD, "grounding_row": GROUNDING_ROW, "mcq_probe_row": MCQ_ROW}
# harness rows have a conditional requirement (letters only when status is 'ok'): the harness
# reader checks them with the accept-only row predicate (medvigil.records.schema_columns.predicate)
PREDICATE = {"harness_result_row": HARNESS_ROW}


def sample_line(record: dict, metrics=("mcs", "cap", "safe", "sfr_w"), **lead) -> str:
    """One line in lmms-eval 0.7.3's ``--log_samples`` shape: the record under each metric key."""
    line = {"doc_id": 0, "target": record.get("correct_letter"), "filtered_resps": "A", "token_counts": [None],
            "doc_hash": "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
            "input_media": ["images/MVB-0001.jpg"], **lead}
    line.update({m: record for m in metrics})
    line["input"] = "Reply with exactly one capital letter.\nOptions:\nA. CT\nB. MRI {not JSON} \"quoted\""
    return json.dumps(line) + "\n"


def same_outcome(reference, fast):
    """Run the reference reader and a fast one: when the reference raises, the fast one raises the
    same problems (None is returned); else ``(reference's result, fast one's result)``."""
    try:
        expected = reference()
    except DataError as exc:
        with pytest.raises(DataError) as err:
            fast()
        assert [str(p) for p in err.value.problems] == [str(p) for p in exc.problems]
        return None
    return expected, fast()


def line_shapes(line, key: str) -> dict:
    """Hostile shapes of one log line, shared by the tests of every bulk log reader: ``line(record,
    **lead)`` writes a line holding ``record`` under ``key`` (and other metric keys)."""
    return {
        "truncated line": lambda r: line(r)[:300] + "\n",
        "CRLF": lambda r: line(r).replace("\n", "\r\n"),
        "spaces before": lambda r: "  " + line(r),
        "compact separators": lambda r: json.dumps({"doc_id": 0, key: r}, separators=(",", ":")) + "\n",
        "API token counts first": lambda r: line(r, token_counts=[{"input_tokens": 35, "output_tokens": 1}]),
        "brace in a string first": lambda r: line(r, filtered_resps=["{x}"]),
        "whitespace line": lambda r: line(r) + " \n",
        "not an object": lambda r: line(r) + "[1, 2]\n",
        "no record": lambda r: json.dumps({"doc_id": 9, "acc": 1}) + "\n",
        "NaN": lambda r: line(dict(r, retries=float("nan"))),
        "key twice": lambda r: line(r).replace(f'"suite": "{r["suite"]}"', f'"suite": "{r["suite"]}", "suite": "cbd"', 1),
        "escaped key": lambda r: line(r).replace('"parse_status"', '"parse\\u005fstatus"', 1),
        "letter with newline": lambda r: line(dict(r, predicted_letter="A\n")),
        "extra list": lambda r: line(dict(r, extra=["x"])),
        "other suite": lambda r: line(dict(r, suite="cbd")),
        "rotations": lambda r: line(dict(r, condition="circular", extra={"rotation": 0, "n_options": 5})),
        "surrogate": lambda r: line(dict(r, raw_response="\ud800")),
        "big integer": lambda r: line(dict(r, retries=2**70)),
    }


# ---------------------------------------------------------------- schema agreement

_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2),
    st.sampled_from(["", "A", "AB", "a", "Z", "L1", "L6", "ok", "error", "parse_failure", "medvigil", "cbd", "x", "A\n"]),
    st.text(max_size=4),
)
_value = st.one_of(_scalar, st.lists(_scalar, max_size=3), st.dictionaries(st.sampled_from("ab"), _scalar, max_size=2))


@pytest.mark.parametrize("name", sorted(BULK))
def test_bulk_schemas_compile(name):
    assert compiled(name) is not None, f"{name} uses a keyword outside the column-check subset"


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
            for key in data.draw(st.lists(st.sampled_from([*record, "extra_key"]), min_size=1, max_size=3)):
                if data.draw(st.booleans(), label="drop") and key in record:
                    del record[key]
                else:
                    record[key] = data.draw(_value)
        records.append(record if data.draw(st.integers(0, 30), label="non-object") else data.draw(_scalar))
    expected = [i for i, r in enumerate(records) if problems_for(name, r, "f")]
    assert compiled(name).invalid_rows(records) == expected
    rows = list(range(101, 101 + len(records)))
    one_by_one = [p for i, r in enumerate(records) for p in problems_for(name, r, "f", rows[i])]
    assert problems_for_records(name, records, "f", rows) == one_by_one


@pytest.mark.parametrize("name", sorted(PREDICATE))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_row_predicate_accepts_only_what_the_schema_accepts(name, data):
    """Mutated rows: the compiled predicate accepts exactly the rows jsonschema accepts."""
    from medvigil.records.schema_columns import predicate as schema_predicate

    accept = schema_predicate(name)
    assert accept is not None
    row = json.loads(json.dumps(PREDICATE[name]))
    for key in data.draw(st.lists(st.sampled_from([*row, "extra_key"]), max_size=3)):
        if data.draw(st.booleans(), label="drop") and key in row:
            del row[key]
        else:
            row[key] = data.draw(st.one_of(_value, st.sampled_from(["ok", "error: timeout", "A", "E"])))
    assert accept(row) == (not problems_for(name, row, "f"))


def test_bulk_checks_the_whole_column_not_only_distinct_lookalikes():
    """1, 1.0 and True are one element of a Python set; the schema tells them apart."""
    records = [dict(RECORD, retries=1), dict(RECORD, retries=True), dict(RECORD, retries=1.0), dict(RECORD, retries=-1)]
    assert compiled("probe_record").invalid_rows(records) == [1, 3]
    found = problems_for_records("probe_record", records, "log.jsonl", [7, 8, 9, 10])
    assert [(p.row, p.field) for p in found] == [(8, "retries"), (10, "retries")]


def test_unsupported_keywords_fall_back_to_jsonschema():
    assert compile_schema({"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}) is None
    assert compile_schema({"type": "object", "anyOf": [{"required": ["a"]}]}) is None
    assert compile_schema({"type": "object", "additionalProperties": {"type": "string"}}) is None


# ---------------------------------------------------------------- one record out of a line


@pytest.mark.parametrize("line", [
    sample_line(RECORD),
    sample_line(RECORD, filtered_resps=["(0.0, True)", "{x}"]),   # a brace inside a string before the record
    sample_line(dict(RECORD, raw_response='he said "A" {B}\\')),
    sample_line({**RECORD, "suite": "mediconfusion"}, metrics=("set_acc", "indiv_acc")),  # no mcs key
    sample_line(RECORD, doc={"mcs": {"suite": "medvigil", "probe_id": "decoy"}}),  # a nested mcs before the record
    sample_line(RECORD, metrics=("set_acc", "mcs")),             # record-like object first, mcs later
    json.dumps({"doc_id": 0, "mcs": RECORD}, separators=(",", ":")) + "\n",  # another writer's separators
    json.dumps({"mcs": RECORD}) + "   \n",
    json.dumps({'a"b': 1, "mcs": RECORD}),
    json.dumps({"a\\": "x", "mcs": RECORD}),
    json.dumps({"mcs": 3, "acc": RECORD}),
])
def test_fast_record_is_the_whole_line_record_or_declines(line):
    fast = _record_fast(line)
    if fast is not None:
        assert fast == _record_of(json.loads(line))


def test_fast_path_is_taken_on_lmms_eval_lines_and_declines_bad_ones():
    assert _record_fast(sample_line(RECORD)) == RECORD
    assert _record_fast(sample_line({**RECORD, "suite": "cbd"}, metrics=("frac_ideal",))) == {**RECORD, "suite": "cbd"}
    assert _record_fast(sample_line(RECORD)[:400]) is None  # truncated line
    assert _record_fast(sample_line(RECORD, doc={"mcs": {"suite": "x", "probe_id": "decoy"}})) is None
    assert first_object_entry('{"a": 1, "b": "no object"}') is None
    assert first_object_entry('[{"mcs": {}}]') is None


def _log(folder: Path, lines: list[str], task: str = "medvigil_mcq") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": {"model": "constant", "model_args": "letter=A"}}))
    path = folder / f"20260101_000000_samples_{task}.jsonl"
    path.write_text("".join(lines))
    return path


def test_reader_names_file_line_and_field(tmp_path):
    second = dict(RECORD, probe_id="MVB-0002-original", case_id="MVB-0002", predicted_letter="AB")
    third = dict(RECORD, probe_id="MVB-0003-original", case_id="MVB-0003")
    del third["parse_status"]
    lines = [sample_line(RECORD), "\n", sample_line(second), sample_line(RECORD)[:500] + "\n", sample_line(third),
             json.dumps({"doc_id": 9, "acc": 1}) + "\n"]
    path = _log(tmp_path / "run", lines)
    with pytest.raises(DataError) as err:
        read_samples([path])
    found = [(p.file, p.row, p.field) for p in err.value.problems]
    assert found == [(str(path), 3, "predicted_letter"), (str(path), 4, None), (str(path), 5, "parse_status"), (str(path), 6, "mcs")]
    assert "not valid JSON" in err.value.problems[1].message


def test_reader_gives_the_records_with_the_run_model(tmp_path):
    records = [dict(RECORD, probe_id=f"MVB-{i:04d}-original", case_id=f"MVB-{i:04d}") for i in range(1, 6)]
    path = _log(tmp_path / "run", [sample_line(r) for r in records])
    assert read_samples([path]) == [dict(r, model="constant(letter=A)") for r in records]


# ---------------------------------------------------------------- what `medvigil score` loads


def test_score_command_loads_only_what_it_needs(tmp_path):
    """``medvigil score`` of lmms-eval logs: no datasets, matplotlib, scipy, jsonschema, pandas,
    PIL, lmms_eval or torch in the process (the modules present at exit); pyarrow reads the logs
    in columns (:mod:`medvigil.records.log_columns`)."""
    kinds = {"original": "A", "tcf": "A", "halluc_trap": "E", "lr_flip": "A"}
    records = [dict(RECORD, probe_id=f"MVB-{c:04d}-{k}", case_id=f"MVB-{c:04d}", probe_kind=k, correct_letter=gold,
                    predicted_letter="A") for c in range(1, 5) for k, gold in kinds.items()]
    _log(tmp_path / "run", [sample_line(r) for r in records])
    code = ("import sys, atexit\n"
            "atexit.register(lambda: print('LOADED', sorted({m.split('.')[0] for m in sys.modules}), file=sys.stderr))\n"
            "from medvigil.cli import main\n"
            f"sys.exit(main(['score', '--suite', 'medvigil', '--n-resamples', '20',\n"
            f"               {str(next((tmp_path / 'run').glob('*_samples_*')))!r}, '--json', '-']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["models"]["constant(letter=A)"]["metrics"]
    loaded = set(ast.literal_eval(proc.stderr.split("LOADED", 1)[1].strip()))
    assert not loaded & {"datasets", "matplotlib", "scipy", "jsonschema", "pandas", "PIL", "lmms_eval", "torch"}, loaded
    assert "pyarrow" in loaded  # the columnar path was taken



@pytest.mark.parametrize(
    ("rows", "nested", "missing", "written"),
    [
        ([{"a": 1}, {}], (), True, False),                                # a key not written, no null anywhere
        ([{"a": 1}, {"a": None}], (), False, True),                        # a JSON null
        ([{"a": 1}, {"b": None}], (), True, False),                        # a null elsewhere, the key not written
        ([{"a": None}, {"b": {"a": 1}}], None, False, False),               # a nested "a" counts: no row-level answer
        ([{"a": None}, {"b": "a"}], (), False, False),                     # a string value "a" is not a key
        ([{"a": None}, {"\\u0061": None}], (), False, False),              # a key spelt with an escape: unsettled
    ],
)
def test_key_counts_tell_missing_keys_from_json_nulls(rows, nested, missing, written):
    from medvigil.files.jsonl_bulk import KeyCounts

    text = "\n".join(json.dumps(r) for r in rows).replace("\\\\u", "\\u").encode()
    nulls = sum(r.get("a") is None for r in rows)
    keys = KeyCounts(text, len(rows), nested=nested)
    assert keys.nulls_are_missing("a", nulls) is missing
    assert keys.all_written("a", nulls) is written


def test_paused_gc_keep_moves_what_was_built_to_the_oldest_generation():
    import gc

    from medvigil.files.gc_pause import paused_gc

    enabled = gc.isenabled()
    with paused_gc(keep=True):
        assert not gc.isenabled()
        kept = [[i] for i in range(1000)]
    assert gc.isenabled() == enabled and gc.get_count()[0] < 100
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(item) in oldest for item in kept)
    frozen = [[]]
    gc.freeze()  # a caller's frozen objects stay frozen
    try:
        with paused_gc(keep=True):
            frozen.append([])
        assert id(frozen) not in {id(o) for o in gc.get_objects()}  # (frozen objects are in no generation)
    finally:
        gc.unfreeze()
