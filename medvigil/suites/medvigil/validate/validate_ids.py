"""Release checks of identity: unique ids, known cases, a grounding row per case, known sources and
pointers."""

from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import POINTER_GLOB
from medvigil.suites.medvigil.validate.validation_base import CheckerBase, _listed


class IdChecks(CheckerBase):
    def _unique(self, rel: str, key: str, *, severity: str = "error") -> None:
        values = self.read.column(rel, key)  # ids are never coerced: strings (or None)
        if len(set(values)) == len(values):
            return  # no value repeats
        first: dict[str, int] = {}
        for number, value in zip(self.numbers(rel), values):
            if not isinstance(value, str) or not value:
                continue
            if value in first:
                message = f"duplicate {key} {value!r} (first at row {first[value]})"
                if severity == "error":
                    self.error(rel, message, number, key, scoring=rel in rf.SCORING_FILES)
                else:
                    self.warn(rel, message, number, key)
            else:
                first[value] = number

    def check_unique_ids(self) -> None:
        if rf.MANIFEST in self.readable and not self.rows[rf.MANIFEST]:
            self.error(rf.MANIFEST, "has no cases", scoring=True)
        self._unique(rf.MANIFEST, "case_id")
        self._unique(rf.GROUNDING, "case_id")
        self._unique(rf.PROBES_MCQ, "probe_id")
        self._unique(rf.PROBES_OPEN, "probe_id")
        self._unique(rf.TRIPLETS, "case_id", severity="warning")
        seen: dict[str, str] = {}
        for rel in self.pointer_files():
            for number, cid in zip(self.numbers(rel), self.read.column(rel, "case_id")):
                if not isinstance(cid, str) or not cid:
                    continue
                if cid in seen:
                    self.error(
                        rel,
                        f"duplicate pointer for case {cid!r} (first in {seen[cid]})",
                        number,
                        "case_id",
                    )
                else:
                    seen[cid] = f"{rel} row {number}"

    def check_references(self) -> None:
        if rf.MANIFEST not in self.readable:
            return  # missing or unreadable manifest: already reported, nothing to refer to
        files = [rf.GROUNDING, rf.PROBES_MCQ, rf.PROBES_OPEN, rf.TRIPLETS, *self.pointer_files()]
        for rel in files:
            cids = self.read.column(rel, "case_id")
            if set(cids) <= self.manifest.keys():
                continue  # every case is known
            for number, cid in zip(self.numbers(rel), cids):
                if isinstance(cid, str) and cid and cid not in self.manifest:
                    self.error(
                        rel,
                        f"case_id {cid!r} is not in {rf.MANIFEST}",
                        number,
                        "case_id",
                        scoring=rel == rf.PROBES_MCQ,
                    )
        if rf.TRIPLETS in self.readable and "case_id" not in self.read.headers[rf.TRIPLETS]:
            unmatched = len(self.valid_rows(rf.TRIPLETS)) - len(self.release.triplets)
            if unmatched:
                self.warn(
                    rf.TRIPLETS,
                    f"{unmatched} triplet(s) left out: no case_id column, and their "
                    f"anchor_question is not the question of exactly one case in {rf.MANIFEST}",
                    field="case_id",
                )
        if rf.GROUNDING in self.readable:
            grounded = set(self.read.column(rf.GROUNDING, "case_id"))
            for cid, row in self.manifest.items():
                if cid not in grounded:
                    self.error(
                        rf.GROUNDING,
                        f"no grounding row for case {cid!r} ({rf.MANIFEST} row {row.number})",
                        field="case_id",
                    )

    def check_sources_and_pointers(self) -> None:
        warned: set[str] = set()
        for row in self.manifest.values():
            source = row.values.get("source_dataset")
            if (
                isinstance(source, str)
                and source
                and rf.canonical_source(source) is None
                and source not in warned
            ):
                warned.add(source)
                self.warn(
                    rf.MANIFEST,
                    f"source_dataset {source!r} is not a known source "
                    f"({', '.join(rf.SOURCE_LICENCES)}, or a spelling such as vqa-rad, "
                    f"cxr, MIMIC-CXR, CheXpert); its licence and redistribution rule are unknown",
                    row.number,
                    "source_dataset",
                )
        # any pointer row counts here, valid or not: a broken row is reported on its own
        pointers = {cid for rel in self.pointer_files() for cid in self.read.column(rel, "case_id")}
        unpointed = [
            c.case_id
            for c in self.release.cases.values()
            if c.credentialed and c.case_id not in pointers
        ]
        if unpointed:
            self.warn(
                rf.MANIFEST,
                f"{len(unpointed)} credentialed case(s) have no pointer in "
                f"{rf.POINTERS_DIR}/{POINTER_GLOB} ({_listed(unpointed)}); the published release "
                f"ships none: `medvigil reconstruct --pointers CSV` takes them when you "
                f"re-derive those images",
                field="case_id",
            )
        for rel in self.pointer_files():
            for row in self.valid_rows(rel):
                case = self.release.cases.get(row.values["case_id"])
                if case is not None and not case.credentialed:
                    self.warn(
                        rel,
                        f"case {case.case_id!r} is from {case.source_dataset!r}, "
                        f"not a credentialed source; it needs no pointer",
                        row.number,
                        "case_id",
                    )
