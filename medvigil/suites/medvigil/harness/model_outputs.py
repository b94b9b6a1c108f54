"""One entry point for model outputs of the MedVIGIL suite, whatever wrote them.

* lmms-eval ``--log_samples`` files (``<stamp>_samples_<task>.jsonl``) of our tasks;
* official harness files (``results/baselines/<model>__mcq.jsonl``) or folders of them;
* the harness's ablation and open-ended files (no-image, blur sweep, open / judged,
  visual-token raw), read by :mod:`medvigil.suites.medvigil.harness.harness_ablations`.

Every record's ``source_dataset`` is the canonical source name
(:func:`medvigil.suites.medvigil.release.release_format.source_label`), so strata do not split on
spellings.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from medvigil.errors import DataError, Problem
from medvigil.records.lmms_eval_logs import EMPTY_LOG, read_samples
from medvigil.runs.lmms_run import is_samples_file, model_name
from medvigil.suites.medvigil.release.release_format import with_canonical_source

if TYPE_CHECKING:
    from medvigil.suites.medvigil.harness.harness_rows import HarnessColumns


class ModelRecords(list):
    """Probe records plus the warnings, skip counts and error-row counts the readers reported."""

    warnings: list[str]
    skipped: dict
    error_rows: dict
    problems: list  # rows left out (strict=False)


def read_model_outputs(
    paths: Iterable[str | Path],
    release: Any,
    *,
    strict: bool = True,
    allow_empty: bool = False,
    open_judge: str | None = None,
) -> "ModelRecords | HarnessColumns":
    """Records of every file; ``release`` as
    :func:`medvigil.suites.medvigil.harness.harness.read_harness_files` takes it.

    When every file is a harness result file (the authors' ``<model>__mcq.jsonl``), the result is
    :func:`~medvigil.suites.medvigil.harness.harness.read_harness_files`'s with ``as_table=True``:
    the records as columns (what :func:`medvigil.suites.medvigil.scoring.scoring.audit` takes),
    with the same bookkeeping attributes. ``release`` may be a function that loads it: it is called
    before the result files are read.
    """
    from medvigil.suites.medvigil.harness.ablation_files import expand_ablation_paths
    from medvigil.suites.medvigil.harness.harness import read_harness_files
    from medvigil.suites.medvigil.harness.harness_ablations import read_ablation_files
    from medvigil.suites.medvigil.harness.harness_rows import bump

    paths = [Path(p) for p in paths]
    lmms = [p for p in paths if p.is_file() and is_samples_file(p)]
    harness = [p for p in paths if p not in lmms]
    ablation, harness = expand_ablation_paths(harness)
    if harness and not lmms and not ablation:
        return read_harness_files(
            harness, release, strict=strict, allow_empty=allow_empty, as_table=True
        )
    if callable(release):
        release = release()
    out = ModelRecords()
    out.warnings, out.skipped, out.error_rows, out.problems = [], {}, {}, []
    if lmms:
        empty: list[Path] = []
        found = read_samples(lmms, empty=empty)
        out.warnings += [f"{path}: {EMPTY_LOG}; left out" for path in empty]
        if release is not None:
            found = _in_release(found, lmms, release, strict, out)
        out.extend(with_canonical_source(record) for record in found)
    if harness:
        records = read_harness_files(harness, release, strict=strict, allow_empty=allow_empty)
        out.extend(records)
        out.warnings += list(records.warnings)
        out.skipped.update(records.skipped)
        out.error_rows.update(records.error_rows)
        out.problems += records.problems
    if ablation:
        records = read_ablation_files(ablation, release, strict=strict, open_judge=open_judge)
        out.extend(with_canonical_source(record) for record in records)
        out.warnings += [w for w in records.warnings if w not in out.warnings]
        out.problems += records.problems
        for total, counts in ((out.skipped, records.skipped), (out.error_rows, records.error_rows)):
            for model, inner in counts.items():
                for key, n in inner.items():
                    bump(total, model, key, n)
    return out


def _in_release(
    records: list[dict], paths: list[Path], release: Any, strict: bool, out: ModelRecords
) -> list[dict]:
    """The lmms-eval records whose case is in ``release``; the others are an error per model naming
    its files (``strict``), else left out, counted (``skipped``) and said (``warnings``)."""
    from medvigil.suites.medvigil.harness.harness_rows import bump

    cases = getattr(release, "cases", None)
    if not cases:
        return records
    unknown: dict[str, list[str]] = {}
    for record in records:
        if record.get("case_id") not in cases:
            unknown.setdefault(record["model"], []).append(str(record.get("case_id")))
    if not unknown:
        return records
    problems = []
    for model, ids in unknown.items():
        files = ", ".join(str(p) for p in paths if model_name(p) == model) or model
        shown = ", ".join(dict.fromkeys(ids[:5]))
        message = (
            f"{len(ids)} record(s) of model {model!r} name case(s) not in the release "
            f"{release.location} (e.g. {shown}); score them against the release they ran on"
        )
        if strict:
            problems.append(
                Problem(
                    files,
                    message + ", or pass --skip-invalid-rows to leave them out",
                    field="case_id",
                )
            )
        else:
            out.warnings.append(f"{files}: {message}; left out")
            bump(out.skipped, model, "case_not_in_release", len(ids))
    if problems:
        raise DataError(problems)
    return [r for r in records if r.get("case_id") in cases]
