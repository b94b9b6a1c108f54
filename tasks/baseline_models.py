"""lmms-eval adapters for the medvigil sanity baselines.

Registered through the ``lmms_eval.models`` entry-point group (see setup.cfg), so after
``pip install medvigil`` they are available as ``--model random|constant|blind|grounded``
(canonical ids ``medvigil_<name>``), and re-exported by :mod:`medvigil.models` for lmms-eval's
plugin hook, which also finds the tasks::

    LMMS_EVAL_PLUGINS=medvigil lmms-eval --model constant --model_args letter=A \
        --tasks medvigil_mcq --output_path out --log_samples
    lmms-eval --model constant --model_args letter=A --tasks medvigil_mcq \
        --include_path "$(medvigil tasks-path)" --output_path out --log_samples

The policies themselves live in :mod:`medvigil.baselines` (no lmms-eval import there);
this module only adapts lmms-eval requests to ``policy.answer(prompt, images)``.
"""

import contextlib
import string
from collections.abc import Sequence

from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from PIL import Image
from tqdm import tqdm

from medvigil.baselines import POLICIES, make_policy
from medvigil.baselines.sampling import choice_log_probability
from medvigil.mcq.prompting import parse_mcq_prompt
from medvigil.runs.process_group import destroy_at_exit

_UNLIKELY = -1e4  # log-probability of a continuation the policy did not choose


def _visuals(doc_to_visual, doc) -> list[Image.Image]:
    if doc_to_visual is None:
        return []
    visuals = doc_to_visual(doc) or []
    return [v for v in visuals if isinstance(v, Image.Image)]


class BaselineLMM(lmms):
    """Serve one medvigil policy to lmms-eval (generation and log-likelihood requests)."""

    policy_name = ""

    def __init__(
        self,
        batch_size: int | str = 1,
        max_batch_size: int | None = None,
        device: str | None = None,
        **policy_params,
    ):
        super().__init__()
        destroy_at_exit()
        # lmms-eval passes model_args as strings; policies validate their own types.
        self.policy = make_policy(self.policy_name, **_coerce(policy_params))

    @property
    def device(self):
        """The policies compute on the CPU; lmms-eval's data-parallel evaluator gathers
        per-rank counts on ``lm.device`` (gloo under ``torchrun`` / ``accelerate launch --cpu``)."""
        import torch

        return torch.device("cpu")

    def _visuals(self, doc_to_visual, doc) -> list[Image.Image]:
        """The doc's images, decoded only for a policy that reads them."""
        return _visuals(doc_to_visual, doc) if self.policy.reads_images else []

    def _doc(self, task: str, split: str, doc_id: int) -> dict:
        return self.task_dict[task][split][doc_id]

    def _answer(self, context: str, doc: dict, images: list) -> tuple[str, str | None]:
        """(response, chosen option text or None).

        Prompts with neither an options block nor ``choices`` are open-ended questions, answered
        with the policy's free text. Prompts without an options block (MediConfusion prefix-score
        and free-form modes) are answered over the doc's ``choices`` column: the baselines need
        options to choose from, which a real model in those modes does not get. That is acceptable
        for sanity baselines and documented in tasks/mediconfusion/README.md. A doc with
        ``answer_format: "letter"`` (MediConfusion MC/GD in the authors' prompt layout, which has no
        ``Options:`` block) is answered with the chosen letter instead of the option text.
        """
        try:
            parse_mcq_prompt(context)
        except ValueError:
            choices = doc.get("choices")
            if not isinstance(choices, list) or not choices:  # open-ended question
                return self.policy.answer_open(context, images), None
            letters = string.ascii_uppercase[: len(choices)]
            prompt = (
                context.rstrip()
                + "\nOptions:\n"
                + "\n".join(f"{x}. {c}" for x, c in zip(letters, choices))
            )
            letter = self.policy.answer(prompt, images).strip()
            if doc.get("answer_format") == "letter":
                return letter, None
            return letter, (str(choices[letters.index(letter)]) if letter in letters else None)
        return self.policy.answer(context, images), None

    def generate_until(self, requests: Sequence[Instance]) -> list[str]:
        out = []
        for request in tqdm(
            requests, desc=f"baseline:{self.policy_name}", disable=len(requests) < 200
        ):
            context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            doc = self._doc(task, split, doc_id)
            letter, text = self._answer(context, doc, self._visuals(doc_to_visual, doc))
            out.append(text if text is not None else letter)
        return out

    def loglikelihood(self, requests: Sequence[Instance]) -> list[tuple[float, bool]]:
        """Score a continuation against the policy's own (unsampled) answer, deterministically.

        The answer is a letter (the continuation is compared after stripping a trailing
        period) or, for prompts without options, the chosen option text. At temperature 0
        (the default) the answer scores 0 and any other continuation is very unlikely; a
        sampling policy (``temperature=t``) gives the log-probability of its sampling
        distribution over the doc's ``choices``
        (:func:`medvigil.baselines.sampling.choice_log_probability`), so p(yes) is graded.
        """
        out = []
        sampler = getattr(self.policy, "sampler", None)
        for request in requests:
            context, continuation, doc_to_visual, doc_id, task, split = request.args
            doc = self._doc(task, split, doc_id)
            with (
                sampler.paused()
                if sampler is not None
                else contextlib.nullcontext(0.0) as temperature
            ):
                letter, text = self._answer(context, doc, self._visuals(doc_to_visual, doc))
            chosen = text if text is not None else letter
            hit = continuation.strip().rstrip(".") == chosen.strip().rstrip(".")
            choices = doc.get("choices")
            if temperature and isinstance(choices, list) and len(choices) >= 2:
                out.append((choice_log_probability(hit, len(choices), temperature), hit))
            else:
                out.append((0.0 if hit else _UNLIKELY, hit))
        return out

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("medvigil baselines answer single-round prompts only")


