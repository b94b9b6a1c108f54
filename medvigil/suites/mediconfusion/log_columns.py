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
from medvigil.scoring.table import factorize, in_order_of_appearance
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN
from medvigil.suites.mediconfusion.authors_results import IMAGES, MediConfusionRun, category_names
from medvigil.suites.mediconfusion.record_scoring import categories_of, image_named
from medvigil.suites.mediconfusion.release import Release

_FIELDS = ("case_id", "probe_id", "condition", "predicted_letter", "correct_letter", "category")


def runs_from_columns(paths: Sequence[str | Path], release: Release) -> list[MediConfusionRun] | None:
    """The runs of :func:`~medvigil.suites.mediconfusion.authors_results.runs_from_lmms_eval`, or None."""
    import numpy as np

    rows: dict[str, list] = {name: [] for name in (*_FIELDS, "image", "categories", "margin")}
    models, sizes = [], []
    for path in paths:
        found = _file_rows(path)
        if found is None:
            return None
        for name, values in found.items():
            rows[name] += values
        models.append(model_name(Path(path)))
        sizes.append(len(found["case_id"]))
    case_ids = rows["case_id"]  # strings: the parse declared them so
    if not set(case_ids) <= release.pairs.keys():
        return None  # the dict reader names the pairs outside the release
    pair = factorize(case_ids, sort=False)  # per record; levels in order of first appearance
    mode = factorize(["default" if c is None else c for c in rows["condition"]], sort=False)
    model = factorize(models, sort=False)  # per file
    origin = np.repeat(np.arange(len(paths)), sizes)
    image = _image_codes(rows["image"], rows["probe_id"])
    if image is None:
        return None  # a record whose image cannot be told: the dict reader says which
    # a run per (model, mode), in order of its first record
    run_of = model.codes.astype(np.int64)[origin] * len(mode.levels) + mode.codes
    names = category_names(release)
    runs = []
    for key in in_order_of_appearance(run_of).tolist():
        mine = np.flatnonzero(run_of == key)
        pairs = _pairs(mine, pair.codes[mine], image[mine], pair.levels, rows)
        if pairs is None:
            return None
        files = [str(paths[i]) for i in in_order_of_appearance(origin[mine]).tolist()]
        present = set(pairs["pair_ids"])
        margin = rows["margin"]
        margins = {margin[i] for i in mine.tolist()} - {None}
        runs.append(MediConfusionRun(
            path=", ".join(files), files=tuple(files), model=model.levels[key // len(mode.levels)],
            mode=mode.levels[key % len(mode.levels)],
            margin=margins.pop() if len(margins) == 1 else DEFAULT_MARGIN, records=(),
            pair_ids=tuple(pairs["pair_ids"]),
            missing_pairs=tuple(p for p in release.pairs if p not in present),
            category_names=names, pairs=pairs,
        ))
    return runs


def _image_codes(images: list, probe_ids: list) -> Any:
    """0 for ``im1``, 1 for ``im2`` per record (:func:`image_named`), or None when one is neither."""
    import numpy as np

    if None in images:
        images = [image_named(image, pid) for image, pid in zip(images, probe_ids)]
    named = factorize(images, sort=False)
    if not set(named.levels) <= set(IMAGES) or (named.codes < 0).any():
        return None
    return np.array([IMAGES.index(v) for v in named.levels], dtype=np.int64)[named.codes]


def _pairs(mine: Any, case: Any, image: Any, pair_ids: Sequence[str], rows: dict[str, list]) -> dict[str, list] | None:
    """``pair_inputs`` of one run's rows (``mine``, in row order, with their pair and image codes),
    pairs in order of their first record; None when a pair lacks an image or has one twice
    (``pair_slots``' problems)."""
    import numpy as np

    n_pairs = len(pair_ids)
    per_slot = np.bincount(case * 2 + image, minlength=2 * n_pairs).reshape(n_pairs, 2)
    used = per_slot.any(axis=1)
    if (per_slot[used] != 1).any():
        return None
    order = in_order_of_appearance(case)
    row_of = np.empty((n_pairs, 2), dtype=np.int64)
    row_of[case, image] = mine  # one row per slot (checked above)
    im1, im2 = row_of[order, 0].tolist(), row_of[order, 1].tolist()
    pred, gold, cats, cat = rows["predicted_letter"], rows["correct_letter"], rows["categories"], rows["category"]
    return {
        "pred1": [pred[i] for i in im1], "pred2": [pred[i] for i in im2],
        "gold1": [gold[i] for i in im1], "gold2": [gold[i] for i in im2],
        "categories1": [categories_of(cats[i], cat[i]) for i in im1],
        "categories2": [categories_of(cats[i], cat[i]) for i in im2],
        "pair_ids": [pair_ids[c] for c in order.tolist()],
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
