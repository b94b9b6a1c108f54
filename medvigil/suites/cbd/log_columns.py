"""Score one model's Consistent-but-Dangerous logs from arrow columns, without a Python object per record.

The accelerated twin of reading the logs with :func:`medvigil.records.suite_logs.read_suite_records`
and scoring the records with :func:`medvigil.suites.cbd.protocol.suite_result`: each file's records
are cut out and checked against the record schema as arrow columns
(:func:`medvigil.records.log_columns.suite_files_table`), and the samples are put together from
codes and scored by the same kernels (:func:`medvigil.suites.cbd.protocol.arm_details`). Only the
generative arm in its plainest shape is taken: conditions ``default`` and ``noimg``, probe kinds
``original`` / ``tcf`` / ``paraphrase`` (``noimg`` only ``original``), every case with its one
original, its text-only answer and a paraphrase, no class probabilities, ``extra.phenomenon``,
``finding`` and ``label`` strings. :func:`model_result` returns None for anything else and the
caller reads the files as dicts, which names every problem. ``tests/test_cbd_columns.py`` checks
that both give the same result and that what the dict reader refuses is declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medvigil.records.arrow_codes import dictionary_codes
from medvigil.records.log_columns import coded_letters, suite_files_table
from medvigil.suites.cbd.protocol import ARMS, ORIGINAL_KIND, PARAPHRASE_KINDS, ArmSamples, arm_details, configurations
from medvigil.suites.cbd.scoring import flag_scores

_IMAGE, _TEXT = ARMS["image"], ARMS["noimg"]
_GROUPS = ("label", "finding")  # string fields of extra the samples are split by


def model_result(files: Sequence[str | Path], model: str, *, invalid: str, n_resamples: int,
                 seed: int) -> tuple[int, dict[str, Any]] | None:
    """The record count and ``suite_result`` of one model's cbd logs, or None: read the files as dicts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    checked = suite_files_table(files, "cbd")
    if checked is None:
        return None
    table = checked[0]
    n = table.num_rows
    names = set(table.column_names)
    if not {"condition", "extra"} <= names or table.column("condition").null_count or table.column("extra").null_count:
        return None
    extra = table.column("extra")
    if not pa.types.is_struct(extra.type):
        return None
    fields = {f.name: f.type for f in extra.type}
    index = fields.get("paraphrase_index")
    if index is None or not pa.types.is_int64(index):
        return None
    paraphrase_index = pc.struct_field(extra, "paraphrase_index")
    if paraphrase_index.null_count or pc.min(paraphrase_index).as_py() < 0:
        return None  # the dicts refuse a record without an integer paraphrase index >= 0
    if "probabilities" in fields and pc.struct_field(extra, "probabilities").null_count < n:
        return None  # class probabilities: entropies are taken from the dicts
    strings = {name: pc.struct_field(extra, name) for name in ("phenomenon", *_GROUPS) if name in fields}
    if not all(pa.types.is_string(c.type) or pa.types.is_null(c.type) for c in strings.values()):
        return None

    conditions, cond = dictionary_codes(table.column("condition"), pc)
    kinds, kind = dictionary_codes(table.column("probe_kind"), pc)
    if not set(conditions) <= {_IMAGE, _TEXT} or not set(kinds) <= {ORIGINAL_KIND, *PARAPHRASE_KINDS}:
        return None
    image = np.array([c == _IMAGE for c in conditions])[cond]
    original = np.array([k == ORIGINAL_KIND for k in kinds])[kind]
    if not (image | original).all():
        return None  # a paraphrase without the image: the dicts take it as the text-only answer
    _, probe = dictionary_codes(table.column("probe_id"), pc)
    if np.unique(probe.astype(np.int64) * 2 + image).size != n:
        return None  # a probe answered twice under one condition: the dict reader says where

    ids, case = dictionary_codes(table.column("case_id"), pc)
    order = sorted(range(len(ids)), key=ids.__getitem__)  # the samples in sorted case-id order
    position = np.empty(len(ids), dtype=np.int64)
    position[order] = np.arange(len(ids))
    sample = position[case]
    is_orig, is_text, is_para = image & original, ~image, image & ~original
    for rows, exactly_one in ((is_orig, True), (is_text, True), (is_para, False)):
        per_case = np.bincount(sample[rows], minlength=len(ids))
        if (per_case < 1).any() or (exactly_one and (per_case > 1).any()):
            return None  # a case without (or with two of) a part: the dict scoring names it

    gold = coded_letters(*dictionary_codes(table.column("correct_letter"), pc), allow_null=False).astype(np.int16)
    pred = coded_letters(*dictionary_codes(table.column("predicted_letter"), pc), allow_null=True).astype(np.int16)
    orig_rows = np.flatnonzero(is_orig)[np.argsort(sample[is_orig])]
    text_rows = np.flatnonzero(is_text)[np.argsort(sample[is_text])]
    para_rows = np.flatnonzero(is_para)[np.argsort(sample[is_para], kind="stable")]  # record order within a sample
    fallback = [kinds[k] for k in kind[para_rows].tolist()]  # a paraphrase without a phenomenon: its kind (the dicts' rule)
    named = _values_at(strings["phenomenon"], para_rows) if "phenomenon" in strings else fallback
    samples = ArmSamples([ids[i] for i in order], pred[orig_rows], pred[text_rows], gold[orig_rows], pred[para_rows],
                         np.bincount(sample[is_para], minlength=len(ids)), [p or k for p, k in zip(named, fallback)])
    groups = {}
    for name in _GROUPS:
        values = _values_at(strings[name], orig_rows) if name in strings else []
        if any(values):
            groups[name] = values
    details, flags = arm_details(samples, groups, invalid=invalid, n_resamples=n_resamples, seed=seed)
    entry = {**flag_scores(flags, invalid, samples.orig, samples.gold), "arm": "generative", **details}
    return n, configurations({model: entry})


def _values_at(column, rows) -> list:
    """The values of a string (or all-null) column at ``rows``, None for a null (by codes: arrow's
    ``take`` of numpy indices would import pandas)."""
    import numpy as np
    import pyarrow.compute as pc

    levels, codes = dictionary_codes(column, pc)
    return np.array([*levels, None], dtype=object)[codes[rows]].tolist()