def _coerce(params: dict) -> dict:
    out = {}
    for key, value in params.items():
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        out[key] = value
    return out


def _make_class(name: str) -> type[BaselineLMM]:
    cls = type(
        f"{name.capitalize()}Baseline",
        (BaselineLMM,),
        {"policy_name": name, "__doc__": POLICIES[name].__doc__},
    )
    cls.__module__ = __name__
    return cls


RandomBaseline = _make_class("random")
ConstantBaseline = _make_class("constant")
BlindBaseline = _make_class("blind")
GroundedBaseline = _make_class("grounded") if "grounded" in POLICIES else None


#: lmms-eval's own model names whose classes we replace (same arguments, same behaviour on
#: image docs): model id -> (simple class, chat class, extra aliases)
STOCK_CLASSES = {
    "llava_hf": (
        "medvigil.tasks.llava_hf_models.LlavaHfTextSafe",
        "medvigil.tasks.llava_hf_models.LlavaHfChatTextSafe",
        ("medvigil_llava_hf",),
    ),
    "idefics2": ("medvigil.tasks.idefics2_models.Idefics2TextSafe", None, ()),
    "qwen2_5_vl": (
        "medvigil.tasks.qwen_models.Qwen2_5_VLScored",
        "medvigil.tasks.qwen_models.Qwen2_5_VLChatScored",
        (),
    ),
    "openai": (
        "medvigil.tasks.openai_models.OpenAIScored",
        "medvigil.tasks.openai_models.OpenAIChatScored",
        (),
    ),
}


def manifests() -> list:
    """Entry point payload for lmms-eval's model registry: the baselines, ``retry``, and our
    classes under lmms-eval's own names (:data:`STOCK_CLASSES`: text-only docs sent as text,
    log-likelihoods). lmms-eval loads entry-point manifests after its built-in ones with
    ``overwrite=True``, so ``--model llava_hf`` (chat, or simple with ``--force_simple``) resolves
    to ours while medvigil is installed; the built-in aliases stay."""
    # imported here: importing lmms_eval.models at this module's top would load this entry
    # point while this module is only half initialised (when it is imported first)
    from lmms_eval.models.registry_v2 import ModelManifest

    from medvigil.tasks.launch_check import warn_single_process_launch

    warn_single_process_launch()
    out = []
    for cls in (RandomBaseline, ConstantBaseline, BlindBaseline, GroundedBaseline):
        if cls is None:
            continue
        out.append(
            ModelManifest(
                model_id=f"medvigil_{cls.policy_name}",
                simple_class_path=f"{__name__}.{cls.__name__}",
                aliases=(cls.policy_name,),
            )
        )
    out.append(  # --model journal (tasks/journal_model.py)
        ModelManifest(
            model_id="medvigil_journal",
            simple_class_path="medvigil.tasks.journal_model.JournalLMM",
            aliases=("journal",),
        )
    )
    out.append(
        ModelManifest(
            model_id="medvigil_retry",
            simple_class_path="medvigil.tasks.retrying_model.RetryingLMM",
            aliases=("retry",),
        )
    )
    for model_id, (simple, chat, aliases) in STOCK_CLASSES.items():
        out.append(
            ModelManifest(
                model_id=model_id, simple_class_path=simple, chat_class_path=chat, aliases=aliases
            )
        )
    return out
