"""One client for OpenAI-compatible ``/chat/completions`` endpoints (standard library only).

Used by every LLM judge in the project: the MedVIGIL open-ended judge (:mod:`medvigil.suites.medvigil.llm_judge`)
and the MediConfusion free-form judge (:mod:`medvigil.suites.mediconfusion.modes`).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

__all__ = ["EndpointError", "chat"]


class EndpointError(RuntimeError, OSError):
    """Every attempt at the endpoint failed; the message names the URL and the last error."""


def chat(base_url: str, body: dict, *, api_key: str | None = None, attempts: int = 1, timeout: float = 60.0) -> str:
    """The first choice's message text for the request ``body`` (``model``, ``messages``, ...).

    ``base_url`` is the API root (``https://api.openai.com/v1``, a vLLM server's ``.../v1``);
    ``api_key`` defaults to ``OPENAI_API_KEY`` when set. Up to ``attempts`` tries.
    """
    url = base_url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode()
    last = ""
    for _ in range(max(1, attempts)):
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return json.loads(reply.read().decode("utf-8"))["choices"][0]["message"]["content"] or ""
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}: {exc.read()[:300].decode(errors='replace')}"
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            last = f"{type(exc).__name__}: {exc}"
    raise EndpointError(f"judge endpoint {url} failed {max(1, attempts)} time(s); last error: {last}")
