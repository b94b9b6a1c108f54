"""One client for OpenAI-compatible ``/chat/completions`` endpoints (standard library only), for
every LLM judge.

Every call is bounded: each attempt has one clock (``timeout``, and the optional monotonic
``deadline``) that covers connecting, the status line, every header and the body, however slowly
they trickle in (each receive is given only the time left); the reply is at most
:data:`MAX_REPLY_BYTES`, a header line at most 64 KiB and at most 100 headers (``http.client``'s
limits). Retries with doubling backoff on timeouts, connection errors, HTTP 429 and 5xx. A redirect
is never followed: the request, and its ``Authorization`` header, goes to the configured host only.
Any failure -- a malformed or HTTP/0.9 reply, a chunk cut short, an oversized header -- is an
:class:`EndpointError` naming the URL, never a traceback.
"""

import http.client
import io
import json
import os
import ssl
import time
from urllib.parse import urlsplit

__all__ = ["EndpointError", "MAX_REPLY_BYTES", "chat"]

MAX_REPLY_BYTES = 1 << 20  # a judge's reply is a few hundred bytes; 1 MiB is generous
_CHUNK = 1 << 14
_RETRY_HTTP = frozenset({408, 425, 429, 500, 502, 503, 504})
_MAX_ERROR_CHARS = 300


class EndpointError(RuntimeError, OSError):
    """Every attempt at the endpoint failed; the message names the URL and the last error."""


class _Unusable(ValueError):
    """A reply that arrived but cannot be used; retrying the same request will not help."""


def _shown(text) -> str:
    """A peer's bytes or text for an error message: printable, at most :data:`_MAX_ERROR_CHARS`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = "".join(c if c.isprintable() else "?" for c in str(text)[:_MAX_ERROR_CHARS])
    return text


class _DeadlineReader(io.RawIOBase):
    """The socket's bytes, each receive given only the time left before ``until``."""

    def __init__(self, raw, sock, until: float):
        self._raw, self._sock, self._until = (
            raw,
            sock,
            until,
        )  # raw: the socket's file (holds it open)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self._until - time.monotonic()
        if left > 0:
            self._sock.settimeout(left)
            try:
                return self._raw.readinto(buffer)
            except TimeoutError:
                pass
        raise TimeoutError("the attempt's time (timeout or deadline) ran out receiving the reply")

    def close(self) -> None:
        self._raw.close()
        super().close()


def _connection(url: str, until: float):
    """An HTTP(S) connection whose replies are read against ``until`` (:class:`_DeadlineReader`)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Unusable(f"not an http(s) URL: {_shown(url)}")

    class Reply(http.client.HTTPResponse):
        def __init__(self, sock, *args, **kwargs):
            super().__init__(sock, *args, **kwargs)
            self.fp = io.BufferedReader(_DeadlineReader(self.fp.detach(), sock, until), _CHUNK)

    base = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    extra = {"context": ssl.create_default_context()} if parts.scheme == "https" else {}
    connection = base(
        parts.hostname, parts.port, timeout=max(until - time.monotonic(), 0.001), **extra
    )
    connection.response_class = Reply
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return connection, path


def _post(url: str, data: bytes, headers: dict, until: float) -> bytes:
    """One attempt: the reply body of a 200, else an exception (:func:`chat` sorts them)."""
    connection, path = _connection(url, until)
    try:
        connection.request("POST", path, body=data, headers=headers)
        reply = connection.getresponse()
        if 300 <= reply.status < 400:
            where = _shown(reply.getheader("Location", "(no Location)"))
            raise _Unusable(f"HTTP {reply.status} redirect to {where} not followed")
        if reply.status != 200:
            raise _HTTPStatus(reply.status, _shown(reply.read(_MAX_ERROR_CHARS)))
        body = bytearray()
        while chunk := reply.read(_CHUNK):
            body += chunk
            if len(body) > MAX_REPLY_BYTES:
                raise _Unusable(f"reply larger than {MAX_REPLY_BYTES} bytes")
        if reply.length:  # a Content-Length the connection closed short of
            raise http.client.IncompleteRead(bytes(body), reply.length)
        return bytes(body)
    finally:
        connection.close()


class _HTTPStatus(Exception):
    def __init__(self, code: int, text: str):
        super().__init__(f"HTTP {code}: {text}")
        self.code = code


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


def _attempt(url: str, data: bytes, headers: dict, until: float) -> tuple[str | None, str, bool]:
    """(content or None, error, retry?) of one attempt; every failure becomes a message."""
    try:
        return _content(_post(url, data, headers, until)), "", False
    except _Unusable as exc:
        return None, str(exc), False
    except _HTTPStatus as exc:
        return None, str(exc), exc.code in _RETRY_HTTP
    except http.client.RemoteDisconnected as exc:
        return None, f"connection closed without a reply ({_shown(exc)})", True
    except http.client.IncompleteRead as exc:
        return None, f"reply cut short ({len(exc.partial)} bytes read)", True
    except (
        http.client.HTTPException
    ) as exc:  # HTTP/0.9, garbage status, 64 KiB header line, 101 headers
        return None, f"malformed HTTP reply: {type(exc).__name__}: {_shown(exc)}", False
    except (OSError, ValueError) as exc:  # timeouts, refused connections, TLS errors
        return None, f"{type(exc).__name__}: {_shown(exc)}", True


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
    """The first choice's message text for the request ``body`` (``model``, ``messages``, ...) at
    the API root ``base_url`` (``https://api.openai.com/v1``, a vLLM server's ``.../v1``);
    ``api_key`` defaults to ``OPENAI_API_KEY``. ``timeout`` bounds each attempt as a whole,
    ``deadline`` (monotonic) all of them."""
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
        until = time.monotonic() + timeout
        until = until if deadline is None else min(until, deadline)
        if until <= time.monotonic():
            last = last or "deadline passed before the request"
            break
        tries += 1
        content, last, retry = _attempt(url, data, headers, until)
        if content is not None:
            return content
        if not retry:
            break
    raise EndpointError(f"judge endpoint {_shown(url)} failed {tries} time(s); last error: {last}")
