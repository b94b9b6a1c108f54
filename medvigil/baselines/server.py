"""A small OpenAI-compatible chat-completions server that answers with a baseline policy.

It exists so the path users take with hosted models (lmms-eval's ``openai`` adapter,
images sent as base64 data URLs) is exercised end to end on this machine. It binds to
loopback only. ``model`` in the request selects the policy: ``random``, ``constant``,
``blind`` or ``grounded``; a suffix ``:KEY=VALUE`` passes a parameter
(``constant:letter=E``, ``random:seed=3``).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

from medvigil.baselines.policies import POLICIES, make_policy

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 64 * 1024 * 1024


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
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (binascii.Error, OSError) as exc:
        raise RequestError(f"undecodable image in request: {exc}") from exc
    return image.convert("RGB")


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
        for part in parts or []:
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                images.append(_decode_data_url(str((part.get("image_url") or {}).get("url", ""))))
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

    def do_POST(self):
        if self.path.rstrip("/") not in {"/v1/chat/completions", "/chat/completions"}:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            length = int(self.headers.get("Content-Length", "0"))
            if length <= 0 or length > MAX_BODY_BYTES:
                raise RequestError(f"request body must be 1..{MAX_BODY_BYTES} bytes, got {length}")
            body = json.loads(self.rfile.read(length))
            if not isinstance(body, dict):
                raise RequestError("request body must be a JSON object")
            self._send(200, completion(body))
        except (RequestError, json.JSONDecodeError) as exc:
            self._send(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})


class BaselineServer:
    """Run the server on a loopback port in a background thread (a context manager)."""

    def __init__(self, port: int = 0):
        self.httpd = ThreadingHTTPServer((LOOPBACK, port), _Handler)
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
