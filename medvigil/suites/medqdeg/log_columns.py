"""Score one model's MedQ-Deg logs from arrow columns, without a Python object per record.

The accelerated twin of reading the logs with :func:`medvigil.records.suite_logs.read_suite_records`
and scoring the records with :func:`medvigil.suites.medqdeg.scoring.score_records`: each file's
records are cut out as the whole-file reader cuts them (:func:`medvigil.files.jsonl_bulk.record_block`),
parsed and checked against the record schema by :func:`medvigil.records.log_columns.checked_table`,
and the fields MedQ-Deg reads are taken as columns. Only records of the plainest shape are taken
(every ``extra`` with its votes, number of options, integer severity, named degradation,
experiment and item; the fields the ``extra`` checks and the scoring would refuse are refused
here too); :func:`model_scores` returns None for anything else, and the caller reads the files
as dicts, which names every problem. ``tests/test_medqdeg_columns.py`` checks that both give
the same scores and that what the dict reader refuses is declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medvigil.records.arrow_codes import numbers
from medvigil.records.log_columns import LETTERS, suite_files_table
from medvigil.suites.medqdeg.breakdowns import SEVERITIES, score_groups
from medvigil.suites.medqdeg.sample_scores import vote_counts
from medvigil.suites.medqdeg.scoring import EXPERIMENTS

_EXTRA = ("votes", "n_options", "severity", "degradation", "experiment", "item_id")  # each present and not null


def model_scores(files: Sequence[str | Path], model: str, **rules: str) -> tuple[int, dict[str, Any]] | None:
    """The record count and ``score_records`` of one model's MedQ-Deg logs (``rules``: its
    accuracy_rule, invalid_policy, all_invalid), or None: read the files as dicts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    checked = suite_files_table(files, "medqdeg")
    if checked is None:
        return None
    table = checked[0]
    if "extra" not in table.column_names or not pa.types.is_struct(table.schema.field("extra").type):
        return None
    extra = table.column("extra")
    fields = {f.name: f.type for f in extra.type}
    if extra.null_count or not set(_EXTRA) <= set(fields):
        return None
    column = {name: pc.struct_field(extra, name) for name in _EXTRA}
    if any(c.null_count for c in column.values()):
        return None
    kinds = (pa.types.is_list(fields["votes"]), pa.types.is_int64(fields["n_options"]), pa.types.is_int64(fields["severity"]),
             pa.types.is_string(fields["degradation"]), pa.types.is_string(fields["experiment"]), pa.types.is_string(fields["item_id"]))
    if not all(kinds) or not pa.types.is_string(fields["votes"].value_type):
        return None
    votes = column["votes"]
    ks, severity = (numbers(column[name].combine_chunks(), np.int64) for name in ("n_options", "severity"))
    if pc.min(pc.list_value_length(votes)).as_py() < 1 or ks.min() < 2 or ks.max() > 26:
        return None
    if severity.min() < min(SEVERITIES) or severity.max() > max(SEVERITIES):
        return None
    if not set(pc.unique(pc.list_flatten(votes)).to_pylist()) <= set(LETTERS) | {None}:
        return None  # ('A\n' passes the schema's letter pattern but not here: the dicts decide)
    degradations, experiments = column["degradation"].to_pylist(), column["experiment"].to_pylist()
    if "" in set(degradations) or not set(experiments) <= set(EXPERIMENTS):
        return None
    items = column["item_id"].to_pylist()
    conditions = table.column("condition").to_pylist() if "condition" in table.column_names else [None] * table.num_rows
    probes = table.column("probe_id").to_pylist()
    if len(set(zip(conditions, probes, degradations, experiments))) != table.num_rows:
        return None  # a probe answered twice: the dict reader says where
    modality = table.column("modality").to_pylist() if "modality" in table.column_names else [None] * table.num_rows
    capability = pc.struct_field(extra, "capability").to_pylist() if "capability" in fields else [None] * table.num_rows
    values = {"trials": votes.to_pylist(), "ks": ks, "gold": table.column("correct_letter").to_pylist(), "degs": degradations,
              "sevs": severity.tolist(), "items": items, "mods": modality, "caps": capability}
    parts = {e: [i for i, x in enumerate(experiments) if x == e] for e in EXPERIMENTS}
    main = "calibration" if parts["calibration"] else "accuracy"
    scores = {**_scored(values, parts[main], rules), "experiment": main}
    if main == "calibration" and parts["accuracy"]:
        scores["accuracy_experiment"] = {**_scored(values, parts["accuracy"], rules), "experiment": "accuracy"}
    return table.num_rows, {"models": {model: scores}}


def _scored(values: dict[str, Any], rows: list[int], rules: dict[str, str]) -> dict[str, Any]:
    """``_score_model`` of the records at ``rows`` (in file order)."""
    pick = {name: [column[i] for i in rows] for name, column in values.items() if name != "ks"}
    ks = values["ks"][rows]
    counts, invalid = vote_counts(pick["trials"], ks)
    return score_groups(counts, invalid, ks, pick["gold"], pick["degs"], pick["sevs"], items=pick["items"],
                        modality=pick["mods"], capability=pick["caps"], **rules)
