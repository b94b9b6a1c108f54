"""Strict reader of the MediConfusion release: the authors' ``data/dataset.json`` (or
``dataset.csv``).

Layout (``MShahabSepehri/MediConfusion``, 176 pairs, 352 images): a JSON object keyed by pair id,
each value with exactly the fields of :data:`FIELDS` (``BiomedCLIP_sim``/``DINO_sim``: paper Sec. 2,
a pair is confusing when BiomedCLIP >= 0.9 and DINOv2 <= 0.75; ``AI_*``: the LLM's question before
radiologist revision), plus the optional ``synthetic`` of medvigil's samples. The CSV form adds
``id`` and a leading pandas index column; its category cells are Python list literals. Every problem
is collected into one :class:`~medvigil.errors.DataError` (``row``: the pair's 1-based position,
``field``: ``<pair id>.<field>``).

>>> import json, tempfile, pathlib
>>> entry = dict(im_1="train/radiology/images/ROCO_00001.jpg",
...     im_2="train/radiology/images/ROCO_00002.jpg", im_1_local=1, im_2_local=2,
...     cap_1="c1", cap_2="c2", category_1=["Cerebral"], category_2=["Vascular"],
...     BiomedCLIP_sim=0.93, DINO_sim=0.6, question="Which side?", option_A="Left",
...     option_B="Right", im_1_correct="A", im_2_correct="B", AI_question="Which side?",
...     AI_option_A="Left", AI_option_B="Right")
>>> path = pathlib.Path(tempfile.mkdtemp()) / "dataset.json"
>>> _ = path.write_text(json.dumps({"1": entry}))
>>> release = read_release(path)
>>> release.pairs["1"].correct("im2"), release.image_paths()[0]
('B', 'train/radiology/images/ROCO_00001.jpg')
>>> _ = path.write_text(json.dumps({"1": dict(entry, im_2_correct="C")}))
>>> read_release(path)
Traceback (most recent call last):
...
medvigil.errors.DataError: dataset.json, row 1, field '1.im_2_correct': must be 'A' or 'B', got 'C'
"""

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.csvio import read_csv
from medvigil.files.input_files import read_json
from medvigil.files.pathsafe import unsafe_reason
from medvigil.records.record_checks import is_number
from medvigil.suites.mediconfusion.answers import OPTION_LETTERS
from medvigil.suites.mediconfusion.categories import CATEGORIES

__all__ = [
    "FIELDS",
    "IMAGE_EXTENSIONS",
    "IMAGE_KEYS",
    "OPTIONAL_FIELDS",
    "Pair",
    "Release",
    "authors_image_name",
    "dataset_json_text",
    "read_release",
]

#: The fields of every pair, in the authors' order.
FIELDS = (
    "im_1",
    "im_2",
    "im_1_local",
    "im_2_local",
    "cap_1",
    "cap_2",
    "category_1",
    "category_2",
    "BiomedCLIP_sim",
    "DINO_sim",
    "question",
    "option_A",
    "option_B",
    "im_1_correct",
    "im_2_correct",
    "AI_question",
    "AI_option_A",
    "AI_option_B",
)
#: medvigil's own optional field: ``true`` on every pair of a synthetic release.
OPTIONAL_FIELDS = ("synthetic",)
#: The two images of a pair, as named in probe ids (``"10001:im1"``) and result files.
IMAGE_KEYS = ("im1", "im2")
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")
_PAIR_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_PATH_FIELDS = ("im_1", "im_2")
_LOCAL_FIELDS = ("im_1_local", "im_2_local")
_CATEGORY_FIELDS = ("category_1", "category_2")
_SIM_FIELDS = ("BiomedCLIP_sim", "DINO_sim")
_LETTER_FIELDS = ("im_1_correct", "im_2_correct")
_NONEMPTY_TEXT = ("question", "option_A", "option_B")
_TEXT_FIELDS = ("cap_1", "cap_2", "AI_question", "AI_option_A", "AI_option_B")
# (fields, test of a present value, problem) checked after the image ids and categories
_VALUE_CHECKS = (
    (
        _SIM_FIELDS,
        lambda v: is_number(v) and -1.0 <= v <= 1.0,
        "must be a finite number in [-1, 1] (a cosine similarity), got {value!r}",
    ),
    (_LETTER_FIELDS, lambda v: v in OPTION_LETTERS, "must be 'A' or 'B', got {value!r}"),
    (
        _NONEMPTY_TEXT,
        lambda v: isinstance(v, str) and v.strip(),
        "must be a non-empty string, got {value!r}",
    ),
    (_TEXT_FIELDS, lambda v: isinstance(v, str), "must be a string, got {type}"),
)


