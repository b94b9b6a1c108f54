"""A small OpenAI-compatible chat-completions server answering with a baseline policy, so the path
of hosted models (lmms-eval's ``openai`` adapter, base64 data-URL images) runs end to end on this
machine.

Loopback only; every request gets an answer (400/404/408/411/413 for bad ones, 500 if a policy
fails; never a dropped connection). Posted images are decoded under one pixel budget per request
(:func:`decode_request_images`). ``model`` selects the policy (``random``, ``constant``, ``blind``,
``grounded``); a suffix ``:KEY=VALUE`` passes a parameter (``constant:letter=E``,
``random:seed=3``).
"""

import base64
import binascii
import contextlib
import io
import json
import re
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer

from PIL import Image

from medvigil.baselines import POLICIES, make_policy
from medvigil.errors import DataError
from medvigil.files.input_files import loads_json
from medvigil.images.imaging import DEFAULT_MAX_PIXELS, decode_image

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_IMAGES = 16  # per request
REQUEST_MAX_PIXELS = (
    DEFAULT_MAX_PIXELS  # all the images of one request together (one image may use it all)
)
LISTEN_BACKLOG = 1024  # pending connections the kernel queues (the standard library's default is 5)
DECODE_SLOTS = (
    2  # requests holding decoded images at once: bounds memory when many clients post large images
)
READ_TIMEOUT_SECONDS = 30  # a client that stops reading its answer is dropped
WORKERS = 32  # requests answered at once (threads); further ready requests wait their turn
MAX_WAITING = 4096  # accepted connections that have sent nothing yet
IDLE_SECONDS = 30  # how long a connection may take to send its whole request
MAX_HEAD_BYTES = 64 * 1024  # request line and headers
MAX_BUFFERED_BYTES = (
    256 * 1024 * 1024
)  # bytes of unfinished requests held, all connections together
_decode_slots = threading.BoundedSemaphore(DECODE_SLOTS)


