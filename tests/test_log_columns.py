"""The columnar lmms-eval log reader (:mod:`medvigil.records.log_columns`) against the reference
reader (:func:`medvigil.records.lmms_eval_logs.read_samples`): on every log it takes, the table
is the one the reference records give; every log the reference refuses (or reads in a way the
columns cannot hold) it declines, and ``medvigil score`` then reports what the reference reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bulk_readers import RECORD, line_shapes, same_outcome, sample_line

from medvigil.errors import DataError
from medvigil.records.lmms_eval_logs import read_samples
from medvigil.records.log_columns import file_columns, record_block
from medvigil.scoring.table import Categorical, RecordTable
from medvigil.suites.medvigil.log_table import read_log_columns
from medvigil.suites.medvigil.model_outputs import read_model_outputs
from medvigil.suites.medvigil.release_format import with_canonical_source

LEAN = ("mcs", "cap", "safe")  # the record under mcs, its scoring key under the others (tasks/medvigil)


def lean_line(record: dict, **lead) -> str:
    """A line of today's task pack: the record under ``mcs``, a scoring-key list under the others."""
    line = json.loads(sample_line(record, metrics=("mcs",), **lead))
    key = [record.get(k) for k in ("suite", "model", "condition", "probe_id", "case_id")]
    line.update({m: key for m in LEAN[1:]})
    return json.dumps(line) + "\n"


