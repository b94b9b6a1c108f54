"""The paper's free-form judge (Appendix A.4; the authors' ``configs/prompts/answering.json``):
GPT-4o at T = 0.7 rates a response's closeness to each option from 1 to 10. :func:`judge_prompt`
builds its prompt (as printed in the paper or as the authors' code builds it),
:func:`parse_judge_reply` reads its reply, :func:`make_llm_judge` wraps any completion function as a
judge and :func:`endpoint_judge` any OpenAI-compatible endpoint.
"""

import re
from collections.abc import Callable

from medvigil.chat_client import chat
from medvigil.suites.mediconfusion.answers import OPTION_LETTERS
from medvigil.suites.mediconfusion.judges import Judge, JudgeScores
from medvigil.suites.mediconfusion.modes import check_choice

__all__ = [
    "JUDGE_ATTEMPTS",
    "JUDGE_MODEL",
    "JUDGE_PROMPT",
    "JUDGE_PROMPT_CODE",
    "JUDGE_PROMPT_LAYOUTS",
    "JUDGE_SYSTEM_MESSAGE",
    "JUDGE_TEMPERATURE",
    "endpoint_judge",
    "judge_prompt",
    "make_llm_judge",
    "parse_judge_reply",
]

JUDGE_SYSTEM_MESSAGE = (
    "You are a helpful and precise assistant for checking the quality of the answer."
)
_JUDGE_INSTRUCTION = (
    "We would like to request your feedback on the performance of an AI assistant in response "
    "to the user question displayed above. The user asks the question on observing an image. "
    "We have provided two possible answers, [Answer A] and [Answer B] to the question. Your "
    "job is to evaluate how close the AI assistant's answer is to each of the answers. You "
    "don't have to decide whether the answers are correct or not. Each answer should receive "
    "an overall score on a scale of 1 to 10, where a higher score indicates the AI assistant's "
    "answer is closer to the specific answer. After providing the scores, concisely provide "
    "your explanation for the given scores. Remember, you don't need to comment on the "
    "correctness of the answers. Please provide your answer in the following format:\nA: "
    "<SCORE>\nB: <SCORE>\nYour explanation: <EXPLANATION>"
)
#: The prompt as printed in the paper (Appendix A.4): one line break between sections.
JUDGE_PROMPT = (
    "[Question]\n{question}\n[Answer A]\n{option_a}\n[Answer B]\n{option_b}\n"
    "[Assistant]\n{response}\n[End of Assistant]\n[System]\n" + _JUDGE_INSTRUCTION
)
#: The prompt as the authors' code builds it (``get_clean_up_prompt``): blank lines between
#: sections, the role named "AI Assistant", and a blank line at the end.
JUDGE_PROMPT_CODE = (
    "[Question]\n{question}\n\n[Answer A]\n{option_a}\n\n[Answer B]\n{option_b}\n\n"
    "[AI Assistant]\n{response}\n\n[End of AI Assistant]\n\n[System]\n"
    + _JUDGE_INSTRUCTION
    + "\n\n"
)
JUDGE_PROMPT_LAYOUTS = {"paper": JUDGE_PROMPT, "code": JUDGE_PROMPT_CODE}
#: The authors' judge settings: GPT-4o (their Azure deployment "gpt4o") at temperature 0.7,
#: three attempts per request.
JUDGE_MODEL = "gpt-4o"
JUDGE_TEMPERATURE = 0.7
JUDGE_ATTEMPTS = 3
_REPLY_SCORE = re.compile(
    r"^\s*\**\s*([AB])\s*\**\s*:\s*\**\s*(10|[1-9](?:\.\d+)?)\b", re.MULTILINE
)


def judge_prompt(
    question: str, option_a: str, option_b: str, response: str, layout: str = "paper"
) -> str:
    """The Appendix A.4 user prompt for one response (``layout``: ``paper`` or ``code``)."""
    check_choice("layout", layout, tuple(JUDGE_PROMPT_LAYOUTS))
    return JUDGE_PROMPT_LAYOUTS[layout].format(
        question=question, option_a=option_a, option_b=option_b, response=response
    )


def parse_judge_reply(text: str) -> tuple[float, float]:
    """``(A, B)`` from a reply in the Appendix A.4 format (``A: <SCORE>`` / ``B: <SCORE>`` lines).

    >>> parse_judge_reply("A: 8\\nB: 2\\nYour explanation: ...")
    (8.0, 2.0)
    """
    found: dict[str, float] = {}
    for letter, value in _REPLY_SCORE.findall(text or ""):
        found.setdefault(letter, float(value))
    if set(found) != set(OPTION_LETTERS):
        raise ValueError(f"judge reply has no 'A: <score>' and 'B: <score>' lines: {text!r:.200}")
    return found["A"], found["B"]


def make_llm_judge(complete: Callable[[str, str], str], layout: str = "paper") -> Judge:
    """Wrap ``complete(system_message, prompt) -> reply text`` as a judge using the paper's prompt,
    e.g. ``register_judge("gpt4o", make_llm_judge(lambda system, prompt: my_client(system,
    prompt)))``."""
    if not callable(complete):
        raise TypeError(f"complete must be callable, got {type(complete).__name__}")
    check_choice("layout", layout, tuple(JUDGE_PROMPT_LAYOUTS))

    def judge(question: str, option_a: str, option_b: str, response: str) -> JudgeScores:
        reply = complete(
            JUDGE_SYSTEM_MESSAGE, judge_prompt(question, option_a, option_b, response, layout)
        )
        return JudgeScores(parse_judge_reply(reply), reply)

    return judge


def endpoint_judge(
    base_url: str,
    *,
    model: str = JUDGE_MODEL,
    temperature: float = JUDGE_TEMPERATURE,
    api_key: str | None = None,
    layout: str = "paper",
    attempts: int = JUDGE_ATTEMPTS,
) -> Judge:
    """The authors' FF judge (paper's system message and prompt ``layout``; ``gpt-4o`` at 0.7)
    through any OpenAI-compatible ``/chat/completions`` endpoint; ``base_url`` is the API root
    (``https://api.openai.com/v1``, a vLLM server's ``.../v1``); up to ``attempts`` tries, like the
    authors' client (then a RuntimeError naming the endpoint and the last error)."""
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"judge endpoint must be an http(s) URL, got {base_url!r}")

    def complete(system: str, prompt: str) -> str:
        body = {
            "model": model,
            "temperature": temperature,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
        }
        return chat(base_url, body, api_key=api_key, attempts=attempts)

    return make_llm_judge(complete, layout)
