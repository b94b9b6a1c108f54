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

File names: :mod:`.ablation_files`; rows: :mod:`.ablation_records` and :mod:`.open_records`. The
aggregate ``data/medvigil_v1/visual_token_ablation.csv`` (one row per model and step) is read by
:func:`medvigil.suites.medvigil.harness.token_ablation_csv.read_token_ablation_csv`.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.suites.medvigil.harness.ablation_files import (
    ABLATION_PATTERNS,
    ablation_kind,
    decode_rows,
    expand_ablation_paths,
)
from medvigil.suites.medvigil.harness.ablation_records import (
    AblationContext,
    RowProblems,
    mcq_record,
    token_record,
)
from medvigil.suites.medvigil.harness.harness_rows import HarnessRecords, bump
from medvigil.suites.medvigil.harness.open_records import open_record
from medvigil.suites.medvigil.scoring.open_ended import DEFAULT_JUDGE

__all__ = ["read_ablation_files"]


def read_ablation_files(
    paths: Iterable[str | Path],
    release: Any = None,
    *,
    strict: bool = True,
    open_judge: str | None = None,
) -> HarnessRecords:
    """Probe records of the authors' ablation and open-ended files (module docstring): ``paths`` are
    files named as their writers name them (:func:`.ablation_files.ablation_kind`) or folders
    holding them; ``release`` as :func:`medvigil.suites.medvigil.harness.harness.read_harness_files`
    takes it, required for ``_visual_token_raw.jsonl``; ``open_judge``: the offline judge of
    ``__open.jsonl`` answers (``JUDGES`` of :mod:`medvigil.suites.medvigil.scoring.open_ended`,
    default its default judge); ``__judged.jsonl`` keeps the authors' LLM verdicts."""
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
    ctx = AblationContext(release, open_judge or DEFAULT_JUDGE)
    out = HarnessRecords()
    decoded = _decode_files(files, ctx, out, problems)
    kept = _latest_records(decoded, ctx, out, problems)
    if problems and strict:
        raise DataError(problems)
    out.extend(kept)
    out.problems = problems
    if ctx.cases is None:
        out.warnings.append(
            "no release given: records have no risk tier, source, modality or text-only flag"
        )
    return out


def _decode_files(
    files: list[Path], ctx: AblationContext, out: HarnessRecords, problems: list[Problem]
) -> list[tuple]:
    """``(path, kind, model, condition, rows)`` of every file, each read once; the golds of the
    answered rows go into ``ctx.golds`` (for error rows elsewhere)."""
    decoded = []
    for path in dict.fromkeys(files):
        if not path.is_file():
            raise FileNotFoundError(f"ablation result file {str(path)!r} does not exist")
        kind, model, condition = ablation_kind(path)
        rows, found = decode_rows(path, out, model or "<token ablation>")
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
    return decoded


def _latest_records(
    decoded: list[tuple], ctx: AblationContext, out: HarnessRecords, problems: list[Problem]
) -> list[dict]:
    """The records of every row, a later row of a probe replacing an earlier one of the same file
    (never an answered row by an error row); a probe in two files is a problem."""
    kept: dict[tuple, dict] = {}
    origin: dict[tuple, str] = {}
    for path, kind, model, condition, rows in decoded:
        file = str(path)
        out.files[file] = model or "<per row>"
        for line, row in rows:
            found = RowProblems(file, line)
            if kind == "token_raw":
                record = token_record(row, ctx, found)
            elif kind in ("open", "judged"):
                record = open_record(row, kind, model, condition, ctx, found)
            else:
                record = mcq_record(row, kind, model, condition, ctx, found)
            if found or record is None:
                problems += found
                bump(out.skipped, model or str(row.get("model")), "invalid_row")
                continue
            key = (record["model"], record["condition"], record["probe_id"])
            if key in kept:
                if origin[key] != file:
                    found.add(
                        f"probe {record['probe_id']!r} of model {record['model']!r} under "
                        f"condition {record['condition']!r} is also in {origin[key]}",
                        "probe_id",
                    )
                    problems += found
                    continue
                bump(out.skipped, record["model"], "superseded_row")
                if record["parse_status"] == "error" and kept[key]["parse_status"] != "error":
                    continue  # an answered row is never replaced by a failed call
            kept[key], origin[key] = record, file
            if record["parse_status"] == "error":
                bump(out.error_rows, record["model"], record["probe_kind"])
    return list(kept.values())
