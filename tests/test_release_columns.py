"""The release reader's column-by-column row check agrees with the row schemas.

:func:`medvigil.suites.medvigil.release.release_csv.rows_refused` judges the typed CSV rows of
manifest.csv, probes_mcq.csv and grounding.csv one column at a time (each distinct value once);
``jsonschema`` then only describes the rows it rejects. It must accept exactly the rows the schema
accepts. Rows come from a release in the authors' layout (shared/tools/authors_format_release.py
beside the repository), each mutated one field at a time, mixed with the untouched rows.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from shared_paths import AUTHORS_TOOL

from medvigil.records.schema_validation import problems_for
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release import read_release
from medvigil.suites.medvigil.release.release_csv import _SPECS, rows_refused

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
def test_column_check_accepts_exactly_what_the_schema_accepts(typed_rows, rel):
    schema = _SPECS[rel].schema
    base = typed_rows[rel]
    rows = list(base)
    for name in sorted(base[0]):
        for value in MUTATIONS:
            rows.append({**base[0], name: value})
        rows.append({k: v for k, v in base[0].items() if k != name})  # the column left out
    expected = [not problems_for(schema, row, rel, i) for i, row in enumerate(rows, start=1)]
    refused = set(rows_refused(schema, rows))
    assert [i not in refused for i in range(len(rows))] == expected
    assert all(expected[: len(base)])  # the untouched rows are valid
    assert not all(expected)  # and some mutations are not
