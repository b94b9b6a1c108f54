"""``--model blind`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import BlindBaseline

__all__ = ["BlindBaseline"]
