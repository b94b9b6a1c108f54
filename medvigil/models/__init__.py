"""lmms-eval plugin models: ``LMMS_EVAL_PLUGINS=medvigil lmms-eval --model grounded --tasks medvigil_mcq``.

lmms-eval (0.7.3) reads ``LMMS_EVAL_PLUGINS=<pkg>``, imports ``<pkg>.models`` and registers
each ``AVAILABLE_MODELS`` entry ``name: Class`` as ``--model name`` loaded from
``<pkg>.models.<name>.<Class>``. The classes are the baselines of
:mod:`medvigil.tasks.baseline_models` and the retry wrapper of
:mod:`medvigil.tasks.retrying_model`; each submodule here only re-exports one of them.

lmms-eval also means to add the folder of ``<pkg>.tasks`` to its task path, but 0.7.3 does
so only after it has built its ``TaskManager`` (``cli_evaluate_single`` in
``lmms_eval/__main__.py``), so the tasks would not be found. When this package is imported
with ``medvigil`` listed in ``LMMS_EVAL_PLUGINS`` it therefore adds our task folder (the one
``medvigil tasks-path`` prints) to every ``TaskManager`` lmms-eval builds, once, and only if
not already given with ``--include_path``.

Without that variable, importing this package imports nothing from lmms-eval, and
``import medvigil`` does not import this package. The same models are also registered
through the ``lmms_eval.models`` entry point (setup.cfg), as ``medvigil_<name>`` with alias ``<name>``.
"""

from __future__ import annotations

import os

from medvigil.tasks import tasks_dir

AVAILABLE_MODELS = {
    "random": "RandomBaseline",
    "constant": "ConstantBaseline",
    "blind": "BlindBaseline",
    "grounded": "GroundedBaseline",
    "retry": "RetryingLMM",
}
PLUGIN_NAME = "medvigil"

__all__ = ["AVAILABLE_MODELS", "add_task_folder_to_lmms_eval"]


def add_task_folder_to_lmms_eval() -> str:
    """Make lmms-eval's ``TaskManager`` index our task folder; returns the folder."""
    from lmms_eval.tasks import TaskManager


    folder = str(tasks_dir())
    if getattr(TaskManager, "_medvigil_task_folder", None) == folder:
        return folder
    build = TaskManager.__init__

    def __init__(self, verbosity="INFO", include_path=None, *args, **kwargs):
        paths = [] if include_path is None else [include_path] if isinstance(include_path, str) else list(include_path)
        if not any(os.path.realpath(p) == os.path.realpath(folder) for p in paths):
            paths.append(folder)
        build(self, verbosity, paths, *args, **kwargs)

    __init__.__doc__ = build.__doc__
    TaskManager.__init__ = __init__
    TaskManager._medvigil_task_folder = folder
    return folder


if PLUGIN_NAME in os.environ.get("LMMS_EVAL_PLUGINS", "").split(","):
    add_task_folder_to_lmms_eval()
