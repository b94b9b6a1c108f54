"""Read the official harness's *other* result files into probe records.

``medvigil.suites.medvigil.harness.harness`` reads ``results/baselines/<model>__mcq.jsonl``. The
authors' runners also write (their scripts, facts only):

===========================================  ==========================  ======================
file (writer)                                rows                        record ``condition``
===========================================  ==========================  ======================
``results/baselines/<m>__mcq_noimg.jsonl``   as ``__mcq.jsonl``          ``noimg`` (Appendix I)
(``bench_run_baseline.py --no-image``)
``results/blur_sweep/<m>__sigma<s>.jsonl``   no ``probe_kind`` (every    ``blur:<s>``; ``s = inf``
(``bench_blur_sweep_run.py``, ``_huatuo``)   row an original probe)      is ``noimg`` (App. J)
``results/baselines/<m>__open.jsonl``,       free text ``model_answer``  ``open`` / ``open_noimg``
``<m>__open_noimg.jsonl`` (``--format open``)  + ``expected_behavior``   (our rule judges it)
``<m>__judged.jsonl``                        the open rows + ``verdict``  ``open`` (their verdict)
(``bench_judge_open.py --output``)
``_visual_token_raw.jsonl``                  ``model, step, case_id,``   ``roi_decay:<step>``
(``bench_visual_token_ablation.py``)         ``letter, confidence,``     (modal letter, App. K)
                                             ``all_letters``
===========================================  ==========================  ======================

``<m>`` is the runner's model id with ``/`` written ``--``. A ``status`` other than ``"ok"`` is a
failed call (``"error: ..."``, no letters): ``parse_status = "error"``, which the scoring core
counts as a failure (paper) or leaves out (``harness_compatible``, as their aggregators keep
``status == "ok"`` rows only), exactly as for ``__mcq.jsonl`` rows. The gold letter comes from the
release's ``probes_mcq.csv`` when given, else the row's ``correct_letter``, else another row of the
same probe. Open rows become letters through
:func:`medvigil.suites.medvigil.scoring.open_ended.verdict_letters`, so the MCQ core scores them
unchanged.

Their runners append on resume, and ``analysis/visual_decay/aggregate.py`` keeps the last
answered row of a probe; so do we: a later row of the same probe replaces an earlier one
(an answered row is never replaced by an error row), and every replaced row is counted
(``superseded_row``). Problems name file, line and field and are raised together; with
``strict=False`` bad rows are skipped and counted (``invalid_row``). Blank lines are counted
(``blank_line``).

The aggregate ``data/medvigil_v1/visual_token_ablation.csv`` (one row per model and step)
is read by :func:`read_token_ablation_csv` into the shape of
:func:`medvigil.suites.medvigil.scoring.roi_decay.roi_decay_modal`.
"""

import csv
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import (
    loads_json,
    no_repeated_keys,
    non_finite_field,
    open_regular,
    read_text,
)
from medvigil.suites.medvigil.harness.harness_rows import (
    NON_FINITE,
    HarnessRecords,
    bump,
    letter_of,
    release_lookup,
)
from medvigil.suites.medvigil.scoring.open_ended import (
    DEFAULT_JUDGE,
    VERDICTS,
    judge,
    should_refuse,
    verdict_letters,
)
from medvigil.suites.medvigil.scoring.roi_decay import modal_decay_entry

__all__ = [
    "ABLATION_PATTERNS",
    "ablation_kind",
    "expand_ablation_paths",
    "read_ablation_files",
    "read_token_ablation_csv",
]

_BLUR = re.compile(r"^(?P<model>.+)__sigma(?P<sigma>\d+(?:\.\d+)?|inf)\.jsonl$")
_SUFFIXES = {  # file-name suffix -> (kind, condition)
    "__mcq_noimg.jsonl": ("noimg", "noimg"),
    "__open_noimg.jsonl": ("open", "open_noimg"),
    "__open.jsonl": ("open", "open"),
    "__judged.jsonl": ("judged", "open"),
}
TOKEN_RAW = "_visual_token_raw.jsonl"
ABLATION_PATTERNS = (
    "*__mcq_noimg.jsonl",
    "*__sigma*.jsonl",
    "*__open.jsonl",
    "*__open_noimg.jsonl",
    "*__judged.jsonl",
    TOKEN_RAW,
)
_LETTERS = "ABCDE"


