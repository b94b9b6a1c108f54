"""Class 9: ``serve-baseline`` answers every request (4xx for malformed ones, never a dropped
connection or a traceback), decodes posted images under the pixel budget, and holds 200
concurrent loopback clients."""

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
    headers = {
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        **(headers or {}),
    }
    lines += [f"{k}: {v}".encode() for k, v in headers.items() if v is not None]
    return _raw(server, b"\r\n".join(lines) + b"\r\n\r\n" + body, **kw)


def _chat(content) -> bytes:
    return json.dumps(
        {"model": "constant:letter=B", "messages": [{"role": "user", "content": content}]}
    ).encode()


MALFORMED = [
    ("content part not an object", _chat(["text", 3]), {}, 400, "content part must be an object"),
    (
        "content not a list",
        _chat({"type": "text"}),
        {},
        400,
        "'content' must be a string or a list",
    ),
    (
        "image_url not an object",
        _chat([{"type": "image_url", "image_url": 5}]),
        {},
        400,
        "image_url",
    ),
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
    (
        "Content-Length too large",
        b"{}",
        {"Content-Length": str(MAX_BODY_BYTES + 1)},
        413,
        "request body must be",
    ),
    ("chunked", b"{}", {"Transfer-Encoding": "chunked", "Content-Length": None}, 411, "chunked"),
    (
        "image bomb",
        _chat(
            [
                {"type": "text", "text": PROMPT},
                {
                    "type": "image_url",
                    "image_url": {
                        "url": "data:image/png;base64," + base64.b64encode(png_bomb()).decode()
                    },
                },
            ]
        ),
        {},
        400,
        "144,000,000 pixels",
    ),
    (
        "image not base64",
        _chat([{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}]),
        {},
        400,
        "undecodable",
    ),
    (
        "remote image",
        _chat([{"type": "image_url", "image_url": {"url": "http://example.com/x.png"}}]),
        {},
        400,
        "data: URLs",
    ),
]


@pytest.mark.parametrize(
    ("name", "body", "headers", "status", "message"), MALFORMED, ids=[m[0] for m in MALFORMED]
)
def test_every_malformed_request_gets_an_answer(server, name, body, headers, status, message):
    got, payload = _post(server, body, headers)
    assert got == status, payload
    assert message in payload["error"]["message"]


def test_a_body_shorter_than_its_length(server):
    got, payload = _post(server, b'{"model": "x"}', {"Content-Length": "500"}, shut=True)
    assert got == 400 and "ended after" in payload["error"]["message"]


