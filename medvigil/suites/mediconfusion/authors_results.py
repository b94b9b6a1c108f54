"""Read the MediConfusion authors' result files (``MShahabSepehri/MediConfusion``) into probe
records.

``Results/<model>_<mode>.json`` (a *run*): ``{pair_id: {"answer": {"im1": {"A": votes, "B": votes,
"full_answer": text}, "im2": {...}}, "score": {block: {category: n, ..., "total": n}}}}``, ``mode``
``mc``, ``greedy``, ``prefix`` or ``gpt4`` (paper: MC, GD, PS, FF); ``..._scores.json``: the run's
totals, ``{block: {category: n}}``. Each image becomes one ``probe_record`` (``probe_id``
``"<pair>:im1"``) whose letter comes from the vote counts by the authors' rule; ``full_answer`` is
never re-parsed, so the official totals are reproduced. Release pairs absent from a run are listed
in :attr:`MediConfusionRun.missing_pairs` (partial runs are scored on the pairs present).
"""

from pathlib import Path
from typing import Any

import numpy as np

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import read_json
from medvigil.records.record_checks import is_number
from medvigil.records.schema_validation import check_records
from medvigil.scoring.letters import decode_letters
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN, OPTION_LETTERS, vote_answers
from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS
from medvigil.suites.mediconfusion.release import IMAGE_KEYS, Release
from medvigil.suites.mediconfusion.run import MediConfusionRun, category_names

__all__ = ["parse_run_name", "read_results", "read_score_file"]

SOURCE_DATASET = "ROCO"  # the images of every pair come from ROCO (paper Sec. 2)
PROBE_KIND = "confusing_pair"
PAIR_FIELDS = ("answer", "score")  # the fields of one pair in a result file


