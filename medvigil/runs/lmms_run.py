"""An lmms-eval run: ``<stamp>_results.json`` and its ``<stamp>_samples_<task>.jsonl`` files.

:class:`LmmsRun` is the one object that answers what a run's files say: its label (the model's
name in every score), adapter, ``--limit``, doc counts and generation settings per task, and
whether it ran ``--predict_only``. The format facts come from :mod:`.lmms_quirks`. The readers of
records (:mod:`medvigil.records.lmms_eval_logs`) and the task pack both use it.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import open_regular, read_json
from medvigil.runs.lmms_quirks import (
    NAME_ARGS,
    PREDICT_ONLY_KEY,
    RESULTS_ALLOW_NON_FINITE,
    SAMPLES,
    SAMPLES_GLOB,
    adapter_class,
    results_name,
)

RECORD_KEY = "mcs"  # every medvigil task emits the record under this metric key
RUN_LABELS: dict[
    str, str
] = {}  # `medvigil score --label`: path (samples file or run folder; "" = all) -> name


def record_of(sample: Any) -> dict | None:
    """The per-probe record of one sample line: under ``mcs`` (MedVIGIL tasks) or under
    any metric key (MediConfusion tasks emit it under each of theirs)."""
    if not isinstance(sample, dict):
        return None
    record = sample.get(RECORD_KEY)
    if isinstance(record, dict):
        return record
    for value in sample.values():
        if isinstance(value, dict) and "suite" in value and "probe_id" in value:
            return value
    return None


def is_samples_file(path: Path) -> bool:
    return bool(SAMPLES.match(Path(path).name))


def task_of(path: Path) -> str | None:
    """The lmms-eval task a samples file belongs to (None: not a samples file)."""
    match = SAMPLES.match(Path(path).name)
    return match.group("task") if match else None


def short_model_name(model: str, args: str) -> str:
    """A run's default label: the weights its ``model_args`` name
    (``pretrained=Qwen/Qwen2.5-VL-7B-Instruct`` -> ``Qwen2.5-VL-7B-Instruct``), else ``model(args)``
    (``constant(letter=A)``).

    >>> short_model_name("qwen2_5_vl", "pretrained=Qwen/Qwen2.5-VL-7B-Instruct,max_pixels=12845056")
    'Qwen2.5-VL-7B-Instruct'
    >>> short_model_name("constant", "letter=A")
    'constant(letter=A)'
    """
    pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in NAME_ARGS:
        value = pairs.get(key, "").strip().rstrip("/")
        if value:
            return value.rsplit("/", 1)[-1]
    return f"{model}({args})" if args else model


def run_label(samples_path: Path) -> str | None:
    """The ``--label`` given for this samples file, its folder (or a parent) or every file."""
    path = Path(samples_path).resolve()
    for where, label in RUN_LABELS.items():
        if not where or path == Path(where).resolve() or Path(where).resolve() in path.parents:
            return label
    return None


@dataclass(frozen=True)
class LmmsRun:
    """One lmms-eval run, found from any of its samples files (:meth:`of`)."""

    folder: Path
    stamp: str
    samples: Path  # the samples file it was found from

    @classmethod
    def of(cls, samples_path: Path) -> "LmmsRun":
        path = Path(samples_path)
        return cls(path.parent, SAMPLES.match(path.name).group("stamp"), path)

    @property
    def task(self) -> str:
        return SAMPLES.match(self.samples.name).group("task")

    @property
    def results_path(self) -> Path:
        return self.folder / results_name(self.stamp)

    @cached_property
    def results(self) -> dict | None:
        """The parsed results file (None: there is none)."""
        path = self.results_path
        if not path.is_file():
            return None
        data = read_json(path, str(path), allow_non_finite=RESULTS_ALLOW_NON_FINITE)
        return data if isinstance(data, dict) else None

    @property
    def config(self) -> dict:
        return (self.results or {}).get("config") or {}

    @property
    def limit(self) -> float | None:
        """lmms-eval's ``--limit`` (None: the whole task was asked)."""
        limit = self.config.get("limit")
        ok = isinstance(limit, (int, float)) and not isinstance(limit, bool)
        return float(limit) if ok else None

    def n_samples(self, task: str | None = None) -> dict:
        """``{"original": docs of the task, "effective": docs asked}`` ({} when not recorded)."""
        return ((self.results or {}).get("n-samples") or {}).get(task or self.task) or {}

    def generation_kwargs(self, task: str | None = None) -> dict:
        """The task's generation settings as the run used them (``--gen_kwargs`` applied)."""
        configs = (self.results or {}).get("configs") or {}
        return (configs.get(task or self.task) or {}).get("generation_kwargs") or {}

    @property
    def adapter(self) -> dict[str, Any]:
        """The lmms-eval model: ``name`` (``--model``), ``class`` and ``kind`` when recorded."""
        cls, kind = adapter_class(self.config)
        return {"name": self.config.get("model"), "class": cls, "kind": kind}

    @property
    def system_instruction(self) -> str | None:
        """lmms-eval's ``--system_instruction`` (None: none given)."""
        return (self.results or {}).get("system_instruction") or None

    @property
    def label(self) -> str:
        """The run's model name: ``--label``, else :func:`short_model_name` of the results file."""
        label = run_label(self.samples)
        return label if label is not None else self._named()

    def _named(self) -> str:
        results = self.results_path
        if not results.exists():  # anything else there (a FIFO, a device) is refused by read_json
            why = f"no {results.name} beside it to name the model"
            raise DataError(Problem(str(self.samples), why, field="model"))
        data = read_json(results, str(results), allow_non_finite=RESULTS_ALLOW_NON_FINITE)
        config = data.get("config") if isinstance(data, dict) else None
        if not isinstance(config, dict):
            why = "not an lmms-eval results file: no 'config' object"
            raise DataError(Problem(str(results), why, field="config"))
        model, args = config.get("model") or "", str(config.get("model_args") or "").strip()
        if not isinstance(model, str):
            why = f"config.model must be a string, got {type(model).__name__}"
            raise DataError(Problem(str(results), why, field="config.model"))
        if not model:
            raise DataError(Problem(str(results), "config.model is empty", field="config.model"))
        return short_model_name(model, args)

    @property
    def predict_only(self) -> bool:
        """A ``--predict_only`` samples file: its first line has lmms-eval's ``bypass`` entry and
        no per-probe record."""
        with open_regular(self.samples, str(self.samples)) as raw:
            for line in raw:
                if line.strip():
                    sample = json.loads(line)
                    return (
                        isinstance(sample, dict)
                        and PREDICT_ONLY_KEY in sample
                        and record_of(sample) is None
                    )
        return False


