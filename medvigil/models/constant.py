"""``--model constant`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import (
    ConstantBaseline as ConstantBaseline,
)  # (re-exported: lmms-eval loads it from here)