def _load_json_object(path: str | Path) -> tuple[str, dict]:
    name = str(path)
    duplicates: list[str] = []

    def no_duplicates(items: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in items:
            if key in out:
                duplicates.append(key)
            out[key] = value
        return out

    data = read_json(
        path, name, object_pairs_hook=no_duplicates
    )  # regular file, bounded, UTF-8; FileNotFoundError propagates
    if duplicates:  # json.loads would silently keep the last of two equal keys
        raise DataError(
            [
                Problem(name, f"duplicate key {key!r}", None, key)
                for key in dict.fromkeys(duplicates)
            ]
        )
    if not isinstance(data, dict):
        raise DataError(
            Problem(name, f"expected a JSON object keyed by pair id, got {type(data).__name__}")
        )
    if not data:
        raise DataError(Problem(name, "file holds no pairs"))
    return name, data


def parse_run_name(path: str | Path) -> tuple[str, str]:
    """``(model, mode)`` from an authors' file name: ``gpt_mc.json`` -> ``("gpt", "mc")``,
    ``llava_med_greedy.json`` -> ``("llava_med", "greedy")``; the fixture form
    ``Results__claude__claude_mc.json`` uses the part after the last ``__``; without a known mode
    suffix ``(stem, "default")``."""
    stem = Path(path).name.removesuffix(".json").rsplit("__", 1)[-1]
    for mode in MODE_LABELS:
        if stem.endswith("_" + mode) and len(stem) > len(mode) + 1:
            return stem[: -len(mode) - 1], mode
    return stem, "default"


def _check_score_blocks(
    value: Any, name: str, row: int | None, where: str, problems: list[Problem]
) -> None:
    """The problems of an authors' score object, ``{block: {category: n}}``."""
    if not isinstance(value, dict):
        problems.append(
            Problem(
                name,
                f"{where} must be an object of score blocks, got {type(value).__name__}",
                row,
                where,
            )
        )
        return
    for block, counts in value.items():
        if not isinstance(counts, dict):
            problems.append(
                Problem(
                    name, f"block {block!r} must map categories to counts", row, f"{where}.{block}"
                )
            )
            continue
        for cat, n in counts.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                problems.append(
                    Problem(
                        name,
                        f"count must be an integer >= 0, got {n!r}",
                        row,
                        f"{where}.{block}.{cat}",
                    )
                )


def read_score_file(path: str | Path) -> dict[str, dict[str, int]]:
    """Read an authors' ``*_scores.json`` (``{block: {category: n, ..., "total": n}}``)."""
    name, data = _load_json_object(path)
    problems: list[Problem] = []
    _check_score_blocks(data, name, None, "score", problems)
    if problems:
        raise DataError(problems)
    return data


def _check_answer(
    name: str, row: int, where: str, answer: dict[str, Any], problems: list[Problem]
) -> None:
    """The problems of one image's answer object: a vote count >= 0 per option, a string or null
    ``full_answer``."""
    for letter in OPTION_LETTERS:
        value = answer.get(letter)
        if letter not in answer:
            message = f"missing vote count {letter!r}"
        elif not is_number(value):
            message = f"vote count must be a finite number, got {value!r}"
        elif value < 0:  # a negative count would flip the margin rule's answer
            message = f"vote count must be >= 0, got {value!r}"
        else:
            continue
        problems.append(Problem(name, message, row, f"{where}.{letter}"))
    text = answer.get("full_answer")
    if text is not None and not isinstance(text, str):
        problems.append(
            Problem(
                name,
                f"full_answer must be a string or null, got {type(text).__name__}",
                row,
                f"{where}.full_answer",
            )
        )


def _pair_answers(
    name: str, row: int, pid: str, entry: Any, release: Release, problems: list[Problem]
) -> list[tuple[str, str, dict]] | None:
    """``(pair id, image, answer object)`` of each image answered in one pair of a result file, its
    problems added to ``problems``; None when the pair cannot be read (not in ``release``, not an
    object, no ``answer`` object)."""
    if pid not in release.pairs:
        problems.append(
            Problem(name, f"pair {pid!r} is not in the release {release.path}", row, pid)
        )
        return None
    if not isinstance(entry, dict):
        problems.append(
            Problem(name, f"pair {pid!r} must be an object, got {type(entry).__name__}", row, pid)
        )
        return None
    for key in entry:
        if key not in PAIR_FIELDS:
            problems.append(
                Problem(
                    name,
                    f"unknown field {key!r} (expected {', '.join(PAIR_FIELDS)})",
                    row,
                    f"{pid}.{key}",
                )
            )
    answer = entry.get("answer")
    if not isinstance(answer, dict):
        problems.append(Problem(name, f"pair {pid!r} has no 'answer' object", row, f"{pid}.answer"))
        return None
    answers = []
    for image in IMAGE_KEYS:
        ans = answer.get(image)
        where = f"{pid}.answer.{image}"
        if not isinstance(ans, dict):
            problems.append(
                Problem(name, f"pair {pid!r} has no {image!r} answer object", row, where)
            )
            continue
        _check_answer(name, row, where, ans, problems)
        answers.append((pid, image, ans))
    return answers


def _probe_records(
    answers: list[tuple[str, str, dict]], release: Release, model: str, mode: str, margin: float
) -> list[dict]:
    """One ``probe_record`` per image answer, its letter from the vote counts by the authors' rule
    (``full_answer`` is kept as the raw response, never parsed)."""
    votes = [[float(ans[letter]) for letter in OPTION_LETTERS] for _, _, ans in answers]
    letters = decode_letters(
        vote_answers(np.asarray(votes, dtype=np.float64).reshape(-1, 2), margin=margin)
    )
    records = []
    for (pid, image, ans), letter in zip(answers, letters):
        info = release.pairs[pid]
        cats = list(info.categories(image))
        text = ans.get("full_answer")
        status = "ok" if letter is not None else "error" if text is None else "parse_failure"
        extra = {
            "image": image,
            "votes": {x: ans[x] for x in OPTION_LETTERS},
            "margin": margin,
            "categories": cats,
            "mode_label": MODE_LABELS.get(mode),
        }
        for key, value in ans.items():  # keep other fields of the authors' answer (e.g. gpt_reason)
            if key not in (*OPTION_LETTERS, "full_answer"):
                extra[f"answer_{key}"] = value
        records.append(
            {
                "suite": "mediconfusion",
                "model": model,
                "condition": mode,
                "probe_id": f"{pid}:{image}",
                "case_id": pid,
                "probe_kind": PROBE_KIND,
                "risk_tier": None,
                "source_dataset": SOURCE_DATASET,
                "modality": None,
                "text_only_answerable": False,
                "category": "; ".join(cats) if cats else None,
                "correct_letter": info.correct(image),
                "predicted_letter": letter,
                "parse_status": status,
                "raw_response": text,
                "extra": extra,
            }
        )
    return records


def read_results(
    path: str | Path,
    release: Release,
    *,
    model: str | None = None,
    mode: str | None = None,
    margin: float = DEFAULT_MARGIN,
    validate: bool = True,
) -> MediConfusionRun:
    """Read one authors' per-sample result file into probe records. Every pair of the file must be
    in ``release``; ``model``/``mode`` override :func:`parse_run_name`; ``validate`` checks the
    records against ``probe_record.schema.json``.
    """
    parsed_model, parsed_mode = parse_run_name(path)
    model, mode = model or parsed_model, mode or parsed_mode
    name, data = _load_json_object(path)
    problems: list[Problem] = []
    kept: list[tuple[str, str, dict]] = []  # (pair id, image, answer dict)
    official: dict[str, dict] = {}
    for row, (pid, entry) in enumerate(data.items(), start=1):
        pid = str(pid)
        answers = _pair_answers(name, row, pid, entry, release, problems)
        if answers is None:
            continue
        kept += answers
        if "score" in entry:
            _check_score_blocks(entry["score"], name, row, f"{pid}.score", problems)
            official[pid] = entry["score"]
    if problems:  # kept and official are used only when the whole file is valid
        raise DataError(problems)
    records = _probe_records(kept, release, model, mode, margin)
    if validate:
        check_records("probe_record", records, file=name)
    present = {pid for pid, _, _ in kept}
    return MediConfusionRun(
        path=name,
        model=model,
        mode=mode,
        margin=margin,
        records=tuple(records),
        pair_ids=tuple(dict.fromkeys(pid for pid, _, _ in kept)),
        missing_pairs=tuple(pid for pid in release.pairs if pid not in present),
        category_names=category_names(release),
        official_pair_scores=official,
        files=(name,),
    )
