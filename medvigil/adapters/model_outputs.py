"""One entry point for model outputs of the MedVIGIL suite, whatever wrote them.

* lmms-eval ``--log_samples`` files (``<stamp>_samples_<task>.jsonl``) of our tasks;
* official harness files (``results/baselines/<model>__mcq.jsonl``) or folders of them;
* the harness's ablation and open-ended files (no-image, blur sweep, open / judged,
  visual-token raw), read by :mod:`medvigil.adapters.harness_ablations`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from medvigil.adapters.lmms_eval import is_samples_file, read_samples


class ModelRecords(list):
    """Probe records plus the warnings and skip counts the readers reported."""

    warnings: list[str]
    skipped: dict


def read_model_outputs(paths: Iterable[str | Path], release_root: str | Path | None) -> ModelRecords:
    from medvigil.adapters.harness import read_harness_files

    paths = [Path(p) for p in paths]
    lmms = [p for p in paths if p.is_file() and is_samples_file(p)]
    harness = [p for p in paths if p not in lmms]
    from medvigil.adapters.harness_ablations import expand_ablation_paths, read_ablation_files

    ablation, harness = expand_ablation_paths(harness)
    out = ModelRecords()
    out.warnings, out.skipped = [], {}
    if lmms:
        out.extend(read_samples(lmms))
    if harness:
        records = read_harness_files(harness, release_root)
        out.extend(records)
        out.warnings += list(getattr(records, "warnings", []))
        out.skipped.update(getattr(records, "skipped", {}) or {})
    if ablation:
        records = read_ablation_files(ablation, release_root)
        out.extend(records)
        out.warnings += [w for w in records.warnings if w not in out.warnings]
        for model, counts in records.skipped.items():
            for reason, n in counts.items():
                out.skipped.setdefault(model, {})[reason] = out.skipped.get(model, {}).get(reason, 0) + n
    return out
