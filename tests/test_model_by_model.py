"""The stress suites score one model at a time (:func:`medvigil.records.suite_logs.score_logs`
with ``combine``), in worker processes: the result must be the one of scoring every record in one
call, in the same key order, and a model the workers cannot read or score must leave the
problems to that one call, so they name file, line and field as before.

:func:`assert_apart_as_together` is called by each suite's task tests on the logs of their real
lmms-eval runs; the tests here check the mechanism on small logs in lmms-eval's line shape.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_bulk_readers import RECORD, sample_line

from medvigil.errors import DataError
from medvigil.files.worker_pool import ENV
from medvigil.records.suite_logs import probe_key, score_logs, side_by_side


def _outcome(suite, files, score, key, combine):
    """The JSON text of the result (key order kept), or the problems' text."""
    try:
        return json.dumps(score_logs(suite, files, [], score, {}, key=key, combine=combine))
    except DataError as exc:
        return [str(p) for p in exc.problems]


def assert_apart_as_together(suite: str, files: list[Path], score, combine, monkeypatch, tmp_path: Path, *,
                             key=probe_key, spoil=None) -> None:
    """``score_logs`` of ``files`` gives the same result model by model (workers, and in-process)
    as all at once; and, with the last model's last file spoilt by ``spoil(text) -> text``
    (default: a line cut short), the same problems."""
    together = _outcome(suite, files, score, key, None)
    assert isinstance(together, str), together
    for workers in ("2", "1"):
        monkeypatch.setenv(ENV, workers)
        assert _outcome(suite, files, score, key, combine) == together, f"{ENV}={workers}"
    spoilt_folder = tmp_path / "spoilt"
    shutil.copytree(files[-1].parent, spoilt_folder)
    spoilt = spoilt_folder / files[-1].name
    text = spoilt.read_text()
    spoilt.write_text(spoil(text) if spoil else text.replace("\n", "\n" + text.splitlines()[0][:40] + "\n", 1))
    bad = [*files[:-1], spoilt]
    problems = _outcome(suite, bad, score, key, None)
    assert isinstance(problems, list) and problems, problems
    assert _outcome(suite, bad, score, key, combine) == problems


SUITE = "readiness"  # any suite the record schema knows; the scoring here is a toy


def _log(folder: Path, model: str, n: int, first: int = 0, **changes) -> Path:
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": {"model": model, "model_args": ""}}))
    path = folder / "20260101_000000_samples_toy_task.jsonl"
    path.write_text("".join(sample_line(dict(RECORD, suite=SUITE, probe_id=f"P{i}", case_id=f"C{i}", **changes), metrics=("acc",))
                            for i in range(first, first + n)))
    return path


def _toy_score(records):
    """Per model: how many records, and the first probe; across models: their count."""
    models: dict[str, dict] = {}
    for r in records:
        if r["predicted_letter"] == "Z":
            raise ValueError(f"record {r['probe_id']!r}: field 'predicted_letter' is 'Z'")
        models.setdefault(r["model"], {"n": 0, "first": r["probe_id"]})["n"] += 1
    return {"models": models, "n_models": len(models)}


def _toy_combine(parts):
    models = side_by_side(parts)
    return {"models": models, "n_models": len(models)}


@pytest.fixture
def toy_logs(tmp_path):
    """Four files of three models; model ``b`` has two runs, its second after model ``c``'s."""
    return [_log(tmp_path / "a", "a", 3), _log(tmp_path / "b1", "b", 2), _log(tmp_path / "c", "c", 4),
            _log(tmp_path / "b2", "b", 2, first=2, predicted_letter="C")]


def test_models_apart_equal_models_together(toy_logs, monkeypatch, tmp_path):
    assert_apart_as_together(SUITE, toy_logs, _toy_score, _toy_combine, monkeypatch, tmp_path)
    result = json.loads(_outcome(SUITE, toy_logs, _toy_score, probe_key, _toy_combine))
    assert list(result["models"]) == ["a", "b", "c"] and result["models"]["b"]["n"] == 4 and result["n_records"] == 11


def test_a_model_that_cannot_be_scored_is_described_by_the_one_call(toy_logs, monkeypatch):
    spoilt = toy_logs[2].read_text().replace('"predicted_letter": "A"', '"predicted_letter": "Z"')
    toy_logs[2].write_text(spoilt)
    monkeypatch.setenv(ENV, "2")
    with pytest.raises(DataError) as apart:
        score_logs(SUITE, toy_logs, [], _toy_score, {}, combine=_toy_combine)
    with pytest.raises(DataError) as together:
        score_logs(SUITE, toy_logs, [], _toy_score, {})
    assert [str(p) for p in apart.value.problems] == [str(p) for p in together.value.problems]
    assert "cannot score: record 'P0': field 'predicted_letter' is 'Z'" in str(apart.value.problems[0])


def test_a_probe_answered_twice_across_runs_of_one_model_is_found(toy_logs, tmp_path, monkeypatch):
    again = [*toy_logs, _log(tmp_path / "b3", "b", 1, first=3)]  # model b's probe P3 again, in another run
    monkeypatch.setenv(ENV, "2")
    with pytest.raises(DataError) as exc:
        score_logs(SUITE, again, [], _toy_score, {}, combine=_toy_combine)
    (problem,) = exc.value.problems
    assert "b3" in str(problem) and "field 'probe_id'" in str(problem) and "pass one run per model" in str(problem)


def test_a_missing_results_file_is_named(toy_logs, monkeypatch):
    (toy_logs[1].parent / "20260101_000000_results.json").unlink()
    monkeypatch.setenv(ENV, "2")
    with pytest.raises(DataError, match="no 20260101_000000_results.json beside it to name the model"):
        score_logs(SUITE, toy_logs, [], _toy_score, {}, combine=_toy_combine)