@dataclass(frozen=True)
class Pair:
    """One confusing pair of the release; field names are the authors'."""

    pair_id: str
    row: int  # 1-based position in the file
    im_1: str
    im_2: str
    im_1_local: int
    im_2_local: int
    cap_1: str
    cap_2: str
    category_1: tuple[str, ...]
    category_2: tuple[str, ...]
    BiomedCLIP_sim: float
    DINO_sim: float
    question: str
    option_A: str
    option_B: str
    im_1_correct: str
    im_2_correct: str
    AI_question: str
    AI_option_A: str
    AI_option_B: str
    synthetic: bool = False

    def _index(self, image_key: str) -> int:
        if image_key not in IMAGE_KEYS:
            raise ValueError(f"image_key must be one of {IMAGE_KEYS}, got {image_key!r}")
        return IMAGE_KEYS.index(image_key)

    def image_path(self, image_key: str) -> str:
        """ROCO-relative path of image ``im1`` or ``im2``."""
        return (self.im_1, self.im_2)[self._index(image_key)]

    def image_local(self, image_key: str) -> int:
        return (self.im_1_local, self.im_2_local)[self._index(image_key)]

    def caption(self, image_key: str) -> str:
        return (self.cap_1, self.cap_2)[self._index(image_key)]

    def correct(self, image_key: str) -> str:
        """The correct letter for image ``im1`` or ``im2``."""
        return (self.im_1_correct, self.im_2_correct)[self._index(image_key)]

    def categories(self, image_key: str) -> tuple[str, ...]:
        return (self.category_1, self.category_2)[self._index(image_key)]

    @property
    def options(self) -> tuple[str, str]:
        return (self.option_A, self.option_B)

    def to_json(self) -> dict[str, Any]:
        """The pair as written in ``dataset.json`` (authors' field order; ``synthetic`` only when
        true)."""
        out: dict[str, Any] = {}
        for name in FIELDS:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        if self.synthetic:
            out["synthetic"] = True
        return out


@dataclass(frozen=True)
class Release:
    """A read and validated release: pairs in file order."""

    path: str
    pairs: Mapping[str, Pair]

    @property
    def synthetic(self) -> bool:
        """True when every pair carries ``synthetic: true`` (a medvigil sample, not the real
        data)."""
        return bool(self.pairs) and all(p.synthetic for p in self.pairs.values())

    def local_names(self) -> dict[str, str]:
        """ROCO path -> the authors' local file name (:func:`authors_image_name`), every image."""
        return {
            p.image_path(k): authors_image_name(p.image_local(k))
            for p in self.pairs.values()
            for k in IMAGE_KEYS
        }

    def image_paths(self) -> list[str]:
        """Every distinct ROCO image path, in order of first appearance."""
        return list(dict.fromkeys(path for p in self.pairs.values() for path in (p.im_1, p.im_2)))

    def images(self) -> Iterable[tuple[Pair, str]]:
        """``(pair, image_key)`` for every image of every pair, in file order."""
        return ((pair, key) for pair in self.pairs.values() for key in IMAGE_KEYS)


def authors_image_name(local: int) -> str:
    """The file name the authors' download script gives an image: ``<im_local>.jpg``."""
    return f"{local}.jpg"


def _image_path_problem(value: Any) -> str | None:
    """Why an image path of a pair is unusable (it could leave the ROCO root, or names no image
    file), or None."""
    reason = unsafe_reason(value)
    if reason is not None:
        return f"unsafe image path: {reason}"
    if not value.lower().endswith(IMAGE_EXTENSIONS):
        return f"image path {value!r} does not end in {', '.join(IMAGE_EXTENSIONS)}"
    if PurePosixPath(value).name != value.rsplit("/", 1)[-1] or value.endswith("/"):
        return f"image path {value!r} must name a file"
    return None


