"""Class 9: ``serve-baseline`` answers every request (4xx for malformed ones, never a dropped
connection or a traceback), decodes posted images under the pixel budget, and holds 200
concurrent loopback clients."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from test_rb_images import png_bomb

from medvigil.baselines.server import MAX_BODY_BYTES, BaselineServer

PROMPT = "Which side is the lesion on?\nA. Left\nB. Right\nAnswer with the letter."


@pytest.fixture(scope="module")
def server():
    with BaselineServer() as srv:
        yield srv


def _raw(server, payload: bytes, *, shut: bool = False, timeout: float = 10) -> tuple[int, dict]:
    """Send raw bytes; return (status, JSON body) of the answer (fails if the connection drops)."""
    host, port = server.httpd.server_address[:2]
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(payload)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1."), f"no HTTP answer: {data[:200]!r}"
    return int(head.split()[1]), json.loads(body) if body else {}


def _post(server, body: bytes, headers: dict | None = None, **kw) -> tuple[int, dict]:
    lines = [b"POST /v1/chat/completions HTTP/1.1", b"Host: x", b"Connection: close"]
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), **(headers or {})}
    lines += [f"{k}: {v}".encode() for k, v in headers.items() if v is not None]
    return _raw(server, b"\r\n".join(lines) + b"\r\n\r\n" + body, **kw)


def _chat(content) -> bytes:
    return json.dumps({"model": "constant:letter=B", "messages": [{"role": "user", "content": content}]}).encode()


MALFORMED = [
    ("content part not an object", _chat(["text", 3]), {}, 400, "content part must be an object"),
    ("content not a list", _chat({"type": "text"}), {}, 400, "'content' must be a string or a list"),
    ("image_url not an object", _chat([{"type": "image_url", "image_url": 5}]), {}, 400, "image_url"),
    ("not UTF-8", b'{"model": "\xff"}', {}, 400, "not UTF-8"),
    ("not JSON", b"{nope", {}, 400, "not valid JSON"),
    ("JSON array", b"[1, 2]", {}, 400, "must be a JSON object"),
    ("NaN", b'{"model": NaN}', {}, 400, "NaN is not a JSON number"),
    ("deep JSON", b"[" * 200_000 + b"]" * 200_000, {}, 400, "nested too deeply"),
    ("messages missing", b'{"model": "random"}', {}, 400, "'messages'"),
    ("Content-Length not a number", b"{}", {"Content-Length": "abc"}, 400, "Content-Length"),
    ("Content-Length negative", b"{}", {"Content-Length": "-5"}, 400, "Content-Length"),
    ("Content-Length missing", b"{}", {"Content-Length": None}, 411, "Content-Length is required"),
    ("Content-Length zero", b"", {"Content-Length": "0"}, 400, "request body must be"),
    ("Content-Length too large", b"{}", {"Content-Length": str(MAX_BODY_BYTES + 1)}, 413, "request body must be"),
    ("chunked", b"{}", {"Transfer-Encoding": "chunked", "Content-Length": None}, 411, "chunked"),
    ("image bomb", _chat([{"type": "text", "text": PROMPT}, {"type": "image_url", "image_url": {
        "url": "data:image/png;base64," + base64.b64encode(png_bomb()).decode()}}]), {}, 400, "144,000,000 pixels"),
    ("image not base64", _chat([{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}]), {}, 400, "undecodable"),
    ("remote image", _chat([{"type": "image_url", "image_url": {"url": "http://example.com/x.png"}}]), {}, 400, "data: URLs"),
]


@pytest.mark.parametrize(("name", "body", "headers", "status", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_every_malformed_request_gets_an_answer(server, name, body, headers, status, message):
    got, payload = _post(server, body, headers)
    assert got == status, payload
    assert message in payload["error"]["message"]


def test_a_body_shorter_than_its_length(server):
    got, payload = _post(server, b'{"model": "x"}', {"Content-Length": "500"}, shut=True)
    assert got == 400 and "ended after" in payload["error"]["message"]


def test_garbage_request_line_and_unknown_routes(server):
    assert _raw(server, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")[0] == 400  # a TLS hello
    assert _post(server, b"{}", {})[0] == 400
    host, port = server.httpd.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("GET", "/nope")
    assert conn.getresponse().status == 404


def test_a_policy_failure_is_a_500_not_a_dropped_connection(server, monkeypatch):
    from medvigil.baselines import server as module

    def broken(body):
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "completion", broken)
    got, payload = _post(server, _chat(PROMPT))
    assert got == 500 and "boom" in payload["error"]["message"]


def test_200_concurrent_clients_are_all_answered(server):
    """200 clients connect at once (the listen backlog must hold them) and each gets its answer."""
    n = 200
    host, port = server.httpd.server_address[:2]
    body = _chat(PROMPT)
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
               + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    barrier = threading.Barrier(n)

    def client(_):
        barrier.wait(timeout=30)
        with socket.create_connection((host, port), timeout=30) as sock:
            sock.sendall(request)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        head, _, payload = data.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(payload)["choices"][0]["message"]["content"]

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=n) as pool:
        answers = list(pool.map(client, range(n)))
    assert time.monotonic() - start < 60
    assert answers == [(200, "B")] * n
