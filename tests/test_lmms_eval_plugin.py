"""``medvigil.models``: the package lmms-eval imports for ``LMMS_EVAL_PLUGINS=medvigil``.

The real run with the plugin form is ``test_lmms_eval_runs.py::test_plugin_form_needs_no_include_path``;
here: what lmms-eval's plugin loader registers, and that the core stays free of lmms-eval.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from medvigil.models import AVAILABLE_MODELS

pytest.importorskip("lmms_eval")


def _python(code: str, **env: str) -> str:
    full = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **env}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=full, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_plugin_loader_registers_every_model():
    """lmms-eval maps ``name: Class`` to ``medvigil.models.<name>.<Class>`` and adds the tasks folder."""
    code = (
        "import json, importlib.util\n"
        "from lmms_eval.models import AVAILABLE_SIMPLE_MODELS, get_model\n"
        f"names = {sorted(AVAILABLE_MODELS)!r}\n"
        "paths = {n: AVAILABLE_SIMPLE_MODELS.get(n) for n in names}\n"
        "classes = {n: get_model(n).__module__ + '.' + get_model(n).__qualname__ for n in names}\n"
        "tasks = importlib.util.find_spec('medvigil.tasks').submodule_search_locations[0]\n"
        "print(json.dumps([paths, classes, tasks]))"
    )
    paths, classes, tasks = json.loads(_python(code, LMMS_EVAL_PLUGINS="medvigil"))
    from medvigil.commands.tasks_path import tasks_dir

    for name, cls in AVAILABLE_MODELS.items():
        assert paths[name] == f"medvigil.models.{name}.{cls}"
    assert classes["grounded"] == "medvigil.tasks.baseline_models.GroundedBaseline"
    assert classes["retry"] == "medvigil.tasks.retrying_model.RetryingLMM"
    assert os.path.samefile(tasks, tasks_dir())  # the folder `medvigil tasks-path` prints


def test_plugin_models_are_the_entry_point_models():
    """One implementation: each plugin name re-exports the class its entry-point manifest names."""
    import importlib

    from medvigil.tasks.baseline_models import manifests

    by_alias = {alias: m.simple_class_path for m in manifests() for alias in m.aliases}
    assert set(by_alias) == set(AVAILABLE_MODELS)
    for name, cls in AVAILABLE_MODELS.items():
        module, _, attr = by_alias[name].rpartition(".")
        assert getattr(importlib.import_module(f"medvigil.models.{name}"), cls) is getattr(importlib.import_module(module), attr)


def test_core_and_plugin_package_do_not_import_lmms_eval():
    code = "import sys, medvigil, medvigil.models, medvigil.scoring; print(sorted(m for m in sys.modules if m.startswith('lmms_eval')))"
    assert _python(code) == "[]"
