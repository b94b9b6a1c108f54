"""``--model random`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import (
    RandomBaseline as RandomBaseline,
)  # (re-exported: lmms-eval loads it from here)
