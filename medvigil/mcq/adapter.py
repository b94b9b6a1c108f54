"""One adapter from any multiple-choice image dataset to the rows the stress-test packs read.

The MedQ-Deg, Readiness and Consistent-but-Dangerous task packs read MedVIGIL's built ``mcq``
config (``MEDVIGIL_DATA``). Point ``MEDVIGIL_MCQ_ADAPTER`` at a JSON *column mapping* and they
read any Hugging Face dataset with an image, a question and K >= 2 options instead
(:func:`load_mcq`). The mapping::

    {
      "data": "path/or/hub-id",          # a save_to_disk folder, or anything datasets.load_dataset
      takes "split": "test", "name": "VQA-RAD",                 # source_dataset of every row
      (default: the data's folder name) "columns": {
        "image": "img",                  # an image column (PIL / datasets.Image) "question":
        "prompt", "options": "choices",            # one list column, or a list of columns ["opt_a",
        "opt_b", ...] "answer": "label",               # the gold: a letter, a 0-based index, or the
        option text "id": "qid",                     # optional; default the row number "case":
        "patient",               # optional; default the id (one item per case) "modality":
        "modality",          # optional (MedQ-Deg picks degradations by modality) "capability":
        "task",            # optional (MedQ-Deg Table 2) "finding": "finding",            # optional
        (CbD per-finding split) "text_only_answerable": "text_ok",   # optional; default false:
        every item needs the image "safe_option": "abstain_letter", # optional: an option never
        replaced (Readiness) or proposed (CbD) "kind": "row_kind"               # optional:
        "original" (default) or "paraphrase" (a paraphrase of its
                                         # case's original, for CbD's CBD_PARAPHRASES=supplied;
                                         other packs skip it)
      },
      "defaults": {"modality": "X-ray"}  # optional constant values for absent columns
    }

Every row becomes one probe (``original``, or ``paraphrase`` by the ``kind`` column): ``probe_id``,
``case_id``, ``question``, ``options`` (K texts), ``correct_letter`` (A..), ``image`` and
``image_file`` (the id: seeds and caches key on it), ``image_status``, ``modality``,
``source_dataset``, ``capability``, ``finding``, ``text_only_answerable``, ``laterality_dependent``
(false: no mirrored probe exists, so T5 is not asked), ``safe_letter``, ``risk_tier`` (null). A bad
mapping or row is a ``ValueError`` naming the mapping file, the row and the field. Inside lmms-eval
it stops the run once, with exit status 1 and the problem as its last line (:func:`load_mcq`;
lmms-eval would retry it and exit 0): when the plugin loads (:func:`check_adapter`, for
``LMMS_EVAL_PLUGINS=medvigil``), else when a task loads its rows.
"""

import os
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from medvigil.data_location import DataLocationExit, DataNotFoundError, load_config
from medvigil.files.input_files import read_json

ADAPTER_ENV = "MEDVIGIL_MCQ_ADAPTER"
REQUIRED = ("image", "question", "options", "answer")
OPTIONAL = (
    "id",
    "case",
    "modality",
    "capability",
    "finding",
    "text_only_answerable",
    "safe_option",
    "kind",
)
KINDS = ("original", "paraphrase")  # probe_kind values a row may take
LETTERS = string.ascii_uppercase


