"""lmms-eval plugin models: ``LMMS_EVAL_PLUGINS=medvigil lmms-eval --model grounded --tasks
medvigil_mcq``.

lmms-eval (0.7.3) imports ``<pkg>.models`` and registers each ``AVAILABLE_MODELS`` entry ``name:
Class`` as ``--model name`` loaded from ``<pkg>.models.<name>.<Class>``; each submodule re-exports
one class of :mod:`medvigil.tasks.baseline_models` or :mod:`medvigil.tasks.retrying_model`. The same
models are also registered through the ``lmms_eval.models`` entry point (setup.cfg) as
``medvigil_<name>``; that entry point also replaces the classes of some of lmms-eval's own names
(``llava_hf``, ``idefics2``, ``qwen2_5_vl``, ``openai``: ``STOCK_CLASSES`` in
:mod:`medvigil.tasks.baseline_models`).

With ``medvigil`` in ``LMMS_EVAL_PLUGINS``, importing this package also (otherwise it imports
nothing from lmms-eval):

* adds our task folder to every ``TaskManager`` (unless given with ``--include_path``): 0.7.3 adds
  the plugin's task folder only after building its ``TaskManager`` (``cli_evaluate_single``), too
  late;
* defaults ``LMMS_IMAGE_ENCODE_FORMAT`` to JPEG: 0.7.3's OpenAI-compatible class re-encodes every
  image, as PNG by default, turning a 156 KB radiograph JPEG into an 842 KB request (5.4x); JPEG at
  quality 85 keeps about 1.15x. Only the environment decides this; with ``--include_path`` set it
  yourself;
* checks ``MEDVIGIL_MCQ_ADAPTER``'s mapping (:func:`medvigil.mcq.adapter.check_adapter`): a bad one
  stops lmms-eval here, once, with exit status 1.
"""

import os

from medvigil.tasks import tasks_dir

AVAILABLE_MODELS = {
    "random": "RandomBaseline",
    "constant": "ConstantBaseline",
    "blind": "BlindBaseline",
    "grounded": "GroundedBaseline",
    "retry": "RetryingLMM",
    "journal": "JournalLMM",  # medvigil.tasks.journal_model
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
        paths = (
            []
            if include_path is None
            else [include_path]
            if isinstance(include_path, str)
            else list(include_path)
        )
        if not any(os.path.realpath(p) == os.path.realpath(folder) for p in paths):
            paths.append(folder)
        build(self, verbosity, paths, *args, **kwargs)

    __init__.__doc__ = build.__doc__
    TaskManager.__init__ = __init__
    TaskManager._medvigil_task_folder = folder
    return folder


if PLUGIN_NAME in os.environ.get("LMMS_EVAL_PLUGINS", "").split(","):
    add_task_folder_to_lmms_eval()
    os.environ.setdefault(
        "LMMS_IMAGE_ENCODE_FORMAT", "JPEG"
    )  # read by lmms_eval.protocol.ChatMessages per request
    from medvigil.mcq.adapter import check_adapter

    check_adapter()
