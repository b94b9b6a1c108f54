"""``--model blind`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.baseline_models import (
    BlindBaseline as BlindBaseline,
)  # (re-exported: lmms-eval loads it from here)
