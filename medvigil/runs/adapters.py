"""What each lmms-eval adapter class does to a task's prompt, keyed by the class that ran.

A run's results file names the class (``config.model_backend``, :mod:`.lmms_quirks`). The facts
below were read in lmms-eval 0.7.3's source (``lmms_eval/models/{chat,simple}/*.py``):

* chat ``Qwen3_VL`` inserts ``{"role": "system", "text": self.system_prompt}`` before the task's
  messages (``generate_until``): a task with its own system turn reaches the model with two;
* simple ``Qwen2_VL``, ``Qwen2_5_VL``, ``Qwen3_VL`` and ``Gemma3`` open every request with their own
  system turn (``system_prompt=``, default "You are a helpful assistant.") and put the task's text,
  its system text included, in the user turn;
* simple ``Claude`` sends ``system=self.system_prompt`` (default empty); the task's text is the user
  turn;
* chat ``Qwen2_5_VL``, ``OpenAICompatible``, ``LlavaHf`` and ``InternVLHf`` send the task's messages
  (``doc_to_messages``) as they are;
* any other simple class gets the task's text (``doc_to_text``) alone: a system text travels in the
  user turn;
* our baselines (``medvigil.tasks.baseline_models``) read no prompt.

A ``system_prompt=`` with commas cannot be given through ``--model_args``
(:data:`medvigil.runs.lmms_quirks.MODEL_ARGS_COMMAS`), so the task's system text cannot be moved
into these adapters' system turn from the command line.
"""

from medvigil.runs.lmms_quirks import MODEL_ARGS_COMMAS

_OWN_SYSTEM = (
    "the adapter sends its own system turn ('You are a helpful assistant.' unless system_prompt= "
    "is given) and the task's system text at the start of the user turn"
)
_ADDS_SYSTEM = (
    "the adapter adds its own system turn ('You are a helpful assistant.' unless system_prompt= "
    "is given) before the task's: the model sees two system turns"
)
_IN_USER_TURN = "the task's system text is sent at the start of the user turn (no system turn)"
_M = "lmms_eval.models"
_T = "medvigil.tasks"

# class -> what it does to a task that sends a system turn (None: the task's messages as they are)
SYSTEM_TURN: dict[str, str | None] = {
    f"{_M}.chat.qwen3_vl.Qwen3_VL": _ADDS_SYSTEM,
    f"{_M}.simple.qwen2_vl.Qwen2_VL": _OWN_SYSTEM,
    f"{_M}.simple.qwen2_5_vl.Qwen2_5_VL": _OWN_SYSTEM,
    f"{_M}.simple.qwen3_vl.Qwen3_VL": _OWN_SYSTEM,
    f"{_M}.simple.gemma3.Gemma3": _OWN_SYSTEM,
    f"{_M}.simple.claude.Claude": "the adapter sends system_prompt= (empty by default) as the "
    "system turn and the task's system text at the start of the user turn",
    f"{_M}.chat.qwen2_5_vl.Qwen2_5_VL": None,
    f"{_M}.chat.openai.OpenAICompatible": None,
    f"{_M}.chat.llava_hf.LlavaHf": None,
    f"{_M}.chat.internvl_hf.InternVLHf": None,
    # our classes under lmms-eval's stock names (medvigil.tasks.baseline_models.STOCK_CLASSES)
    # change text-only docs and log-likelihoods only: their prompts go as their bases send them
    f"{_T}.qwen_models.Qwen2_5_VLScored": _OWN_SYSTEM,
    f"{_T}.qwen_models.Qwen2_5_VLChatScored": None,
    f"{_T}.openai_models.OpenAIChatScored": None,
    f"{_T}.llava_hf_models.LlavaHfChatTextSafe": None,
}
READS_NO_PROMPT = ("medvigil.tasks.baseline_models.",)  # our sanity baselines
TAKES_SYSTEM_PROMPT_ARG = {
    c for c, note in SYSTEM_TURN.items() if note and "system_prompt=" in note
}


def prompt_deviations(adapter_class: str | None, kind: str | None, system_turn: bool) -> list[str]:
    """What the adapter ``adapter_class`` (``kind``: "simple" | "chat") does to the paper's prompt,
    as deviations; ``system_turn``: the task's protocol has a system turn.

    >>> prompt_deviations("lmms_eval.models.chat.qwen3_vl.Qwen3_VL", "chat", True)[0][:34]
    'the adapter adds its own system tu'
    >>> prompt_deviations("lmms_eval.models.chat.openai.OpenAICompatible", "chat", True)
    []
    """
    if not system_turn or not adapter_class or adapter_class.startswith(READS_NO_PROMPT):
        return []
    if adapter_class in SYSTEM_TURN:
        note = SYSTEM_TURN[adapter_class]
        if note is None:
            return []
        return [note] + ([MODEL_ARGS_COMMAS] if adapter_class in TAKES_SYSTEM_PROMPT_ARG else [])
    if kind == "simple":
        return [_IN_USER_TURN]
    return []  # a chat class not in the table: what it does is not known here