def ablation_kind(path: str | Path) -> tuple[str, str | None, str | None] | None:
    """``(kind, model, condition)`` of an ablation file name, None for other names.

    >>> ablation_kind("results/blur_sweep/gpt-4o__sigma8.jsonl")
    ('blur', 'gpt-4o', 'blur:8')
    >>> ablation_kind("Qwen--Qwen3.5-397B-A17B__sigmainf.jsonl")[2], ablation_kind("x__mcq.jsonl")
    ('noimg', None)
    """
    name = Path(path).name
    if name == TOKEN_RAW:
        return "token_raw", None, None
    blur = _BLUR.match(name)
    if blur:
        sigma = blur["sigma"]
        return "blur", blur["model"], "noimg" if sigma == "inf" else f"blur:{float(sigma):g}"
    for suffix, (kind, condition) in _SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            model = name[: -len(suffix)]
            if kind == "judged" and model.endswith("__open"):
                model = model[: -len("__open")]
            return kind, model, condition
    return None


def expand_ablation_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Split inputs into ablation files (folders searched for them) and everything else."""
    ablation: list[Path] = []
    other: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(
                {
                    f
                    for pattern in ABLATION_PATTERNS
                    for f in p.glob(pattern)
                    if f.is_file() and ablation_kind(f) is not None
                }
            )  # e.g. not x__sigma_scratch.jsonl
            ablation += found
            if not found or any(p.glob("*__mcq.jsonl")):
                other.append(p)
        elif ablation_kind(p) is not None:
            ablation.append(p)
        else:
            other.append(p)
    return ablation, other


def _rows(
    path: Path, out: HarnessRecords, model_for_blank: str
) -> tuple[list[tuple[int, dict]], list[Problem]]:
    file, rows, problems = str(path), [], []
    try:
        text = read_text(path, file)  # a regular file, bounded, strict UTF-8
    except DataError as exc:
        return [], list(exc.problems)
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line
    for line, raw in enumerate(lines, start=1):
        if not raw.strip():
            bump(out.skipped, model_for_blank, "blank_line")
            continue
        try:  # a key twice is refused, as by every reader; a NaN is refused naming its field
            row = loads_json(
                raw, file, row=line, allow_non_finite=True, object_pairs_hook=no_repeated_keys
            )
        except DataError as exc:
            problems += exc.problems
            continue
        field = non_finite_field(row)
        if field is not None:
            problems.append(Problem(file, NON_FINITE, row=line, field=field))
            continue
        if not isinstance(row, dict):
            problems.append(
                Problem(file, f"must be a JSON object, got {type(row).__name__}", row=line)
            )
            continue
        rows.append((line, row))
    return rows, problems


def _text(
    row: dict, name: str, file: str, line: int, problems: list[Problem], required: bool = True
) -> str | None:
    value = row.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(
            Problem(file, f"must be a non-empty string, got {value!r}", row=line, field=name)
        )
        return None
    return value


class _Context:
    """Release lookups and the golds every file gives, shared by all files of one read."""

    def __init__(self, release: Any, open_judge: str):
        self.open_judge = open_judge
        self.cases, self.probes = release_lookup(release)
        self.originals = {
            p.case_id: p for p in (self.probes or {}).values() if p.probe_kind == "original"
        }
        self.golds: dict[str, str] = {}

    def case_fields(self, case_id: str, file: str, line: int, problems: list[Problem]) -> dict:
        if self.cases is None:
            return {}
        case = self.cases.get(case_id)
        if case is None:
            problems.append(
                Problem(
                    file,
                    f"case {case_id!r} is not in the release manifest",
                    row=line,
                    field="case_id",
                )
            )
            return {}
        return {
            k: getattr(case, k, None)
            for k in ("risk_tier", "source_dataset", "modality", "text_only_answerable")
        }


def _mcq_record(
    row: dict,
    kind: str,
    model: str,
    condition: str,
    file: str,
    line: int,
    ctx: _Context,
    problems: list[Problem],
) -> dict | None:
    """A ``noimg`` / ``blur`` row as a probe record (None when it has problems)."""
    found: list[Problem] = []
    probe_id = _text(row, "probe_id", file, line, found)
    case_id = _text(row, "case_id", file, line, found)
    status = _text(row, "status", file, line, found)
    probe_kind = _text(row, "probe_kind", file, line, found, required=kind != "blur")
    if found:
        problems += found
        return None
    probe = ctx.probes.get(probe_id) if ctx.probes is not None else None
    if ctx.probes is not None and probe is None:
        found.append(
            Problem(
                file,
                f"probe {probe_id!r} is not in the release probes_mcq.csv",
                row=line,
                field="probe_id",
            )
        )
    if probe_kind is None:  # blur rows: the sweep asks original probes only
        probe_kind = probe.probe_kind if probe is not None else "original"
        if probe_kind != "original":
            found.append(
                Problem(
                    file,
                    f"probe {probe_id!r} is a {probe_kind} probe; "
                    f"the blur sweep asks original probes",
                    row=line,
                    field="probe_id",
                )
            )
    if probe is not None:
        for name, expected in (("case_id", probe.case_id), ("probe_kind", probe.probe_kind)):
            given = case_id if name == "case_id" else probe_kind
            if given != expected:
                found.append(
                    Problem(
                        file,
                        f"is {given!r} but the release has {expected!r} for probe {probe_id!r}",
                        row=line,
                        field=name,
                    )
                )
    gold = row.get("correct_letter")
    if isinstance(gold, str) and gold and (gold not in _LETTERS or len(gold) != 1):
        found.append(
            Problem(file, f"must be one of A-E, got {gold!r}", row=line, field="correct_letter")
        )
    if probe is not None:
        if gold and gold != probe.correct_letter:
            found.append(
                Problem(
                    file,
                    f"is {gold!r} but the release has {probe.correct_letter!r} "
                    f"for probe {probe_id!r}",
                    row=line,
                    field="correct_letter",
                )
            )
        gold = probe.correct_letter
    gold = gold or ctx.golds.get(probe_id)
    if not gold:
        found.append(
            Problem(
                file,
                f"no gold letter for probe {probe_id!r}: the row has none (an error row) "
                f"and neither the release (probes_mcq.csv) nor another row gives it",
                row=line,
                field="correct_letter",
            )
        )
    parse_status, predicted, bad_letter = letter_of(row.get("model_letter"), status == "ok")
    if bad_letter:
        found.append(
            Problem(
                file,
                f"must be one capital letter or empty, got {row.get('model_letter')!r}",
                row=line,
                field="model_letter",
            )
        )
    fields = ctx.case_fields(case_id, file, line, found)
    if found:
        problems += found
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
        "extra": {"harness_status": status, "file": file, "line": line},
    }
    if isinstance(row.get("model_answer"), str):
        record["raw_response"] = row["model_answer"]
    return record


def _open_record(
    row: dict,
    kind: str,
    model: str,
    condition: str,
    file: str,
    line: int,
    ctx: _Context,
    problems: list[Problem],
) -> dict | None:
    """An open-ended row (``__open.jsonl``: our rule judges; ``__judged.jsonl``: their verdict)."""
    from medvigil.suites.medvigil.release.release_csv import _answers, _Invalid

    found: list[Problem] = []
    probe_id = _text(row, "probe_id", file, line, found)
    case_id = _text(row, "case_id", file, line, found)
    probe_kind = _text(row, "probe_kind", file, line, found)
    status = _text(row, "status", file, line, found)
    answer = row.get("model_answer", "")
    if not isinstance(answer, str):
        found.append(
            Problem(file, f"must be a string, got {answer!r}", row=line, field="model_answer")
        )
    expected_behavior = row.get("expected_behavior") or ""
    expected = row.get("expected_answer_or_set") or ""
    if not isinstance(expected_behavior, str) or not isinstance(expected, str):
        found.append(
            Problem(file, "expected_behavior and expected_answer_or_set must be strings", row=line)
        )
    if found:
        problems += found
        return None
    refuse = should_refuse(probe_kind, expected_behavior)
    try:  # as the release reads probes_open.csv: a JSON list, or one answer
        golds = _answers(expected)
    except _Invalid as exc:
        problems.append(Problem(file, str(exc), row=line, field="expected_answer_or_set"))
        return None
    # the judge's refusal and critical flags (judge_correction); verdict files have none
    flags: dict = {}
    if kind == "judged":
        label, method, judge_name = row.get("verdict"), row.get("judge_method"), "authors-llm"
        if label not in VERDICTS:
            found.append(
                Problem(
                    file,
                    f"must be one of {', '.join(VERDICTS)}, got {label!r}",
                    row=line,
                    field="verdict",
                )
            )
    else:
        question = row.get("question")
        judged = judge(
            answer,
            probe_kind=probe_kind,
            expected_behavior=expected_behavior,
            expected=golds,
            judge_name=ctx.open_judge,
            question=question if isinstance(question, str) else "",
        )
        label = judged.verdict or ("silent_failure" if refuse else "incorrect")
        method, judge_name = judged.method, judged.judge
        flags = {"is_refusal": judged.is_refusal, "is_critical": judged.is_critical}
    fields = ctx.case_fields(case_id, file, line, found)
    if found:
        problems += found
        return None
    correct, predicted = verdict_letters(label, refuse)
    return {
        "suite": "medvigil",
        "model": model,
        "condition": condition,
        "probe_id": probe_id,
        "case_id": case_id,
        "probe_kind": probe_kind,
        "correct_letter": correct,
        "predicted_letter": predicted if status == "ok" else None,
        "parse_status": "ok" if status == "ok" else "error",
        **fields,
        "raw_response": answer,
        "extra": {
            "harness_status": status,
            "file": file,
            "line": line,
            "open_label": label,
            "judge_method": method,
            "open_judge": judge_name,
            "expected_behavior": expected_behavior,
            **flags,
        },
    }


def _token_record(
    row: dict, file: str, line: int, ctx: _Context, problems: list[Problem]
) -> dict | None:
    """One (model, case, step) line of ``_visual_token_raw.jsonl``: the modal letter of 5
    samples."""
    found: list[Problem] = []
    model = _text(row, "model", file, line, found)
    case_id = _text(row, "case_id", file, line, found)
    step = row.get("step")
    if not (isinstance(step, int) and not isinstance(step, bool) and 0 <= step <= 3):
        found.append(Problem(file, f"must be an integer 0-3, got {step!r}", row=line, field="step"))
    letter = row.get("letter")
    if not (
        isinstance(letter, str) and (letter == "" or (len(letter) == 1 and letter in _LETTERS))
    ):
        found.append(
            Problem(
                file, f"must be one letter A-E or empty, got {letter!r}", row=line, field="letter"
            )
        )
    share = row.get("confidence")
    if not (isinstance(share, (int, float)) and not isinstance(share, bool) and 0 <= share <= 100):
        found.append(
            Problem(
                file,
                f"must be the modal-letter share in percent (0-100), got {share!r}",
                row=line,
                field="confidence",
            )
        )
    samples = row.get("all_letters", "")
    if not (isinstance(samples, str) and all(c in _LETTERS for c in samples)):
        found.append(
            Problem(
                file,
                f"must be the sampled letters (A-E) run together, got {samples!r}",
                row=line,
                field="all_letters",
            )
        )
    if ctx.probes is None:
        found.append(
            Problem(
                file,
                "needs the release's probes_mcq.csv (the case's original probe and gold letter)",
                row=line,
                field="case_id",
            )
        )
    if found:
        problems += found
        return None
    probe = ctx.originals.get(case_id)
    if probe is None:
        problems.append(
            Problem(
                file,
                f"case {case_id!r} has no original probe in the release",
                row=line,
                field="case_id",
            )
        )
        return None
    fields = ctx.case_fields(case_id, file, line, found)
    if found:
        problems += found
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
        "extra": {"modal_share": float(share), "samples": samples, "file": file, "line": line},
    }


def read_ablation_files(
    paths: Iterable[str | Path],
    release: Any = None,
    *,
    strict: bool = True,
    open_judge: str | None = None,
) -> HarnessRecords:
    """Probe records of the authors' ablation and open-ended files (module docstring): ``paths`` are
    files named as their writers name them (:func:`ablation_kind`) or folders holding them;
    ``release`` as :func:`medvigil.suites.medvigil.harness.harness.read_harness_files` takes it,
    required for ``_visual_token_raw.jsonl``; ``open_judge``: the offline judge of ``__open.jsonl``
    answers (``JUDGES`` of :mod:`medvigil.suites.medvigil.scoring.open_ended`, default its default
    judge); ``__judged.jsonl`` keeps the authors' LLM verdicts."""
    files, other = expand_ablation_paths(paths)
    problems: list[Problem] = [
        Problem(
            str(p),
            "not an ablation result file of the authors' harness (expected "
            + ", ".join(ABLATION_PATTERNS)
            + ")",
        )
        for p in other
    ]
    if problems:
        raise DataError(problems)
    ctx = _Context(release, open_judge or DEFAULT_JUDGE)
    out = HarnessRecords()
    decoded = []
    for path in dict.fromkeys(files):
        if not path.is_file():
            raise FileNotFoundError(f"ablation result file {str(path)!r} does not exist")
        kind, model, condition = ablation_kind(path)
        rows, found = _rows(path, out, model or "<token ablation>")
        problems += found
        if found:
            bump(out.skipped, model or "<token ablation>", "invalid_row", len(found))
        decoded.append((path, kind, model, condition, rows))
        for _, row in rows:  # golds any answered row gives, for error rows elsewhere
            if (
                row.get("status") == "ok"
                and isinstance(row.get("correct_letter"), str)
                and row["correct_letter"]
            ):
                ctx.golds.setdefault(str(row.get("probe_id")), row["correct_letter"])
    kept: dict[tuple, dict] = {}
    origin: dict[tuple, str] = {}
    for path, kind, model, condition, rows in decoded:
        file = str(path)
        out.files[file] = model or "<per row>"
        for line, row in rows:
            found: list[Problem] = []
            if kind == "token_raw":
                record = _token_record(row, file, line, ctx, found)
            elif kind in ("open", "judged"):
                record = _open_record(row, kind, model, condition, file, line, ctx, found)
            else:
                record = _mcq_record(row, kind, model, condition, file, line, ctx, found)
            if found or record is None:
                problems += found
                bump(out.skipped, model or str(row.get("model")), "invalid_row")
                continue
            key = (record["model"], record["condition"], record["probe_id"])
            if key in kept:
                if origin[key] != file:
                    problems.append(
                        Problem(
                            file,
                            f"probe {record['probe_id']!r} of model {record['model']!r} under "
                            f"condition {record['condition']!r} is also in {origin[key]}",
                            row=line,
                            field="probe_id",
                        )
                    )
                    continue
                bump(out.skipped, record["model"], "superseded_row")
                if record["parse_status"] == "error" and kept[key]["parse_status"] != "error":
                    continue  # an answered row is never replaced by a failed call
            kept[key], origin[key] = record, file
            if record["parse_status"] == "error":
                bump(out.error_rows, record["model"], record["probe_kind"])
    if problems and strict:
        raise DataError(problems)
    out.extend(kept.values())
    out.problems = problems
    if ctx.cases is None:
        out.warnings.append(
            "no release given: records have no risk tier, source, modality or text-only flag"
        )
    return out


