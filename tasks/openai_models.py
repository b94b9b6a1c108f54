"""``--model openai``: lmms-eval 0.7.3's OpenAI-compatible client, with log-likelihoods.

lmms-eval's client raises ``NotImplementedError`` for log-likelihood requests. An
OpenAI-compatible chat API returns no probability for a given continuation, but it returns the
log-probabilities of the reply's first token and of its most likely alternatives (``logprobs``,
``top_logprobs``). These subclasses (registered as ``openai``, chat by default, simple with
``--force_simple``) score a continuation from them:

* one request per doc and prompt (``max_tokens`` 1, temperature 0, ``logprobs`` true,
  ``top_logprobs`` 20, the API's maximum), images first and the text after, as the chat class
  lays out a doc; a doc without visuals is sent as its text alone;
* a continuation must be one word (``yes``, ``no``, ``A``, ``B``); the alternatives that count
  for it are the listed first tokens that spell that word once white space and the punctuation
  ``.,:;!?"'()`` around them are removed, ignoring case (``Yes``, `` yes``, ``YES.``); their
  probabilities are added;
* a word no listed token spells gets the smallest listed log-probability, an upper bound on its
  own (p(yes) is then an approximation; both words absent give 0.5).

So p(yes) = softmax over the two scores approximates the model's probability of answering yes
rather than no with its first token. ``mediconfusion_ps`` (whole option texts as continuations)
cannot be scored this way: the API gives no probability for a reply it did not generate; such a
request is an error naming the continuation.
"""

import time
from concurrent.futures import ThreadPoolExecutor

from lmms_eval.models.chat.openai import OpenAICompatible as OpenAIChat
from lmms_eval.models.simple.openai import OpenAICompatible as OpenAISimple

from medvigil.runs.chat_loglikelihood import ChatLoglikelihood
from medvigil.scoring.loglikelihood import continuation_word, word_logprob, word_of

TOP_LOGPROBS = 20


class _Loglikelihood:
    """Shared by both classes (mixed into lmms-eval's OpenAICompatible)."""

    def _top_logprobs(self, context: str, visuals: list) -> list[tuple[str, float]]:
        content = [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}}
            for image in map(self.encode_image, visuals)
        ]
        payload = {
            "model": self.model_version,
            "messages": [
                {"role": "user", "content": content + [{"type": "text", "text": context}]}
            ],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": TOP_LOGPROBS,
        }
        for attempt in range(max(1, int(self.max_retries))):
            try:
                response = self.client.chat.completions.create(**payload)
                first = response.choices[0].logprobs.content[0]
                top = [(t.token, float(t.logprob)) for t in first.top_logprobs or []]
                return top or [(first.token, float(first.logprob))]
            except Exception:
                if attempt == max(1, int(self.max_retries)) - 1:
                    raise
                time.sleep(self.retry_backoff_s)
        raise AssertionError("unreachable")

    def loglikelihood(self, requests):
        from PIL import Image

        keys, asks = [], {}
        for request in requests:
            context, continuation, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            continuation = continuation if isinstance(continuation, str) else continuation(doc)
            key = (task, split, doc_id, context)
            keys.append((key, continuation_word(continuation)))
            if key not in asks:
                visuals = [v for v in (doc_to_visual(doc) or []) if isinstance(v, Image.Image)]
                asks[key] = (context, visuals)
        with ThreadPoolExecutor(max_workers=max(1, int(self.num_concurrent))) as pool:
            tops = dict(zip(asks, pool.map(lambda a: self._top_logprobs(*a), asks.values())))
        out = []
        for key, word in keys:
            top = tops[key]
            greedy = word_of(max(top, key=lambda t: t[1])[0]) == word
            out.append((word_logprob(top, word), greedy))
        return out


class OpenAIScored(_Loglikelihood, OpenAISimple):
    """lmms-eval's simple ``openai`` with first-token log-likelihoods."""


class OpenAIChatScored(ChatLoglikelihood, _Loglikelihood, OpenAIChat):
    """lmms-eval's chat ``openai`` with first-token log-likelihoods."""
