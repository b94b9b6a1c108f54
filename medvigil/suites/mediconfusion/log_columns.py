"""MediConfusion runs from lmms-eval logs read as arrow columns, without a Python object per record.

The accelerated twin of :func:`medvigil.suites.mediconfusion.authors_results.runs_from_lmms_eval`:
each file's records are cut out as the whole-file reader cuts them
(:func:`medvigil.files.jsonl_bulk.record_block`), parsed and checked against the record schema by
:func:`medvigil.records.log_columns.checked_table`, the ``extra`` rules of the suite are checked on
the columns (vote counts and margin finite numbers >= 0), and the fields the runs need are taken
as lists. :func:`runs_from_columns` returns None for anything it cannot vouch for (a null where
the dicts could hold a missing key, a pair outside the release, a pair with an image missing or
twice, ...); the caller then reads the files as dicts, which names every problem.
``tests/test_mediconfusion_columns.py`` checks that both give the same runs and scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medvigil.records.lmms_eval_logs import model_name
from medvigil.records.log_columns import suite_file_table
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN
from medvigil.suites.mediconfusion.authors_results import IMAGES, MediConfusionRun, category_names
from medvigil.suites.mediconfusion.record_scoring import categories_of, image_named
from medvigil.suites.mediconfusion.release import Release

_FIELDS = ("case_id", "probe_id", "condition", "predicted_letter", "correct_letter", "category")


def runs_from_columns(paths: Sequence[str | Path], release: Release) -> list[MediConfusionRun] | None:
    """The runs of :func:`~medvigil.suites.mediconfusion.authors_results.runs_from_lmms_eval`, or None."""
    rows: dict[str, list] = {name: [] for name in (*_FIELDS, "image", "categories", "margin", "model", "origin")}
    for index, path in enumerate(paths):
        found = _file_rows(path)
        if found is None:
            return None
        for name, values in found.items():
            rows[name] += values
        n = len(found["case_id"])
        rows["model"] += [model_name(Path(path))] * n
        rows["origin"] += [index] * n
    case_ids = [str(c) for c in rows["case_id"]]
    if not set(case_ids) <= release.pairs.keys():
        return None  # the dict reader names the pairs outside the release
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(zip(rows["model"], ("default" if c is None else c for c in rows["condition"]))):
        groups.setdefault(key, []).append(i)
    names = category_names(release)
    runs = []
    for (model, mode), mine in groups.items():
        pairs = _pairs(mine, rows, case_ids)
        if pairs is None:
            return None
        files = [str(paths[i]) for i in dict.fromkeys(rows["origin"][i] for i in mine)]
        present = set(pairs["pair_ids"])
        margins = {rows["margin"][i] for i in mine} - {None}
        runs.append(MediConfusionRun(
            path=", ".join(files), files=tuple(files), model=model, mode=mode,
            margin=margins.pop() if len(margins) == 1 else DEFAULT_MARGIN, records=(),
            pair_ids=tuple(dict.fromkeys(case_ids[i] for i in mine)),
            missing_pairs=tuple(p for p in release.pairs if p not in present),
            category_names=names, pairs=pairs,
        ))
    return runs


def _pairs(mine: list[int], rows: dict[str, list], case_ids: list[str]) -> dict[str, list] | None:
    """``pair_inputs`` of one run's rows, or None when a record's image cannot be told or a pair
    lacks an image or has one twice (``pair_slots``' problems)."""
    by_pair: dict[str, dict[str, int]] = {}
    for i in mine:
        image = image_named(rows["image"][i], rows["probe_id"][i])
        if image not in IMAGES:
            return None
        slot = by_pair.setdefault(case_ids[i], {})
        if image in slot:
            return None
        slot[image] = i
    if any(len(slot) != 2 for slot in by_pair.values()):
        return None
    ids = list(by_pair)
    first, second = [by_pair[p]["im1"] for p in ids], [by_pair[p]["im2"] for p in ids]

    def categories(i: int) -> list:
        return categories_of(rows["categories"][i], rows["category"][i])

    return {
        "pred1": [rows["predicted_letter"][i] for i in first], "pred2": [rows["predicted_letter"][i] for i in second],
        "gold1": [rows["correct_letter"][i] for i in first], "gold2": [rows["correct_letter"][i] for i in second],
        "categories1": [categories(i) for i in first], "categories2": [categories(i) for i in second], "pair_ids": ids,
    }


def _file_rows(path: str | Path) -> dict[str, list] | None:
    """The fields the runs need of one log's records, as lists, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    checked = suite_file_table(path, "mediconfusion")
    if checked is None:
        return None
    table, _ = checked
    n = table.num_rows
    out = {name: table.column(name).to_pylist() if name in table.column_names else [None] * n for name in _FIELDS}
    extra_type = table.schema.field("extra").type if "extra" in table.column_names else pa.null()
    fields = {f.name: f.type for f in extra_type} if pa.types.is_struct(extra_type) else {}
    extra = table.column("extra") if fields else None
    if not _extra_fine(extra, fields, pa, pc):
        return None
    for name, kind in (("image", pa.types.is_string), ("categories", _is_string_list)):
        if name in fields and not (kind(fields[name]) or pa.types.is_null(fields[name])):
            return None
        out[name] = pc.struct_field(extra, name).to_pylist() if name in fields else [None] * n
    out["margin"] = pc.struct_field(extra, "margin").to_pylist() if "margin" in fields else [None] * n
    return out


def _is_string_list(type_) -> bool:
    import pyarrow as pa

    return pa.types.is_list(type_) and pa.types.is_string(type_.value_type)


def _extra_fine(extra: Any, fields: dict, pa, pc) -> bool:
    """The suite's ``extra`` rules on the columns: every vote count and the margin a finite number
    >= 0 (a null anywhere is refused: it may be a JSON null the dicts would refuse)."""
    numbers = []
    if "votes" in fields:
        votes = pc.struct_field(extra, "votes")
        if votes.null_count or not pa.types.is_struct(fields["votes"]):
            return False
        numbers += [pc.struct_field(votes, f.name) for f in fields["votes"]]
    if "margin" in fields:
        numbers.append(pc.struct_field(extra, "margin"))
    for column in numbers:
        if not (pa.types.is_int64(column.type) or pa.types.is_float64(column.type)) or column.null_count:
            return False
        if len(column) and (pc.min(column).as_py() < 0 or not pc.all(pc.is_finite(column)).as_py()):
            return False
    return True
