"""A disk cache of what the rule readers make of the learned judge's training answers
(:class:`.judge_features.Reading`), so the judge is fitted in a few seconds after its first use.

Reading ~2,300 answers with the refusal grammar and the spaCy finding reader takes ~10 s of CPU; the
fit itself ~2 s. The readings are kept as JSON (no pickle: nothing executable is loaded) in
``$MEDVIGIL_HOME/judge/`` (:func:`medvigil.data_location.medvigil_home`), under a key hashing the
inputs of each reading and the source of every module that reads (and the versions of spaCy and
negspacy): any change to a set or a rule makes a new key, so a stale reading is never used. A cache
that cannot be read or written is ignored (the answers are read again); the newest :data:`KEEP`
files of a kind are kept. ``MEDVIGIL_JUDGE_CACHE=0`` turns it off. Processes computing the same
value take turns (:func:`computing`, a file lock): the second reads what the first wrote.
"""

import hashlib
import json
import os
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from medvigil.suites.medvigil.scoring.judge_features import Reading

CACHE_VARIABLE = "MEDVIGIL_JUDGE_CACHE"
FORMAT = 1
# the modules whose code decides a reading
READERS = (
    "answer_text",
    "finding_assertion",
    "finding_context",
    "finding_terms",
    "judge_features",
    "other_language_terms",
    "probe_kinds",
    "refusal_grammar",
    "refusal_terms",
)
INPUTS = ("answer", "question", "probe_kind", "expected_behavior")
KEEP = 8  # files kept per kind (readings, loso), the newest
LOCK_WAIT = 900  # seconds a process waits for another computing the same value


def folder() -> Path | None:
    if os.environ.get(CACHE_VARIABLE, "1") == "0":
        return None
    from medvigil.data_location import medvigil_home

    return medvigil_home() / "judge"


def key(rows: list[dict], modules: tuple = ()) -> str:
    """A hash of the rows' reading inputs, the readers' source (and that of ``modules``) and the NLP
    library versions."""
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    here = Path(__file__).parent
    for name in (*READERS, *modules):
        digest.update((here / f"{name}.py").read_bytes())
    for package in ("spacy", "negspacy"):
        digest.update(f"{package} {metadata.version(package)}".encode())
    for row in rows:
        digest.update(json.dumps([row.get(k) or "" for k in INPUTS]).encode())
    return digest.hexdigest()[:32]


@contextmanager
def computing(name: str, rows: list[dict], modules: tuple = ()):
    """Hold the machine-wide lock of one value while it is computed: a second process (an xdist
    worker, a parallel ``score``) waits for the first and then reads its result instead of
    computing it again. No lock without a cache folder or where none can be made."""
    from filelock import FileLock, Timeout

    where, lock = folder(), None
    if where is not None:
        try:
            where.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(where / f"{name}-{key(rows, modules)}.lock"), timeout=LOCK_WAIT)
            lock.acquire()
        except (OSError, Timeout):
            lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.release()


def load(rows: list[dict]) -> list[Reading] | None:
    """The cached readings of ``rows``, or None."""
    try:
        readings = [Reading(**item) for item in (load_value("readings", rows) or [])]
    except TypeError:
        return None
    return readings if readings and len(readings) == len(rows) else None


def save(rows: list[dict], readings: list[Reading]) -> None:
    """Keep ``readings`` (of ``rows``) for the next process; a failure to write is ignored."""
    save_value("readings", rows, [r.__dict__ for r in readings])


def load_value(name: str, rows: list[dict], modules: tuple = ()):
    """The JSON value kept under ``name`` for ``rows`` (and ``modules``' source), or None."""
    where = folder()
    if where is None:
        return None
    try:
        data = json.loads((where / f"{name}-{key(rows, modules)}.json").read_text("utf-8"))
        return data["value"] if data.get("format") == FORMAT else None
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def save_value(name: str, rows: list[dict], value, modules: tuple = ()) -> None:
    """Keep a JSON value under ``name``; written whole (a temporary file renamed) or not at all."""
    where = folder()
    if where is None:
        return
    try:
        where.mkdir(parents=True, exist_ok=True)
        target = where / f"{name}-{key(rows, modules)}.json"
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"format": FORMAT, "value": value}), "utf-8")
        temporary.replace(target)
        kept = sorted(where.glob(f"{name}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP:]:  # the cache does not grow with every change of the code
            old.unlink(missing_ok=True)
    except OSError:
        return
