"""VLMEvalKit prediction files of MedQ-DEG-Bench scored as VLMEvalKit does, and with calibration.

A prediction file is what VLMEvalKit's inference loop writes for ``MedQDEGBench_<split>``:
``<model>_MedQDEGBench_<split>.xlsx`` (its default; ``.tsv`` with ``PRED_FORMAT=tsv``; ``.csv`` read
too), the dataset's table without ``image`` plus a ``prediction`` column. A model is a file stem;
the same stem in several folders is that model's repeated trials (one run per folder).

* ``vlmevalkit``: per stem, what ``MedQDEGBenchDataset.evaluate`` returns for its (first) file, key
  for key: ``Overall`` (mean hit), ``Total`` (rows), then ``Modality_<v>``, ``DegType_<v>``,
  ``Severity_<v>``, ``Source_<v>`` (mean hit per value, values sorted, missing values left out; a
  column the file lacks gives no keys). Its rules, as read in VLMEvalKit
  (``vlmeval/dataset/medq_deg_bench.py``): the file is read with pandas (``read_excel`` /
  ``read_csv``, their type inference and missing values, so a severity column of integers gives
  ``Severity_1``); ``answer`` is ``str(answer).strip().upper()``; a hit is ``answer == str(extracted
  prediction).upper()``, a missing prediction never a hit unless the answer is missing too (both
  read ``NAN``). :func:`extract_letter` is its letter extraction. With several trials each file's
  block is in ``vlmevalkit_trials``.
* ``calibration`` (three trials or more): the paper's analysis VLMEvalKit lacks, each row a sample
  whose ``T`` trial answers give perceived confidence (Eq. 3), and accuracy, Calibration Shift (Eq.
  4) and the DKE flag (Eq. 5) by severity, degradation type, modality and source
  (:func:`medvigil.suites.medqdeg.breakdowns.score_groups`). Answers are read by ``parser``:
  ``"vlmevalkit"`` (default: the letter VLMEvalKit's extraction gives, invalid when it gives none or
  one beyond the row's options) or ``"appendix_b"``
  (:func:`medvigil.suites.medqdeg.records.parse_answer`). Severity levels follow
  :data:`medvigil.suites.medqdeg.bench_tsv.SEVERITY_NAMES`; clean rows are degradation ``clean``;
  rows of one question pair by :func:`medvigil.suites.medqdeg.bench_tsv.content_key` (unique among
  the stem's L0 rows).
"""

import math
import re
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.json_text import finite
from medvigil.suites.medqdeg.bench_tsv import OPTION_LETTERS, content_key, kind_of, severity_level
from medvigil.suites.medqdeg.breakdowns import score_groups
from medvigil.suites.medqdeg.records import parse_answer
from medvigil.suites.medqdeg.sample_scores import vote_counts

STEM = re.compile(r"^(?P<model>.+)_MedQDEGBench_(?P<split>[^/]+)$")
SUFFIXES = (".xlsx", ".tsv", ".csv")
GROUPS = (  # evaluate's breakdowns: column -> key prefix, in its order
    ("modality", "Modality_"),
    ("degradation_type", "DegType_"),
    ("degradation_severity", "Severity_"),
    ("source", "Source_"),
)
PARSERS = ("vlmevalkit", "appendix_b")
MIN_TRIALS = 3  # trials needed for the calibration analysis
_LEAD = re.compile(r"^([A-E])[.)\s]")
_DASHED = re.compile(r"^([A-E])\s*[-:]")
_ALONE = re.compile(r"(?<![A-Z])([A-E])(?![A-Z])")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def extract_letter(prediction: Any) -> Any:
    """VLMEvalKit's letter of a prediction, in its order of rules: a missing value stays missing;
    the stripped text upper-cased when it is one of A-E; a leading letter followed by ``.``, ``)``
    or a space; a leading letter followed by ``-`` or ``:``; the first letter A-E standing alone (no
    letter A-Z beside it, upper-cased text); else the stripped text. VLMEvalKit also has an ``answer
    is X`` / ``option X`` rule, but its pattern is lower-case and searched in the upper-cased text,
    so it never applies: ``Between B and A, the answer is A`` gives B (checked against its executed
    ``evaluate`` by tests/test_medqdeg_bench_vlmevalkit_real.py).

    >>> [extract_letter(p) for p in ("b", "C) cyst", "The answer is D.", "n/a", "none")]
    ['B', 'C', 'D', 'A', 'none']
    """
    if _missing(prediction):
        return prediction
    text = str(prediction).strip()
    upper = text.upper()
    if upper in OPTION_LETTERS:
        return upper
    for rule in (_LEAD.match, _DASHED.match, _ALONE.search):
        found = rule(upper)
        if found:
            return found.group(1)
    return text


