"""Labelled or unlabelled open-ended answers read and checked: the one reader of ``medvigil judge``
and of the judge's validation sets (:mod:`.judge_correction`). Shapes: a JSON object with a list
``samples`` (the authors' ``llm_judge_calibration.json``) or JSON Lines, one sample a line;
``question`` and ``answer`` are required strings, labels are true/false/null, every other key is
kept (see ``medvigil judge --help``).
"""

import json

from medvigil.errors import DataError, Problem

AXES = ("refusal", "critical")
# the label fields a file may carry, per axis
FILE_LABELS = ("_rule_is_{}", "_llm_is_{}", "label_is_{}")
# a stated bound: every sample, its verdict and the JSON report are held in memory (~5 KB a sample)
MAX_SAMPLES = 100_000


def _expected(value) -> list[str] | None:
    """``expected_answer_or_set`` as a list of strings (a JSON list in a string too; [] when
    absent); None when malformed."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return [value]
        value = parsed if isinstance(parsed, list) else [value]
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _bounded(path: str, count: int) -> None:
    """Refuse, before parsing, a file of more than :data:`MAX_SAMPLES` samples."""
    if count > MAX_SAMPLES:
        raise DataError(
            Problem(
                path,
                f"holds about {count:,} samples, more than the {MAX_SAMPLES:,} one run of judge "
                "handles in memory; split the file and judge each part",
            )
        )


def read_answers(path: str) -> list[dict]:
    """The samples of ANSWERS, checked; every problem names the sample and field."""
    from medvigil.files.input_files import loads_json, read_text

    if str(path).endswith(".jsonl"):
        lines = read_text(path, str(path)).splitlines()
        _bounded(path, sum(1 for line in lines if line.strip()))
        data = {
            "samples": [
                loads_json(line, str(path), row=i)
                for i, line in enumerate(lines, 1)
                if line.strip()
            ]
        }
    else:
        text = read_text(path, str(path))  # regular file, bounded, strict UTF-8
        _bounded(path, text.count('"answer"'))  # an upper bound on the samples, before parsing
        data = loads_json(text, str(path))  # errors name file and line
        del text
    samples = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(samples, list):
        raise DataError(
            Problem(path, "expected a JSON object with a list 'samples'", field="samples")
        )
    _bounded(path, len(samples))
    problems, out = [], []
    for i, s in enumerate(samples, 1):
        found = _sample_problems(path, i, s)
        problems += found
        if not found:
            out.append({**s, "_expected": _expected(s.get("expected_answer_or_set"))})
    if problems:
        raise DataError(problems)
    return out


STRING_FIELDS = (
    "probe_kind",
    "expected_behavior",
    "degradation",
    "_model",
    "model",
    "halluc_explanation",
    "class",
    "style",
    "split",
)


def _sample_problems(path: str, i: int, s) -> list[Problem]:
    """What is wrong with sample ``i`` (its fields, labels and gold set); [] when nothing."""
    if not isinstance(s, dict):
        return [Problem(path, "sample is not a JSON object", row=i)]
    problems = [
        Problem(path, "missing or not a string", row=i, field=key)
        for key in ("question", "answer")
        if not isinstance(s.get(key), str)
    ]
    for key in (pattern.format(axis) for axis in AXES for pattern in FILE_LABELS):
        if key in s and s[key] is not None and not isinstance(s[key], bool):
            problems.append(Problem(path, "label must be true, false or null", row=i, field=key))
    problems += [
        Problem(path, "not a string", row=i, field=key)
        for key in STRING_FIELDS
        if key in s and not isinstance(s[key], str)
    ]
    if "text_only_answerable" in s and not isinstance(s["text_only_answerable"], bool):
        problems.append(Problem(path, "must be true or false", row=i, field="text_only_answerable"))
    if _expected(s.get("expected_answer_or_set")) is None:
        problems.append(
            Problem(
                path, "must be a list of strings or a string", row=i, field="expected_answer_or_set"
            )
        )
    return problems