class RequestError(ValueError):
    """A client error, answered with HTTP ``status`` (400 by default) and an OpenAI-style error
    body."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


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


def _image_bytes(url: str) -> bytes:
    if not url.startswith("data:") or ";base64," not in url:
        raise RequestError("only base64 data: URLs are accepted for images (no network fetches)")
    try:
        return base64.b64decode(url.split(";base64,", 1)[1], validate=True)
    except binascii.Error as exc:
        raise RequestError(f"undecodable image in request: {exc}") from exc


def decode_request_images(encoded: list[bytes]) -> list[Image.Image]:
    """Decode a request's images under ONE pixel budget (:data:`REQUEST_MAX_PIXELS`): each may use
    what the ones before it left, checked from its header before its pixels are allocated."""
    images, left = [], REQUEST_MAX_PIXELS
    for n, raw in enumerate(encoded, start=1):
        if left < 1:
            raise RequestError(
                f"image {n} of the request: the images before it used up the "
                f"{REQUEST_MAX_PIXELS:,} pixels the request's images may hold in all"
            )
        try:
            image = decode_image(raw, name=f"image {n} of the request", max_pixels=left)
        except DataError as exc:
            used = f" ({REQUEST_MAX_PIXELS - left:,} used by the images before it)" if n > 1 else ""
            raise RequestError(
                f"{exc}; the request's images may hold {REQUEST_MAX_PIXELS:,} pixels in all{used}"
            ) from exc
        left -= image.width * image.height
        images.append(image)
    return images


def split_messages(messages: list) -> tuple[str, list[bytes]]:
    """Return the user text (system turns excluded) and the attached images (still encoded), in
    order."""
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    texts, images = [], []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in {
            "system",
            "user",
            "assistant",
        }:
            raise RequestError("each message needs a role of system, user or assistant")
        if message["role"] != "user":
            continue
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if parts is not None and not isinstance(parts, list):
            raise RequestError("a message's 'content' must be a string or a list of content parts")
        for part in parts or []:
            if not isinstance(part, dict):
                raise RequestError(
                    f"each content part must be an object, got {type(part).__name__}"
                )
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                image_url = part.get("image_url")
                url = image_url.get("url", "") if isinstance(image_url, dict) else image_url
                if not isinstance(url, str):
                    raise RequestError("'image_url' must be an object with a string 'url'")
                if len(images) >= MAX_IMAGES:
                    raise RequestError(f"at most {MAX_IMAGES} images per request")
                images.append(_image_bytes(url))
            else:
                raise RequestError(f"unsupported content part type {part.get('type')!r}")
    return "\n".join(texts), images


def completion(body: dict) -> dict:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("'model' is required")
    prompt, encoded = split_messages(body.get("messages"))
    policy = _policy_from_model(model)
    # decoded pixels are held by at most DECODE_SLOTS requests at once, from decoding to the answer
    with _decode_slots if encoded else contextlib.nullcontext():
        images = decode_request_images(encoded)
        try:
            text = policy.answer(prompt, images)
        except ValueError as exc:  # e.g. a prompt without an options block
            raise RequestError(str(exc)) from exc
        del images
    return {
        "id": f"chatcmpl-medvigil-{abs(hash((model, prompt))) % 10**12}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": len(prompt.split()),
            "completion_tokens": 1,
            "total_tokens": len(prompt.split()) + 1,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    server_version = "medvigil-baseline/1"

    timeout = (
        READ_TIMEOUT_SECONDS  # per-connection socket timeout (a client not reading its answer)
    )
    # unparsable request lines still get a status line and a JSON error (not an HTTP/0.9 bare page)
    default_request_version = "HTTP/1.0"

    def setup(
        self,
    ):  # the request was read whole by the server's selector (_Server): read it from there
        super().setup()
        self.rfile.close()
        self.rfile = io.BytesIO(self.server.request_bytes(self.request))

    def send_error(self, code, message=None, explain=None):  # the parser's errors, answered as JSON
        short, long = self.responses.get(code, ("Error", ""))
        self._error(
            code, f"{message or short}{': ' + (explain or long) if (explain or long) else ''}"
        )

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
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": n, "object": "model"} for n in sorted(POLICIES)],
                },
            )
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
            self._send(200, completion(self._read_body()))
        except RequestError as exc:
            self._error(exc.status, str(exc))
        except Exception as exc:  # a policy bug must still get an answer, not a dropped connection
            self._error(500, f"internal error: {type(exc).__name__}: {exc}", "server_error")

    def _read_body(self) -> dict:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise RequestError("chunked bodies are not supported; send Content-Length", 411)
        text = self.headers.get("Content-Length")
        if text is None:
            raise RequestError("Content-Length is required", 411)
        if not text.strip().isdigit():
            raise RequestError(f"Content-Length must be a non-negative integer, got {text[:40]!r}")
        length = int(text)
        if length == 0 or length > MAX_BODY_BYTES:
            raise RequestError(
                f"request body must be 1..{MAX_BODY_BYTES} bytes, got {length}",
                413 if length else 400,
            )
        raw = self.rfile.read(length)
        if len(raw) < length:
            raise RequestError(f"request body ended after {len(raw)} of {length} bytes")
        try:
            body = loads_json(raw.decode("utf-8"), "request body")
        except UnicodeDecodeError as exc:
            raise RequestError(f"request body is not UTF-8 (byte offset {exc.start})") from None
        except DataError as exc:
            raise RequestError(exc.problems[0].message) from None
        if not isinstance(body, dict):
            raise RequestError("request body must be a JSON object")
        return body


class _Server(HTTPServer):
    """Connections are read in one selector thread, without blocking, until their request is whole,
    so an idle or trickling one costs a socket, no thread; then a worker of a fixed pool answers it.
    Each has :data:`IDLE_SECONDS` to send its request, at most :data:`MAX_WAITING` wait (the oldest
    gets 408) and they buffer at most :data:`MAX_BUFFERED_BYTES` together (503 beyond)."""

    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address, handler):
        super().__init__(address, handler)
        self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="medvigil-baseline")
        self._waiting = selectors.DefaultSelector()
        self._since: dict[socket.socket, float] = {}  # waiting connection -> when it was accepted
        self._received: dict[socket.socket, bytearray] = {}  # its bytes so far
        self._buffered = 0
        self._requests: dict[socket.socket, bytes] = {}  # whole requests handed to the workers
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._waiter = threading.Thread(
            target=self._wait_for_requests, daemon=True, name="medvigil-baseline-waiter"
        )
        self._waiter.start()

    def process_request(self, request, client_address):  # (the accepting thread)
        request.setblocking(False)
        with self._lock:
            if len(self._since) >= MAX_WAITING:
                self._drop(min(self._since, key=self._since.get), _IDLE_ANSWER)
            self._since[request] = time.monotonic()
            self._received[request] = bytearray()
            self._waiting.register(request, selectors.EVENT_READ, client_address)

    def _wait_for_requests(self) -> None:
        while not self._stop.is_set():
            ready = self._waiting.select(
                timeout=_POLL_SECONDS
            )  # (epoll sees sockets registered meanwhile)
            with self._lock:
                for key, _ in ready:
                    if key.fileobj in self._since:
                        self._receive(key.fileobj, key.data)
                stale = time.monotonic() - IDLE_SECONDS
                for sock in [s for s, t in self._since.items() if t < stale]:
                    self._drop(sock, _IDLE_ANSWER)

    def _receive(self, sock: socket.socket, client_address) -> None:
        """Read what ``sock`` has sent; hand the request to a worker once it is whole (the lock is
        held)."""
        try:
            data = sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        buffer = self._received[sock]
        if data:
            if self._buffered + len(data) > MAX_BUFFERED_BYTES:
                self._drop(sock, _BUSY_ANSWER)
                return
            buffer += data
            self._buffered += len(data)
        if data and not _request_is_whole(buffer):
            return
        self._forget(sock)
        if not buffer:  # closed without a byte: nothing to answer
            self.shutdown_request(sock)
            return
        self._requests[sock] = bytes(buffer)
        self._workers.submit(self._answer, sock, client_address)

    def _forget(self, sock: socket.socket) -> None:
        del self._since[sock]
        self._buffered -= len(self._received.pop(sock))
        self._waiting.unregister(sock)

    def _drop(self, sock: socket.socket, answer: bytes) -> None:
        """Answer a waiting connection ``answer`` and close it (the lock is held)."""
        self._forget(sock)
        with contextlib.suppress(OSError):
            sock.send(answer)
        self.shutdown_request(sock)

    def request_bytes(self, sock: socket.socket) -> bytes:
        """The whole request read from ``sock`` (for its handler)."""
        with self._lock:
            return self._requests.pop(sock, b"")

    def _answer(self, request, client_address) -> None:
        try:
            request.setblocking(True)
            self.finish_request(request, client_address)
        except OSError:  # a client that hung up (reset, broken pipe, timeout): nothing to answer
            pass
        finally:
            with self._lock:
                self._requests.pop(request, None)
            self.shutdown_request(request)

    def handle_error(self, request, client_address):  # (accept errors) no traceback
        return

    def server_close(self) -> None:
        self._stop.set()
        self._waiter.join(timeout=5)
        with self._lock:
            for sock in list(self._since):
                self._drop(sock, _IDLE_ANSWER)
        self._waiting.close()
        self._workers.shutdown(wait=False, cancel_futures=True)
        super().server_close()


_HEAD_ENDS = (b"\r\n\r\n", b"\n\n")  # (bare line feeds are accepted, as http.server does)
_LENGTH = re.compile(rb"\ncontent-length:[ \t]*(\d{1,12})[ \t]*\r?\n", re.IGNORECASE)


def _request_is_whole(buffer: bytearray) -> bool:
    """Whether ``buffer`` holds a whole request: its head and the body its Content-Length announces.
    A head too long, or without a usable length, is whole as it is: the handler answers it."""
    ends = [(at, len(mark)) for mark in _HEAD_ENDS if (at := buffer.find(mark)) != -1]
    if not ends:
        return len(buffer) > MAX_HEAD_BYTES
    end, mark = min(ends)
    length = _LENGTH.search(buffer, 0, end + mark)
    if length is None or int(length.group(1)) > MAX_BODY_BYTES:
        return True
    return len(buffer) >= end + mark + int(length.group(1))


def _answer_bytes(status: str, message: str, kind: str) -> bytes:
    body = json.dumps({"error": {"message": message, "type": kind}}).encode()
    return (
        f"HTTP/1.0 {status}\r\nContent-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


_IDLE_ANSWER = _answer_bytes(
    "408 Request Timeout", f"no whole request received within {IDLE_SECONDS} s", "timeout"
)
_BUSY_ANSWER = _answer_bytes(
    "503 Service Unavailable", "too many bytes of unfinished requests held; retry", "server_busy"
)
_POLL_SECONDS = 0.2


class BaselineServer:
    """Run the server on a loopback port in a background thread (a context manager)."""

    def __init__(self, port: int = 0):
        self.httpd = _Server((LOOPBACK, port), _Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "BaselineServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
