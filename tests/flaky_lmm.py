"""A test-only lmms-eval model that fails to give a letter a set number of times.

Doc ``i`` of a task gets ``i % 5`` unparseable answers ("unsure") before it answers
"A", so under ``--model retry`` (3 retries) docs with 0-3 failures recover and docs
with 4 stay parse failures. Imported by ``inner=flaky_lmm:FlakyLMM`` with tests/ on
PYTHONPATH.
"""

from collections import Counter

from lmms_eval.api.model import lmms


class FlakyLMM(lmms):
    def __init__(self, **_ignored):
        super().__init__()
        self.asked = Counter()

    def generate_until(self, requests):
        out = []
        for request in requests:
            context, _kwargs, _visual, doc_id, task, split = request.args
            key = (task, doc_id)
            self.asked[key] += 1
            out.append("A" if self.asked[key] > doc_id % 5 else "unsure")
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError
