"""The files of a synthetic release that grow case by case: the CSVs (each row followed by the
synthetic notice), the images, the pointers and withheld sources, the split files and the
simulated reader's ``clinician_baseline.csv``."""

import csv
import json
from pathlib import Path

from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import POINTER_COLUMNS
from medvigil.suites.medvigil.synthetic.case_output import CaseOutput
from medvigil.suites.medvigil.synthetic.phantom_scene import MODALITIES
from medvigil.suites.medvigil.synthetic.plan import SOURCES
from medvigil.suites.medvigil.synthetic.reader import ReaderTally
from medvigil.suites.medvigil.synthetic.release_summary import ReleaseSummary

POINTERS_FILE = "cxr_pointers.csv"
_SPLIT_ORDERS = {  # split file -> the order of its groups
    "by_tier": rf.TIERS,
    "by_source": SOURCES,
    "by_modality": MODALITIES,
    "by_rarity": ("common", "rare"),
}


class CsvOut:
    """A CSV file written row by row (UTF-8, ``\\n``, QUOTE_MINIMAL): the columns, then the
    synthetic notice."""

    def __init__(self, path: Path, columns: tuple):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.columns = tuple(columns)
        self.rows = 0
        self._fh = open(path, "w", encoding="utf-8", newline="")
        self._writer = csv.writer(self._fh, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        self._writer.writerow(list(self.columns) + [rf.SYNTHETIC_COLUMN])

    def write(self, row: dict) -> None:
        self._writer.writerow([row[c] for c in self.columns] + [rf.SYNTHETIC_NOTICE])
        self.rows += 1

    def close(self) -> None:
        self._fh.close()


class ReleaseTables:
    """Writes each case's rows and files into ``tmp`` (withheld sources into ``cred_tmp``) and
    counts them in ``summary``; :meth:`finish` writes what needs every case."""

    def __init__(self, tmp: Path, cred_tmp: Path | None, summary: ReleaseSummary):
        self.tmp, self.cred_tmp, self.summary = tmp, cred_tmp, summary
        self.pointers = f"{rf.POINTERS_DIR}/{POINTERS_FILE}"
        columns = {
            rf.MANIFEST: rf.MANIFEST_COLUMNS,
            rf.GROUNDING: rf.GROUNDING_COLUMNS,
            rf.PROBES_MCQ: rf.PROBES_MCQ_COLUMNS,
            rf.PROBES_OPEN: rf.PROBES_OPEN_COLUMNS,
            rf.TRIPLETS: rf.TRIPLETS_COLUMNS,
            self.pointers: POINTER_COLUMNS,
        }
        self.outs = {
            name: CsvOut(tmp / name, file_columns) for name, file_columns in columns.items()
        }
        self.splits: dict[str, dict] = {name: {} for name in _SPLIT_ORDERS}
        self.text_only: list = []
        self.reader = ReaderTally()

    def add(self, out: CaseOutput) -> None:
        """One case: its rows, image files, pointer and withheld source, splits and counts."""
        rec, summary = out.rec, self.summary
        plan = rec.plan
        self.outs[rf.MANIFEST].write(rec.manifest)
        self.outs[rf.GROUNDING].write(rec.grounding)
        for row, correct in zip(rec.mcq, out.reader, strict=True):
            self.outs[rf.PROBES_MCQ].write(row)
            summary.probe_kinds[row["probe_kind"]] += 1
            self.reader.add(row["probe_kind"], plan.tier, correct)
        for row in rec.open:
            self.outs[rf.PROBES_OPEN].write(row)
        if rec.triplet is not None:
            self.outs[rf.TRIPLETS].write(rec.triplet)
        for rel, data in out.files:
            (self.tmp / rel).write_bytes(data)
        summary.images += sum(rel.startswith(rf.IMAGES_DIR + "/") for rel, _ in out.files)
        summary.perturbed += sum(rel.startswith(rf.PERTURBED_DIR + "/") for rel, _ in out.files)
        if out.source is not None:
            self._add_source(plan.case_id, *out.source)
        for split, group in (
            ("by_tier", plan.tier),
            ("by_source", plan.source),
            ("by_modality", plan.scene.modality),
            ("by_rarity", plan.rarity),
        ):
            self.splits[split].setdefault(group, []).append(plan.case_id)
        if rec.manifest["text_only_answerable"] == "true":
            self.text_only.append(plan.case_id)
        summary.tiers[plan.tier] += 1
        summary.sources[plan.source] += 1
        summary.modalities[plan.scene.modality] += 1

    def _add_source(self, case_id: str, rel: str, sha: str, data: bytes | None) -> None:
        """The pointer row of a credentialed case, and its source file when one is kept."""
        self.outs[self.pointers].write({"case_id": case_id, "source_path": rel, "sha256": sha})
        if self.cred_tmp is not None:
            target = self.cred_tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            self.summary.credentialed_files += 1

    def close(self) -> None:
        for handle in self.outs.values():
            handle.close()

    def finish(self) -> None:
        """After the last case: ``clinician_baseline.csv``, the split files and the row counts."""
        baseline = CsvOut(self.tmp / rf.CLINICIAN_BASELINE, rf.CLINICIAN_BASELINE_COLUMNS)
        try:
            for row in self.reader.rows():
                baseline.write(row)
        finally:
            baseline.close()
        splits = self.tmp / rf.SPLITS_DIR
        for name, order in _SPLIT_ORDERS.items():
            _dump_json(splits / f"{name}.json", _ordered(self.splits[name], order))
        _dump_json(splits / "text_only_subset.json", {"text_only": self.text_only})
        self.summary.rows = {name: handle.rows for name, handle in self.outs.items()}
        self.summary.rows[rf.CLINICIAN_BASELINE] = baseline.rows


def _dump_json(path: Path, groups: dict) -> None:
    payload = {rf.SYNTHETIC_JSON_KEY: rf.SYNTHETIC_NOTICE, **groups}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _ordered(groups: dict, order) -> dict:
    """Non-empty groups in a fixed key order (then any others, sorted)."""
    keys = [k for k in order if groups.get(k)] + sorted(
        k for k in groups if k not in order and groups[k]
    )
    return {k: groups[k] for k in keys}
