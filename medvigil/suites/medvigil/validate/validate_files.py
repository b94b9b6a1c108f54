"""Release checks of the whole folder: split files, ``RELEASE_DIGEST``, and the counts of what was
read."""

from collections import Counter
from operator import attrgetter

from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.validate.validation_base import _HEX64, CheckerBase, _listed

# split file -> the case attribute its groups name
_SPLIT_ATTRIBUTE = {"by_tier": "risk_tier", "by_source": "source", "by_modality": "modality"}


class FileChecks(CheckerBase):
    def check_splits(self) -> None:
        if rf.MANIFEST not in self.readable:
            return
        cases = self.release.cases
        attribute_values = {
            attr: {getattr(c, attr) for c in cases.values()} for attr in _SPLIT_ATTRIBUTE.values()
        }
        for name, groups in self.release.splits.items():
            rel = f"{rf.SPLITS_DIR}/{name}.json"
            where = self._split_groups(name, rel, groups, attribute_values)
            if name.startswith("by_"):
                missing = [cid for cid in self.manifest if cid not in where]
                if missing:
                    self.warn(
                        rel,
                        f"{len(missing)} case(s) are in no group: {_listed(missing)}; "
                        f"the groups of a by_* split must partition the {len(self.manifest)} cases",
                    )
            elif name == "text_only_subset":
                self._check_text_only(rel, where)

    def _split_groups(
        self, name: str, rel: str, groups: dict, attribute_values: dict[str, set]
    ) -> dict[str, str]:
        """Case -> its (first) group in split ``name``; warns of unknown and repeated cases and,
        in the by_tier / by_source / by_modality splits, of cases whose attribute is another."""
        where: dict[str, str] = {}
        attr = _SPLIT_ATTRIBUTE.get(name)
        for group, members in groups.items():
            for cid in members:
                if cid not in self.manifest:
                    self.warn(rel, f"case {cid!r} is not in {rf.MANIFEST}", field=group)
                    continue
                if cid in where:
                    if where[cid] == group:
                        self.warn(
                            rel, f"case {cid!r} is listed twice in group {group!r}", field=group
                        )
                    elif name.startswith("by_"):
                        self.warn(
                            rel,
                            f"case {cid!r} is in groups {where[cid]!r} and {group!r}; "
                            "the groups of a by_* split must partition the cases",
                            field=group,
                        )
                    continue
                where[cid] = group
                case = self.release.cases.get(cid)
                if attr and case is not None:
                    actual = getattr(case, attr)
                    label = rf.source_label(group) if attr == "source" else group
                    if label in attribute_values[attr] and actual != label:
                        self.warn(
                            rel,
                            f"case {cid!r} is in group {group!r} but its {attr} is {actual!r}",
                            field=group,
                        )
        return where

    def _check_text_only(self, rel: str, where: dict[str, str]) -> None:
        """text_only_subset lists exactly the cases the manifest flags text_only_answerable."""
        cases = self.release.cases
        missing = [
            cid for cid, case in cases.items() if case.text_only_answerable and cid not in where
        ]
        if missing:
            self.warn(
                rel,
                f"{_listed(missing)} flagged text_only_answerable "
                f"in {rf.MANIFEST} but not in text_only_subset",
            )
        for cid, group in where.items():
            case = cases.get(cid)
            if case is not None and not case.text_only_answerable:
                self.warn(
                    rel,
                    f"case {cid!r} is in text_only_subset but {rf.MANIFEST} "
                    f"says text_only_answerable = false",
                    field=group,
                )

    def check_digest(self) -> None:
        path = self.root / rf.DIGEST_FILE
        digest = self.release.digest
        if not path.is_file():
            self.counts["digest_status"] = "no RELEASE_DIGEST file"
            return
        from medvigil.files.input_files import read_bytes

        text = read_bytes(path, rf.DIGEST_FILE, max_bytes=1 << 16).decode("utf-8", errors="replace")
        match = _HEX64.search(text)
        if match is None:
            self.error(rf.DIGEST_FILE, "does not contain a SHA-256 hex digest")
            self.counts["digest_status"] = "unreadable RELEASE_DIGEST"
            return
        stored = match.group(1).lower()
        if not digest:
            self.counts["digest_status"] = "not computable"
            return  # the reason (a symbolic link) is already reported
        if stored != digest:
            self.counts["digest_status"] = "MISMATCH"
            self.error(
                rf.DIGEST_FILE,
                f"digest mismatch: the file records {stored} but the release hashes to {digest}; "
                "a file was changed, added or removed after the digest was written",
            )
        else:
            self.counts["digest_status"] = "matches RELEASE_DIGEST"

    def count(self) -> None:
        release = self.release
        cases = list(release.cases.values())
        tier_of = {c.case_id: c.risk_tier for c in cases}
        source_of = {c.case_id: c.source for c in cases}
        kinds = Counter(map(attrgetter("probe_kind"), release.probes_mcq))
        probe_tiers: Counter[str | None] = Counter()
        probe_sources: Counter[str] = Counter()
        for cid, n in Counter(
            map(attrgetter("case_id"), release.probes_mcq)
        ).items():  # probes per case
            probe_tiers[tier_of.get(cid)] += n
            if cid in source_of:
                probe_sources[source_of[cid]] += n
        self.counts.update(
            {
                "synthetic": release.synthetic,
                "digest": release.digest,
                "cases": len(cases),
                "cases_by_tier": {
                    t: n for t in rf.TIERS if (n := sum(c.risk_tier == t for c in cases))
                },
                "cases_by_source": dict(sorted(Counter(c.source for c in cases).items())),
                "cases_by_modality": dict(sorted(Counter(c.modality for c in cases).items())),
                "credentialed_cases": sum(c.credentialed for c in cases),
                "text_only_answerable": sum(c.text_only_answerable for c in cases),
                "usable_roi": sum(c.roi_usable for c in cases),
                "probes_mcq": len(release.probes_mcq),
                "probes_mcq_by_kind": {
                    k: kinds[k] for k in [*rf.PROBE_KINDS, *sorted(kinds)] if kinds.get(k)
                },
                "probes_mcq_by_tier": {t: n for t in rf.TIERS if (n := probe_tiers[t])},
                "probes_mcq_by_source": dict(sorted(probe_sources.items())),
                "probes_open": len(release.probes_open),
                "triplets": len(release.triplets),
                "pointers": len(release.pointers),
                "splits": sorted(release.splits),
            }
        )
        self.counts.setdefault("images_checked", 0)
