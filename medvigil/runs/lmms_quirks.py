"""What lmms-eval (0.7.3, the version ``make setup`` pins) writes and how, in one place.

Every reader of a run's files takes these facts from here, so a new lmms-eval version that changes
one of them changes one place:

* ``<stamp>_samples_<task>.jsonl`` beside ``<stamp>_results.json`` (:data:`SAMPLES`);
* the results file may hold ``NaN`` (a missing standard error): read with non-finite numbers
  allowed;
* ``config.model`` / ``config.model_args`` name the adapter and its arguments (the weights among
  ``pretrained=``, ``model=``, ...: :data:`NAME_ARGS`); ``config.model_backend`` is the class that
  ran, ``"<dotted class> (simple|chat)"``; ``config.limit`` is ``--limit`` (absent or null: every
  doc); ``configs.<task>.generation_kwargs`` holds the settings after any ``--gen_kwargs`` override;
  ``n-samples.<task>`` has ``original`` and ``effective`` doc counts; ``system_instruction`` is
  ``--system_instruction`` (null: none) and ``chat_template`` the template ``--apply_chat_template``
  applied;
* ``--model_args`` is split at commas outside quotes, and quotes stay in the value
  (``simple_parse_args_string``): a text with commas cannot be passed as itself
  (:data:`MODEL_ARGS_COMMAS`);
* ``--predict_only`` replaces every metric by ``bypass`` and skips ``process_results``
  (:data:`PREDICT_ONLY_KEY`): a line then holds the doc id, target and responses, not our record.
"""

import re
from typing import Any

SAMPLES = re.compile(r"^(?P<stamp>.+)_samples_(?P<task>[A-Za-z0-9_]+)\.jsonl$")
SAMPLES_GLOB = "*_samples_*.jsonl"
RESULTS_SUFFIX = "_results.json"
RESULTS_ALLOW_NON_FINITE = True  # lmms-eval writes NaN for missing stderrs
PREDICT_ONLY_KEY = "bypass"  # --predict_only: the metric every sample line carries instead of ours
MODEL_ARGS_COMMAS = (
    "a system_prompt= with commas cannot be passed through --model_args (lmms-eval "
    "splits it at the commas; quoted, the quotes stay in the prompt)"
)
NAME_ARGS = ("pretrained", "model", "model_version", "model_name")  # model_args naming the weights
_BACKEND = re.compile(r"^(?P<cls>[\w.]+)(?: \((?P<kind>\w+)\))?$")


def results_name(stamp: str) -> str:
    """The results file's name of the run stamped ``stamp``."""
    return f"{stamp}{RESULTS_SUFFIX}"


def adapter_class(config: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(dotted class, "simple" | "chat")`` of the adapter that ran, from a results file's
    ``config.model_backend`` (``(None, None)``: not recorded).

    >>> adapter_class({"model_backend": "lmms_eval.models.chat.qwen3_vl.Qwen3_VL (chat)"})
    ('lmms_eval.models.chat.qwen3_vl.Qwen3_VL', 'chat')
    """
    match = _BACKEND.match(str(config.get("model_backend") or ""))
    return (match["cls"], match["kind"]) if match else (None, None)
