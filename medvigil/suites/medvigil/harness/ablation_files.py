"""The authors' ablation and open-ended result files by name, and their lines as JSON objects.

Which file is which follows their writers' names (:func:`ablation_kind`); the rows are read by
:func:`medvigil.suites.medvigil.harness.harness_ablations.read_ablation_files`.
"""

import re
from collections.abc import Iterable
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.input_files import loads_json, no_repeated_keys, non_finite_field, read_text
from medvigil.suites.medvigil.harness.harness_rows import NON_FINITE, HarnessRecords, bump

__all__ = [
    "ABLATION_PATTERNS",
    "TOKEN_RAW",
    "ablation_kind",
    "decode_rows",
    "expand_ablation_paths",
]

_BLUR = re.compile(r"^(?P<model>.+)__sigma(?P<sigma>\d+(?:\.\d+)?|inf)\.jsonl$")
_SUFFIXES = {  # file-name suffix -> (kind, condition)
    "__mcq_noimg.jsonl": ("noimg", "noimg"),
    "__open_noimg.jsonl": ("open", "open_noimg"),
    "__open.jsonl": ("open", "open"),
    "__judged.jsonl": ("judged", "open"),
}
TOKEN_RAW = "_visual_token_raw.jsonl"
ABLATION_PATTERNS = (
    "*__mcq_noimg.jsonl",
    "*__sigma*.jsonl",
    "*__open.jsonl",
    "*__open_noimg.jsonl",
    "*__judged.jsonl",
    TOKEN_RAW,
)


def ablation_kind(path: str | Path) -> tuple[str, str | None, str | None] | None:
    """``(kind, model, condition)`` of an ablation file name, None for other names.

    >>> ablation_kind("results/blur_sweep/gpt-4o__sigma8.jsonl")
    ('blur', 'gpt-4o', 'blur:8')
    >>> ablation_kind("Qwen--Qwen3.5-397B-A17B__sigmainf.jsonl")[2], ablation_kind("x__mcq.jsonl")
    ('noimg', None)
    """
    name = Path(path).name
    if name == TOKEN_RAW:
        return "token_raw", None, None
    blur = _BLUR.match(name)
    if blur:
        sigma = blur["sigma"]
        return "blur", blur["model"], "noimg" if sigma == "inf" else f"blur:{float(sigma):g}"
    for suffix, (kind, condition) in _SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            model = name[: -len(suffix)]
            if kind == "judged" and model.endswith("__open"):
                model = model[: -len("__open")]
            return kind, model, condition
    return None


def expand_ablation_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Split inputs into ablation files (folders searched for them) and everything else."""
    ablation: list[Path] = []
    other: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(
                {
                    f
                    for pattern in ABLATION_PATTERNS
                    for f in p.glob(pattern)
                    if f.is_file() and ablation_kind(f) is not None
                }
            )  # e.g. not x__sigma_scratch.jsonl
            ablation += found
            if not found or any(p.glob("*__mcq.jsonl")):
                other.append(p)
        elif ablation_kind(p) is not None:
            ablation.append(p)
        else:
            other.append(p)
    return ablation, other


def decode_rows(
    path: Path, out: HarnessRecords, model_for_blank: str
) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """``(line, object)`` of every non-blank line of ``path`` and the problems of the others; blank
    lines are counted in ``out.skipped`` under ``model_for_blank``."""
    file, rows, problems = str(path), [], []
    try:
        text = read_text(path, file)  # a regular file, bounded, strict UTF-8
    except DataError as exc:
        return [], list(exc.problems)
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line
    for line, raw in enumerate(lines, start=1):
        if not raw.strip():
            bump(out.skipped, model_for_blank, "blank_line")
            continue
        try:  # a key twice is refused, as by every reader; a NaN is refused naming its field
            row = loads_json(
                raw, file, row=line, allow_non_finite=True, object_pairs_hook=no_repeated_keys
            )
        except DataError as exc:
            problems += exc.problems
            continue
        field = non_finite_field(row)
        if field is not None:
            problems.append(Problem(file, NON_FINITE, row=line, field=field))
            continue
        if not isinstance(row, dict):
            problems.append(
                Problem(file, f"must be a JSON object, got {type(row).__name__}", row=line)
            )
            continue
        rows.append((line, row))
    return rows, problems
