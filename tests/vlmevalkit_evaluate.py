"""Run VLMEvalKit's own ``MedQDEGBenchDataset.evaluate`` on prediction files; print the results as
JSON.

``python tests/vlmevalkit_evaluate.py SRC FILE [FILE ...]``: ``SRC`` is a folder holding
VLMEvalKit's ``vlmeval`` package (a checkout or ``git archive`` of open-compass/VLMEvalKit). Prints
``{file: {key: value}}`` with evaluate's keys in its order (numpy numbers as Python numbers).

Nothing of evaluate is replaced. Only the two package ``__init__`` files are bypassed:
``vlmeval/__init__`` (loads ``.env``, imports torch and the CLI) and ``vlmeval/dataset/__init__``
(imports every dataset of VLMEvalKit); evaluate uses neither. The modules it does run are imported
for real: ``vlmeval.smp`` (``load``, ``dump``, ``get_intermediate_file_path``; needs ``validators``
and ``sty``) and ``vlmeval.dataset.medq_deg_bench`` with its bases ``image_mcq`` and ``image_base``.
The dataset object is made without ``__init__`` (which downloads the Hub data); evaluate reads only
the file it is given. No judge model takes part: this evaluate extracts letters by its regular
expressions alone and takes no judge (``judge_kwargs`` are unused), which is what VLMEvalKit runs
with or without a judge configured. Evaluate also writes ``<file stem>_score.json`` beside each
file, as it does in VLMEvalKit.
"""

import json
import sys
import types
from importlib import import_module


def _packages(src: str) -> None:
    for name, sub in (("vlmeval", ""), ("vlmeval.dataset", "/dataset")):
        package = types.ModuleType(name)
        package.__path__ = [f"{src}/vlmeval{sub}"]
        sys.modules[name] = package


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def main(src: str, files: list[str]) -> dict:
    _packages(src)
    dataset_class = import_module("vlmeval.dataset.medq_deg_bench").MedQDEGBenchDataset
    dataset = object.__new__(dataset_class)
    out = {}
    for path in files:
        out[path] = {key: _plain(v) for key, v in dataset.evaluate(path).items()}
    return out


if __name__ == "__main__":
    json.dump(main(sys.argv[1], sys.argv[2:]), sys.stdout)
