"""``--model journal`` for ``LMMS_EVAL_PLUGINS=medvigil`` (see :mod:`medvigil.models`)."""

from medvigil.tasks.journal_model import (
    JournalLMM as JournalLMM,
)  # (re-exported: lmms-eval loads it from here)
