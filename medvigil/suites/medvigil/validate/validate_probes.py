"""Release checks of the probe files: ROI boxes, MCQ options and letter conventions, open probes,
triplets, baseline."""

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, compress
from operator import eq, not_

from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.release.release_csv import Row, text_key
from medvigil.suites.medvigil.release.release_records import roi_geometry_issue, roi_issue
from medvigil.suites.medvigil.validate.validation_base import (
    _CHOICE_COLUMNS,
    ROI_PROBE_KINDS,
    CheckerBase,
    _listed,
    _norm_all,
)

# The correct letter each probe kind keeps (lr_flip: unless its case is laterality-dependent),
# as _check_letter says, for finding the rows it may have something to say about
_USUAL_LETTER = {**rf.FIXED_CORRECT_LETTER, "roi_only": "A", "lr_flip": "A"}
_MCQ_CHECKED = (
    "case_id",
    "probe_kind",
    "correct_letter",
    "image_file",
    *_CHOICE_COLUMNS,
    "probe_id",
)


class ProbeChecks(CheckerBase):
    def _roi_probes_by_case(self) -> dict[str, set[str]]:
        """Case id -> the ids of its ROI probes (MCQ and open)."""
        out: dict[str, set[str]] = {}
        for rel in (rf.PROBES_MCQ, rf.PROBES_OPEN):
            for kind, cid, pid in zip(
                *self.read.valid_columns(rel, ("probe_kind", "case_id", "probe_id"))
            ):
                if kind in ROI_PROBE_KINDS:
                    out.setdefault(cid, set()).add(pid)
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
                        f"roi_bbox_norm is empty but case {cid!r} has ROI probes "
                        f"({_listed(roi_probes)}); ROI probes need a usable box",
                        row.number,
                        "roi_bbox_norm",
                    )
                continue
            if reason is None:
                continue
            if roi_probes:
                self.error(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; case {cid!r} has ROI probes "
                    f"({_listed(roi_probes)}) which need a usable box",
                    row.number,
                    "roi_bbox_norm",
                )
            elif (
                row.notes.get("roi_bbox_norm") or roi_geometry_issue(box) is not None
            ):  # malformed, not just large
                self.warn(
                    rf.GROUNDING,
                    f"unusable ROI box: {reason}; the case has no "
                    f"ROI probes, so only its grounding is lost",
                    row.number,
                    "roi_bbox_norm",
                )

    def check_mcq(self) -> None:
        rel = rf.PROBES_MCQ
        rows = self.rows.get(rel, [])
        self._warn_crowded_cases()
        at = (
            list(compress(range(len(rows)), rows.valid)) if rows else []
        )  # valid row j is rows[at[j]]
        numbers = self.numbers(rel, valid=True)
        cids, kinds, letters, images, *choices, ids = self.read.valid_columns(rel, _MCQ_CHECKED)
        self._warn_repeated_kinds(cids, kinds, numbers)

        original_at: dict[str, int] = {}  # case -> position of its first original probe
        for i in (i for i, kind in enumerate(kinds) if kind == "original"):
            original_at.setdefault(cids[i], i)
        options_rows, letter_rows, image_rows, inherit_rows = self._mcq_rows_to_check(
            cids, kinds, letters, images, choices, original_at
        )
        for i in sorted(options_rows | letter_rows | image_rows):
            row = rows[at[i]]
            if i in options_rows:
                self._check_options(row)
            if i in letter_rows:
                self._check_letter(row)
            if i in image_rows:
                self._check_probe_image_field(rel, row)
        # column-wise, after the other row checks: each row's findings come together again when
        # sorted
        for i in sorted(inherit_rows):
            self._check_inherited_options(
                i, original_at.get(cids[i]), numbers, kinds, cids, ids, choices
            )

    def _warn_crowded_cases(self) -> None:
        """Cases with more MCQ probes than a case may have, warned at the first row over the
        limit."""
        rel = rf.PROBES_MCQ
        all_cids = self.read.column(rel, "case_id")
        totals = Counter(all_cids)
        crowded = {
            cid for cid, n in totals.items() if isinstance(cid, str) and n > rf.MAX_PROBES_PER_CASE
        }
        if not crowded:
            return
        per_case: Counter[str] = Counter()
        for number, cid in zip(self.numbers(rel), all_cids):
            if cid in crowded:
                per_case[cid] += 1
                if per_case[cid] == rf.MAX_PROBES_PER_CASE + 1:
                    self.warn(
                        rel,
                        f"case {cid!r} has {totals[cid]} MCQ probes; "
                        f"at most {rf.MAX_PROBES_PER_CASE} per case",
                        number,
                        "case_id",
                    )

    def _warn_repeated_kinds(
        self, cids: Sequence[str], kinds: Sequence[str], numbers: Sequence[int]
    ) -> None:
        """A case with a probe kind more than once (halluc_trap: more than twice), warned at the
        first row over the limit."""
        pairs = Counter(zip(cids, kinds))  # (case, kind)
        repeated = {pair for pair, n in pairs.items() if n > (2 if pair[1] == "halluc_trap" else 1)}
        if not repeated:
            return
        found_at: dict[tuple[str, str], list[int]] = {}  # in order of first appearance
        for pair, number in zip(zip(cids, kinds), numbers):
            if pair in repeated:
                found_at.setdefault(pair, []).append(number)
        for (cid, kind), found in found_at.items():
            limit = 2 if kind == "halluc_trap" else 1
            self.warn(
                rf.PROBES_MCQ,
                f"case {cid!r} has {len(found)} {kind} probes (rows "
                f"{', '.join(map(str, found))}); expected at most {limit}",
                found[limit],
                "probe_kind",
            )

    def _mcq_rows_to_check(
        self,
        cids: Sequence[str],
        kinds: Sequence[str],
        letters: Sequence[str],
        images: Sequence[str | None],
        choices: list[Sequence[str]],
        original_at: dict[str, int],
    ) -> tuple[set[int], set[int], set[int], set[int]]:
        """Per row check of :meth:`check_mcq` (options, letter, image, inheritance): the valid rows
        that may fail it."""
        keys = list(
            map(_norm_all, choices)
        )  # non-empty (so the correct one is not empty either) and distinct
        options_rows = {
            i for key in keys if "" in key for i in compress(range(len(key)), map(not_, key))
        }
        for a, b in combinations(keys, 2):
            options_rows.update(compress(range(len(a)), map(eq, a, b)))
        # the usual letter of the kind; lr_flip of a laterality-dependent case: any letter
        letter_rows = {
            i
            for i, (kind, letter) in enumerate(zip(kinds, letters))
            if _USUAL_LETTER.get(kind, letter) != letter
        }
        lateral = {cid for cid, row in self.grounding.items() if row.values["laterality_dependent"]}
        letter_rows.update(
            i
            for i, (kind, cid) in enumerate(zip(kinds, cids))
            if kind == "lr_flip" and cid in lateral
        )
        # an image unless the kind has none
        image_rows = {
            i
            for i, (kind, image) in enumerate(zip(kinds, images))
            if (kind in rf.NO_IMAGE_PROBE_KINDS) != (image is None)
        }
        # those of the case's original probe
        inherit_rows = {
            i
            for i, kind in enumerate(kinds)
            if kind in rf.IMAGE_PROBE_KINDS
            and (
                cids[i] not in original_at
                or any(texts[i] != texts[original_at[cids[i]]] for texts in choices)
            )
        }
        return options_rows, letter_rows, image_rows, inherit_rows

    def _check_inherited_options(
        self,
        i: int,
        original: int | None,
        numbers: Sequence[int],
        kinds: Sequence[str],
        cids: Sequence[str],
        ids: Sequence[str],
        choices: list[Sequence[str]],
    ) -> None:
        """Valid MCQ row ``i`` (of the valid rows' ``numbers`` and columns), an image variant, has
        the options of its case's first original probe, at ``original``."""
        rel, kind = rf.PROBES_MCQ, kinds[i]
        if kind not in rf.IMAGE_PROBE_KINDS:
            return  # only image variants inherit options
        if original is None:
            self.warn(
                rel,
                f"{kind} probe has no original probe in case "
                f"{cids[i]!r} to inherit its options from",
                numbers[i],
                "probe_kind",
            )
            return
        for letter, column, texts in zip(rf.LETTERS, _CHOICE_COLUMNS, choices):
            if texts[i] != texts[original]:
                self.warn(
                    rel,
                    f"{kind} probes inherit the options of the case's original probe "
                    f"{ids[original]!r} (row {numbers[original]}); option {letter} "
                    f"is {texts[i]!r} here but {texts[original]!r} there",
                    numbers[i],
                    column,
                )
                break

    def _check_options(self, row: Row) -> None:
        v = row.values
        keys = [text_key(v[column]) for column in _CHOICE_COLUMNS]
        if all(keys) and len(set(keys)) == len(keys):
            return  # the usual row: every option non-empty (so is the correct one) and distinct
        options = {letter: v[f"choice_{letter}"] for letter in rf.LETTERS}
        empty = [letter for letter, text in options.items() if not text.strip()]
        if len(rf.LETTERS) - len(empty) < 3:
            self.warn(
                rf.PROBES_MCQ,
                f"only {len(rf.LETTERS) - len(empty)} non-empty options "
                f"(empty: {', '.join(empty)}); a probe needs at least 3",
                row.number,
                f"choice_{empty[0]}",
            )
        seen: dict[str, str] = {}
        for letter, text in options.items():
            key = text_key(text)
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
            expected, why = (
                "A",
                "lr_flip probes of a case that is not laterality-dependent keep letter A",
            )
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
        matches = [
            letter for letter in rf.LETTERS if text_key(v[f"choice_{letter}"]) == text_key(gold)
        ]
        if not matches:
            self.warn(
                rf.PROBES_MCQ,
                f"no option matches gold_after_lr_flip {gold!r} "
                f"of laterality-dependent case {v['case_id']!r}",
                row.number,
                "correct_letter",
            )
        elif v["correct_letter"] not in matches:
            self.warn(
                rf.PROBES_MCQ,
                f"lr_flip of a laterality-dependent case: the correct letter is {matches[0]} "
                f"(the option matching gold_after_lr_flip {gold!r}); found {v['correct_letter']}",
                row.number,
                "correct_letter",
            )

    def _check_probe_image_field(self, rel: str, row: Row) -> None:
        v = row.values
        kind, image = v["probe_kind"], v["image_file"]
        if kind in rf.NO_IMAGE_PROBE_KINDS and image is not None:
            self.error(
                rel,
                f"{kind} probes carry no image (the protocol "
                f"asks them without one); found {image!r}",
                row.number,
                "image_file",
            )
        elif kind not in rf.NO_IMAGE_PROBE_KINDS and image is None and rel == rf.PROBES_MCQ:
            self.error(
                rel, f"{kind} probes need an image; image_file is empty", row.number, "image_file"
            )

    def check_open(self) -> None:
        for row in self.valid_rows(rf.PROBES_OPEN):
            if row.values["probe_kind"] in rf.NO_IMAGE_PROBE_KINDS:
                self._check_probe_image_field(rf.PROBES_OPEN, row)

    def check_triplets(self) -> None:
        rel = rf.TRIPLETS
        for row in self.valid_rows(rel):
            v = row.values
            if text_key(v["anchor_question"]) == text_key(v["tcf_question"]):
                self.error(
                    rel,
                    "tcf_question repeats anchor_question; a textual counterfactual must reword it",
                    row.number,
                    "tcf_question",
                )
            if text_key(v["anchor_gold"]) != text_key(v["tcf_gold"]):
                self.error(
                    rel,
                    f"tcf_gold {v['tcf_gold']!r} differs from anchor_gold {v['anchor_gold']!r}; "
                    "a textual counterfactual keeps the answer",
                    row.number,
                    "tcf_gold",
                )
            if text_key(v["vcf_gold"]) == text_key(v["anchor_gold"]):
                self.error(
                    rel,
                    f"vcf_gold equals anchor_gold ({v['anchor_gold']!r}); "
                    f"a visual counterfactual must change the answer",
                    row.number,
                    "vcf_gold",
                )

    def check_baseline(self) -> None:
        for row in self.valid_rows(rf.CLINICIAN_BASELINE):
            n, k = row.values.get("n_probes"), row.values.get("n_correct")
            if n is not None and k is not None and k > n:
                self.warn(
                    rf.CLINICIAN_BASELINE,
                    f"n_correct ({k}) exceeds n_probes ({n})",
                    row.number,
                    "n_correct",
                )