def read_mapping(path: str | os.PathLike) -> dict[str, Any]:
    """The column mapping in ``path``, checked (unknown or missing keys are errors)."""
    where = str(path)

    try:
        spec = read_json(
            path, where
        )  # a regular file, bounded, strict JSON (DataError names the line)
    except OSError as exc:
        raise ValueError(f"{where}: not a readable JSON column mapping ({exc})") from None
    if (
        not isinstance(spec, dict)
        or not isinstance(spec.get("columns"), dict)
        or not spec.get("data")
    ):
        raise ValueError(f"{where}: needs 'data' and a 'columns' object")
    columns = spec["columns"]
    unknown = set(columns) - set(REQUIRED) - set(OPTIONAL)
    missing = [c for c in REQUIRED if not columns.get(c)]
    if unknown or missing:
        raise ValueError(
            f"{where}: field 'columns': "
            + "; ".join(
                ([f"unknown {sorted(unknown)}"] if unknown else [])
                + ([f"missing {missing}"] if missing else [])
            )
        )
    if not isinstance(spec.get("defaults", {}), dict):
        raise ValueError(f"{where}: field 'defaults' must be an object")
    base = Path(path).resolve().parent
    data = Path(spec["data"])
    if not data.is_absolute() and (base / data).exists():
        spec["data"] = str(base / data)
    spec["_where"] = where
    return spec


def _load_source(spec: Mapping[str, Any]):
    import datasets

    data, split = spec["data"], spec.get("split", "test")
    folder = Path(data)
    if folder.is_dir() and (
        (folder / "state.json").exists() or (folder / "dataset_dict.json").exists()
    ):
        loaded = datasets.load_from_disk(str(folder))
        if isinstance(loaded, datasets.DatasetDict):
            if split not in loaded:
                raise ValueError(
                    f"{spec['_where']}: field 'split': {split!r} is not one of {sorted(loaded)}"
                )
            loaded = loaded[split]
        return loaded
    return datasets.load_dataset(data, split=split)


def _letter(answer: Any, options: list[str], where: str) -> str:
    k = len(options)
    if isinstance(answer, bool):
        raise ValueError(f"{where}: field 'answer' is a bool, not a letter, index or option text")
    if isinstance(answer, int) and 0 <= answer < k:
        return LETTERS[answer]
    if isinstance(answer, str):
        text = answer.strip()
        if len(text) == 1 and text.upper() in LETTERS[:k]:
            return text.upper()
        matches = [i for i, o in enumerate(options) if o.strip().lower() == text.lower()]
        if len(matches) == 1:
            return LETTERS[matches[0]]
    raise ValueError(
        f"{where}: field 'answer' {answer!r} is neither a letter A-{LETTERS[k - 1]}, "
        f"an index 0-{k - 1}, nor exactly one option's text"
    )


def _checked_source(spec: Mapping[str, Any]):
    """``(dataset, option columns)`` of a mapping whose columns are all in its dataset."""
    source = _load_source(spec)
    cols = spec["columns"]
    option_cols = cols["options"] if isinstance(cols["options"], list) else [cols["options"]]
    named = [cols[c] for c in (*REQUIRED, *OPTIONAL) if c in cols and c != "options"] + option_cols
    absent = [c for c in named if c not in source.column_names]
    if absent:
        raise ValueError(
            f"{spec['_where']}: field 'columns' names {absent}, not in the dataset "
            f"(columns: {source.column_names})"
        )
    return source, option_cols


def _features():
    """The columns of the adapted rows: what the stress packs read (module docstring)."""
    import datasets

    text, flag = datasets.Value("string"), datasets.Value("bool")
    return datasets.Features(
        {
            "probe_id": text,
            "case_id": text,
            "probe_kind": text,
            "question": text,
            "options": datasets.List(text),
            "correct_letter": text,
            "image": datasets.Image(),
            "image_file": text,
            "image_status": text,
            "modality": text,
            "source_dataset": text,
            "capability": text,
            "finding": text,
            "text_only_answerable": flag,
            "laterality_dependent": flag,
            "safe_letter": text,
            "risk_tier": text,
        }
    )


def _options(row: Mapping[str, Any], option_cols: list[str], here: str) -> list[str]:
    """A row's non-empty option texts (2 to 26 of them, none repeated)."""
    options = list(row[option_cols[0]]) if len(option_cols) == 1 else [row[c] for c in option_cols]
    options = [str(o) for o in options if o is not None and str(o).strip() != ""]
    if not 2 <= len(options) <= len(LETTERS):
        raise ValueError(
            f"{here}: field 'options' has {len(options)} non-empty options (need 2 to 26)"
        )
    if len({o.strip().lower() for o in options}) != len(options):
        raise ValueError(f"{here}: field 'options' repeats an option text: {options!r}")
    return options


