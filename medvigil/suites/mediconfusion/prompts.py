"""Prompts and token limits of the four MediConfusion modes: the authors' (default) and medvigil's.

The authors' strings (``MShahabSepehri/MediConfusion`` commit 40a8b41:
``configs/prompts/answering.json``, ``utils/answering.py``, ``Models/*.py``) are kept character for
character, quirks included (MC ends with ``#answer: ("`` so that the model continues with ``A")``).
A *style* names one template of one mode (:data:`PROMPTS`): ``authors`` (and variants) or
``medvigil`` (medvigil 0.1).

Token limits (:data:`MAX_NEW_TOKENS`): the authors force 32 tokens at temperature 0 for MC; FF uses
each model's config (100 for LLaVA, LLaVA-Med, Llama 3.2), but lmms-eval fixes one
``generation_kwargs`` per task, so the FF task keeps greedy decoding and 100 tokens
(:func:`authors_gen_kwargs`: a model's own settings). Their system prompt
(:data:`AUTHORS_SYSTEM_PROMPT`) is sent only by their API clients (:data:`API_MODELS`).

Per lmms-eval route (:data:`API_PROVIDERS`: lmms-eval model -> their client): the task YAMLs send
each API model what their client sends (``mc.gpt`` for GPT, Claude and Gemini; their system prompt;
in FF their ``vanilla.json`` temperature, :func:`adapter_generation`; Claude's ``max_tokens=2048``
in every mode). What an lmms-eval adapter cannot send is listed by :func:`adapter_deviations`.

>>> render("mc", "authors", "Which side?", "Left", "Right").splitlines()[2:4]
['("A": Left)', '("B": Right)']
>>> render("ps", "authors", "Which side?", "Left", "Right"), PS_DELIMITER["authors"]
('Question: Which side? Answer:', ' ')
"""

from typing import Any

__all__ = [
    "API_MODELS",
    "API_PROVIDERS",
    "AUTHORS_FF_GENERATION",
    "AUTHORS_SYSTEM_PROMPT",
    "DEFAULT_STYLE",
    "MAX_NEW_TOKENS",
    "MODES",
    "PROMPTS",
    "PS_DELIMITER",
    "adapter_deviations",
    "adapter_generation",
    "authors_gen_kwargs",
    "render",
    "styles",
]

MODES = ("mc", "gd", "ps", "ff")
DEFAULT_STYLE = "authors"

_CHOOSE = (
    "Based on the image, choose the correct option for "
    "the following question.\nQuestion: {question}\n"
)
_LETTER = "Answer with the option's letter from the given choices directly."
_OPTIONS_MEDVIGIL = "{question}\nOptions:\nA. {option_A}\nB. {option_B}\n" + _LETTER