def results_file(samples_path: Path) -> Path:
    """The ``<stamp>_results.json`` beside an lmms-eval samples file."""
    return LmmsRun.of(samples_path).results_path


def run_results(samples_path: Path) -> dict | None:
    """The parsed results file of a samples file's run (None: there is none)."""
    return LmmsRun.of(samples_path).results


def run_limit(samples_path: Path) -> float | None:
    """lmms-eval's ``--limit`` of the run (None: the whole task was asked)."""
    return LmmsRun.of(samples_path).limit


def model_name(samples_path: Path) -> str:
    """The run's label (:data:`RUN_LABELS`), else the model its results file names."""
    return LmmsRun.of(samples_path).label


def is_predict_only(samples_path: Path) -> bool:
    return LmmsRun.of(samples_path).predict_only


def samples_files(paths: Iterable[str | Path], prefix: str = "") -> list[Path]:
    """The samples files among ``paths`` (folders searched) of tasks named ``<prefix>...``."""
    found: list[Path] = []
    for path in map(Path, paths):
        candidates = sorted(path.rglob(SAMPLES_GLOB)) if path.is_dir() else [path]
        for p in candidates:
            match = SAMPLES.match(p.name)
            if match and match.group("task").startswith(prefix) and p.is_file():
                found.append(p)
    return list(dict.fromkeys(found))


def runs_of(paths: Iterable[str | Path], prefix: str = "") -> list[LmmsRun]:
    """One :class:`LmmsRun` per samples file among ``paths`` (:func:`samples_files`)."""
    return [LmmsRun.of(p) for p in samples_files(paths, prefix)]
