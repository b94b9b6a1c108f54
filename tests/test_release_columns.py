"""The release reader's row check agrees with the row schemas.

The reader checks the typed CSV rows of manifest.csv, probes_mcq.csv and grounding.csv with
``jsonschema_rs`` built from the row schemas
(:func:`medvigil.records.schema_validation.refused_rows`); ``jsonschema`` then judges and describes
the rows it refuses. It must never accept a row the schema refuses, and the problems must be
``jsonschema``'s row by row. Rows come from a release in the authors' layout
(shared/tools/authors_format_release.py beside the repository), each mutated one field at a time,
mixed with the untouched rows.
"""

import subprocess
import sys

import pytest
from shared_paths import AUTHORS_TOOL

from medvigil.records.schema_validation import problems_for, problems_for_records, refused_rows
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_csv import _SPECS

TOOL = AUTHORS_TOOL
MUTATIONS = [
    None,
    "",
    " ",
    "a b",
    "x/y",
    0,
    1,
    1.5,
    True,
    False,
    [],
    ["A"],
    {},
    "L9",
    "F",
    "A",
    "L1",
    "yes",
    -1,
]


@pytest.fixture(scope="module")
def typed_rows(tmp_path_factory):
    if not TOOL.exists():
        pytest.skip("authors-format generator not available")
    root = tmp_path_factory.mktemp("rel")
    subprocess.run(
        [sys.executable, str(TOOL), str(root), "--cases", "30", "--models", "1"],
        check=True,
        capture_output=True,
    )
    read = read_release(root / "data" / "medvigil_v1", digest=False)
    return {rel: [row.values for row in rows] for rel, rows in read.rows.items() if rows}


@pytest.mark.parametrize("rel", [rf.MANIFEST, rf.PROBES_MCQ, rf.GROUNDING])
def test_row_check_never_accepts_what_the_schema_refuses(typed_rows, rel):
    schema = _SPECS[rel].schema
    base = typed_rows[rel]
    rows = list(base)
    for name in sorted(base[0]):
        for value in MUTATIONS:
            rows.append({**base[0], name: value})
        rows.append({k: v for k, v in base[0].items() if k != name})  # the column left out
    expected = [not problems_for(schema, row, rel, i) for i, row in enumerate(rows, start=1)]
    refused = set(refused_rows(schema, rows))
    assert all(i in refused for i, ok in enumerate(expected) if not ok)
    one_by_one = [
        p for i, row in enumerate(rows, start=1) for p in problems_for(schema, row, rel, i)
    ]
    assert problems_for_records(schema, rows, rel) == one_by_one
    assert all(expected[: len(base)])  # the untouched rows are valid
    assert not all(expected)  # and some mutations are not
