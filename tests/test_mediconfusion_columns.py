"""MediConfusion's columnar reader (``medvigil.suites.mediconfusion.log_columns``) gives the runs and
scores of the dict reader, or declines; whatever the dict reader refuses is declined.

Each model's logs are lmms-eval samples files (one per mode) of records shaped like the task pack's,
over a synthetic release, then changed one field at a time.
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
from medvigil.suites.mediconfusion.authors_results import runs_from_lmms_eval
from medvigil.suites.mediconfusion.entry import _scored, _scored_from_columns
from medvigil.suites.mediconfusion.log_columns import runs_from_columns
from medvigil.suites.mediconfusion.release import Release
from medvigil.suites.mediconfusion.synthetic import make_pairs

RELEASE = Release(path="dataset.json", pairs={s.pair.pair_id: s.pair for s in make_pairs(6, seed=3)})
MODES = ("mc", "prefix")


def _records(mode: str) -> list[dict]:
    out = []
    for k, (pid, pair) in enumerate(RELEASE.pairs.items()):
        if k == 5:
            continue  # a pair the run lacks: listed as missing
        for image, gold in (("im1", pair.im_1_correct), ("im2", pair.im_2_correct)):
            answer = gold if (k + len(image) + len(mode)) % 3 else None
            out.append({
                "suite": "mediconfusion", "model": "lmms-eval-run", "condition": mode, "probe_id": f"{pid}:{image}",
                "case_id": pid, "probe_kind": "confusing_pair", "risk_tier": None, "source_dataset": "synthetic",
                "modality": None, "text_only_answerable": False, "category": pair.category_1[0],
                "correct_letter": gold, "predicted_letter": answer, "parse_status": "ok" if answer else "parse_failure",
                "raw_response": answer or "?", "retries": 0,
                "extra": {"image": image, "categories": list(pair.category_1 if image == "im1" else pair.category_2),
                          "votes": {"A": 3, "B": 1}, "margin": 3, "condition_source": "lmms-eval"},
            })
    return out


def _write(folder: Path, by_mode: dict[str, list[dict]]) -> list[str]:
    return [str(path) for path in write_run(folder, {f"mediconfusion_{mode}": records for mode, records in by_mode.items()},
                                            ("set_acc", "indiv_acc"), model_args="")]


def _by_dicts(paths: list[str]):
    try:
        runs = runs_from_lmms_eval(paths, RELEASE)
        return [(run.files[0], *item) for run, item in zip(runs, _scored(runs, "both_valid"))]
    except (DataError, ValueError, TypeError, KeyError):
        return None


def _canonical(scored) -> str:
    return json.dumps([(first, entry) for first, entry, _ in scored], sort_keys=True, default=str)


def test_the_task_shaped_records_give_the_same_runs_from_columns(tmp_path):
    paths = _write(tmp_path / "run", {mode: _records(mode) for mode in MODES})
    assert runs_from_columns(paths, RELEASE) is not None, "plain records must take the columnar path"
    got = _scored_from_columns(paths, RELEASE, "both_valid")
    assert got is not None and _canonical(got) == _canonical(_by_dicts(paths))
    assert [entry["n_missing_pairs"] for _, entry, _ in got] == [1, 1]


_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 5), st.sampled_from([1.5, float("inf"), "", "im1", "im2", "im3", "A", "Z", "zzz", "x:im2"]),
    st.lists(st.sampled_from(["Cardiac", "Dental", None, 1]), max_size=2), st.just({}), st.just({"A": -1}), st.just({"A": 2.5}),
    st.just({"A": None}), st.just({"A": "3"}),
)
_TOP = ["suite", "condition", "probe_id", "case_id", "category", "correct_letter", "predicted_letter", "parse_status", "retries",
        "extra", "unknown_key"]
_EXTRA = ["image", "categories", "votes", "margin", "other"]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(MODES), st.integers(0, 9), st.sampled_from(_TOP + [f"extra.{k}" for k in _EXTRA]),
                                  st.one_of(st.just(DELETE), _ODD)), min_size=1, max_size=3),
       duplicate=st.booleans())
def test_a_changed_field_is_declined_or_read_the_same(tmp_path_factory, changes, duplicate):
    by_mode = {mode: _records(mode) for mode in MODES}
    for mode, index, field, value in changes:
        change_field(by_mode[mode][index], field, value)
    if duplicate:
        by_mode["mc"].append(copy.deepcopy(by_mode["mc"][0]))
    paths = _write(tmp_path_factory.mktemp("run"), by_mode)
    expected = _by_dicts(paths)
    got = _scored_from_columns(paths, RELEASE, "both_valid")
    if got is not None:
        assert expected is not None, "the columnar path read logs the dict reader refuses"
        assert _canonical(got) == _canonical(expected)


def test_a_failing_columnar_attempt_leaves_the_runs_to_the_dict_reader(tmp_path, monkeypatch):
    from medvigil.suites.mediconfusion import entry

    paths = _write(tmp_path / "run", {mode: _records(mode) for mode in MODES})

    def broken(paths, release):
        raise NotImplementedError("an arrow kernel this pyarrow lacks")

    monkeypatch.setattr(entry, "runs_from_columns", broken)
    assert _canonical(entry._scored_at_once(paths, RELEASE, "both_valid")) == _canonical(_by_dicts(paths))