def test_garbage_request_line_and_unknown_routes(server):
    assert (
        _raw(server, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")[0] == 400
    )  # a TLS hello
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
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
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


# ---------------------------------------------------------------- round 2 (issue 29): bounded per
# request and per connection


def _png(size=(64, 64)) -> str:
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("L", size, 9).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _with_images(n: int) -> bytes:
    return _chat(
        [
            {"type": "text", "text": PROMPT},
            *[{"type": "image_url", "image_url": {"url": _png()}}] * n,
        ]
    )


def test_the_pixel_budget_counts_every_image_of_a_request(server, monkeypatch):
    """16 images of ~95 MP each once took 5.8 GB: the budget is per request, not per image (scaled
    down here: a budget of 3 images of 64 x 64)."""
    from medvigil.baselines import server as module

    monkeypatch.setattr(module, "REQUEST_MAX_PIXELS", 3 * 64 * 64)
    got, payload = _post(server, _with_images(4))
    assert got == 400, payload
    message = payload["error"]["message"]
    assert (
        "image 4 of the request" in message
        and "12,288 pixels the request's images may hold in all" in message
    )
    monkeypatch.setattr(
        module, "REQUEST_MAX_PIXELS", 3 * 64 * 64 - 1
    )  # the third image's header exceeds what is left
    got, payload = _post(server, _with_images(3))
    assert got == 400, payload
    assert "image 3 of the request" in payload["error"]["message"]
    assert (
        "12,287 pixels in all (8,192 used by the images before it)" in payload["error"]["message"]
    )
    monkeypatch.setattr(module, "REQUEST_MAX_PIXELS", 3 * 64 * 64)
    got, payload = _post(server, _with_images(3))  # control: within the budget
    assert got == 200, payload


def _idle_connections(server, n):
    host, port = server.httpd.server_address[:2]
    return [socket.create_connection((host, port), timeout=30) for _ in range(n)]


def test_new_clients_are_answered_while_1000_idle_connections_are_held(server):
    idle = _idle_connections(server, 1000)
    try:
        start = time.monotonic()
        answers = [_post(server, _chat(PROMPT), timeout=30) for _ in range(5)]
        assert [status for status, _ in answers] == [200] * 5
        assert time.monotonic() - start < 30
    finally:
        for sock in idle:
            sock.close()


def test_idle_connections_get_408_after_the_idle_timeout_or_when_room_is_needed(monkeypatch):
    from medvigil.baselines import server as module

    monkeypatch.setattr(module, "MAX_WAITING", 10)
    with (
        BaselineServer() as server
    ):  # its own server: no connection of an earlier test is waiting (they would be the oldest)
        _idle_connections_get_408(server, module, monkeypatch)


def _idle_connections_get_408(server, module, monkeypatch) -> None:
    oldest = _idle_connections(server, 10)
    newer = _idle_connections(server, 10)  # each pushes one of the oldest out
    try:
        for sock in oldest:
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
            assert data.startswith(b"HTTP/1.0 408"), data[:100]
        assert _post(server, _chat(PROMPT))[0] == 200  # control: a real request is answered
        monkeypatch.setattr(module, "IDLE_SECONDS", 0.5)
        for sock in newer:
            assert sock.recv(4096).startswith(b"HTTP/1.0 408")
    finally:
        for sock in oldest + newer:
            sock.close()


def test_the_command_under_a_4_gb_cap_keeps_accepting_with_1000_idle_connections():
    """The finding as a user meets it: ``medvigil serve-baseline`` under a 4 GB address-space cap
    (a thread per idle connection once exhausted it)."""
    import os
    import resource
    import subprocess
    from types import SimpleNamespace
    from urllib.parse import urlparse

    from conftest import PYTHON

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    proc = subprocess.Popen(
        [PYTHON, "-m", "medvigil", "serve-baseline", "--seconds", "120"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    idle = []
    try:
        url = urlparse(proc.stdout.readline().strip())
        served = SimpleNamespace(httpd=SimpleNamespace(server_address=(url.hostname, url.port)))
        idle = _idle_connections(served, 1000)
        assert [_post(served, _chat(PROMPT), timeout=30)[0] for _ in range(3)] == [200] * 3
    finally:
        for sock in idle:
            sock.close()
        proc.terminate()
        proc.communicate(timeout=30)


def test_new_clients_are_answered_while_1000_trickling_connections_are_held(server):
    """Connections that sent part of a request (head unfinished, or a body shorter than announced)
    hold no thread either: they wait in the selector like idle ones."""
    socks = _idle_connections(server, 1000)
    try:
        for i, sock in enumerate(socks):
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                if i % 2
                else b'POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 500\r\n\r\n{"model":'
            )
        start = time.monotonic()
        assert [_post(server, _chat(PROMPT), timeout=30)[0] for _ in range(5)] == [200] * 5
        assert time.monotonic() - start < 30
    finally:
        for sock in socks:
            sock.close()


def test_unfinished_requests_share_a_byte_budget(server, monkeypatch):
    from medvigil.baselines import server as module

    monkeypatch.setattr(module, "MAX_BUFFERED_BYTES", 4096)
    host, port = server.httpd.server_address[:2]
    with socket.create_connection((host, port), timeout=30) as hog:
        hog.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + b" " * 8000
        )
        data = b""
        while chunk := hog.recv(4096):
            data += chunk
        assert data.startswith(b"HTTP/1.0 503")
    assert _post(server, _chat(PROMPT))[0] == 200  # control: a request within the budget


def test_bare_line_feeds_are_read_as_a_whole_request(server):
    body = _chat(PROMPT)
    status, payload = _raw(
        server,
        b"POST /v1/chat/completions HTTP/1.0\nContent-Type: application/json\n"
        + f"Content-Length: {len(body)}\n\n".encode()
        + body,
    )
    assert status == 200 and payload["choices"][0]["message"]["content"] == "B"
