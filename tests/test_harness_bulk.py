"""The columnar harness reader agrees with the row schema and with the row-by-row reader.

``medvigil.suites.medvigil.harness_rows.bulk_columns`` reads a whole result file with pyarrow and checks
its columns; it must never accept a row that ``schemas/harness_result_row.schema.json``
rejects. ``read_harness_table`` (the scoring path) must report a rejected row with the same
file, line and field as the schema and as ``read_harness_files`` (the per-row reader), and
build the same table from an accepted file. Rows are in the authors' shapes
(``scripts/bench_run_baseline.py``: answered rows with letters, failed calls as
``status: "error: ..."`` without letters), mutated one field at a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from shared_paths import AUTHORS_TOOL

from medvigil.errors import DataError
from medvigil.records.schema_validation import problems_for
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.harness import read_harness_files, read_harness_table
from medvigil.suites.medvigil.harness_rows import bulk_columns

TOOL = AUTHORS_TOOL

OK_ROW = {
    "probe_id": "MVB-0009__orig", "case_id": "MVB-0009", "probe_kind": "original", "format": "mcq",
    "model_id": "synth", "image_file": "MVB-0009.jpg", "question": "q?", "model_answer": "B",
    "latency_ms": 812, "usage": {}, "status": "ok", "timestamp": "2026-05-01T00:00:00Z",
    "model_letter": "B", "correct_letter": "A", "expected_behavior": "",
}
ERROR_ROW = {
    "probe_id": "MVB-0009__tcf", "case_id": "MVB-0009", "probe_kind": "tcf", "format": "mcq",
    "model_id": "synth", "image_file": "MVB-0009.jpg", "question": "q?", "model_answer": "",
    "latency_ms": 0, "usage": {}, "status": "error: synthetic 529 overloaded", "timestamp": "2026-05-01T00:00:01Z",
}
BASE = [
    {**OK_ROW, "probe_id": "MVB-0001__orig", "case_id": "MVB-0001"},
    {**ERROR_ROW, "probe_id": "MVB-0001__tcf", "case_id": "MVB-0001", "correct_letter": "C"},
]
_DROP = object()


def _with(row: dict, **changes) -> dict:
    out = dict(row)
    for key, value in changes.items():
        if value is _DROP:
            out.pop(key, None)
        else:
            out[key] = value
    return out


# (name, third line of the file: a dict, or raw text)
VARIANTS = [
    ("answered", OK_ROW),
    ("answered, empty letter", _with(OK_ROW, model_letter="")),
    ("answered, null letter", _with(OK_ROW, model_letter=None)),
    ("answered, lower-case letter", _with(OK_ROW, model_letter="b")),
    ("answered, no model_letter", _with(OK_ROW, model_letter=_DROP)),
    ("answered, no correct_letter", _with(OK_ROW, correct_letter=_DROP)),
    ("answered, correct_letter F", _with(OK_ROW, correct_letter="F")),
    ("answered, correct_letter 1", _with(OK_ROW, correct_letter=1)),
    ("answered, correct_letter null", _with(OK_ROW, correct_letter=None)),
    ("error row", ERROR_ROW),
    ("error row with gold", _with(ERROR_ROW, correct_letter="A")),
    ("error row, null correct_letter", _with(ERROR_ROW, correct_letter=None)),
    ("error row, null model_letter", _with(ERROR_ROW, model_letter=None)),
    ("empty probe_id", _with(OK_ROW, probe_id="")),
    ("numeric probe_id", _with(OK_ROW, probe_id=5)),
    ("no case_id", _with(OK_ROW, case_id=_DROP)),
    ("null case_id", _with(OK_ROW, case_id=None)),
    ("no status", _with(OK_ROW, status=_DROP)),
    ("empty status", _with(OK_ROW, status="")),
    ("retries 2", _with(OK_ROW, retries=2)),
    ("retries -1", _with(OK_ROW, retries=-1)),
    ("retries true", _with(OK_ROW, retries=True)),
    ("retries 1.0", _with(OK_ROW, retries=1.0)),
    ("retries null", _with(OK_ROW, retries=None)),
    ("model string", _with(OK_ROW, model="gpt-4o")),
    ("model null", _with(OK_ROW, model=None)),
    ("model number", _with(OK_ROW, model=3)),
    ("raw object", _with(OK_ROW, raw={"text": "B"})),
    ("raw number", _with(OK_ROW, raw=5)),
    ("raw_response null", _with(OK_ROW, raw_response=None)),
    ("response number", _with(OK_ROW, response=1)),
    ("model_answer object", _with(OK_ROW, model_answer={})),
    ("error null", _with(OK_ROW, error=None)),
    ("key of the schema nested in another field", _with(ERROR_ROW, usage={"correct_letter": None})),
    ("a value spelling a key", _with(ERROR_ROW, question='"correct_letter": null')),
    ("escaped key", json.dumps(ERROR_ROW)[:-1] + ', "correct\\u005fletter": null}'),
    ("array", "[1, 2]"),
    ("JSON null", "null"),
    ("string", '"row"'),
    ("two objects on one line", json.dumps(OK_ROW) + json.dumps(_with(OK_ROW, probe_id="MVB-0009__x"))),
]


def _text(line) -> str:
    return line if isinstance(line, str) else json.dumps(line)


def _write(tmp_path: Path, line) -> Path:
    path = tmp_path / "m__mcq.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in BASE) + "\n" + _text(line) + "\n", encoding="utf-8")
    return path


def _schema_fields(line) -> set | None:
    """Fields the schema names for the third line (None: the schema accepts it)."""
    try:
        value = json.loads(_text(line))
    except ValueError:
        return {"<json>"}
    if not isinstance(value, dict):
        return {"<not an object>"}
    found = problems_for("harness_result_row", value, "x", 3)
    return {p.field for p in found} if found else None


@pytest.mark.parametrize("name,line", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_bulk_never_accepts_what_the_schema_rejects(tmp_path, name, line):
    path = _write(tmp_path, line)
    bulk = bulk_columns(path.read_bytes())
    rejected = _schema_fields(line)
    if rejected is not None:
        assert bulk is None, f"{name}: the schema rejects it ({rejected}) but the bulk path accepted it"


@pytest.mark.parametrize(
    "name", ["answered", "answered, empty letter", "error row", "error row with gold", "retries 2", "model string",
             "raw_response null", "error null", "a value spelling a key"]
)
def test_bulk_path_taken_for_the_authors_shapes(tmp_path, name):
    line = dict(VARIANTS)[name]
    cols = bulk_columns(_write(tmp_path, line).read_bytes())
    assert cols is not None, name
    assert cols["probe_id"] == [BASE[0]["probe_id"], BASE[1]["probe_id"], line["probe_id"]]
    assert cols["correct_letter"][1:] == ["C", line.get("correct_letter")]
    assert cols["model_letter"][1:] == [None, line.get("model_letter")]


@pytest.mark.parametrize("name,line", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_table_reader_names_the_rows_and_fields_the_row_reader_names(tmp_path, name, line):
    path = _write(tmp_path, line)
    try:
        records = read_harness_files([path])
        row_problems = None
    except DataError as exc:
        row_problems = [(p.file, p.row, p.field, p.message) for p in exc.problems]
    try:
        columns = read_harness_table([path])
        table_problems = None
    except DataError as exc:
        table_problems = [(p.file, p.row, p.field, p.message) for p in exc.problems]
    assert table_problems == row_problems, name
    rejected = _schema_fields(line)
    if rejected is not None and not rejected & {"<json>", "<not an object>"}:
        assert table_problems, name
        assert {field for _, row, field, _ in table_problems if row == 3} == rejected, name
        assert all(file == str(path) for file, *_ in table_problems)
    if row_problems is None:
        _assert_same_table(columns.table, RecordTable.from_records(records), name)


def _assert_same_table(a: RecordTable, b: RecordTable, name: str) -> None:
    assert len(a) == len(b), name
    for field in ("suite", "model", "condition", "probe_kind", "risk_tier", "source_dataset", "modality", "text_only", "case",
                  "probe"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.levels == y.levels and np.array_equal(x.codes, y.codes), (name, field)
    for field in ("gold", "pred", "status"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), (name, field)


def test_error_row_gold_from_a_later_file_keeps_record_order(tmp_path):
    """No release: an error row's gold may come from another model's file; those rows come last."""
    first = tmp_path / "a__mcq.jsonl"
    second = tmp_path / "b__mcq.jsonl"
    first.write_text("\n".join(json.dumps(r) for r in (ERROR_ROW, _with(OK_ROW, probe_id="P2", model_letter="C"))) + "\n")
    second.write_text("\n".join(json.dumps(r) for r in (_with(OK_ROW, probe_id=ERROR_ROW["probe_id"]),)) + "\n")
    records = read_harness_files([first, second])
    table = read_harness_table([first, second]).table
    assert [r["probe_id"] for r in records] == ["P2", ERROR_ROW["probe_id"], ERROR_ROW["probe_id"]]
    _assert_same_table(table, RecordTable.from_records(records), "later gold")


@pytest.mark.skipif(not TOOL.exists(), reason="authors-format generator not available")
def test_authors_format_release_read_in_bulk_as_row_by_row(tmp_path):
    """The generator's release (authors' shapes, error rows included): every file in bulk, same table."""
    subprocess.run([sys.executable, str(TOOL), str(tmp_path), "--cases", "40", "--models", "3"], check=True,
                   capture_output=True)
    files = sorted((tmp_path / "results" / "baselines").glob("*__mcq.jsonl"))
    assert files and all(bulk_columns(f.read_bytes()) is not None for f in files)
    release = tmp_path / "data" / "medvigil_v1"
    table = read_harness_table(files, str(release)).table
    _assert_same_table(table, RecordTable.from_records(read_harness_files(files, str(release))), "generator")


@pytest.mark.parametrize("lead", [b"null\n", b"5\n", b'"x"\n', b" {}\n", b"\xef\xbb\xbf"])
def test_a_file_not_opening_with_an_object_takes_the_row_path(tmp_path, lead):
    """pyarrow 26 crashes the process on a first value 'null': such files never reach it."""
    row = json.dumps({"probe_id": "MVB-0001-original", "case_id": "MVB-0001", "probe_kind": "original",
                      "status": "ok", "model_letter": "A", "correct_letter": "A"}).encode()
    data = lead + row + b"\n"
    assert bulk_columns(data) is None
    code = ("import sys; from medvigil.suites.medvigil.harness_rows import bulk_columns; "
            f"print(bulk_columns({(b'null' + chr(10).encode() + row + chr(10).encode())!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "None", proc.stderr[-500:]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("authors")
    if not TOOL.exists():
        pytest.skip("authors-format generator not available")
    subprocess.run([sys.executable, str(TOOL), str(root), "--cases", "30", "--models", "2"], check=True, capture_output=True)
    return root


def _mutated(generated: Path, tmp_path: Path, change) -> list[Path]:
    """Copies of the generated result files, the first one's lines passed through ``change``."""
    out = []
    for k, f in enumerate(sorted((generated / "results" / "baselines").glob("*__mcq.jsonl"))):
        lines = f.read_text(encoding="utf-8").splitlines()
        if k == 0:
            lines = change([json.loads(t) for t in lines])
            lines = [t if isinstance(t, str) else json.dumps(t) for t in lines]
        (tmp_path / f.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(tmp_path / f.name)
    return out


def _set(i, **changes):
    return lambda rows: [_with(r, **changes) if n == i else r for n, r in enumerate(rows)]


RELEASE_MUTATIONS = {
    "as written": lambda rows: rows,
    "unknown probe": _set(3, probe_id="MVB-9999__orig"),
    "case of another probe": _set(3, case_id="MVB-0002"),
    "unknown case": _set(3, case_id="MVB-9999"),
    "kind differs from the release": _set(3, probe_kind="tcf"),
    "gold differs from the release": _set(0, correct_letter="B"),
    "lower-case letter": _set(0, model_letter="b"),
    "letter with spaces": _set(0, model_letter=" C "),
    "empty letter": _set(0, model_letter=""),
    "error row": _set(0, status="error: 529", model_letter=_DROP, correct_letter=_DROP),
    "error row with a bad letter": _set(0, status="error: 529", model_letter="zz"),
    "probe twice": lambda rows: rows + [rows[2]],
    "blank line": lambda rows: rows[:2] + [""] + rows[2:],
    "not JSON": lambda rows: rows[:1] + ["{not json"] + rows[1:],
}


@pytest.mark.parametrize("name", list(RELEASE_MUTATIONS))
def test_coded_path_with_a_release_as_row_by_row(generated, tmp_path, name):
    """With a release giving the MCQ probes, files become codes: same problems, records and bookkeeping."""
    files = _mutated(generated, tmp_path, RELEASE_MUTATIONS[name])
    release = str(generated / "data" / "medvigil_v1")
    outcome = []
    for read in (read_harness_files, read_harness_table):
        for strict in (True, False):
            try:
                got = read(files, release, strict=strict)
            except DataError as exc:
                outcome.append([(p.file, p.row, p.field, p.message) for p in exc.problems])
                continue
            outcome.append((got.skipped, {m: dict(sorted(k.items())) for m, k in got.error_rows.items()},
                            [(p.file, p.row, p.field, p.message) for p in got.problems]))
            if read is read_harness_table:
                _assert_same_table(got.table, RecordTable.from_records(read_harness_files(files, release, strict=strict)),
                                   name)
    assert outcome[:2] == outcome[2:], name
