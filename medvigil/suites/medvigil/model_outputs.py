"""One entry point for model outputs of the MedVIGIL suite, whatever wrote them.

* lmms-eval ``--log_samples`` files (``<stamp>_samples_<task>.jsonl``) of our tasks;
* official harness files (``results/baselines/<model>__mcq.jsonl``) or folders of them;
* the harness's ablation and open-ended files (no-image, blur sweep, open / judged,
  visual-token raw), read by :mod:`medvigil.suites.medvigil.harness_ablations`.

Every record's ``source_dataset`` is the canonical source name
(:func:`medvigil.suites.medvigil.release_format.source_label`), so strata do not split on spellings.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from medvigil.records.lmms_eval_logs import is_samples_file, read_samples
from medvigil.suites.medvigil.release_format import source_label

if TYPE_CHECKING:
    from medvigil.scoring.table import RecordTable
    from medvigil.suites.medvigil.harness_rows import HarnessColumns


class ModelRecords(list):
    """Probe records plus the warnings, skip counts and error-row counts the readers reported."""

    warnings: list[str]
    skipped: dict
    error_rows: dict
    problems: list  # rows left out (strict=False)


def read_model_outputs(
    paths: Iterable[str | Path], release: Any, *, strict: bool = True, allow_empty: bool = False
) -> ModelRecords | HarnessColumns | LogColumns:
    """Records of every file; ``release`` as :func:`medvigil.suites.medvigil.harness.read_harness_files` takes it.

    When every file is a harness result file (the authors' ``<model>__mcq.jsonl``), the result
    is :func:`medvigil.suites.medvigil.harness.read_harness_table`'s: the records as columns (what
    :func:`medvigil.suites.medvigil.scoring.audit` takes), with the same bookkeeping attributes.
    When every file is an lmms-eval log, it is :class:`LogColumns` (:func:`read_log_table`) unless
    a file needs the record-by-record reader.
    """
    from medvigil.suites.medvigil.harness import read_harness_files, read_harness_table
    from medvigil.suites.medvigil.harness_ablations import expand_ablation_paths, read_ablation_files

    paths = [Path(p) for p in paths]
    lmms = [p for p in paths if p.is_file() and is_samples_file(p)]
    harness = [p for p in paths if p not in lmms]
    ablation, harness = expand_ablation_paths(harness)
    if harness and not lmms and not ablation:
        return read_harness_table(harness, release, strict=strict, allow_empty=allow_empty)
    if lmms and not harness and not ablation:
        table = read_log_table(lmms)
        if table is not None:
            return LogColumns(table)
    out = ModelRecords()
    out.warnings, out.skipped, out.error_rows, out.problems = [], {}, {}, []
    if lmms:
        out.extend(_canonical_source(record) for record in read_samples(lmms))
    if harness:
        records = read_harness_files(harness, release, strict=strict, allow_empty=allow_empty)
        out.extend(records)
        out.warnings += list(records.warnings)
        out.skipped.update(records.skipped)
        out.error_rows.update(records.error_rows)
        out.problems += records.problems
    if ablation:
        records = read_ablation_files(ablation, release, strict=strict)
        out.extend(_canonical_source(record) for record in records)
        out.warnings += [w for w in records.warnings if w not in out.warnings]
        out.problems += records.problems
        for model, counts in records.skipped.items():
            for reason, n in counts.items():
                out.skipped.setdefault(model, {})[reason] = out.skipped.get(model, {}).get(reason, 0) + n
        for model, kinds in records.error_rows.items():
            for kind, n in kinds.items():
                out.error_rows.setdefault(model, {})[kind] = out.error_rows.get(model, {}).get(kind, 0) + n
    return out


class LogColumns:
    """lmms-eval logs read as a :class:`~medvigil.scoring.table.RecordTable` (``table``); nothing
    was skipped (a log the columnar path cannot vouch for is read record by record)."""

    def __init__(self, table: RecordTable):
        self.table = table
        self.warnings: list[str] = []
        self.skipped: dict = {}
        self.error_rows: dict = {}
        self.problems: list = []

    def __len__(self) -> int:
        return len(self.table)


def read_log_table(paths: list[Path], *, threads: int = 2) -> RecordTable | None:
    """The records of lmms-eval logs of the MedVIGIL tasks as one table, read by
    :func:`medvigil.records.log_columns.file_columns` (``threads`` files at a time: pyarrow parses
    one while the next is scanned), or None when a file needs ``read_samples``. The table is the
    one ``RecordTable.from_records`` builds from ``read_samples``' records, canonical sources included."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from medvigil.files.bulk_memory import release_freed, returned_memory
    from medvigil.records.lmms_eval_logs import model_name
    from medvigil.records.log_columns import CODED, LETTERS, STATUSES, file_columns
    from medvigil.scoring.table import Categorical, RecordTable

    names = [model_name(p) for p in paths]
    with returned_memory(), ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        parts = []
        for part in pool.map(file_columns, paths, names):
            if part is None:
                pool.shutdown(cancel_futures=True)
                return None
            parts.append(part)
            release_freed()  # this file's buffers, before the next one's

    def joined(levels_codes: list[tuple[list, np.ndarray]]) -> Categorical:
        """One column of every file: each file's levels merged into one list (in order of first
        appearance), its codes mapped onto it (files of one release share their lists)."""
        position: dict = {}
        codes, last, lut = [], None, None
        for lv, c in levels_codes:
            if lv != last:
                lut = np.array([position.setdefault(v, len(position)) for v in lv] + [-1], dtype=np.int32)
                last = lv
            codes.append(lut[c])
        return Categorical(np.concatenate(codes), tuple(position))

    coded = {name: joined([part.coded[name] for part in parts]) for name in CODED}
    sources = coded["source_dataset"]
    coded["source_dataset"] = Categorical(sources.codes, tuple(source_label(v) for v in sources.levels))
    model = Categorical(np.concatenate([np.full(part.n, i, dtype=np.int32) for i, part in enumerate(parts)]),
                        tuple(part.model for part in parts))
    letters = tuple(LETTERS)
    table = RecordTable.from_columns(
        suite="medvigil", model=model, condition=coded["condition"], probe_id=coded["probe_id"],
        case_id=coded["case_id"], probe_kind=coded["probe_kind"], risk_tier=coded["risk_tier"],
        source_dataset=coded["source_dataset"], modality=coded["modality"],
        text_only_answerable=Categorical(np.concatenate([p.text_only for p in parts]), ("false", "true")),
        correct_letter=Categorical(np.concatenate([p.gold for p in parts]).astype(np.int32), letters),
        predicted_letter=Categorical(np.concatenate([p.pred for p in parts]).astype(np.int32), letters),
        parse_status=Categorical(np.concatenate([p.status for p in parts]).astype(np.int32), STATUSES),
        source="<records>",  # as the audit names the records it builds a table from
    )
    del parts, coded
    release_freed()  # the merge's temporaries
    return table


def _canonical_source(record: dict) -> dict:
    """``record`` with its canonical ``source_dataset``; the original spelling kept in ``extra``."""
    source = record.get("source_dataset")
    if source_label(source) == source:
        return record
    return {**record, "source_dataset": source_label(source), "extra": {**(record.get("extra") or {}), "source_dataset": source}}