#: (mode, style) -> template.
PROMPTS: dict[tuple[str, str], str] = {
    # their mc.default (open models)
    ("mc", "authors"): _CHOOSE
    + '("A": {option_A})\n("B": {option_B})\n'
    + _LETTER
    + ' Your answer should be just one letter.\n#answer: ("',
    # their mc.gpt, also used for Gemini, Claude and LLaVA-Med
    ("mc", "authors_gpt"): _CHOOSE
    + "A: {option_A}\nB: {option_B}\n"
    + _LETTER
    + " Your answer should be just one letter.\nAnswer: ",
    ("mc", "medvigil"): _OPTIONS_MEDVIGIL,
    # their greedy.default: the answer is the likelier next token, A or B
    ("gd", "authors"): _CHOOSE + "A: {option_A}\nB: {option_B}\n" + _LETTER + "\nAnswer: ",
    ("gd", "medvigil"): _OPTIONS_MEDVIGIL,
    # their prefix.default, "Question: {} Answer: {}": this context, then the continuation " " +
    # option
    ("ps", "authors"): "Question: {question} Answer:",
    (
        "ps",
        "authors_llava",
    ): "{question}",  # their LLaVA / LLaVA-Med code: the bare question as the user turn
    ("ps", "authors_llama"): "Question: {question}",  # their Llama 3.2 code: the user turn
    ("ps", "medvigil"): "{question}",  # the option follows without a leading space
    (
        "ff",
        "authors",
    ): "Based on the image, answer following question.\n{question}",  # their gpt4.default
    ("ff", "medvigil"): "Based on the image, answer the following question.\n{question}",
}
#: (mode, protocol) -> max_new_tokens of the generating modes.
MAX_NEW_TOKENS = {
    ("mc", "authors"): 32,
    ("ff", "authors"): 100,
    ("mc", "medvigil"): 8,
    ("ff", "medvigil"): 128,
}
#: their configs/prompts/answering.json init_prompts.default, character for character.
AUTHORS_SYSTEM_PROMPT = "You are a helpful assitant expert in medical domain."
# : lmms-eval API model -> the authors' client for that provider (``Models/<client>.py``,
# configs/Models/<client>)
API_PROVIDERS = {
    "gpt4v": "gpt",
    "batch_gpt4": "gpt",
    "openai": "gpt",
    "claude": "claude",
    "gemini": "gemini",
    "gemini_api": "gemini",
}
#: lmms-eval models served by an API the authors sent the system prompt to (GPT-4o, Claude, Gemini).
API_MODELS = tuple(API_PROVIDERS)
#: lmms-eval's simple API adapters: one user turn built from the task's text, no system message
SIMPLE_API_MODELS = ("gpt4v", "batch_gpt4", "claude")
# : lmms-eval open-model adapter -> the authors' client whose configs/Models/<client>/vanilla.json
# applies
OPEN_MODEL_CLIENTS = {
    "llava_hf": "llava",
    "llava": "llava",
    "llama_vision": "llama",
    "instructblip": "instructblip",
}
#: their configs/Models/<model>/vanilla.json: FF generation settings (None: not set, their default).
AUTHORS_FF_GENERATION = {
    "gpt": {"temperature": 0.7},  # GPT-4o (gpt4o deployment)
    "claude": {"temperature": 0.2, "max_new_tokens": 2048},  # max_tokens=2048 in Models/claude.py
    "gemini": {"temperature": 0.2},
    "llava": {"temperature": 0.2, "top_p": None, "num_beams": 1, "max_new_tokens": 100},
    "llava_med": {"temperature": 0.2, "top_p": None, "num_beams": 1, "max_new_tokens": 100},
    "llama": {"temperature": 0.2, "top_p": None, "num_beams": 1, "max_new_tokens": 100},
    "blip2": {"temperature": 1, "top_p": 0.9, "num_beams": 5, "max_new_tokens": 30},
    "instructblip": {"temperature": 1, "top_p": 0.9, "num_beams": 5, "max_new_tokens": 128},
    "molmo": {"temperature": 0.7, "top_p": None, "num_beams": 1, "max_new_tokens": 30},
    "med_flamingo": {"temperature": 1, "top_p": 0.9, "num_beams": 5, "max_new_tokens": 10},
    "radfm": {"max_new_tokens": 64},
}


def authors_gen_kwargs(model: str) -> str:
    """lmms-eval ``--gen_kwargs`` for the FF task with ``model``'s own settings (a key of
    :data:`AUTHORS_FF_GENERATION`); sampling on when the temperature is above 0, as theirs.

    >>> authors_gen_kwargs("llava")
    'temperature=0.2,do_sample=True,num_beams=1,max_new_tokens=100'
    """
    if model not in AUTHORS_FF_GENERATION:
        raise ValueError(f"model must be one of {', '.join(AUTHORS_FF_GENERATION)}, got {model!r}")
    settings = AUTHORS_FF_GENERATION[model]
    parts = []
    if "temperature" in settings:
        parts += [
            f"temperature={settings['temperature']}",
            f"do_sample={settings['temperature'] > 0}",
        ]
    parts += [f"{k}={v}" for k, v in settings.items() if k != "temperature" and v is not None]
    return ",".join(parts)


# : max_tokens their Models/claude.py sends in every mode (their MC override of 32 tokens does not
# reach it)
CLAUDE_MAX_TOKENS = 2048


