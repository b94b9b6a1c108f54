"""MedQ-Deg's columnar reader (``medvigil.suites.medqdeg.log_columns``) scores a model's logs exactly
as the dict reader and ``score_records`` do, or declines; whatever the dict path refuses is declined.

The logs are written in lmms-eval's layout from the task pack's own hook
(:func:`medvigil.suites.medqdeg.protocol.record`), then changed one field at a time.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lmms_run_files import write_run
from record_changes import DELETE, change_field

from medvigil.errors import DataError
from medvigil.records.suite_logs import _from_columns, read_suite_records
from medvigil.suites.medqdeg.entry import DEFAULTS, record_key
from medvigil.suites.medqdeg.log_columns import model_scores
from medvigil.suites.medqdeg.protocol import record
from medvigil.suites.medqdeg.scoring import score_records

MODEL = "toy(seed=1)"
OPTIONS = ["yes", "no", "cannot say", "maybe", "refuse"]
ROWS = [  # item, degradation, severity, experiment, answers
    ("q1", "clean", 0, "calibration", "AAAA"), ("q2", "clean", 0, "calibration", "AB??"),
    ("q1", "gaussian_noise", 1, "calibration", "ABAB"), ("q2", "motion_blur", 2, "calibration", "BBBB"),
    ("q1", "clean", 0, "accuracy", "AAB"), ("q1", "low_dose", 2, "accuracy", "CCA"),
]


def _records() -> list[dict]:
    out = []
    for item, kind, level, experiment, answers in ROWS:
        doc = {"probe_id": item, "case_id": item, "probe_kind": "original", "question": "Is it there?", "options": OPTIONS,
               "correct_letter": "A", "image_file": f"images/{item}.png", "modality": "CT" if item == "q1" else None,
               "capability": "Diagnosis", "degradation": kind, "severity": level, "experiment": experiment,
               "risk_tier": None, "source_dataset": "toy"}
        out.append(record(doc, ["" if a == "?" else a for a in answers]))
    return out


def _write(folder: Path, records: list[dict]) -> list[Path]:
    """The records as one lmms-eval run: one samples file per severity (records in order)."""
    def level_of(r):
        return r["extra"].get("severity") if isinstance(r.get("extra"), dict) and r["extra"].get("severity") in (1, 2) else 0

    return write_run(folder, {f"medqdeg_L{level}": [r for r in records if level_of(r) == level] for level in (0, 1, 2)},
                     ("accuracy", "calibration_shift"))


def _by_dicts(paths: list[Path]):
    """The dict path's (record count, scores), or None where it refuses the logs."""
    try:
        records = read_suite_records(paths, "medqdeg", record_key)
        return len(records), score_records(records, **DEFAULTS)["models"]
    except (DataError, ValueError, TypeError, KeyError):
        return None


def _canonical(result) -> str:
    return json.dumps(result, sort_keys=True, default=str)


def test_the_task_packs_records_score_the_same_from_columns(tmp_path):
    paths = _write(tmp_path / "run", _records())
    columnar = model_scores(paths, MODEL, **DEFAULTS)
    assert columnar is not None, "the task pack's own records must take the columnar path"
    n, models = columnar
    assert _canonical((n, models["models"])) == _canonical(_by_dicts(paths))
    assert set(models["models"][MODEL]) >= {"by_severity", "accuracy_experiment", "experiment"}


_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 30), st.sampled_from([2.0, 5.0, 10**30, "", "L1", "2", "A\n", "a", "x", "circular"]),
    st.lists(st.sampled_from(["A", "B", "E", None, "", "A\n", 1]), max_size=3), st.just({}), st.just({"k": 1}),
)
_TOP = ["suite", "condition", "probe_id", "case_id", "probe_kind", "risk_tier", "modality", "correct_letter",
        "predicted_letter", "parse_status", "retries", "text_only_answerable", "extra", "category", "unknown_key"]
_EXTRA = ["votes", "n_options", "severity", "degradation", "experiment", "item_id", "capability", "trials"]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.integers(0, len(ROWS) - 1), st.sampled_from(_TOP + [f"extra.{k}" for k in _EXTRA]),
                                  st.one_of(st.just(DELETE), _ODD)), min_size=1, max_size=3),
       duplicate=st.booleans())
def test_a_changed_field_is_declined_or_scored_the_same(tmp_path_factory, changes, duplicate):
    records = _records()
    for index, field, value in changes:
        change_field(records[index], field, value)
    if duplicate:
        records.append(copy.deepcopy(records[0]))
    paths = _write(tmp_path_factory.mktemp("run"), records)
    expected = _by_dicts(paths)
    got = _from_columns(lambda group, model: model_scores(group, model, **DEFAULTS), paths)
    if got is not None:  # the columnar path answered: the dict path agrees and scores the same
        assert expected is not None, "the columnar path scored logs the dict path refuses"
        assert _canonical((got[0], got[1]["models"])) == _canonical(expected)


def test_a_failing_columnar_attempt_leaves_the_model_to_the_dict_reader(tmp_path):
    paths = _write(tmp_path / "run", _records())

    def broken(group, model):
        raise NotImplementedError("an arrow kernel this pyarrow lacks")

    assert _from_columns(broken, paths) is None
