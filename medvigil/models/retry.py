"""``--model retry`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.retrying_model import (
    RetryingLMM as RetryingLMM,
)  # (re-exported: lmms-eval loads it from here)