def read_predictions(path: Path):
    """A prediction file as VLMEvalKit's ``load`` reads it (pandas, default type inference)."""
    import pandas as pd

    if path.suffix not in SUFFIXES:
        raise DataError(Problem(str(path), f"not a prediction file ({', '.join(SUFFIXES)})"))
    try:
        if path.suffix == ".xlsx":
            data = pd.read_excel(path)
        else:
            data = pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")
    except (ValueError, OSError, zipfile.BadZipFile, KeyError) as exc:  # pandas' and openpyxl's
        raise DataError(
            Problem(str(path), f"cannot be read as a {path.suffix} table: {exc}")
        ) from None
    missing = [c for c in ("answer", "prediction") if c not in data.columns]
    if missing:
        raise DataError(Problem(str(path), f"no {' or '.join(missing)} column", field=missing[0]))
    return data


def hits(data) -> list[bool]:
    """Per row, VLMEvalKit's hit: the answer as text equals the extracted prediction as text
    (upper-cased)."""
    answers = [str(a).strip().upper() for a in data["answer"]]
    return [a == str(extract_letter(p)).upper() for a, p in zip(answers, data["prediction"])]


def evaluate(data) -> dict[str, Any]:
    """What ``MedQDEGBenchDataset.evaluate`` returns for one file's table (see the module
    docstring)."""
    hit = hits(data)
    result: dict[str, Any] = {
        "Overall": sum(hit) / len(hit) if hit else math.nan,
        "Total": len(hit),
    }
    for column, prefix in GROUPS:
        if column not in data.columns:
            continue
        values = data[column].tolist()
        for value in sorted(data[column].dropna().unique()):
            mine = [h for h, v in zip(hit, values) if v == value]
            result[f"{prefix}{value}"] = sum(mine) / len(mine)
    return result


def model_files(paths: Sequence[str | Path]) -> tuple[dict[str, list[Path]], list[dict[str, str]]]:
    """Prediction files by stem, in the order given (folders searched for ``*_MedQDEGBench_*``), and
    the files skipped: one already read under another name (VLMEvalKit links the latest run's files
    into the model's folder), with the reason."""
    by_stem: dict[str, list[Path]] = {}
    seen: dict[Path, Path] = {}
    skipped: list[dict[str, str]] = []
    for path in map(Path, paths):
        found = (  # links after real files: a link to a file read already is the one skipped
            sorted(
                (p for s in SUFFIXES for p in path.rglob(f"*_MedQDEGBench_*{s}")),
                key=lambda p: (p.is_symlink(), p),
            )
            if path.is_dir()
            else [path]
        )
        if path.is_dir() and not found:
            raise DataError(
                Problem(str(path), "no *_MedQDEGBench_* prediction file in this folder")
            )
        for p in found:
            if not p.is_file():
                raise DataError(Problem(str(p), "no such file"))
            if not STEM.match(p.stem):
                msg = (
                    "the file name is not <model>_MedQDEGBench_<split> "
                    "(VLMEvalKit's prediction file)"
                )
                raise DataError(Problem(str(p), msg))
            first = seen.setdefault(p.resolve(), p)
            if first is not p:
                skipped.append({"file": str(p), "reason": f"the same file as {first}"})
                continue
            by_stem.setdefault(p.stem, []).append(p)
    return by_stem, skipped


def _text(value: Any) -> str | None:
    return None if _missing(value) else str(value)


def _vote(prediction: Any, k: int, parser: str) -> str | None:
    if parser == "appendix_b":
        return parse_answer(_text(prediction), k)
    letter = extract_letter(prediction)
    return letter if isinstance(letter, str) and letter in OPTION_LETTERS[:k] else None


