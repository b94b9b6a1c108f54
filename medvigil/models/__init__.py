"""lmms-eval plugin models: ``LMMS_EVAL_PLUGINS=medvigil lmms-eval --model grounded --tasks medvigil_mcq``.

lmms-eval (0.7.3) reads ``LMMS_EVAL_PLUGINS=<pkg>``, adds the folder of ``<pkg>.tasks`` to
its task path (our task packs, so no ``--include_path`` is needed) and imports
``<pkg>.models``, registering each ``AVAILABLE_MODELS`` entry ``name: Class`` as
``--model name`` loaded from ``<pkg>.models.<name>.<Class>``. The classes are the
baselines of :mod:`medvigil.tasks.baseline_models` and the retry wrapper of
:mod:`medvigil.tasks.retrying_model`; each submodule here only re-exports one of them.

Importing this package does not import lmms-eval (only its submodules do, when
lmms-eval loads a model), and ``import medvigil`` does not import this package.
The same models are also registered through the ``lmms_eval.models`` entry point
(setup.cfg), under the ids ``medvigil_<name>`` with ``<name>`` as alias.
"""

AVAILABLE_MODELS = {
    "random": "RandomBaseline",
    "constant": "ConstantBaseline",
    "blind": "BlindBaseline",
    "grounded": "GroundedBaseline",
    "retry": "RetryingLMM",
}

__all__ = ["AVAILABLE_MODELS"]
