"""One client for OpenAI-compatible ``/chat/completions`` endpoints (standard library only), for every LLM judge.

Every call is bounded (timeout per attempt, optional monotonic deadline, :data:`MAX_REPLY_BYTES`, retries
with doubling backoff on timeouts, connection errors, HTTP 429 and 5xx); any failure, including a malformed
reply, is an :class:`EndpointError`, never a traceback.
"""

import json
import os
import time
import urllib.error
import urllib.request

__all__ = ["EndpointError", "MAX_REPLY_BYTES", "chat"]

MAX_REPLY_BYTES = 1 << 20  # a judge's reply is a few hundred bytes; 1 MiB is generous
_CHUNK = 1 << 14
_RETRY_HTTP = frozenset({408, 425, 429, 500, 502, 503, 504})


class EndpointError(RuntimeError, OSError):
    """Every attempt at the endpoint failed; the message names the URL and the last error."""


class _Unusable(ValueError):
    """A reply that arrived but cannot be used; retrying the same request will not help."""


def _read_bounded(reply, deadline: float | None) -> bytes:
    data = bytearray()
    while chunk := reply.read1(
        _CHUNK
    ):  # what one receive brings, so a drip cannot outlast the deadline
        data += chunk
        if len(data) > MAX_REPLY_BYTES:
            raise _Unusable(f"reply larger than {MAX_REPLY_BYTES} bytes")
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("deadline passed while reading the reply")
    return bytes(data)


def _content(raw: bytes) -> str:
    try:
        reply = json.loads(raw.decode("utf-8"))
        content = reply["choices"][0]["message"]["content"]
    except (
        UnicodeDecodeError,
        json.JSONDecodeError,
        RecursionError,
        KeyError,
        IndexError,
        TypeError,
    ) as exc:
        raise _Unusable(f"reply is not a chat completion ({type(exc).__name__})") from None
    if not isinstance(content, str):
        raise _Unusable(f"message content is {type(content).__name__}, not a string")
    return content


def chat(
    base_url: str,
    body: dict,
    *,
    api_key: str | None = None,
    attempts: int = 1,
    timeout: float = 60.0,
    deadline: float | None = None,
    backoff: float = 1.0,
) -> str:
    """The first choice's message text for the request ``body`` (``model``, ``messages``, ...) at the API root
    ``base_url`` (``https://api.openai.com/v1``, a vLLM server's ``.../v1``); ``api_key`` defaults to ``OPENAI_API_KEY``."""
    url = base_url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode()
    last, tries = "", 0
    for attempt in range(max(1, attempts)):
        if attempt:
            pause = backoff * 2 ** (attempt - 1)
            if deadline is not None and time.monotonic() + pause >= deadline:
                last += "; deadline reached before the next retry"
                break
            time.sleep(pause)
        left = timeout if deadline is None else min(timeout, deadline - time.monotonic())
        if left <= 0:
            last = last or "deadline passed before the request"
            break
        tries += 1
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=left) as reply:
                return _content(_read_bounded(reply, deadline))
        except _Unusable as exc:
            last = str(exc)
            break
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}: {exc.read(300).decode(errors='replace')}"
            if exc.code not in _RETRY_HTTP:
                break
        except (urllib.error.URLError, OSError, ValueError) as exc:
            last = f"{type(exc).__name__}: {exc}"
    raise EndpointError(f"judge endpoint {url} failed {tries} time(s); last error: {last}")
