"""Release checks of the probe files: ROI boxes against ROI probes, the MCQ options and letter
conventions (``probes_mcq.csv``), open-ended probes, counterfactual triplets and the clinician
baseline."""

from __future__ import annotations

from collections import Counter

from medvigil.suites.medvigil import release_format as rf
from medvigil.suites.medvigil.release_csv import Row
from medvigil.suites.medvigil.release_records import roi_geometry_issue, roi_issue
from medvigil.suites.medvigil.validation_base import (
    _CHOICE_COLUMNS,
    ROI_PROBE_KINDS,
    CheckerBase,
    _listed,
    _norm,
)


class ProbeChecks(CheckerBase):
    def _kinds_by_case(self) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for rel in (rf.PROBES_MCQ, rf.PROBES_OPEN):
            for row in self.valid_rows(rel):
                out.setdefault(row.values["case_id"], []).append((row.values["probe_kind"], row.values["probe_id"]))
        return out

    def check_roi(self) -> None:
        kinds = self._kinds_by_case()
        for row in self.valid_rows(rf.GROUNDING):
            cid = row.values["case_id"]
            box = row.values["roi_bbox_norm"]
            reason = row.notes.get("roi_bbox_norm") or (roi_issue(box) if box is not None else None)
            roi_probes = sorted({pid for kind, pid in kinds.get(cid, []) if kind in ROI_PROBE_KINDS})
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
        per_case: Counter[str] = Counter()
        reported_overflow: set[str] = set()
        totals = Counter(
            row.values.get("case_id") for row in self.rows.get(rel, []) if isinstance(row.values.get("case_id"), str)
        )
        for row in self.rows.get(rel, []):
            cid = row.values.get("case_id")
            if not isinstance(cid, str):
                continue
            per_case[cid] += 1
            if per_case[cid] > rf.MAX_PROBES_PER_CASE and cid not in reported_overflow:
                reported_overflow.add(cid)
                self.warn(
                    rel,
                    f"case {cid!r} has {totals[cid]} MCQ probes; at most {rf.MAX_PROBES_PER_CASE} per case",
                    row.number,
                    "case_id",
                )

        originals: dict[str, Row] = {}
        kinds_seen: dict[tuple[str, str], list[int]] = {}
        for row in self.valid_rows(rel):
            v = row.values
            kinds_seen.setdefault((v["case_id"], v["probe_kind"]), []).append(row.number)
            if v["probe_kind"] == "original":
                originals.setdefault(v["case_id"], row)
        for (cid, kind), numbers in kinds_seen.items():
            limit = 2 if kind == "halluc_trap" else 1
            if len(numbers) > limit:
                self.warn(
                    rel,
                    f"case {cid!r} has {len(numbers)} {kind} probes (rows {', '.join(map(str, numbers))}); "
                    f"expected at most {limit}",
                    numbers[limit],
                    "probe_kind",
                )

        for row in self.valid_rows(rel):
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
                    continue
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
