"""``--model grounded`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import (
    GroundedBaseline as GroundedBaseline,
)  # (re-exported: lmms-eval loads it from here)