def read_token_ablation_csv(
    path: str | Path, *, ci_from: str = "percent"
) -> dict[str, dict[str, Any]]:
    """The authors' ``visual_token_ablation.csv`` (per model and step) as Appendix K results.

    Columns ``model, step, step_label, n_cases, refusal_pct, switch_from_s0_pct,
    letter_stability_pct`` (``mean_confidence_pct`` when their runner's own writer made it).
    ``ci_from``: ``"percent"`` (default) computes the Wilson 95% intervals from the file's
    rounded percentages, as their figure script does (so the intervals printed in Appendix K
    are reproduced: GPT-5.5 step 3, 58.8% of 80 -> [47.9, 68.9]); ``"counts"`` from the
    counts ``round(pct * n / 100)`` (47 of 80 -> [47.8, 68.9]).
    """
    if ci_from not in ("percent", "counts"):
        raise ValueError(f"ci_from must be 'percent' or 'counts', got {ci_from!r}")
    file = str(path)
    problems: list[Problem] = []
    steps: dict[str, dict[int, dict[str, Any]]] = {}
    with (
        open_regular(path, file) as raw,
        io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle,
    ):
        reader = csv.DictReader(handle)
        missing = {"model", "step", "n_cases"} - set(reader.fieldnames or ())
        if missing:
            raise DataError(Problem(file, f"missing column(s) {sorted(missing)}", row=None))
        for line, row in enumerate(reader, start=1):
            try:
                step, n = int(row["step"]), int(row["n_cases"])
                values = {
                    k: float(row[k])
                    for k in (
                        "refusal_pct",
                        "switch_from_s0_pct",
                        "letter_stability_pct",
                        "mean_confidence_pct",
                    )
                    if row.get(k) not in (None, "")
                }
            except (TypeError, ValueError) as exc:
                problems.append(Problem(file, f"not a number: {exc}", row=line))
                continue
            if step in steps.setdefault(row["model"], {}):
                problems.append(
                    Problem(
                        file, f"model {row['model']!r} step {step} twice", row=line, field="step"
                    )
                )
                continue
            counts = {
                k: (v * n / 100 if ci_from == "percent" else round(v * n / 100))
                for k, v in values.items()
                if k != "mean_confidence_pct"
            }
            steps[row["model"]][step] = {
                "n": n,
                "refused": counts.get("refusal_pct"),
                "switched": counts.get("switch_from_s0_pct"),
                "stable": counts.get("letter_stability_pct"),
                "mean_modal_share": values.get("mean_confidence_pct"),
            }
    if problems:
        raise DataError(problems)
    return {model: modal_decay_entry(dict(sorted(per.items()))) for model, per in steps.items()}