def _category_problems(cats: Any) -> list[str]:
    """The problems of an image's category list: a non-empty list of known categories, none
    twice."""
    if not isinstance(cats, list) or not cats or not all(isinstance(c, str) for c in cats):
        return [f"must be a non-empty list of category names, got {cats!r}"]
    out = []
    unknown = [c for c in cats if c not in CATEGORIES]
    if unknown:
        out.append(
            f"unknown categor{'y' if len(unknown) == 1 else 'ies'} "
            f"{unknown}; known: {', '.join(CATEGORIES)}"
        )
    if len(set(cats)) != len(cats):
        out.append(f"lists a category twice: {cats!r}")
    return out


def _relation_problems(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, problem)`` of a well-typed pair whose fields contradict what makes it a confusing
    pair: two images with different correct answers between two different options."""
    out = []
    if entry["im_1_correct"] == entry["im_2_correct"]:
        out.append(
            (
                "im_2_correct",
                f"both images have correct answer {entry['im_1_correct']!r}; "
                f"a confusing pair needs different answers",
            )
        )
    if entry["option_A"].strip().casefold() == entry["option_B"].strip().casefold():
        out.append(("option_B", f"option_B repeats option_A ({entry['option_A']!r})"))
    if entry["im_1"] == entry["im_2"]:
        out.append(("im_2", f"im_2 is the same image as im_1 ({entry['im_1']!r})"))
    return out


def _check_entry(
    name: str, row: int, pid: str, entry: Mapping[str, Any], problems: list[Problem]
) -> dict | None:
    """Validate one pair's typed values (paths stay inside the ROCO root; relations between fields
    only when every field is well typed); return the clean values or None."""
    start = len(problems)

    def bad(key: str, message: str) -> None:
        problems.append(Problem(name, message, row, f"{pid}.{key}"))

    if not _PAIR_ID.match(pid):
        problems.append(
            Problem(name, f"pair id {pid!r} must be 1-64 letters, digits, '_' or '-'", row, pid)
        )
    if "id" in entry and str(entry["id"]) != pid:
        bad(
            "id",
            f"pair id mismatch: the entry says id {entry['id']!r} but it is stored under {pid!r}",
        )
    for key in FIELDS:
        if key not in entry:
            bad(key, "missing field")
    for key in entry:
        if key not in FIELDS and key not in OPTIONAL_FIELDS and key != "id":
            bad(
                key,
                f"unknown field; expected {', '.join(FIELDS)} (and "
                f"optionally {', '.join(OPTIONAL_FIELDS)})",
            )
    for key in _PATH_FIELDS:
        message = _image_path_problem(entry[key]) if key in entry else None
        if message is not None:
            bad(key, message)
    for key in _LOCAL_FIELDS:
        value = entry.get(key)
        if key in entry and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            bad(key, f"must be an integer >= 0, got {value!r}")
    for key in _CATEGORY_FIELDS:
        for message in _category_problems(entry[key]) if key in entry else []:
            bad(key, message)
    for keys, ok, message in _VALUE_CHECKS:
        for key in keys:
            if key in entry and not ok(entry[key]):
                bad(key, message.format(value=entry[key], type=type(entry[key]).__name__))
    if "synthetic" in entry and not isinstance(entry["synthetic"], bool):
        bad("synthetic", f"must be true or false, got {entry['synthetic']!r}")
    if len(problems) == start:
        for key, message in _relation_problems(entry):
            bad(key, message)
    if len(problems) > start:
        return None
    return {key: entry[key] for key in FIELDS} | {"synthetic": entry.get("synthetic", False)}


def _check_image_ids(name: str, pairs: Mapping[str, Pair], problems: list[Problem]) -> None:
    """One ROCO path <-> one ``im_local`` id across the whole file."""
    id_of: dict[str, tuple[int, str]] = {}
    path_of: dict[int, tuple[str, str]] = {}
    for pair in pairs.values():
        for k, key in enumerate(IMAGE_KEYS, start=1):
            path, local = pair.image_path(key), pair.image_local(key)
            field = f"{pair.pair_id}.im_{k}_local"
            other_id, other_pair = id_of.setdefault(
                path, (local, pair.pair_id)
            )  # the first pair naming it
            if other_id != local:
                problems.append(
                    Problem(
                        name,
                        f"image {path!r} has im_local {local} here "
                        f"but {other_id} in pair {other_pair!r}",
                        pair.row,
                        field,
                    )
                )
            other_path, other_pair = path_of.setdefault(local, (path, pair.pair_id))
            if other_path != path:
                problems.append(
                    Problem(
                        name,
                        f"im_local {local} names {path!r} here but "
                        f"{other_path!r} in pair {other_pair!r}",
                        pair.row,
                        field,
                    )
                )


def _build(
    name: str, entries: list[tuple[int, str, Mapping[str, Any]]], problems: list[Problem]
) -> Release:
    pairs: dict[str, Pair] = {}
    first_row: dict[str, int] = {}
    for row, pid, entry in entries:
        if pid in first_row:
            problems.append(
                Problem(
                    name, f"duplicate pair id {pid!r} (first at row {first_row[pid]})", row, pid
                )
            )
            continue
        first_row[pid] = row
        clean = _check_entry(name, row, pid, entry, problems)
        if clean is None:
            continue
        clean |= {key: tuple(clean[key]) for key in _CATEGORY_FIELDS} | {
            key: float(clean[key]) for key in _SIM_FIELDS
        }
        pairs[pid] = Pair(pair_id=pid, row=row, **clean)
    _check_image_ids(name, pairs, problems)
    if problems:
        raise DataError(problems)
    if not pairs:
        raise DataError(Problem(name, "file holds no pairs"))
    return Release(path=name, pairs=pairs)


class _JsonObject(dict):
    """A JSON object that remembers every (key, value) in file order, duplicates included."""

    ordered: list[tuple[str, Any]]


def _object_hook(items: list[tuple[str, Any]]) -> _JsonObject:
    obj = _JsonObject(items)
    obj.ordered = items
    return obj


def _read_json(path: Path, name: str) -> Release:
    data = read_json(path, name, object_pairs_hook=_object_hook)  # FileNotFoundError propagates
    if not isinstance(data, _JsonObject):
        raise DataError(
            Problem(name, f"expected a JSON object keyed by pair id, got {_json_type(data)}")
        )
    problems: list[Problem] = []
    entries = []
    for row, (pid, value) in enumerate(data.ordered, start=1):
        if not isinstance(value, _JsonObject):
            problems.append(
                Problem(name, f"pair {pid!r} must be an object, got {_json_type(value)}", row, pid)
            )
            continue
        keys = [key for key, _ in value.ordered]
        problems += [
            Problem(name, "field given twice in this pair", row, f"{pid}.{key}")
            for i, key in enumerate(keys)
            if key in keys[:i]
        ]
        entries.append((row, pid, value))
    return _build(name, entries, problems)


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    names = {
        list: "an array",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
        int: "a number",
        float: "a number",
    }
    return names.get(type(value), type(value).__name__)


def _csv_value(key: str, text: str) -> Any:
    """Type one CSV cell; a cell that does not parse is returned as the raw string (reported
    later)."""
    if key in _LOCAL_FIELDS:
        return int(text) if re.fullmatch(r"\d+", text.strip()) else text
    if key in _SIM_FIELDS or key in _CATEGORY_FIELDS:
        try:  # literal_eval: literals only (lists of strings), never code
            return float(text) if key in _SIM_FIELDS else ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    if key == "synthetic":
        return {"true": True, "false": False}.get(text.strip().lower(), text)
    return text


def _read_csv(path: Path, name: str) -> Release:
    table = read_csv(path, name, required=("id", *FIELDS))
    # the authors' CSV starts with pandas' unnamed index column: expected, not a problem
    index_column = table.header[:1] == ("",)
    problems = [
        p
        for p in table.problems
        if not (index_column and p.row is None and "empty column name at position 1" in p.message)
    ]
    entries = []
    for csv_row in table.rows:
        values = {k: _csv_value(k, v) for k, v in csv_row.values.items() if k != ""}
        pid = str(values.get("id", "")).strip()
        entries.append((csv_row.number, pid, values))
    return _build(name, entries, problems)


def read_release(path: str | Path, name: str | None = None) -> Release:
    """Read and validate ``dataset.json`` or ``dataset.csv`` (chosen by suffix).

    ``name``: how problems name the file (default: its file name). Raises FileNotFoundError,
    DataError (listing every problem in the file) or ValueError (neither ``.json`` nor ``.csv``).
    """
    path = Path(path)
    name = name or path.name
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _read_json(path, name)
    if suffix == ".csv":
        return _read_csv(path, name)
    raise ValueError(f"path must be a .json or .csv file, got {str(path)!r}")


def dataset_json_text(pairs: Iterable[Pair]) -> str:
    """``dataset.json`` text in the authors' format (4-space indent, ASCII escapes, no final
    newline)."""
    return json.dumps({p.pair_id: p.to_json() for p in pairs}, indent=4)
