"""The index of the open-ended judge's labelled validation sets (``judge_sets/index.json``; the
folder's README.md says the layout): which sets there are, who wrote them, which are blind. Read by
the learned judge (:mod:`.judge_model`: every set is its training data), its leave-one-set-out
validation (:mod:`.judge_loso`) and the correction of open-ended rates (:mod:`.judge_correction`:
the blind sets' held-out figures)."""

import os
from pathlib import Path

from medvigil.errors import DataError, Problem

SETS_DIR = Path(__file__).with_name("judge_sets")
# blind sets written after the shipped judge was frozen, never its training data (their README.md)
FRESH_DIR = Path(__file__).with_name("judge_fresh_sets")
SETS_VARIABLE = "MEDVIGIL_JUDGE_SETS"  # another folder of the same layout (index.json + sets)
INDEX = "index.json"


def sets_folder() -> Path:
    """The validation sets of the open-ended correction (:mod:`.judge_correction`):
    ``$MEDVIGIL_JUDGE_SETS``, by default the fresh sets the shipped judge was never trained on."""
    return Path(os.environ.get(SETS_VARIABLE) or FRESH_DIR)


def read_index(folder: Path) -> list[dict]:
    """The validation sets listed in ``folder/index.json``, checked (see the folder's README.md)."""
    from medvigil.files.input_files import read_json

    path = folder / INDEX
    data = read_json(path)
    sets = data.get("sets") if isinstance(data, dict) else None
    if not isinstance(sets, list):
        raise DataError(Problem(str(path), "expected an object with a list 'sets'", field="sets"))
    problems = []
    for i, entry in enumerate(sets, 1):
        if not isinstance(entry, dict):
            problems.append(Problem(str(path), "not an object", row=i, field="sets"))
            continue
        for key, kind in (("file", str), ("name", str), ("author", str), ("blind", bool)):
            if not isinstance(entry.get(key), kind):
                problems.append(Problem(str(path), f"must be a {kind.__name__}", row=i, field=key))
        if isinstance(entry.get("file"), str) and (
            Path(entry["file"]).name != entry["file"] or not (folder / entry["file"]).is_file()
        ):
            problems.append(Problem(str(path), "not a file of this folder", row=i, field="file"))
    if problems:
        raise DataError(problems)
    return sets
