"""Write probe records as the files of one lmms-eval run, for the columnar readers' tests."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

STAMP = "20260101_000000"


def write_run(folder: Path, files: Mapping[str, Sequence], keys: Sequence[str], *, model: str = "toy",
              model_args: str = "seed=1") -> list[Path]:
    """``<stamp>_results.json`` naming the model, and per task one ``<stamp>_samples_<task>.jsonl``
    holding each of its records under every metric key of ``keys`` (as lmms-eval logs them)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{STAMP}_results.json").write_text(json.dumps({"config": {"model": model, "model_args": model_args}}))
    paths = []
    for task, records in files.items():
        path = folder / f"{STAMP}_samples_{task}.jsonl"
        lines = (json.dumps({"doc_id": i, **dict.fromkeys(keys, record)}) + "\n" for i, record in enumerate(records))
        path.write_text("".join(lines))
        paths.append(path)
    return paths
