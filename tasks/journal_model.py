"""``--model journal``: any lmms-eval model whose answers are written down as they arrive, so an
interrupted run resumes where it stopped, sampled repeats included.

lmms-eval 0.7.3's ``--use_cache`` cannot resume a run: it stores answers only once the model has
answered every request of the run (one call), merges them only when the run succeeds, and never
stores a sampled request (``temperature > 0`` or ``do_sample``: MedQ-Deg's T = 10 trials, the
ROI-decay pilot's 5 samples). This wrapper asks its inner model ``chunk`` requests at a time and
appends each answer to ``journal`` (one JSON line, flushed to disk) before asking the next chunk; a
rerun with the same journal reuses every answer written there and asks only the rest::

    lmms-eval --model journal \
        --model_args
        inner=qwen2_5_vl,journal=runs/deg.journal.jsonl,pretrained=Qwen/Qwen2.5-VL-7B-Instruct \
        --tasks medqdeg --output_path runs/deg --log_samples        # interrupted? run it again

Each answer is keyed by its task, doc, request index, prompt, generation settings and *repeat*: the
r-th copy of a request that lmms-eval repeats (``repeats: T``) is the r-th trial, so every trial is
its own entry. The journal's first line names the inner model and its arguments; a journal of
another model is refused. ``inner`` is a registered model name or ``module:Class``; every other
model argument goes to it. Under data parallelism each rank keeps ``<journal>.rank<N>``.
"""

import hashlib
import json
import logging
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from lmms_eval.api.instance import Instance, unwrap_generation_output
from lmms_eval.api.model import lmms

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_bytes
from medvigil.tasks.retrying_model import resolve_model

log = logging.getLogger("medvigil.journal")
FORMAT = 1
_RUN_ONLY = ("batch_size", "max_batch_size", "device")  # lmms-eval's run settings, not the model's


def request_keys(kind: str, requests: Sequence[Instance]) -> list[str]:
    """One key per request: what it asks (no callables) and which repeat of it this is."""
    seen: Counter = Counter()
    keys = []
    for request in requests:
        asked = [a for a in request.args if not callable(a)]
        text = json.dumps(
            [kind, request.task_name, request.doc_id, request.idx, asked],
            sort_keys=True,
            default=repr,
        )
        seen[text] += 1
        keys.append(hashlib.sha256(f"{text}\0{seen[text]}".encode()).hexdigest())
    return keys


def read_journal(path: Path, header: dict) -> dict[str, object]:
    """The answers of ``path`` by key; a last line cut by the interruption is left out (and
    said)."""
    answers: dict[str, object] = {}
    if not path.exists():
        return answers
    data = read_bytes(path, str(path))  # a regular file within the input cap
    complete, _, cut = data.rpartition(b"\n")
    if cut:  # no newline after it: the write the interruption cut
        log.warning("journal %s: its last line was cut; asking that answer again", path)
        os.truncate(path, len(data) - len(cut))  # the next answers start a line
    for number, line in enumerate(complete.split(b"\n") if complete else [], start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise DataError(Problem(str(path), "not a JSON line", row=number)) from None
        if number > 1 and not (isinstance(entry, dict) and {"key", "answer"} <= entry.keys()):
            raise DataError(
                Problem(str(path), "an answer line needs 'key' and 'answer'", row=number)
            )
        if number == 1:
            if entry != header:
                raise DataError(Problem(str(path), f"a journal of {entry}, not of {header}", row=1))
            continue
        answers[entry["key"]] = entry["answer"]
    return answers


class JournalLMM(lmms):
    """Delegate to an inner model ``chunk`` requests at a time, journaling every answer."""

    def __init__(self, inner: str = "", journal: str = "", chunk: int | str = 32, **inner_args):
        super().__init__()
        if not inner or not journal:
            raise ValueError("--model journal needs model_args inner=<model> and journal=<file>")
        self.chunk = int(chunk)
        if self.chunk < 1:
            raise ValueError(f"chunk must be >= 1, got {chunk!r}")
        self.inner = resolve_model(inner)(**inner_args)
        self.inner.task_dict = self.task_dict  # lmms-eval fills the wrapper's dict in place
        self.is_simple = getattr(self.inner, "is_simple", True)
        args = {k: str(v) for k, v in sorted(inner_args.items()) if k not in _RUN_ONLY}
        self.header = {"journal": FORMAT, "inner": inner, "args": args}
        suffix = f".rank{self.rank}" if self.world_size > 1 else ""
        self.path = Path(journal + suffix)
        self.answers = read_journal(self.path, self.header)

    def __getattr__(self, name):  # accelerator, device, ... of the inner model
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def rank(self):
        return getattr(self.inner, "rank", 0)

    @property
    def world_size(self):
        return getattr(self.inner, "world_size", 1)

    def _write(self, entries: list[dict]) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = ([self.header] if new else []) + entries
        with self.path.open("a", encoding="utf-8") as out:
            out.write("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines))
            out.flush()
            os.fsync(out.fileno())

    def _answer(self, kind: str, requests: Sequence[Instance], store) -> list:
        keys = request_keys(kind, requests)
        missing = [i for i, key in enumerate(keys) if key not in self.answers]
        log.warning(
            "journal %s: %d %s answer(s) reused, %d to ask",
            self.path,
            len(keys) - len(missing),
            kind,
            len(missing),
        )
        for start in range(0, len(missing), self.chunk):
            part = missing[start : start + self.chunk]
            outputs = getattr(self.inner, kind)([requests[i] for i in part])
            entries = [{"key": keys[i], "answer": store(o)} for i, o in zip(part, outputs)]
            self._write(entries)
            self.answers.update((e["key"], e["answer"]) for e in entries)
        return [self.answers[key] for key in keys]

    def generate_until(self, requests: Sequence[Instance]) -> list:
        return self._answer("generate_until", requests, lambda o: unwrap_generation_output(o)[0])

    def loglikelihood(self, requests: Sequence[Instance]) -> list:
        return [tuple(a) for a in self._answer("loglikelihood", requests, list)]

    def generate_until_multi_round(self, requests):
        return self.inner.generate_until_multi_round(requests)
