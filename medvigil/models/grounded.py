"""``--model grounded`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import GroundedBaseline

__all__ = ["GroundedBaseline"]
