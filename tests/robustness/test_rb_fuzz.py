"""Property-based fuzzing of every reader: for any input, a result or a clean
:class:`~medvigil.errors.DataError` (naming a file), never another exception.

Inputs start from valid files in the shapes the real writers produce (release CSV/JSON from
``medvigil sample``, lmms-eval logs of every suite as the task hooks write them, the
MediConfusion authors' result files, ``medvigil score --json`` results) and are then mutated:
random bytes, spliced lines, and JSON values replaced by arbitrary JSON at arbitrary places.
"""

import json
import shutil

import pytest
from conftest import mc_results, suite_records, write_log
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from medvigil.errors import DataError

# no shrinking phase: a failure is reported as found (keeps the suite fast; derandomized, so
# reproducible)
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["A", "B", "L1", "", "default", "noimg", "clean"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(value, prefix=()):
    """Every (path) into a JSON value, for replacing one at random."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value, path, new):
    if not path:
        return new
    head, *rest = path
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]


@st.composite
def mutated_json(draw, base):
    """``base`` with 1-3 places (possibly the whole value) replaced by arbitrary JSON."""
    value = base
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(value))
        value = _replace(value, draw(st.sampled_from(paths)), draw(json_values))
    return value


@st.composite
def mutated_bytes(draw, base: bytes):
    """``base`` with a random slice replaced by random bytes (or text), or truncated."""
    cut = draw(st.integers(0, len(base)))
    end = draw(st.integers(cut, min(len(base), cut + 64)))
    filler = draw(st.binary(max_size=24) | st.text(max_size=24).map(str.encode) | st.just(b""))
    return base[:cut] + filler + base[end:]


def _clean(call):
    """A result, or a DataError naming a file; anything else fails the property."""
    try:
        return call()
    except DataError as exc:
        assert exc.problems and all(p.file for p in exc.problems)
        return None


# ---------------------------------------------------------------- release CSV / JSON


@pytest.fixture(scope="module")
def release_dir(small_release, tmp_path_factory):
    copy = tmp_path_factory.mktemp("fuzz_release") / "release"
    shutil.copytree(small_release[0], copy)
    return copy


@pytest.mark.parametrize(
    "name",
    [
        "manifest.csv",
        "probes_mcq.csv",
        "grounding.csv",
        "reconstruction/cxr_pointers.csv",
        "splits/by_tier.json",
    ],
)
def test_release_reader(release_dir, small_release, name):
    from medvigil.suites.medvigil.release.release import read_release

    original = (small_release[0] / name).read_bytes()

    @FUZZ
    @given(data=mutated_bytes(original))
    def check(data):
        (release_dir / name).write_bytes(data)
        result = _clean(lambda: read_release(release_dir))
        if result is not None:
            assert all(p.file for p in result.problems)

    try:
        check()
    finally:
        (release_dir / name).write_bytes(original)


def test_csv_parser():
    from medvigil.files.csvio import parse_csv_bytes

    @FUZZ
    @given(
        data=st.binary(max_size=200)
        | st.text(alphabet=',"\r\n ab\ufeff\x00', max_size=60).map(str.encode)
    )
    def check(data):
        _clean(lambda: parse_csv_bytes(data, "x.csv", required=("a",)))

    check()


# ---------------------------------------------------------------- lmms-eval logs of every suite


@pytest.mark.parametrize("suite", ["medqdeg", "readiness", "cbd"])
def test_lmms_eval_logs(tmp_path, suite):
    from medvigil.suites.registry import score

    base = suite_records(suite)
    folder = tmp_path / "runs"

    @FUZZ
    @given(records=mutated_json(base), raw=st.none() | mutated_bytes(json.dumps(base[0]).encode()))
    def check(records, raw):
        shutil.rmtree(folder, ignore_errors=True)
        lines = (
            [json.dumps({"acc": r, "mcs": r}) for r in records]
            if isinstance(records, list)
            else [json.dumps(records)]
        )
        log = write_log(folder, suite, lines=lines)
        if raw is not None:
            with log.open("ab") as fh:
                fh.write(raw + b"\n")
        result = _clean(lambda: score(suite, [folder]))
        if result is not None:
            json.dumps(result, allow_nan=True)  # serialisable

    check()


def test_lmms_eval_results_file(tmp_path):
    from medvigil.runs.lmms_run import model_name

    log = write_log(tmp_path, "medqdeg")

    @FUZZ
    @given(config=mutated_json({"config": {"model": "grounded", "model_args": "a=1"}}))
    def check(config):
        log.with_name("20260101_000000_results.json").write_text(json.dumps(config))
        name = _clean(lambda: model_name(log))
        assert name is None or isinstance(name, str)

    check()


# ---------------------------------------------------------------- MediConfusion results (authors'
# files and lmms-eval logs)


def test_mediconfusion_results(mc_sample, tmp_path):
    from medvigil.suites.mediconfusion.authors_results import read_results
    from medvigil.suites.mediconfusion.release import read_release

    dataset = mc_sample / "data" / "dataset.json"
    release = read_release(dataset)
    base = mc_results(dataset)
    path = tmp_path / "m_mc.json"

    @FUZZ
    @given(data=mutated_json(base))
    def check(data):
        path.write_text(json.dumps(data))
        run = _clean(lambda: read_results(path, release))
        if run is not None:
            run.score()

    check()


def test_mediconfusion_lmms_eval_logs(mc_sample, tmp_path):
    from medvigil.suites.mediconfusion.lmms_eval_runs import runs_from_lmms_eval
    from medvigil.suites.mediconfusion.release import read_release

    dataset = mc_sample / "data" / "dataset.json"
    release = read_release(dataset)
    pairs = [p for p in json.loads(dataset.read_text()) if not p.startswith("_")]
    base = suite_records("mediconfusion", n=2)
    for r, pid in zip(base, pairs):
        r.update(case_id=pid, probe_id=f"{pid}:im1")

    @FUZZ
    @given(records=mutated_json(base))
    def check(records):
        lines = (
            [json.dumps({"acc": r}) for r in records]
            if isinstance(records, list)
            else [json.dumps(records)]
        )
        log = write_log(tmp_path / "runs", "mediconfusion", lines=lines)
        runs = _clean(lambda: runs_from_lmms_eval([log], release))
        for run in runs or []:
            run.score()

    check()


# ---------------------------------------------------------------- scores JSON given to report


SCORES = [
    {
        "suite": "medvigil",
        "models": {
            "m1": {
                "metrics": {"mcs": 50.0, "overall": 60.0},
                "accuracy": {"original": 60.0},
                "sfr_by_tier": {"L1": 10.0},
                "n_by_tier": {"L1": 3},
            }
        },
        "params": {},
    },
    {
        "suite": "cbd",
        "models": {
            "m": {
                "fractions": {"Ideal": 0.5, "Fragile": 0.5, "Dangerous": 0.0, "Worst": 0.0},
                "counts": {"Ideal": 1, "Fragile": 1, "Dangerous": 0, "Worst": 0},
                "flip_rate": 0.5,
                "dangerous_fraction": 0.0,
                "accuracy_by_quadrant": {},
                "n_samples": 2,
            }
        },
        "files": [],
        "skipped_files": [],
        "n_records": 4,
    },
]


@pytest.mark.parametrize("base", SCORES, ids=[s["suite"] for s in SCORES])
def test_report_score_files(tmp_path, base):
    from medvigil.report.document import checked_sections, load_results

    path = tmp_path / "scores.json"

    @FUZZ
    @given(data=mutated_json(base))
    def check(data):
        path.write_text(json.dumps(data))
        result = _clean(lambda: load_results([path]))
        if result is not None:
            _clean(lambda: checked_sections(result, [path]))

    check()


def test_harness_jsonl(small_release, tmp_path):
    from medvigil.suites.medvigil.harness.model_outputs import read_model_outputs
    from medvigil.suites.medvigil.release.release_loading import load_release

    release = load_release(small_release[0])  # once: the reader also takes a loaded release
    row = {
        "case_id": "MVB-0001",
        "probe_id": "MVB-0001-original",
        "status": "ok",
        "parsed_letter": "A",
        "response": "A",
    }
    path = tmp_path / "m__mcq.jsonl"

    @FUZZ
    @given(rows=mutated_json([row, row]), raw=mutated_bytes(json.dumps(row).encode()))
    def check(rows, raw):
        path.write_bytes(json.dumps(rows).encode() + b"\n" + raw + b"\n")
        _clean(lambda: read_model_outputs([path], release))

    check()
