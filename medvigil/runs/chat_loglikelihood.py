"""Log-likelihood requests for lmms-eval's chat model classes that can score them.

lmms-eval 0.7.3 builds every task of a chat-class run as a ``ConfigurableMessagesTask``, whose
``construct_requests`` asserts "Currently messages is used for generation only": a chat class
never receives a ``loglikelihood`` request, so ``cbd_binary``, ``mediconfusion_gd`` and
``mediconfusion_ps`` stop before the model is asked. Our chat classes that do score
continuations (:class:`ChatLoglikelihood` in their bases) let those tasks build lmms-eval's
ordinary log-likelihood requests instead (``(context, continuation, doc_to_visual, doc_id, task,
split)``, exactly what a simple class receives); generation requests are built as before.
The change is made once per process when such a class is created, which lmms-eval does before
it builds any task.
"""

LOGLIKELIHOOD_TYPES = ("loglikelihood", "multiple_choice")


def serve_loglikelihood_requests() -> None:
    """Let chat-class runs build lmms-eval's log-likelihood requests (idempotent)."""
    from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

    if getattr(ConfigurableMessagesTask, "_medvigil_loglikelihood", False):
        return
    messages_requests = ConfigurableMessagesTask.construct_requests

    def construct_requests(self, doc_id, ctx, **kwargs):
        if self.OUTPUT_TYPE in LOGLIKELIHOOD_TYPES:
            return ConfigurableTask.construct_requests(self, doc_id, ctx, **kwargs)
        return messages_requests(self, doc_id, ctx, **kwargs)

    construct_requests.__doc__ = messages_requests.__doc__
    ConfigurableMessagesTask.construct_requests = construct_requests
    ConfigurableMessagesTask._medvigil_loglikelihood = True


class ChatLoglikelihood:
    """Mixed into a chat class whose ``loglikelihood`` works: its runs get log-likelihood
    requests."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        serve_loglikelihood_requests()
