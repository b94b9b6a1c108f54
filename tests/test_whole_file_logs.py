"""The whole-file path of :func:`medvigil.records.lmms_eval_logs.read_samples` (every record of a
log cut out and decoded in one call) against its line-by-line path: on every log it takes, the
same records; every log it cannot vouch for it leaves to the lines, so problems still name file,
line and field exactly as before. Lines are in the shape of the stress tasks' logs: the record
under each metric key, nested ``extra`` objects (MedQ-Deg's ``params``) followed by more members."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bulk_readers import RECORD, line_shapes, same_outcome, sample_line

import medvigil.records.lmms_eval_logs as lmms_eval_logs
from medvigil.records.lmms_eval_logs import read_samples

METRICS = ("accuracy", "mean_confidence", "calibration_shift")  # tasks/medqdeg: the record under each


def _record(i: int, **changes) -> dict:
    extra = {"condition_source": "lmms-eval", "degradation": "reduce_contrast", "severity": 1, "votes": ["A", None, "B"],
             "trials": 3, "n_options": 5, "experiment": "calibration", "item_id": f"MVB-{i:04d}-original",
             "params": {"c": 0.65}, "seed": 1546324979594870101}
    return dict(RECORD, suite="medqdeg", condition="L1", probe_id=f"MVB-{i:04d}-original", case_id=f"MVB-{i:04d}",
                extra=extra, **changes)


def _line(record: dict, **lead) -> str:
    return sample_line(record, metrics=METRICS, **lead)


def _log(folder: Path, lines: list[str], *, raw: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": {"model": "grounded", "model_args": ""}}))
    path = folder / "20260101_000000_samples_medqdeg_L1.jsonl"
    path.write_bytes(raw if raw is not None else "".join(lines).encode())
    return path


def _line_by_line(paths: list[Path]) -> list[dict]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lmms_eval_logs, "_whole_file", lambda path, file: None)
        return read_samples(paths)


def _same_as_line_by_line(paths: list[Path]) -> None:
    """``read_samples`` gives the line-by-line records, or raises the same problems."""
    both = same_outcome(lambda: _line_by_line(paths), lambda: read_samples(paths))
    if both is not None:
        assert both[1] == both[0]


def assert_decoded_whole(paths: list[Path]) -> None:
    """Real lmms-eval logs (the task tests' runs) take the whole-file path and read as line by line."""
    assert paths
    for path in paths:
        assert lmms_eval_logs._whole_file(path, str(path)) is not None, path
    assert read_samples(paths) == _line_by_line(paths)


def test_stress_task_logs_are_decoded_whole(tmp_path):
    records = [_record(i) for i in range(6)]
    records[1]["extra"]["params"] = {"sigma": {"x": 1, "y": [2, {"z": 3}]}}  # nested objects, then more members
    records[2]["raw_response"] = "A {B}, \"C\" }, {"  # braces and quotes in a string
    records[3]["raw_response"] = "é ü 中文 \u2028"
    path = _log(tmp_path / "run", ["\n"] + [_line(r) for r in records] + ["\n"])
    whole = lmms_eval_logs._whole_file(path, str(path))
    assert whole is not None and len(whole) == 6
    assert read_samples([path]) == _line_by_line([path])
    assert [r["model"] for r in read_samples([path])] == ["grounded"] * 6


def test_a_large_file_is_cut_a_window_at_a_time(tmp_path, monkeypatch):
    import medvigil.files.mapped_lines as mapped_lines

    monkeypatch.setattr(mapped_lines, "WINDOW", 1000)
    path = _log(tmp_path / "run", [_line(_record(i)) for i in range(40)])
    assert lmms_eval_logs._whole_file(path, str(path)) is not None
    _same_as_line_by_line([path])


HOSTILE = {
    **line_shapes(_line, "accuracy"),
    "record last": lambda r: json.dumps({"doc_id": 0, "accuracy": r}) + "\n",
    "mcs record later": lambda r: sample_line(r, metrics=("accuracy", "mcs")),
    "nested record first": lambda r: _line(r, doc={"x": dict(r, probe_id="decoy")}),
    "record in a list first": lambda r: _line(r, filtered_resps=[dict(r, probe_id="decoy")]),
    "quoted key first": lambda r: _line(r, doc={'x"acc': dict(r, probe_id="decoy")}),
    "escaped quote before the key": lambda r: _line(r, target='A\\"').replace('\\\\\\"', '\\"', 1),
    "garbage after the record": lambda r: _line(r).replace(', "mean_confidence"', ', {"x": 1}, "y", "mean_confidence"', 1),
    "vote not a letter": lambda r: _line(dict(r, extra=dict(r["extra"], votes=["A", "ab"]))),
    "severity 3": lambda r: _line(dict(r, extra=dict(r["extra"], severity=3))),
    "missing probe id": lambda r: _line({k: v for k, v in r.items() if k != "probe_id"}),
    "deep nesting": lambda r: _line(r).replace('"params": {"c": 0.65}', '"params": ' + "[" * 3000 + "]" * 3000, 1),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_lines_read_as_line_by_line(tmp_path, kind):
    records = [_record(i) for i in range(5)]
    lines = [_line(r) for r in records]
    lines[2] = HOSTILE[kind](records[2])
    _same_as_line_by_line([_log(tmp_path / "run", lines)])


@pytest.mark.parametrize("kind", ["empty", "blank lines", "invalid UTF-8 in the prompt"])
def test_empty_and_non_utf8_files(tmp_path, kind):
    first, second = (_line(_record(i)).encode() for i in range(2))
    raw = {"empty": b"", "blank lines": b"\n\n",
           "invalid UTF-8 in the prompt": first + second.replace(b'"input": "', b'"input": "\xff', 1)}[kind]
    path = _log(tmp_path / "run", [], raw=raw)
    if kind == "invalid UTF-8 in the prompt":
        assert lmms_eval_logs._whole_file(path, str(path)) is None
    _same_as_line_by_line([path])


_cell = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(["", "A", "AB", "L1", "ok", "medqdeg", "}, \"",
                  "{", "x"]), st.lists(st.sampled_from(["A", None, "{"]), max_size=2),
                  st.dictionaries(st.sampled_from(["votes", "severity", "k"]), st.sampled_from(["A", 1, None, "}, \""]), max_size=2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_records_read_as_line_by_line(tmp_path_factory, data):
    records = [_record(i) for i in range(data.draw(st.integers(1, 6), label="rows"))]
    for record in records:
        target = record["extra"] if data.draw(st.booleans(), label="in extra") else record
        for key in data.draw(st.lists(st.sampled_from([*target, "new"]), max_size=2), label="keys"):
            if data.draw(st.booleans(), label="drop") and key in target:
                del target[key]
            else:
                target[key] = data.draw(_cell, label=key)
    _same_as_line_by_line([_log(tmp_path_factory.mktemp("log"), [_line(r) for r in records])])