def _same_rows(tables: Sequence[Any], files: Sequence[Path]) -> list[str]:
    """The rows' ``index`` values, the same in every trial file (else a DataError naming both
    files)."""
    first = [str(i) for i in tables[0]["index"]] if "index" in tables[0].columns else None
    if first is None:
        raise DataError(Problem(str(files[0]), "no index column", field="index"))
    for table, path in zip(tables[1:], files[1:]):
        if "index" not in table.columns or [str(i) for i in table["index"]] != first:
            msg = (
                f"its rows (index column) differ from those "
                f"of {files[0]}, another trial of this model"
            )
            raise DataError(Problem(str(path), msg, field="index"))
    return first


def _sample(row: Mapping[str, Any], where: str, kind: str | None) -> dict[str, Any]:
    """One row's options count, gold, level, degradation and labels; problems name file and
    index."""
    cells = {c: _text(row.get(c)) for c in (*OPTION_LETTERS, "question", "answer", *_LABELS)}
    k = sum(bool((cells[c] or "").strip()) for c in OPTION_LETTERS)
    gold = (cells["answer"] or "").strip().upper()
    if k < 2 or gold not in OPTION_LETTERS[:k]:
        raise DataError(
            Problem(where, f"answer {gold!r} is not one of its {k} options", field="answer")
        )
    level = severity_level(cells["degradation_severity"], kind)
    if level is None:
        msg = f"degradation_severity {cells['degradation_severity']!r} is not a known level"
        raise DataError(Problem(where, msg, field="degradation_severity"))
    degradation = "clean" if level == 0 else (cells["degradation_type"] or "(unlabelled)")
    return {
        "k": k,
        "gold": gold,
        "level": level,
        "degradation": degradation,
        "modality": cells["modality"],
        "source": cells["source"],
        "key": content_key(cells),
    }


_LABELS = ("modality", "degradation_type", "degradation_severity", "source")


def calibration(parts: Sequence[tuple], parser: str, rules: Mapping[str, str]) -> dict[str, Any]:
    """The calibration analysis of one model's trials: ``parts`` are ``(tables, files, split)``, the
    ``T`` trial tables of one stem each (a good and a simulate stem together give L0, L1 and L2)."""
    if parser not in PARSERS:
        raise ValueError(f"parser must be one of {', '.join(PARSERS)}, got {parser!r}")
    samples, votes, index = [], [], []
    for tables, files, split in parts:
        rows_index = _same_rows(tables, files)
        rows = tables[0].to_dict("records")
        mine = [
            _sample(r, f"{files[0]}, index {i!r}", kind_of(split)) for r, i in zip(rows, rows_index)
        ]
        predictions = zip(*(t["prediction"].tolist() for t in tables))
        votes += [[_vote(p, s["k"], parser) for p in trial] for s, trial in zip(mine, predictions)]
        samples += mine
        index += [f"{split}:{i}" for i in rows_index]
    ks = [s["k"] for s in samples]
    clean = Counter(s["key"] for s in samples if s["level"] == 0)
    items = [s["key"] if clean[s["key"]] <= 1 else f"index:{i}" for s, i in zip(samples, index)]
    counts, invalid = vote_counts(votes, ks)
    scores = score_groups(
        counts,
        invalid,
        ks,
        [s["gold"] for s in samples],
        [s["degradation"] for s in samples],
        [s["level"] for s in samples],
        items=items,
        modality=[s["modality"] for s in samples],
        labels={"source": [s["source"] for s in samples]},
        **rules,
    )
    return {**scores, "trials": len(parts[0][0]), "parser": parser}


def _with_clean(stems: Mapping[str, list], parser: str, rules: Mapping[str, str]) -> dict:
    """Per ``<model>_MedQDEGBench_simulate_<x>`` whose ``good_<x>`` stem has as many trials (>= 3):
    the calibration over both files (L0 from the clean rows: drops from L0 and the DKE flag of Eq.
    5)."""
    out = {}
    for stem, (tables, paths) in stems.items():
        found = STEM.match(stem)
        model, split = found.group("model"), found.group("split")
        if kind_of(split) != "simulate":
            continue
        clean_split = "good" + split.removeprefix("simulate")
        clean = stems.get(f"{model}_MedQDEGBench_{clean_split}")
        if clean and len(clean[0]) == len(tables) >= MIN_TRIALS:
            parts = [(clean[0], clean[1], clean_split), (tables, paths, split)]
            out[stem] = calibration(parts, parser, rules)
    return out


