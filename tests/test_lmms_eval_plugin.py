"""``medvigil.models``: the package lmms-eval imports for ``LMMS_EVAL_PLUGINS=medvigil``.

The real run with the plugin form is
``test_lmms_eval_runs.py::test_plugin_form_needs_no_include_path``; here: what lmms-eval's plugin
loader registers (models, and the task folder that lmms-eval 0.7.3 itself adds too late), and that
the core stays free of lmms-eval.
"""

import json
import os
import subprocess
import sys

import pytest

from medvigil.models import AVAILABLE_MODELS

pytest.importorskip("lmms_eval")
pytestmark = pytest.mark.slow  # every test starts lmms-eval


def _python(code: str, **env: str) -> str:
    full = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **env}
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_plugin_loader_registers_every_model_and_the_tasks():
    """lmms-eval maps ``name: Class`` to ``medvigil.models.<name>.<Class>``; every TaskManager
    it then builds indexes our task folder, once even when ``--include_path`` names it too."""
    from medvigil.tasks import tasks_dir

    code = (
        f"import json, importlib.util\nfrom lmms_eval.models import AVAILABLE_SIMPLE_MODELS, "
        f"get_model\nfrom lmms_eval.tasks import TaskManager\nnames = "
        f"{sorted(AVAILABLE_MODELS)!r}\npaths = {{n: AVAILABLE_SIMPLE_MODELS.get(n) for "
        f"n in names}}\nclasses = {{n: get_model(n).__module__ + '.' + get_model(n).__qualname__ "
        f"for n in names}}\nplain = TaskManager('WARNING', include_defaults=False)  # our "
        f"folder only: fast\nexplicit = TaskManager('WARNING', "
        f"include_path={str(tasks_dir())!r}, include_defaults=False)\nprint(json.dumps([paths, "
        f"classes, 'medvigil_mcq' in plain.all_tasks, plain.include_path, "
        f"explicit.include_path]))"
    )
    paths, classes, found, plain_paths, explicit_paths = json.loads(
        _python(code, LMMS_EVAL_PLUGINS="medvigil")
    )
    for name, cls in AVAILABLE_MODELS.items():
        assert paths[name] == f"medvigil.models.{name}.{cls}"
    assert classes["grounded"] == "medvigil.tasks.baseline_models.GroundedBaseline"
    assert classes["retry"] == "medvigil.tasks.retrying_model.RetryingLMM"
    assert found and plain_paths == [str(tasks_dir())]  # the folder `medvigil tasks-path` prints
    assert explicit_paths == [str(tasks_dir())]


def test_plugin_models_are_the_entry_point_models():
    """One implementation: each plugin name re-exports the class its entry-point manifest names."""
    import importlib

    from medvigil.tasks.baseline_models import STOCK_CLASSES, manifests

    ours = [m for m in manifests() if m.model_id not in STOCK_CLASSES]  # not lmms-eval's names
    by_alias = {alias: m.simple_class_path for m in ours for alias in m.aliases}
    assert set(by_alias) == set(AVAILABLE_MODELS)
    for name, cls in AVAILABLE_MODELS.items():
        module, _, attr = by_alias[name].rpartition(".")
        assert getattr(importlib.import_module(f"medvigil.models.{name}"), cls) is getattr(
            importlib.import_module(module), attr
        )


def test_core_and_plugin_package_do_not_import_lmms_eval():
    """Without ``LMMS_EVAL_PLUGINS`` naming medvigil, nothing here imports lmms-eval."""
    code = (
        "import sys, medvigil, medvigil.models, medvigil.scoring; print(sorted(m "
        "for m in sys.modules if m.startswith('lmms_eval')))"
    )
    assert _python(code, LMMS_EVAL_PLUGINS="") == "[]"
    assert _python(code, LMMS_EVAL_PLUGINS="otherpkg") == "[]"


def test_stock_names_keep_lmms_eval_aliases_and_kinds():
    """Our classes under lmms-eval's names: the registry resolves the names users type (and
    lmms-eval's aliases) to them, chat by default and simple with ``force_simple``."""
    from lmms_eval.models import MODEL_REGISTRY_V2

    from medvigil.tasks.baseline_models import STOCK_CLASSES

    for name, (simple, chat, _aliases) in STOCK_CLASSES.items():
        assert MODEL_REGISTRY_V2.resolve(name, force_simple=True).class_path == simple
        assert MODEL_REGISTRY_V2.resolve(name).class_path == (chat or simple)
        for kind, path in (("simple", simple), ("chat", chat)):
            if path:  # each class is lmms-eval's class of that kind, subclassed
                cls = MODEL_REGISTRY_V2.get_model_class(name, force_simple=kind == "simple")
                assert cls.is_simple == (kind == "simple") and cls.__module__.startswith(
                    "medvigil.tasks."
                )
    assert MODEL_REGISTRY_V2.resolve("openai_compatible").class_path == STOCK_CLASSES["openai"][1]
    assert MODEL_REGISTRY_V2.resolve("medvigil_llava_hf").model_id == "llava_hf"
