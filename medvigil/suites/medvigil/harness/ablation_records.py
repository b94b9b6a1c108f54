"""One row of the authors' no-image, blur-sweep or visual-token ablation files as a probe record
(open-ended rows: :mod:`.open_records`), checked against the release when one is given."""

from typing import Any

from medvigil.errors import Problem
from medvigil.suites.medvigil.harness.harness_rows import letter_of, release_lookup

LETTERS = "ABCDE"


class RowProblems(list):
    """The problems of one line of a result file; each names the file, the line and the field."""

    def __init__(self, file: str, line: int):
        super().__init__()
        self.file, self.line = file, line

    def add(self, message: str, field: str | None = None) -> None:
        self.append(Problem(self.file, message, row=self.line, field=field))

    def text(self, row: dict, name: str, required: bool = True) -> str | None:
        """``row[name]`` when it is a non-empty string; None (and a problem unless it is absent and
        not ``required``) otherwise."""
        value = row.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            self.add(f"must be a non-empty string, got {value!r}", name)
            return None
        return value


class AblationContext:
    """Release lookups and the golds every file gives, shared by all files of one read."""

    def __init__(self, release: Any, open_judge: str):
        self.open_judge = open_judge
        self.cases, self.probes = release_lookup(release)
        self.originals = {
            p.case_id: p for p in (self.probes or {}).values() if p.probe_kind == "original"
        }
        self.golds: dict[str, str] = {}

    def case_fields(self, case_id: str, found: RowProblems) -> dict:
        """The release's risk tier, source, modality and text-only flag of ``case_id``."""
        if self.cases is None:
            return {}
        case = self.cases.get(case_id)
        if case is None:
            found.add(f"case {case_id!r} is not in the release manifest", "case_id")
            return {}
        return {
            k: getattr(case, k, None)
            for k in ("risk_tier", "source_dataset", "modality", "text_only_answerable")
        }


def mcq_record(
    row: dict, kind: str, model: str, condition: str, ctx: AblationContext, found: RowProblems
) -> dict | None:
    """A ``noimg`` / ``blur`` row as a probe record (None when it has problems)."""
    probe_id = found.text(row, "probe_id")
    case_id = found.text(row, "case_id")
    status = found.text(row, "status")
    probe_kind = found.text(row, "probe_kind", required=kind != "blur")
    if found:
        return None
    probe = ctx.probes.get(probe_id) if ctx.probes is not None else None
    probe_kind = _checked_probe_kind(probe_id, case_id, probe_kind, probe, ctx, found)
    gold = _gold_letter(row, probe_id, probe, ctx, found)
    parse_status, predicted, bad_letter = letter_of(row.get("model_letter"), status == "ok")
    if bad_letter:
        found.add(
            f"must be one capital letter or empty, got {row.get('model_letter')!r}", "model_letter"
        )
    fields = ctx.case_fields(case_id, found)
    if found:
        return None
    record = {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": probe_id,
        "case_id": case_id,
        "probe_kind": probe_kind,
        "correct_letter": gold,
        "predicted_letter": predicted,
        "parse_status": parse_status,
        **fields,
        "extra": {"harness_status": status, "file": found.file, "line": found.line},
    }
    if isinstance(row.get("model_answer"), str):
        record["raw_response"] = row["model_answer"]
    return record


def _checked_probe_kind(
    probe_id: str,
    case_id: str,
    probe_kind: str | None,
    probe: Any,
    ctx: AblationContext,
    found: RowProblems,
) -> str:
    """The row's probe kind (blur rows have none: the release's, else original), checked against
    the release's probe."""
    if ctx.probes is not None and probe is None:
        found.add(f"probe {probe_id!r} is not in the release probes_mcq.csv", "probe_id")
    if probe_kind is None:  # blur rows: the sweep asks original probes only
        probe_kind = probe.probe_kind if probe is not None else "original"
        if probe_kind != "original":
            found.add(
                f"probe {probe_id!r} is a {probe_kind} probe; the blur sweep asks original probes",
                "probe_id",
            )
    if probe is not None:
        for name, expected in (("case_id", probe.case_id), ("probe_kind", probe.probe_kind)):
            given = case_id if name == "case_id" else probe_kind
            if given != expected:
                found.add(
                    f"is {given!r} but the release has {expected!r} for probe {probe_id!r}", name
                )
    return probe_kind


def _gold_letter(
    row: dict, probe_id: str, probe: Any, ctx: AblationContext, found: RowProblems
) -> str | None:
    """The release's gold letter, else the row's, else one another row of the probe gives."""
    gold = row.get("correct_letter")
    if isinstance(gold, str) and gold and (gold not in LETTERS or len(gold) != 1):
        found.add(f"must be one of A-E, got {gold!r}", "correct_letter")
    if probe is not None:
        if gold and gold != probe.correct_letter:
            found.add(
                f"is {gold!r} but the release has {probe.correct_letter!r} for probe {probe_id!r}",
                "correct_letter",
            )
        gold = probe.correct_letter
    gold = gold or ctx.golds.get(probe_id)
    if not gold:
        found.add(
            f"no gold letter for probe {probe_id!r}: the row has none (an error row) "
            f"and neither the release (probes_mcq.csv) nor another row gives it",
            "correct_letter",
        )
    return gold


def token_record(row: dict, ctx: AblationContext, found: RowProblems) -> dict | None:
    """One (model, case, step) line of ``_visual_token_raw.jsonl``: the modal letter of 5
    samples."""
    model = found.text(row, "model")
    case_id = found.text(row, "case_id")
    step, letter = row.get("step"), row.get("letter")
    share, samples = row.get("confidence"), row.get("all_letters", "")
    _check_token_values(step, letter, share, samples, found)
    if ctx.probes is None:
        found.add(
            "needs the release's probes_mcq.csv (the case's original probe and gold letter)",
            "case_id",
        )
    if found:
        return None
    probe = ctx.originals.get(case_id)
    if probe is None:
        found.add(f"case {case_id!r} has no original probe in the release", "case_id")
        return None
    fields = ctx.case_fields(case_id, found)
    if found:
        return None
    return {
        "suite": "medvigil",
        "model": model,
        "condition": f"roi_decay:{step}",
        "probe_id": probe.probe_id,
        "case_id": case_id,
        "probe_kind": "original",
        "correct_letter": probe.correct_letter,
        "predicted_letter": letter or None,
        "parse_status": "ok" if letter else "parse_failure",
        **fields,
        "extra": {
            "modal_share": float(share),
            "samples": samples,
            "file": found.file,
            "line": found.line,
        },
    }


def _check_token_values(
    step: Any, letter: Any, share: Any, samples: Any, found: RowProblems
) -> None:
    """The step (0-3), modal letter, its share in percent and the sampled letters of a token row."""
    if not (isinstance(step, int) and not isinstance(step, bool) and 0 <= step <= 3):
        found.add(f"must be an integer 0-3, got {step!r}", "step")
    if not (isinstance(letter, str) and (letter == "" or (len(letter) == 1 and letter in LETTERS))):
        found.add(f"must be one letter A-E or empty, got {letter!r}", "letter")
    if not (isinstance(share, (int, float)) and not isinstance(share, bool) and 0 <= share <= 100):
        found.add(f"must be the modal-letter share in percent (0-100), got {share!r}", "confidence")
    if not (isinstance(samples, str) and all(c in LETTERS for c in samples)):
        found.add(f"must be the sampled letters (A-E) run together, got {samples!r}", "all_letters")