def score(
    files: Sequence[str | Path], *, parser: str = "vlmevalkit", **rules: str
) -> dict[str, Any]:
    """Every model's ``vlmevalkit`` block and, with :data:`MIN_TRIALS` trials or more, its
    calibration."""
    models, read, stems = {}, [], {}
    by_stem, skipped = model_files(files)
    for stem, paths in by_stem.items():
        tables = [read_predictions(p) for p in paths]
        stems[stem] = (tables, paths)
        read += [str(p) for p in paths]
        entry: dict[str, Any] = {
            "files": [str(p) for p in paths],
            "vlmevalkit": evaluate(tables[0]),
        }
        if len(paths) > 1:
            entry["vlmevalkit_trials"] = [
                {"file": str(p), **evaluate(t)} for p, t in zip(paths, tables)
            ]
        if len(paths) >= MIN_TRIALS:
            split = STEM.match(stem).group("split")
            entry["calibration"] = calibration([(tables, paths, split)], parser, rules)
        else:
            entry["calibration"] = None
            entry["calibration_note"] = (
                f"{len(paths)} trial(s): perceived confidence needs {MIN_TRIALS} or more "
                "(the same file name in several folders)"
            )
        models[stem] = entry
    for stem, scores in _with_clean(stems, parser, rules).items():
        models[stem]["calibration_with_clean"] = scores
    n = sum(m["vlmevalkit"]["Total"] * len(m["files"]) for m in models.values())
    return finite(
        {
            "suite": "medqdeg",
            "source": "vlmevalkit",
            "files": read,
            "skipped_files": skipped,
            "n_records": n,
            "options": {"parser": parser, **rules},
            "models": models,
        }
    )


def calibrated(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result of the calibrated models only, in :func:`score_records`'s shape (the MedQ-Deg tables
    read it): each stem's ``calibration``, and ``<stem> + clean`` for its
    ``calibration_with_clean``."""
    models = result["models"]
    out = {n: m["calibration"] for n, m in models.items() if m.get("calibration")}
    out |= {
        f"{n} + clean": m["calibration_with_clean"]
        for n, m in models.items()
        if m.get("calibration_with_clean")
    }
    return {"models": out, "inter_model_dke": {}}


def evaluate_tables(result: Mapping[str, Any]) -> list:
    """Per model, VLMEvalKit's keys and values (fractions as %, ``Total`` in rows)."""
    from medvigil.report.render import Table, pct

    tables = []
    for name, m in result["models"].items():
        rows = [[k, pct(v) if isinstance(v, float) else str(v)] for k, v in m["vlmevalkit"].items()]
        note = f"{len(m['files'])} trial(s); first file {m['files'][0]}"
        title = f"{name}: VLMEvalKit evaluate"
        tables.append(Table(title, ["key", "value (%; Total: rows)"], rows, note))
    return tables


def tables(result: Mapping[str, Any]) -> list:
    """The report's tables: VLMEvalKit's keys, then the MedQ-Deg tables of the calibrated models."""
    from medvigil.suites.medqdeg.tables import medqdeg_tables

    scores = calibrated(result)
    return evaluate_tables(result) + (medqdeg_tables(scores) if scores["models"] else [])


def table_text(result: Mapping[str, Any]) -> str:
    """What ``medvigil score --vlmevalkit`` prints: per model VLMEvalKit's keys, then the
    calibration."""
    from medvigil.records.suite_logs import inputs_line
    from medvigil.suites.medqdeg.tables import severity_table

    head = inputs_line(result) + f" (VLMEvalKit predictions of {len(result['models'])} model(s))"
    scores = calibrated(result)["models"]
    lines = [head] + [t.markdown() for t in evaluate_tables(result)]
    if scores:
        lines.append(severity_table(scores).markdown())
    return "\n\n".join(lines)