def adapter_generation(model: str, mode: str) -> dict[str, Any]:
    """What the authors' client for lmms-eval API ``model`` sets beyond the task's decoding in
    ``mode`` (lmms-eval ``model_specific_generation_kwargs``): FF, their ``vanilla.json``
    temperature (their MC forces temperature 0, the task's own); Claude, ``max_tokens`` 2048 in MC
    and FF. {} otherwise.

    >>> adapter_generation("openai", "ff"), adapter_generation("claude", "mc")
    ({'temperature': 0.7}, {'max_new_tokens': 2048})
    """
    provider = API_PROVIDERS.get(model)
    if provider is None or mode not in ("mc", "ff"):
        return {}
    out: dict[str, Any] = {}
    if mode == "ff":
        out["temperature"] = AUTHORS_FF_GENERATION[provider]["temperature"]
    if provider == "claude":
        out["max_new_tokens"] = CLAUDE_MAX_TOKENS
    return out


def adapter_deviations(model: str, mode: str) -> list[str]:
    """Departures from the authors' protocol for ``mode`` that the lmms-eval adapter ``model`` (its
    ``--model`` name) cannot avoid, one sentence each, or that the task chooses (FF decodes open
    models greedily, :data:`OPEN_MODEL_CLIENTS`); [] when the route sends what their client sends
    (or the model is one the authors did not run).

    >>> adapter_deviations("gpt4v", "mc")[0][:60]
    'system prompt sent as the first line of the user turn (lmms-'
    >>> adapter_deviations("openai", "ps")
    ['mode ps: the authors ran no API model in this mode (their GPT, Claude and Gemini clients refuse it)']
    """  # noqa: E501
    client = OPEN_MODEL_CLIENTS.get(model)
    if client is not None and mode == "ff":  # the task decodes greedily; theirs sampled
        return [
            f"the task decodes greedily (temperature 0) where the authors' {client} "
            f"config samples at {AUTHORS_FF_GENERATION[client]['temperature']}, unless "
            f"the run passed --gen_kwargs {authors_gen_kwargs(client)}"
        ]
    provider = API_PROVIDERS.get(model)
    if provider is None:
        return []
    if mode not in ("mc", "ff"):
        return [
            f"mode {mode}: the authors ran no API model in this mode (their GPT, Claude and Gemini "
            "clients refuse it)"
        ]
    out = []
    if model in SIMPLE_API_MODELS:
        out.append(
            f"system prompt sent as the first line of the user turn (lmms-eval's {model} adapter "
            "sends no system message of a task's)"
        )
    if model == "batch_gpt4":
        out.append("the image sent as a second user message (lmms-eval's batch_gpt4 adapter)")
    if provider in ("gpt", "gemini"):
        budget = MAX_NEW_TOKENS[mode, "authors"]
        out.append(
            f"max_new_tokens {budget} (the authors' "
            f"{provider.upper() if provider == 'gpt' else 'Gemini'} call sets no limit; "
            f"lmms-eval's adapter always sends one)"
        )
    return out


#: protocol -> what goes between the PS context and the option (the authors score " " + option).
PS_DELIMITER = {"authors": " ", "medvigil": ""}


def styles(mode: str) -> list[str]:
    """The prompt styles of ``mode``."""
    return [style for (m, style) in PROMPTS if m == mode]


def render(mode: str, style: str, question: str, option_a: str, option_b: str) -> str:
    """The prompt of ``mode`` in ``style`` for one question (ValueError naming the choices if
    unknown).

    The authors' styles insert the texts as they are (their ``str.format``); the medvigil
    styles strip surrounding whitespace, as medvigil 0.1 did.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if (mode, style) not in PROMPTS:
        raise ValueError(
            f"prompt_style for {mode} must be one of {', '.join(styles(mode))}, got {style!r}"
        )
    texts = [str(t) for t in (question, option_a, option_b)]
    if style == "medvigil":
        texts = [t.strip() for t in texts]
    return PROMPTS[mode, style].format(question=texts[0], option_A=texts[1], option_B=texts[2])