def _log(folder: Path, lines: list[str], model_args: str = "letter=A", *, raw: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": {"model": "constant", "model_args": model_args}}))
    path = folder / "20260101_000000_samples_medvigil_mcq.jsonl"
    path.write_bytes(raw if raw is not None else "".join(lines).encode())
    return path


def _reference(paths: list[Path]) -> RecordTable:
    return RecordTable.from_records([with_canonical_source(r) for r in read_samples(paths)], source="<records>")


def _same(a: RecordTable, b: RecordTable) -> None:
    for name in ("suite", "model", "condition", "probe_kind", "risk_tier", "source_dataset", "modality", "text_only",
                 "case", "probe"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.levels == y.levels, name
        assert np.array_equal(x.codes, y.codes), name
    for name in ("gold", "pred", "status"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _records(n: int, **changes) -> list[dict]:
    kinds = ["original", "tcf", "halluc_trap", "negation"]
    return [dict(RECORD, probe_id=f"MVB-{i // 4:04d}__{kinds[i % 4]}", case_id=f"MVB-{i // 4:04d}", probe_kind=kinds[i % 4],
                 **changes) for i in range(n)]


# ---------------------------------------------------------------- logs it takes


def test_takes_todays_and_the_earlier_task_packs_logs(tmp_path):
    records = _records(8)
    records[3].update(predicted_letter=None, parse_status="parse_failure", raw_response="I cannot tell")
    records[5].update(predicted_letter=None, parse_status="error", raw_response=None)
    records[6].update(risk_tier=None, source_dataset="vqa_rad", modality=None, text_only_answerable=None)
    del records[7]["condition"], records[7]["retries"], records[7]["extra"], records[7]["risk_tier"]
    records[1]["extra"] = {"samples": ["A", None, "B"], "condition_source": "lmms-eval"}
    today = _log(tmp_path / "a", [lean_line(r) for r in records])
    earlier = _log(tmp_path / "b", ["\n"] + [sample_line(r) for r in records] + ["\n"], model_args="letter=B")
    paths = [today, earlier]
    assert all(file_columns(p, "m") is not None for p in paths)
    table = read_log_columns(paths).table
    _same(table, _reference(paths))
    assert table.source_dataset.levels == ("VQA-RAD",)  # canonical spelling, as the dict path gives


def test_the_score_json_is_the_reference_readers(tmp_path):
    from medvigil.suites.medvigil.scoring import audit

    paths = [_log(tmp_path / f"run{i}", [lean_line(dict(r, predicted_letter="ABCDE"[(j + i) % 5]))
                                        for j, r in enumerate(_records(40))], model_args=f"letter={i}") for i in range(3)]
    read = read_model_outputs(paths, None)
    assert type(read).__name__ == "LogColumns" and len(read) == 120
    with_columns = audit(read, n_resamples=50, harness_compatible=True)
    by_records = audit(read_samples(paths), n_resamples=50, harness_compatible=True)
    assert json.dumps(with_columns, sort_keys=True) == json.dumps(by_records, sort_keys=True)


def test_a_large_file_is_read_a_window_at_a_time(tmp_path, monkeypatch):
    import medvigil.files.mapped_lines as mapped_lines

    monkeypatch.setattr(mapped_lines, "WINDOW", 1000)  # a few lines a window
    path = _log(tmp_path / "run", [lean_line(r) for r in _records(60)])
    _same(read_log_columns([path]).table, _reference([path]))


# ---------------------------------------------------------------- logs it declines


def _same_as_the_reference(paths: list[Path]) -> None:
    """``read_log_columns`` gives the reference table or raises the reference's problems (or
    leaves CircularEval rotations to the reference reader)."""
    both = same_outcome(lambda: _reference(paths), lambda: read_log_columns(paths))
    if both is not None and both[1] is not None:
        _same(both[1].table, both[0])


def _declines_or_agrees(path: Path) -> None:
    """A log the reference refuses is declined by the columnar reader, and the reading reports the
    reference's problems; a log it reads is read to the same table either way."""
    columns = file_columns(path, "m")
    try:
        read_samples([path])
    except DataError:
        assert columns is None
    _same_as_the_reference([path])


BAD_LINES = {
    **line_shapes(sample_line, "mcs"),
    "record not first": lambda r: sample_line(r, metrics=("set_acc", "mcs")),
    "nested mcs first": lambda r: sample_line(r, doc={"mcs": {"suite": "medvigil", "probe_id": "decoy"}}),
    "nested record-like mcs first": lambda r: sample_line(r, doc={"mcs": dict(r, probe_id="decoy")}),
    "quoted mcs key first": lambda r: sample_line(r, doc={'x"mcs': dict(r, probe_id="decoy")}),
    "null condition": lambda r: sample_line(dict(r, condition=None)),
    "null extra": lambda r: sample_line(dict(r, extra=None)),
    "missing predicted_letter": lambda r: sample_line({k: v for k, v in r.items() if k != "predicted_letter"}),
    "letter AB": lambda r: sample_line(dict(r, predicted_letter="AB")),
    "letter a": lambda r: sample_line(dict(r, correct_letter="a")),
    "tier L6": lambda r: sample_line(dict(r, risk_tier="L6")),
    "status ok, no letter": lambda r: sample_line(dict(r, predicted_letter=None)),
    "letter on a failure": lambda r: sample_line(dict(r, parse_status="parse_failure")),
    "retries -1": lambda r: sample_line(dict(r, retries=-1)),
    "retries 1.0": lambda r: sample_line(dict(r, retries=1.0)),
    "text flag 1": lambda r: sample_line(dict(r, text_only_answerable=1)),
    "unknown key": lambda r: sample_line(dict(r, votes=3)),
    "empty probe id": lambda r: sample_line(dict(r, probe_id="")),
    "roi decay": lambda r: sample_line(dict(r, condition="roi_decay:1", extra={"samples": ["A"]})),
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_declines_what_it_cannot_vouch_for(tmp_path, kind):
    records = _records(6)
    lines = [lean_line(r) for r in records]
    lines[3] = BAD_LINES[kind](records[3])
    _declines_or_agrees(_log(tmp_path / "run", lines))


@pytest.mark.parametrize("kind", ["empty", "blank lines", "invalid UTF-8 in the prompt"])
def test_declines_empty_and_non_utf8_files(tmp_path, kind):
    first, second = (lean_line(r).encode() for r in _records(2))
    raw = {"empty": b"", "blank lines": b"\n\n",
           "invalid UTF-8 in the prompt": first + second.replace(b'"input": "', b'"input": "\xff', 1)}[kind]
    _declines_or_agrees(_log(tmp_path / "run", [], raw=raw))


def test_declined_files_join_the_table_in_their_place(tmp_path):
    """A run folder with ROI-decay logs (read record by record: their samples are voted on) and
    headline logs (read in columns): one table, the reference's, and the same audit, ROI decay
    included."""
    from medvigil.suites.medvigil.scoring import audit

    records = _records(12)
    decay = [dict(r, condition=f"roi_decay:{k}", extra={"samples": ["A", "B", "A"]}) for k in (0, 1) for r in records
             if r["probe_kind"] == "original"]
    decay_log = _log(tmp_path / "b", [lean_line(r) for r in decay])  # the same model's ROI-decay task
    paths = [_log(tmp_path / "a", [lean_line(r) for r in records]),
             decay_log.rename(decay_log.with_name("20260101_000000_samples_medvigil_roi_decay.jsonl")),
             _log(tmp_path / "c", [lean_line(dict(r, predicted_letter="B")) for r in records], model_args="letter=B")]
    assert [file_columns(p, "m") is not None for p in paths] == [True, False, True]
    read = read_log_columns(paths)
    _same(read.table, _reference(paths))
    assert read.records == [with_canonical_source(r) for r in read_samples([paths[1]])]
    by_columns = audit(read, n_resamples=20)
    by_records = audit([with_canonical_source(r) for r in read_samples(paths)], n_resamples=20)
    assert by_columns.get("ablations") and json.dumps(by_columns, sort_keys=True) == json.dumps(by_records, sort_keys=True)


def test_record_block_cuts_each_record_exactly():
    records = _records(3)
    records[1]["raw_response"] = "A {B}, "  # a '}, "' inside the record: its braces do not balance there
    data = "".join(lean_line(r) for r in records).encode()
    block, n = record_block(data)
    assert n == 3 and [json.loads(cut) for cut in block.split(b"\n")] == records


@pytest.mark.parametrize("response, cut", [("A}, ", "not an object"), ("A {B", "none")])
def test_record_block_never_passes_a_wrong_cut(response, cut):
    """A brace inside a string can end a cut early (it is then not a JSON object: pyarrow refuses
    it and the file is read line by line) or leave no balanced end (the file is declined)."""
    records = _records(2)
    records[0]["raw_response"] = response
    found = record_block("".join(lean_line(r) for r in records).encode())
    if cut == "none":
        assert found is None
    else:
        with pytest.raises(json.JSONDecodeError):
            json.loads(found[0].split(b"\n")[0])


_cell = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(["", "A", "B", "AB", "L1", "L6", "ok", "error",
                  "parse_failure", "medvigil", "noimg", "circular", "x"]), st.lists(st.sampled_from(["A", None]), max_size=2),
                  st.dictionaries(st.sampled_from(["samples", "k"]), st.sampled_from(["A", 1, None]), max_size=2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_either_the_same_table_or_declined(tmp_path_factory, data):
    """Records with cells replaced, dropped or added: the columnar path gives the reference
    table, or the same error, or declines."""
    records = _records(data.draw(st.integers(1, 8), label="rows"))
    for record in records:
        for key in data.draw(st.lists(st.sampled_from([*record, "votes"]), max_size=2), label="keys"):
            if data.draw(st.booleans(), label="drop") and key in record:
                del record[key]
            else:
                record[key] = data.draw(_cell, label=key)
    path = _log(tmp_path_factory.mktemp("log"), [lean_line(r) for r in records])
    _same_as_the_reference([path])


def test_categorical_columns_give_the_table_of_their_values():
    """``RecordTable.from_columns`` takes coded columns (levels may repeat) as their values."""
    common = dict(model="m", case_id=["c1", "c2", "c3", "c4", "c5"], probe_kind=["original"] * 5, correct_letter=["A"] * 5,
                  predicted_letter=["A"] * 5)
    by_values = RecordTable.from_columns(modality=["b", None, "a", "b", "c"], probe_id=["p3", "p0", "p1", "p2", "p4"], **common)
    by_codes = RecordTable.from_columns(
        modality=Categorical(np.array([0, -1, 1, 2, 3], dtype=np.int32), ("b", "a", "b", "c")),
        probe_id=Categorical(np.array([3, 0, 1, 2, 4], dtype=np.int32), ("p0", "p1", "p2", "p3", "p4")), **common)
    _same(by_values, by_codes)