def _stress_row(
    row: Mapping[str, Any], i: int, spec: Mapping[str, Any], option_cols: list[str], name: str
) -> dict[str, Any]:
    """Source row ``i`` as one stress-pack row (ValueError naming the mapping, row and field)."""
    cols, defaults = spec["columns"], spec.get("defaults", {})
    here = f"{spec['_where']}: row {i}"

    def value(key: str) -> Any:
        return row[cols[key]] if key in cols else defaults.get(key)

    def text(key: str, default: str | None = None) -> str | None:
        v = value(key)
        return default if v is None else str(v)

    options = _options(row, option_cols, here)
    question = value("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"{here}: field 'question' is empty")
    probe = text("id", str(i))
    safe = value("safe_option")
    text_ok = value("text_only_answerable")
    kind = text("kind", "original")
    if kind not in KINDS:
        raise ValueError(f"{here}: field 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    return {
        "probe_id": probe,
        "case_id": text("case", probe),
        "probe_kind": kind,
        "question": question,
        "options": options,
        "correct_letter": _letter(value("answer"), options, here),
        "image": value("image"),
        "image_file": f"{name}/{probe}",
        "image_status": "embedded" if value("image") is not None else "no_image",
        "modality": text("modality"),
        "source_dataset": name,
        "capability": text("capability"),
        "finding": text("finding"),
        "text_only_answerable": bool(text_ok) if text_ok is not None else False,
        "laterality_dependent": False,
        "safe_letter": None if safe is None else _letter(safe, options, here),
        "risk_tier": None,
    }


def adapt(spec: Mapping[str, Any]):
    """The mapped dataset as stress-pack rows (a ``datasets.Dataset`` with an Image column)."""
    source, option_cols = _checked_source(spec)
    name = spec.get("name") or Path(str(spec["data"])).name
    rows = source.map(
        _stress_row,
        with_indices=True,
        fn_kwargs={"spec": spec, "option_cols": option_cols, "name": name},
        remove_columns=source.column_names,
        features=_features(),
        desc=f"adapting {name} to multiple-choice rows",
    )
    ids = rows["probe_id"]
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise ValueError(f"{spec['_where']}: field 'columns.id': id {dup!r} occurs more than once")
    return rows


def load_mcq(env: Mapping[str, str] | None = None):
    """The rows the stress packs ask: the adapted dataset when ``MEDVIGIL_MCQ_ADAPTER`` names a
    mapping, else MedVIGIL's built ``mcq`` config (``MEDVIGIL_DATA``)."""
    path = (os.environ if env is None else env).get(ADAPTER_ENV)
    if not path:
        return load_config("mcq")
    try:
        return adapt(read_mapping(path))
    except (ValueError, OSError) as exc:  # (DataError is a ValueError)
        raise _stop(path, exc) from None


def check_adapter(env: Mapping[str, str] | None = None) -> None:
    """When ``MEDVIGIL_MCQ_ADAPTER`` names a mapping: check it and its dataset's columns now (the
    plugin loading), so that a bad one stops lmms-eval before any task, once, with exit status 1."""
    path = (os.environ if env is None else env).get(ADAPTER_ENV)
    if path:
        try:
            _checked_source(read_mapping(path))
        except (ValueError, OSError) as exc:
            raise _stop(path, exc) from None


def _stop(path: str, exc: Exception) -> DataLocationExit:
    """The exit of an lmms-eval run whose mapping is bad: a SystemExit, which lmms-eval does not
    retry."""
    return DataLocationExit(DataNotFoundError(f"{ADAPTER_ENV}={path}: {exc}"))
