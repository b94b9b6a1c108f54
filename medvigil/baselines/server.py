"""A small OpenAI-compatible chat-completions server that answers with a baseline policy.

It exists so the path users take with hosted models (lmms-eval's ``openai`` adapter,
images sent as base64 data URLs) is exercised end to end on this machine. It binds to
loopback only, answers every request (400/404/408/411/413 for bad ones, 500 if a policy
fails; never a dropped connection), accepts a backlog of :data:`LISTEN_BACKLOG` connections
with one thread each, decodes posted images under the project's pixel budget
(:func:`medvigil.images.imaging.decode_image`) and at most :data:`DECODE_SLOTS` at a time. ``model`` in the request selects the policy: ``random``, ``constant``,
``blind`` or ``grounded``; a suffix ``:KEY=VALUE`` passes a parameter
(``constant:letter=E``, ``random:seed=3``).
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

from medvigil.baselines.registry import POLICIES, make_policy
from medvigil.errors import DataError
from medvigil.files.input_files import loads_json
from medvigil.images.imaging import decode_image

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_IMAGES = 16  # per request
LISTEN_BACKLOG = 1024  # pending connections the kernel queues (the standard library's default is 5)
DECODE_SLOTS = 2  # images decoded at once: bounds memory when many clients post large images
READ_TIMEOUT_SECONDS = 30  # a client that stops sending its body gets 408
_decode_slots = threading.BoundedSemaphore(DECODE_SLOTS)


class RequestError(ValueError):
    """A client error, answered with HTTP 400 and an OpenAI-style error body."""


def _policy_from_model(model: str):
    name, _, arg = model.partition(":")
    params = {}
    if arg:
        key, sep, value = arg.partition("=")
        if not sep:
            raise RequestError(f"model parameter must look like KEY=VALUE, got {arg!r}")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    if name not in POLICIES:
        raise RequestError(f"unknown model {name!r}; available: {', '.join(sorted(POLICIES))}")
    try:
        return make_policy(name, **params)
    except (TypeError, ValueError) as exc:
        raise RequestError(str(exc)) from exc


def _decode_data_url(url: str) -> Image.Image:
    if not url.startswith("data:") or ";base64," not in url:
        raise RequestError("only base64 data: URLs are accepted for images (no network fetches)")
    try:
        raw = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
        with _decode_slots:
            return decode_image(raw, name="image in request")  # the project's pixel budget applies
    except binascii.Error as exc:
        raise RequestError(f"undecodable image in request: {exc}") from exc
    except DataError as exc:
        raise RequestError(str(exc)) from exc


def split_messages(messages: list) -> tuple[str, list[Image.Image]]:
    """Return the user text (system turns excluded) and the attached images, in order."""
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    texts, images = [], []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in {"system", "user", "assistant"}:
            raise RequestError("each message needs a role of system, user or assistant")
        if message["role"] != "user":
            continue
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if parts is not None and not isinstance(parts, list):
            raise RequestError("a message's 'content' must be a string or a list of content parts")
        for part in parts or []:
            if not isinstance(part, dict):
                raise RequestError(f"each content part must be an object, got {type(part).__name__}")
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                image_url = part.get("image_url")
                url = image_url.get("url", "") if isinstance(image_url, dict) else image_url
                if not isinstance(url, str):
                    raise RequestError("'image_url' must be an object with a string 'url'")
                if len(images) >= MAX_IMAGES:
                    raise RequestError(f"at most {MAX_IMAGES} images per request")
                images.append(_decode_data_url(url))
            else:
                raise RequestError(f"unsupported content part type {part.get('type')!r}")
    return "\n".join(texts), images


def completion(body: dict) -> dict:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("'model' is required")
    prompt, images = split_messages(body.get("messages"))
    try:
        text = _policy_from_model(model).answer(prompt, images)
    except ValueError as exc:  # e.g. a prompt without an options block
        raise RequestError(str(exc)) from exc
    return {
        "id": f"chatcmpl-medvigil-{abs(hash((model, prompt))) % 10**12}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1, "total_tokens": len(prompt.split()) + 1},
    }


class _Handler(BaseHTTPRequestHandler):
    server_version = "medvigil-baseline/1"

    timeout = READ_TIMEOUT_SECONDS  # per-connection socket timeout (slow or stalled clients)
    # unparsable request lines still get a status line and a JSON error (not an HTTP/0.9 bare page)
    default_request_version = "HTTP/1.0"

    def send_error(self, code, message=None, explain=None):  # the parser's errors, answered as JSON
        short, long = self.responses.get(code, ("Error", ""))
        self._error(code, f"{message or short}{': ' + (explain or long) if (explain or long) else ''}")

    def log_message(self, format, *args):  # keep test output quiet
        return

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/") in {"/v1/models", "/models"}:
            self._send(200, {"object": "list", "data": [{"id": n, "object": "model"} for n in sorted(POLICIES)]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def _error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        self.close_connection = True  # the rest of a refused body is never read
        self._send(status, {"error": {"message": message, "type": kind}})

    def do_POST(self):
        if self.path.rstrip("/") not in {"/v1/chat/completions", "/chat/completions"}:
            self._error(404, f"no route {self.path}", "not_found")
            return
        try:
            body = self._read_body()
            if body is None:
                return  # already answered
            self._send(200, completion(body))
        except RequestError as exc:
            self._error(400, str(exc))
        except Exception as exc:  # a policy bug must still get an answer, not a dropped connection
            self._error(500, f"internal error: {type(exc).__name__}: {exc}", "server_error")

    def _read_body(self) -> dict | None:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._error(411, "chunked bodies are not supported; send Content-Length")
            return None
        text = self.headers.get("Content-Length")
        if text is None:
            self._error(411, "Content-Length is required")
            return None
        if not text.strip().isdigit():
            self._error(400, f"Content-Length must be a non-negative integer, got {text[:40]!r}")
            return None
        length = int(text)
        if length == 0 or length > MAX_BODY_BYTES:
            self._error(413 if length else 400, f"request body must be 1..{MAX_BODY_BYTES} bytes, got {length}")
            return None
        try:
            raw = self.rfile.read(length)
        except TimeoutError:
            self._error(408, f"request body not received within {READ_TIMEOUT_SECONDS} s")
            return None
        if len(raw) < length:
            self._error(400, f"request body ended after {len(raw)} of {length} bytes")
            return None
        try:
            body = loads_json(raw.decode("utf-8"), "request body")
        except UnicodeDecodeError as exc:
            raise RequestError(f"request body is not UTF-8 (byte offset {exc.start})") from None
        except DataError as exc:
            raise RequestError(exc.problems[0].message) from None
        if not isinstance(body, dict):
            raise RequestError("request body must be a JSON object")
        return body


class _Server(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up: nothing to answer, no traceback
        return


class BaselineServer:
    """Run the server on a loopback port in a background thread (a context manager)."""

    def __init__(self, port: int = 0):
        self.httpd = _Server((LOOPBACK, port), _Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> BaselineServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
