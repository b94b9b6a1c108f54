"""``--model qwen2_5_vl``: lmms-eval 0.7.3's Qwen2.5-VL classes, with log-likelihoods.

lmms-eval's Qwen2.5-VL classes raise ``NotImplementedError`` for log-likelihood requests, so
``cbd_binary``, ``mediconfusion_gd`` and ``mediconfusion_ps`` cannot run on them. These
subclasses add the method and change nothing else; registered under lmms-eval's own name
(``qwen2_5_vl``, chat class by default, simple with ``--force_simple``; see
:func:`medvigil.tasks.baseline_models.manifests`).

A continuation's value is the mean negative log-likelihood of its tokens (the loss lmms-eval's
HuggingFace classes return, positive; :mod:`medvigil.scoring.loglikelihood` reads it by sign), so
MediConfusion's per-token PS normalisation applies as for ``llava_hf``. The prompt is the one the
class generates from: the class's system prompt, the doc's images (sized as lmms-eval's own
generation path sizes them) and its text in the user turn, then the assistant turn's opening. The
continuation is scored with its leading white space removed (lmms-eval prefixes the task's
``target_delimiter``, a space, but the assistant's reply starts on a fresh line). A doc without
visuals is scored on its text alone.
"""

from lmms_eval.models.chat.qwen2_5_vl import Qwen2_5_VL as Qwen2_5_VLChat
from lmms_eval.models.simple.qwen2_5_vl import Qwen2_5_VL as Qwen2_5_VLSimple

from medvigil.runs.chat_loglikelihood import ChatLoglikelihood


def continuation_loss(model, inputs, n_prompt: int) -> tuple[float, bool]:
    """(mean negative log-likelihood of the tokens after ``n_prompt``, whether greedy decoding
    gives them)."""
    import torch

    with torch.inference_mode():
        logits = model(**inputs).logits
    target = inputs["input_ids"][0, n_prompt:]
    logp = torch.log_softmax(logits[0, n_prompt - 1 : -1].float(), dim=-1)
    loss = -float(logp.gather(1, target[:, None]).mean())
    return loss, bool((logp.argmax(dim=-1) == target).all())


def shared_prefix(a, b) -> int:
    """How many leading token ids two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class _Loglikelihood:
    """The log-likelihood method shared by both classes (mixed into lmms-eval's Qwen2_5_VL)."""

    def _messages(self, context: str, visuals: list) -> list:
        images = [
            {
                "type": "image",
                "image": self._encode_image_data_url(v),
                "max_pixels": self.max_pixels,
                "min_pixels": self.min_pixels,
            }
            for v in visuals
        ]
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return system + [{"role": "user", "content": images + [{"type": "text", "text": context}]}]

    def loglikelihood(self, requests):
        from PIL import Image
        from qwen_vl_utils import process_vision_info

        out = []
        for request in requests:
            context, continuation, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            continuation = continuation if isinstance(continuation, str) else continuation(doc)
            visuals = [v for v in (doc_to_visual(doc) or []) if isinstance(v, Image.Image)]
            messages = self._messages(context.replace("<image>", ""), visuals)
            prompt = self.processor.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
            images = process_vision_info([messages])[0] if visuals else None
            whole = self.processor(
                text=[prompt + continuation.lstrip()], images=images, return_tensors="pt"
            ).to(self.device)
            alone = self.processor(text=[prompt], images=images, return_tensors="pt")
            n_prompt = alone["input_ids"].shape[1]
            if (
                shared_prefix(alone["input_ids"][0].tolist(), whole["input_ids"][0].tolist())
                < (n_prompt)
                or n_prompt >= whole["input_ids"].shape[1]
            ):
                raise ValueError(
                    f"{task} doc {doc_id}: the prompt's tokens are not a prefix of prompt + "
                    f"continuation {continuation!r}; cannot score the continuation alone"
                )
            out.append(continuation_loss(self.model, whole, n_prompt))
        return out


class Qwen2_5_VLScored(_Loglikelihood, Qwen2_5_VLSimple):
    """lmms-eval's simple ``qwen2_5_vl`` with log-likelihoods."""


class Qwen2_5_VLChatScored(ChatLoglikelihood, _Loglikelihood, Qwen2_5_VLChat):
    """lmms-eval's chat ``qwen2_5_vl`` with log-likelihoods (its runs get log-likelihood
    requests)."""
