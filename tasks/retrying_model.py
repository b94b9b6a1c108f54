"""``--model retry``: any lmms-eval model under the Appendix L retry protocol.

lmms-eval asks each request once. MedVIGIL re-asks an unparseable multiple-choice answer
up to three times with the same prompt and settings and logs every attempt (Appendix L).
This wrapper does that for any registered model::

    lmms-eval --model retry \
        --model_args inner=openai_compatible,retries=3,model_version=my-model,base_url=... \
        --tasks medvigil_mcq --include_path "$(medvigil tasks-path)" --log_samples ...

``inner`` is a registered model name or a ``module:Class`` path; every other model
argument goes to the inner model. The wrapper takes its inner model's kind: a name with a chat
class (``openai``, ``qwen2_5_vl``, ...) is wrapped as that chat class, as lmms-eval would load
it, and lmms-eval then builds chat requests for the run; ``inner_simple=true`` wraps the
simple class instead (what ``--force_simple`` does without the wrapper). Only prompts with an
``Options:`` block are retried (free-text answers have no letter to parse). The attempts reach
the task's ``process_results`` through :data:`medvigil.mcq.retry.ATTEMPTS` and are written in each
per-probe record (``retries`` and ``extra.attempts``). Responses served from lmms-eval's
response cache bypass the wrapper and are recorded with ``retries = 0``.
"""

import importlib
from collections.abc import Sequence

from lmms_eval.api.instance import Instance, unwrap_generation_output
from lmms_eval.api.model import lmms

from medvigil.mcq.prompting import parse_mcq_prompt
from medvigil.mcq.retry import ATTEMPTS, DEFAULT_MAX_RETRIES, ask_with_retries, doc_key


def resolve_model(inner: str, simple: bool = False) -> type:
    if ":" in inner:
        module, _, name = inner.partition(":")
        return getattr(importlib.import_module(module), name)
    from lmms_eval.models import get_model

    return get_model(inner, force_simple=simple)


def _flag(value) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).strip().lower() in ("1", "true", "yes"):
        return True
    if str(value).strip().lower() in ("0", "false", "no", ""):
        return False
    raise ValueError(f"inner_simple must be true or false, got {value!r}")


def _is_multiple_choice(context) -> bool:
    if not isinstance(context, str):
        return False
    try:
        parse_mcq_prompt(context)
    except ValueError:
        return False
    return True


def _text(output) -> str:
    text, _counts = unwrap_generation_output(output)
    return text if isinstance(text, str) else ""


class RetryingLMM(lmms):
    """Delegate to an inner model; re-ask unparseable multiple-choice answers."""

    def __init__(
        self,
        inner: str = "",
        retries: int | str = DEFAULT_MAX_RETRIES,
        inner_simple: bool | str = False,
        **inner_args,
    ):
        super().__init__()
        if not inner:
            raise ValueError("--model retry needs model_args inner=<model name or module:Class>")
        self.max_retries = int(retries)
        if self.max_retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries!r}")
        self.inner = resolve_model(inner, _flag(inner_simple))(**inner_args)
        self.inner.task_dict = self.task_dict  # lmms-eval fills the wrapper's dict in place
        # lmms-eval reads the run's kind from the model object (evaluator: lm.is_simple) after
        # creating it, and builds chat or simple requests accordingly: take the inner model's
        self.is_simple = getattr(self.inner, "is_simple", True)

    def __getattr__(self, name):  # rank, world_size, accelerator, ... of the inner model
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def rank(self):
        return self.inner.rank

    @property
    def world_size(self):
        return self.inner.world_size

    def generate_until(self, requests: Sequence[Instance]) -> list:
        raw: dict[int, object] = {}

        def ask(indices: list[int]) -> list[str]:
            outputs = self.inner.generate_until([requests[i] for i in indices])
            for i, output in zip(indices, outputs):
                raw[i] = output
            return [_text(o) for o in outputs]

        retryable = [_is_multiple_choice(r.args[0]) for r in requests]
        attempts = ask_with_retries(
            ask, len(requests), max_retries=self.max_retries, retryable=retryable.__getitem__
        )
        for request, tried, multiple_choice in zip(requests, attempts, retryable):
            if not multiple_choice:
                continue
            task, split, doc_id = request.args[-2], request.args[-1], request.args[-3]
            try:
                doc = self.task_dict[task][split][doc_id]
            except (KeyError, IndexError, TypeError):
                continue  # a task that is not ours: nothing reads the log
            ATTEMPTS.put(doc_key(doc), tried)
        return [raw[i] for i in range(len(requests))]

    def loglikelihood(self, requests: Sequence[Instance]):
        return self.inner.loglikelihood(requests)  # a score, never a parse failure

    def generate_until_multi_round(self, requests):
        return self.inner.generate_until_multi_round(requests)
