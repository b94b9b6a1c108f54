"""Release checks of the probe files: ROI boxes against ROI probes, the MCQ options and letter
conventions (``probes_mcq.csv``), open-ended probes, counterfactual triplets and the clinician
baseline."""

from __future__ import annotations

from collections import Counter
from operator import itemgetter

from medvigil.suites.medvigil import release_format as rf
from medvigil.suites.medvigil.release_csv import Row
from medvigil.suites.medvigil.release_records import roi_geometry_issue, roi_issue
from medvigil.suites.medvigil.validation_base import (
    _CHOICE_COLUMNS,
    ROI_PROBE_KINDS,
    CheckerBase,
    _listed,
    _norm,
    _norm_all,
)

# The correct letter each probe kind keeps (lr_flip: unless its case is laterality-dependent);
# what _check_letter says, as a table for finding the rows it has something to say about.
_USUAL_LETTER = {**rf.FIXED_CORRECT_LETTER, "roi_only": "A", "lr_flip": "A"}
_options = itemgetter(*_CHOICE_COLUMNS)


def _column(values: list[dict], key: str) -> list:
    return list(map(itemgetter(key), values))


class ProbeChecks(CheckerBase):
    def _roi_probes_by_case(self) -> dict[str, set[str]]:
        """Case id -> the ids of its ROI probes (MCQ and open)."""
        out: dict[str, set[str]] = {}
        for rel in (rf.PROBES_MCQ, rf.PROBES_OPEN):
            for row in self.valid_rows(rel):
                if row.values["probe_kind"] in ROI_PROBE_KINDS:
                    out.setdefault(row.values["case_id"], set()).add(row.values["probe_id"])
        return out

    def check_roi(self) -> None:
        roi_probes_of = self._roi_probes_by_case()
        for row in self.valid_rows(rf.GROUNDING):
            cid = row.values["case_id"]
            box = row.values["roi_bbox_norm"]
            reason = row.notes.get("roi_bbox_norm") or (roi_issue(box) if box is not None else None)
            roi_probes = sorted(roi_probes_of.get(cid, ()))
            if box is None and reason is None:
                if roi_probes:
                    self.error(
                        rf.GROUNDING,
                        f"roi_bbox_norm is empty but case {cid!r} has ROI probes ({_listed(roi_probes)}); "
                        "ROI probes need a usable box",
                        row.number,
                        "roi_bbox_norm",
                    )
                continue
            if reason is None:
                continue
            if roi_probes:
                self.error(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; case {cid!r} has ROI probes ({_listed(roi_probes)}) "
                    "which need a usable box",
                    row.number,
                    "roi_bbox_norm",
                )
            elif row.notes.get("roi_bbox_norm") or roi_geometry_issue(box) is not None:  # malformed, not just large
                self.warn(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; the case has no ROI probes, so only its grounding is lost",
                    row.number,
                    "roi_bbox_norm",
                )

    def check_mcq(self) -> None:
        rel = rf.PROBES_MCQ
        rows = self.rows.get(rel, [])
        totals = Counter(cid for cid in (row.values.get("case_id") for row in rows) if isinstance(cid, str))
        crowded = {cid for cid, n in totals.items() if n > rf.MAX_PROBES_PER_CASE}
        if crowded:  # warned at the case's first row over the limit
            per_case: Counter[str] = Counter()
            for row in rows:
                cid = row.values.get("case_id")
                if isinstance(cid, str) and cid in crowded:
                    per_case[cid] += 1
                    if per_case[cid] == rf.MAX_PROBES_PER_CASE + 1:
                        self.warn(
                            rel,
                            f"case {cid!r} has {totals[cid]} MCQ probes; at most {rf.MAX_PROBES_PER_CASE} per case",
                            row.number,
                            "case_id",
                        )

        valid = self.valid_rows(rel)
        values = [row.values for row in valid]
        cids, kinds = _column(values, "case_id"), _column(values, "probe_kind")
        pairs = Counter(zip(cids, kinds))  # (case, kind) in order of first appearance
        repeated = {pair for pair, n in pairs.items() if n > (2 if pair[1] == "halluc_trap" else 1)}
        if repeated:
            numbers: dict[tuple[str, str], list[int]] = {}
            for pair, row in zip(zip(cids, kinds), valid):
                if pair in repeated:
                    numbers.setdefault(pair, []).append(row.number)
            for (cid, kind), found in ((pair, numbers[pair]) for pair in pairs if pair in repeated):
                limit = 2 if kind == "halluc_trap" else 1
                self.warn(
                    rel,
                    f"case {cid!r} has {len(found)} {kind} probes (rows {', '.join(map(str, found))}); "
                    f"expected at most {limit}",
                    found[limit],
                    "probe_kind",
                )

        originals: dict[str, Row] = {}
        for row, kind, cid in zip(valid, kinds, cids):
            if kind == "original" and cid not in originals:
                originals[cid] = row
        for i in self._mcq_rows_to_check(values, cids, kinds, originals):
            self._check_mcq_row(valid[i], originals)

    def _mcq_rows_to_check(
        self, values: list[dict], cids: list[str], kinds: list[str], originals: dict[str, Row]
    ) -> list[int]:
        """Positions of the valid MCQ rows :meth:`_check_mcq_row` may have something to say about,
        found column by column; every other row has distinct non-empty options, the conventional
        letter, the image its kind needs and the options of its case's original probe."""
        options = list(map(_options, values))
        keys = zip(*(_norm_all(_column(values, column)) for column in _CHOICE_COLUMNS))
        flagged = {i for i, distinct in enumerate(map(set, keys)) if len(distinct) < len(rf.LETTERS) or "" in distinct}
        lateral = {cid for cid, row in self.grounding.items() if row.values["laterality_dependent"]}
        for i, (kind, cid, letter, image) in enumerate(
            zip(kinds, cids, _column(values, "correct_letter"), _column(values, "image_file"))
        ):
            if (
                letter != _USUAL_LETTER.get(kind, letter)
                or (kind == "lr_flip" and cid in lateral)
                or (kind in rf.NO_IMAGE_PROBE_KINDS) != (image is None)
                or (kind in rf.IMAGE_PROBE_KINDS and (cid not in originals or options[i] != _options(originals[cid].values)))
            ):
                flagged.add(i)
        return sorted(flagged)

    def _check_mcq_row(self, row: Row, originals: dict[str, Row]) -> None:
        rel = rf.PROBES_MCQ
        self._check_options(row)
        self._check_letter(row)
        self._check_probe_image_field(rel, row)
        v = row.values
        if v["probe_kind"] in rf.IMAGE_PROBE_KINDS:
            original = originals.get(v["case_id"])
            if original is None:
                self.warn(
                    rel,
                    f"{v['probe_kind']} probe has no original probe in case {v['case_id']!r} "
                    "to inherit its options from",
                    row.number,
                    "probe_kind",
                )
                return
            for letter in rf.LETTERS:
                mine, theirs = v[f"choice_{letter}"], original.values[f"choice_{letter}"]
                if mine != theirs:
                    self.warn(
                        rel,
                        f"{v['probe_kind']} probes inherit the options of the case's original probe "
                        f"{original.values['probe_id']!r} (row {original.number}); option {letter} is "
                        f"{mine!r} here but {theirs!r} there",
                        row.number,
                        f"choice_{letter}",
                    )
                    break

    def _check_options(self, row: Row) -> None:
        v = row.values
        keys = [_norm(v[column]) for column in _CHOICE_COLUMNS]
        if all(keys) and len(set(keys)) == len(keys):
            return  # the usual row: every option non-empty (so is the correct one) and distinct
        options = {letter: v[f"choice_{letter}"] for letter in rf.LETTERS}
        empty = [letter for letter, text in options.items() if not text.strip()]
        if len(rf.LETTERS) - len(empty) < 3:
            self.warn(
                rf.PROBES_MCQ,
                f"only {len(rf.LETTERS) - len(empty)} non-empty options (empty: {', '.join(empty)}); "
                "a probe needs at least 3",
                row.number,
                f"choice_{empty[0]}",
            )
        seen: dict[str, str] = {}
        for letter, text in options.items():
            key = _norm(text)
            if not key:
                continue
            if key in seen:
                self.warn(
                    rf.PROBES_MCQ,
                    f"option {letter} duplicates option {seen[key]} ({text.strip()!r})",
                    row.number,
                    f"choice_{letter}",
                )
            else:
                seen[key] = letter
        letter = v["correct_letter"]
        if letter in empty:
            self.warn(
                rf.PROBES_MCQ,
                f"correct letter {letter} points to an empty option",
                row.number,
                "correct_letter",
            )

    def _check_letter(self, row: Row) -> None:
        v = row.values
        kind, letter = v["probe_kind"], v["correct_letter"]
        if kind == "lr_flip":
            grounding = self.grounding.get(v["case_id"])
            if grounding is None:
                return  # laterality unknown: the missing or broken grounding row is reported
            if grounding.values["laterality_dependent"]:
                self._check_lr_flip_letter(row, grounding.values["gold_after_lr_flip"])
                return
            expected, why = "A", "lr_flip probes of a case that is not laterality-dependent keep letter A"
        elif kind == "roi_only":
            expected, why = "A", "roi_only probes keep the original probe's gold, letter A"
        elif kind in rf.FIXED_CORRECT_LETTER:
            expected = rf.FIXED_CORRECT_LETTER[kind]
            why = f"{kind} probes have correct letter {expected} in the published convention"
        else:
            return
        if letter != expected:
            self.warn(rf.PROBES_MCQ, f"{why}; found {letter}", row.number, "correct_letter")

    def _check_lr_flip_letter(self, row: Row, gold: str) -> None:
        v = row.values
        if not gold.strip():
            self.warn(
                rf.PROBES_MCQ,
                f"case {v['case_id']!r} is laterality-dependent but its gold_after_lr_flip in "
                f"{rf.GROUNDING} is empty, so the lr_flip answer is unknown",
                row.number,
                "correct_letter",
            )
            return
        matches = [letter for letter in rf.LETTERS if _norm(v[f"choice_{letter}"]) == _norm(gold)]
        if not matches:
            self.warn(
                rf.PROBES_MCQ,
                f"no option matches gold_after_lr_flip {gold!r} of laterality-dependent case {v['case_id']!r}",
                row.number,
                "correct_letter",
            )
        elif v["correct_letter"] not in matches:
            self.warn(
                rf.PROBES_MCQ,
                f"lr_flip of a laterality-dependent case: the correct letter is {matches[0]} (the option "
                f"matching gold_after_lr_flip {gold!r}); found {v['correct_letter']}",
                row.number,
                "correct_letter",
            )

    def _check_probe_image_field(self, rel: str, row: Row) -> None:
        v = row.values
        kind, image = v["probe_kind"], v["image_file"]
        if kind in rf.NO_IMAGE_PROBE_KINDS and image is not None:
            self.error(
                rel,
                f"{kind} probes carry no image (the protocol asks them without one); found {image!r}",
                row.number,
                "image_file",
            )
        elif kind not in rf.NO_IMAGE_PROBE_KINDS and image is None and rel == rf.PROBES_MCQ:
            self.error(rel, f"{kind} probes need an image; image_file is empty", row.number, "image_file")

    def check_open(self) -> None:
        for row in self.valid_rows(rf.PROBES_OPEN):
            if row.values["probe_kind"] in rf.NO_IMAGE_PROBE_KINDS:
                self._check_probe_image_field(rf.PROBES_OPEN, row)

    def check_triplets(self) -> None:
        rel = rf.TRIPLETS
        for row in self.valid_rows(rel):
            v = row.values
            if _norm(v["anchor_question"]) == _norm(v["tcf_question"]):
                self.error(
                    rel,
                    "tcf_question repeats anchor_question; a textual counterfactual must reword it",
                    row.number,
                    "tcf_question",
                )
            if _norm(v["anchor_gold"]) != _norm(v["tcf_gold"]):
                self.error(
                    rel,
                    f"tcf_gold {v['tcf_gold']!r} differs from anchor_gold {v['anchor_gold']!r}; "
                    "a textual counterfactual keeps the answer",
                    row.number,
                    "tcf_gold",
                )
            if _norm(v["vcf_gold"]) == _norm(v["anchor_gold"]):
                self.error(
                    rel,
                    f"vcf_gold equals anchor_gold ({v['anchor_gold']!r}); a visual counterfactual must change the answer",
                    row.number,
                    "vcf_gold",
                )

    def check_baseline(self) -> None:
        for row in self.valid_rows(rf.CLINICIAN_BASELINE):
            n, k = row.values.get("n_probes"), row.values.get("n_correct")
            if n is not None and k is not None and k > n:
                self.warn(rf.CLINICIAN_BASELINE, f"n_correct ({k}) exceeds n_probes ({n})", row.number, "n_correct")
