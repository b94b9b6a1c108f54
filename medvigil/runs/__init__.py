"""An lmms-eval run as one object (:mod:`.lmms_run`), lmms-eval's version quirks in one place
(:mod:`.lmms_quirks`; its one patch of lmms-eval, log-likelihood requests for chat classes, in
:mod:`.chat_loglikelihood`; the process group it leaves running, destroyed at exit by
:mod:`.process_group`), and what scoring says about a run: its labels, ``--limit`` coverage,
generation settings, ``--predict_only`` rebuild and the protocol it ran (:mod:`.protocol`).

Readers of records (:mod:`medvigil.records`) and the task pack (:mod:`medvigil.task_pack`) both
use this room; neither imports the other.
"""
