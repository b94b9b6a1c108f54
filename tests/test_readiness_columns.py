"""Illusion-of-Readiness's columnar reader (``medvigil.suites.readiness.log_columns``) scores a model's
logs exactly as the dict reader and ``readiness_from_records`` do, or declines; whatever the dict
path refuses is declined.

The logs are written in lmms-eval's layout, one samples file per arm, from the task pack's own
docs and record hook (:func:`medvigil.suites.readiness.protocol.arm_docs`, ``tasks/readiness/utils.py``),
then changed one field at a time.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lmms_run_files import write_run
from record_changes import DELETE, change_field

from medvigil.errors import DataError
from medvigil.records.suite_logs import _from_columns, read_suite_records
from medvigil.suites.readiness.log_columns import model_result
from medvigil.suites.readiness.protocol import ARMS, arm_docs, readiness_from_records

ROOT = Path(__file__).resolve().parents[1]
MODEL = "toy(seed=1)"
ANSWERS = "ABCAEBBADCAB"


@cache
def _hooks():
    spec = importlib.util.spec_from_file_location("readiness_task_utils", ROOT / "tasks" / "readiness" / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict]:
    rows = []
    for i in range(6):
        case, source = f"C{i}", ("VQA-RAD", "SLAKE")[i % 2]
        # the gold of case i+1 is case i's B option: each visually required case has a T5 donor
        options = [f"dx{i}", f"dx{(i + 1) % 6}", f"item{i}c", f"item{i}d", "Insufficient visual evidence"]
        base = {"case_id": case, "question": "What is the diagnosis?", "options": options, "correct_letter": "A", "source_dataset": source, "safe_letter": "E",
                "text_only_answerable": i == 0, "laterality_dependent": i in (1, 2), "risk_tier": "L1", "modality": "CT"}
        rows.append({**base, "probe_id": f"{case}-original", "probe_kind": "original"})
        if i in (1, 2):
            rows.append({**base, "probe_id": f"{case}-lr_flip", "probe_kind": "lr_flip", "correct_letter": "B"})
    return rows


def _records() -> dict[str, list[dict]]:
    """Every arm but chain-of-thought (T6 is read from the dicts): arm -> records."""
    rows, record = _rows(), _hooks()._record
    out = {}
    for k, arm in enumerate(a for a in ARMS if a != "readiness_cot"):
        out[arm] = [record({**rows[i], **o}, ANSWERS[(i + k) % len(ANSWERS)] if (i + k) % 7 else "no idea")
                    for i, o in arm_docs(arm, rows)]
    return out


def _write(folder: Path, arms: dict[str, list]) -> list[Path]:
    return write_run(folder, arms, ("acc", "acc_visreq"))


def _by_dicts(paths: list[Path], allow_partial: bool = False):
    """The dict path's (record count, scores), or None where it refuses the logs."""
    try:
        records = read_suite_records(paths, "readiness")
        return len(records), {"models": readiness_from_records(records, allow_partial=allow_partial)}
    except (DataError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _canonical(result) -> str:
    return json.dumps(result, default=str)  # key order too: the JSON a user gets


def test_the_task_packs_records_score_the_same_from_columns(tmp_path):
    paths = _write(tmp_path / "run", _records())
    columnar = model_result(paths, MODEL, allow_partial=False)
    assert columnar is not None, "the task pack's own records must take the columnar path"
    assert _canonical(columnar) == _canonical(_by_dicts(paths))
    scores = columnar[1]["models"][MODEL]
    assert scores["R"] is not None and not scores["missing_tests"]
    assert set(scores["accuracies"]) >= {"T1", "T2", "T3", "T4", "T5", "T4_variants"}


def test_chain_of_thought_records_are_left_to_the_dicts(tmp_path):
    rows, record = _rows(), _hooks()._record
    arms = _records()
    arms["readiness_cot"] = [record({**rows[i], **o}, "<thinking>it is B</thinking><answer>B</answer>")
                             for i, o in arm_docs("readiness_cot", rows)]
    paths = _write(tmp_path / "run", arms)
    assert model_result(paths, MODEL, allow_partial=False) is None
    assert "T6" in _by_dicts(paths)[1]["models"][MODEL]["accuracies"]


_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 9), st.sampled_from([1.0, "", "A", "a", "A\n", "x"]),
    st.lists(st.sampled_from(["A", None, 1]), max_size=3), st.just({}), st.just({"A": 1.0}),
)
_PLAUSIBLE = {  # values a log may well hold in each field (weighted above the odd ones)
    "suite": ["readiness", "cbd"], "condition": ["default", "noimg", "noimg:shuffled", "visual_substitution", "other"],
    "probe_id": ["C1-original", "C2-lr_flip", "C9-x"], "case_id": ["C0", "C1", "C2", "C9"], "probe_kind": ["original", "lr_flip"],
    "source_dataset": ["VQA-RAD", "SLAKE", None, "Other"], "text_only_answerable": [True, False, None],
    "correct_letter": ["A", "B", "E"], "predicted_letter": ["A", "B", "E", None], "parse_status": ["ok", "parse_failure"],
    "retries": [0, 2, -1], "extra": [{}, {"options_shown": ["a", "b"]}], "unknown_key": [1],
    "extra.options_shown": [["a", "b"], [], None, ["a", "b", "c"], "abc"], "extra.laterality_dependent": [True, False, None, "yes"],
    "extra.arm": ["readiness_img", None], "extra.cot": [{"answer": "A"}, None],
}
_CHANGE = st.sampled_from(sorted(_PLAUSIBLE)).flatmap(
    lambda field: st.tuples(st.just(field), st.one_of(st.sampled_from(_PLAUSIBLE[field]), st.sampled_from(_PLAUSIBLE[field]),
                                                      st.just(DELETE), _ODD)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.integers(0, 200), _CHANGE), min_size=1, max_size=3),
       duplicate=st.one_of(st.none(), st.integers(0, 200)), allow_partial=st.booleans(),
       dropped=st.one_of(st.none(), st.sampled_from([a for a in ARMS if a != "readiness_cot"])))
