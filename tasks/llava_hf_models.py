"""``--model llava_hf``: lmms-eval 0.7.3's LLaVA-HF classes, safe on text-only docs.

Our image tasks hold text-only docs (``knowledge_only`` probes in ``medvigil_mcq``, every doc of
``*_noimg``, ``readiness_text*``, the no-image arms of ``cbd``/``cbd_binary``): the paper's
protocol withholds the image entirely, it does not replace it. lmms-eval 0.7.3's ``llava_hf``
mishandles such a doc: the chat class fails inside the processor (``IndexError``), and the simple
class's ``generate_until`` never builds inputs for a doc without visuals, so it silently answers
with the *previous* doc's prompt and image.

These subclasses send a doc without visuals as its prompt alone (the same chat template, no
``<image>`` token, no pixel values) and hand every doc with visuals to lmms-eval's own code
unchanged, one request at a time (both classes run batch size 1 anyway), so no input can carry
over from one doc to the next. Log-likelihoods are computed here for every doc (0.7.3's method
fails on image docs under transformers 5) and keep lmms-eval's convention for this class, the
mean loss (read by :mod:`medvigil.scoring.loglikelihood`). Both are registered under lmms-eval's
own name (``--model llava_hf``: the chat class; add ``--force_simple`` for the simple one; the
name ``medvigil_llava_hf`` still works), see :func:`medvigil.tasks.baseline_models.manifests`.
"""

from lmms_eval.api.instance import GenerationResult, TokenCounts
from lmms_eval.models.chat.llava_hf import LlavaHf as LlavaHfChat
from lmms_eval.models.simple.llava_hf import VICUNA_CHAT_TEMPLATE
from lmms_eval.models.simple.llava_hf import LlavaHf as LlavaHfSimple
from lmms_eval.protocol import ChatMessages

from medvigil.runs.chat_loglikelihood import ChatLoglikelihood

TEXT_ONLY = "text_only"  # what a doc without visuals is sent as


class _TextOnly:
    """The text-only path shared by both classes (mixed into lmms-eval's LlavaHf)."""

    def _template(self, messages: list, add_generation_prompt: bool) -> str:
        # the template lmms-eval's simple class picks: model_args chat_template, the tokenizer's,
        # else Vicuna
        template = self.chat_template or self.tokenizer.chat_template or VICUNA_CHAT_TEMPLATE
        return self.tokenizer.apply_chat_template(
            messages,
            chat_template=template,
            tokenize=False,
            add_generation_prompt=add_generation_prompt,
        )

    def _generate_text(self, text: str, gen_kwargs: dict) -> tuple[str, int]:
        import torch

        inputs = self.tokenizer(text, return_tensors="pt", add_special_tokens=False).to(
            self._device
        )
        temperature = gen_kwargs.get("temperature", 0) or 0
        with torch.inference_mode():
            cont = self.model.generate(
                **inputs,
                do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None,
                top_p=gen_kwargs.get("top_p"),
                num_beams=gen_kwargs.get("num_beams", 1),
                max_new_tokens=gen_kwargs.get("max_new_tokens", 1024),
                use_cache=self.use_cache,
                pad_token_id=self.eot_token_id,
                eos_token_id=self.eot_token_id,
            )
        new = cont[:, inputs["input_ids"].shape[-1] :]
        return self.tokenizer.batch_decode(new, skip_special_tokens=True)[0], int(new.shape[-1])

    def _doc(self, task: str, split: str, doc_id: int) -> dict:
        return self.task_dict[task][split][doc_id]

    def loglikelihood(self, requests):
        """lmms-eval's mean loss over the continuation tokens (its convention for this class).

        Replaces 0.7.3's method, which also fails on docs *with* an image under transformers 5
        (it measures the prompt length with a processor call without the image: "Found 1 <image>
        tokens in the text but no images were passed"). The prompt is laid out as lmms-eval does:
        one ``<image>`` per visual and a newline before the context, none for a text-only doc.
        """
        import torch

        out = []
        for request in requests:
            context, continuation, doc_to_visual, doc_id, task, split = request.args
            doc = self._doc(task, split, doc_id)
            continuation = continuation if isinstance(continuation, str) else continuation(doc)
            visuals = list(doc_to_visual(doc) or [])
            prefix = f"{' '.join(['<image>'] * len(visuals))}\n" if visuals else ""
            messages = [
                {"role": "user", "content": prefix + context},
                {"role": "assistant", "content": continuation},
            ]
            prompt = self._template(messages[:1], add_generation_prompt=True)
            whole = self._template(messages, add_generation_prompt=False)
            if visuals:
                inputs = self._image_processor(
                    text=[whole], images=visuals, return_tensors="pt"
                ).to(self._device, self.model.dtype)
                n_prompt = self._image_processor(
                    text=[prompt], images=visuals, return_tensors="pt"
                )["input_ids"].shape[1]
            else:
                inputs = self.tokenizer(whole, return_tensors="pt", add_special_tokens=False).to(
                    self._device
                )
                n_prompt = len(self.tokenizer(prompt, add_special_tokens=False)["input_ids"])
            labels = inputs["input_ids"].clone()
            labels[:, :n_prompt] = -100
            with torch.inference_mode():
                outputs = self.model(**inputs, labels=labels)
            greedy = outputs["logits"].argmax(dim=-1)[:, n_prompt - 1 : -1]
            out.append(
                (
                    float(outputs["loss"].item()),
                    bool((greedy == inputs["input_ids"][:, n_prompt:]).all()),
                )
            )
        return out


class LlavaHfTextSafe(_TextOnly, LlavaHfSimple):
    """lmms-eval's simple ``llava_hf``; docs without visuals are sent as text alone."""

    def generate_until(self, requests):
        out = []
        for request in requests:
            context, gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            if doc_to_visual(self._doc(task, split, doc_id)):
                out.extend(super().generate_until([request]))
                continue
            text = self._template(
                [{"role": "user", "content": context}], add_generation_prompt=True
            )
            out.append(self._generate_text(text, dict(gen_kwargs))[0])
        return out


class LlavaHfChatTextSafe(ChatLoglikelihood, _TextOnly, LlavaHfChat):
    """lmms-eval's chat ``llava_hf``; docs whose messages hold no image are sent as text alone.
    Its runs get log-likelihood requests (:mod:`medvigil.runs.chat_loglikelihood`)."""

    def generate_until(self, requests):
        out = []
        for request in requests:
            _context, doc_to_messages, gen_kwargs, doc_id, task, split = request.args
            messages = ChatMessages(messages=doc_to_messages(self._doc(task, split, doc_id)))
            images, videos, _audios = messages.extract_media()
            if images or videos:
                out.extend(super().generate_until([request]))
                continue
            text = self._image_processor.apply_chat_template(
                messages.model_dump()["messages"], tokenize=False, add_generation_prompt=True
            )
            answer, n_tokens = self._generate_text(text, dict(gen_kwargs))
            out.append(
                GenerationResult(text=answer, token_counts=TokenCounts(output_tokens=n_tokens))
            )
        return out
