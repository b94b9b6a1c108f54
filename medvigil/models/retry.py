"""``--model retry`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.retrying_model import RetryingLMM

__all__ = ["RetryingLMM"]