def test_a_changed_field_is_declined_or_scored_the_same(tmp_path_factory, changes, duplicate, allow_partial, dropped):
    arms = _records()
    if dropped is not None:
        arms.pop(dropped)  # a test's conditions absent: R is None or partial
    flat = [r for records in arms.values() for r in records]
    for index, (field, value) in changes:
        change_field(flat[index % len(flat)], field, value)
    if duplicate is not None:
        first = next(iter(arms))
        arms[first].append(copy.deepcopy(flat[duplicate % len(flat)]))
    paths = _write(tmp_path_factory.mktemp("run"), arms)
    expected = _by_dicts(paths, allow_partial)
    got = _from_columns(lambda group, model: model_result(group, model, allow_partial=allow_partial), paths)
    if got is not None:  # the columnar path answered: the dict path agrees and scores the same
        assert expected is not None, "the columnar path scored logs the dict path refuses"
        assert _canonical(got) == _canonical(expected)


def test_a_bad_log_through_the_command_names_file_row_and_field_and_writes_nothing(tmp_path, capsys):
    from medvigil.cli import main

    arms = _records()
    arms["readiness_text_4r"][1]["extra"]["laterality_dependent"] = "yes"  # the columns decline it; the dicts name it
    paths = _write(tmp_path / "run", arms)
    out = tmp_path / "scores.json"
    assert main(["score", "--suite", "readiness", str(tmp_path / "run"), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    bad = next(p for p in paths if p.name.endswith("_readiness_text_4r.jsonl"))
    assert f"{bad}, row 2, field 'extra.laterality_dependent': must be true, false or null, got 'yes'" in err
    assert not out.exists()
