"""``--model idefics2``: lmms-eval 0.7.3's Idefics2 class, safe on text-only docs.

lmms-eval's ``idefics2`` reads ``visual[0]`` of every doc, so the first doc without an image
(a ``knowledge_only`` probe of ``medvigil_mcq``, every doc of ``*_noimg``) raises
``IndexError`` and the run is lost. This subclass (registered under lmms-eval's own name, see
:func:`medvigil.tasks.baseline_models.manifests`) sends such a doc as its prompt alone (the
processor's chat template, a user turn with the text and no image) with lmms-eval's generation
settings for the class, and hands every doc with visuals to lmms-eval's code unchanged, one
request at a time (so no input carries over). Log-likelihoods stay unsupported, as in lmms-eval.
"""

from lmms_eval.models.simple.idefics2 import Idefics2


class Idefics2TextSafe(Idefics2):
    """lmms-eval's simple ``idefics2``; docs without visuals are sent as text alone."""

    def _generate_text(self, context: str, gen_kwargs: dict) -> str:
        import torch

        kwargs = {k: v for k, v in gen_kwargs.items() if k not in ("until", "image_aspect_ratio")}
        kwargs.setdefault("max_new_tokens", 1024)
        kwargs.setdefault("temperature", 0)
        message = [{"role": "user", "content": [{"type": "text", "text": context}]}]
        prompt = self._processor.apply_chat_template(message, add_generation_prompt=True)
        inputs = self._processor(text=[prompt], return_tensors="pt")
        inputs = {k: v.to(self.device) for k, v in inputs.items()}
        with torch.inference_mode():
            output = self.model.generate(**inputs, **kwargs)
        new = output[0, inputs["input_ids"].shape[1] :]
        return self.tokenizer.decode(new, skip_special_tokens=True)

    def generate_until(self, requests):
        out = []
        for request in requests:
            context, gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            if doc_to_visual(self.task_dict[task][split][doc_id]):
                out.extend(super().generate_until([request]))
            else:
                out.append(self._generate_text(context, dict(gen_kwargs)))
        return out
