"""The LLM judge's HTTP client against hostile loopback servers started here (127.0.0.1 only): it
never follows a redirect (so the API key never reaches another host), stops at its deadline however
slowly the status line and headers trickle in, and turns every malformed reply into one clear
EndpointError."""

import json
import socket
import threading
import time

import pytest

from medvigil.chat_client import EndpointError, chat
from medvigil.cli import main

KEY = "sk-test-secret"
GOOD = '{"is_refusal": true, "is_critical": false}'
BODY = json.dumps({"choices": [{"message": {"content": GOOD}}]}).encode()


class RawServer:
    """Answers every connection with ``script``: (bytes, pause after) pairs; records what it
    received."""

    def __init__(self, script):
        self.script, self.received = script, []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                data = b""
                try:
                    while b"\r\n\r\n" not in data:
                        data += conn.recv(65536) or b"\r\n\r\n"
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                    while len(body) < length:
                        body += conn.recv(65536) or b" " * length
                    self.received.append(data)
                    for piece, pause in self.script:
                        conn.sendall(piece)
                        time.sleep(pause)
                except OSError:
                    pass

    def close(self):
        self.sock.close()


@pytest.fixture()
def serve():
    servers = []

    def start(script):
        servers.append(RawServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _ask(url, **kwargs):
    return chat(url, {"messages": [{"role": "user", "content": "q"}]}, api_key=KEY, **kwargs)


def _ok_reply(body=BODY, extra=b""):
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_well_formed_reply_is_read_control(serve):
    server = serve([(_ok_reply(), 0)])
    assert _ask(server.url) == GOOD
    assert b"Authorization: Bearer " + KEY.encode() in server.received[0]


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_not_followed_and_gets_no_key(serve, code):
    elsewhere = serve([(_ok_reply(), 0)])
    redirect = serve(
        [(b"HTTP/1.1 %d Moved\r\nLocation: %s/chat/completions\r\nContent-Length: 0\r\n\r\n"
          % (code, elsewhere.url.encode()), 0)]
    )  # fmt: skip
    with pytest.raises(EndpointError, match=f"HTTP {code} redirect to .* not followed"):
        _ask(redirect.url, attempts=3, backoff=0.01)
    time.sleep(0.1)
    assert len(redirect.received) == 1 and elsewhere.received == []  # not retried, never sent there


def _drip(data: bytes, pause: float):
    return [(data[i : i + 1], pause) for i in range(len(data))]


@pytest.mark.parametrize(
    "script",
    [
        _drip(b"HTTP/1.1 200 OK\r\n", 0.2),  # the status line trickles
        [(b"HTTP/1.1 200 OK\r\n", 0)] + _drip(b"X-Slow: " + b"a" * 60 + b"\r\n", 0.1),  # a header
        [(b"HTTP/1.1 100 Continue\r\n\r\n", 0.2)] * 40,  # endless interim replies
    ],
    ids=["status-line", "header", "100-continue"],
)
def test_the_deadline_holds_however_the_head_trickles(serve, script):
    server = serve(script)
    started = time.monotonic()
    with pytest.raises(EndpointError, match="ran out"):
        _ask(server.url, timeout=30, deadline=time.monotonic() + 0.8)
    assert time.monotonic() - started < 3  # each byte came well within any per-read timeout


def test_the_per_attempt_timeout_bounds_a_trickle_too(serve):
    server = serve(_drip(b"HTTP/1.1 200 OK\r\n", 0.2))
    started = time.monotonic()
    with pytest.raises(EndpointError, match="ran out"):
        _ask(server.url, timeout=0.8)
    assert time.monotonic() - started < 3


HOSTILE = {
    "garbage": ([(b"\x00\x1b[31mgarbage\r\n\r\n", 0)], "malformed HTTP reply"),
    "http-0.9": ([(BODY, 0)], "malformed HTTP reply"),
    "chunk-cut": (
        [(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n" + BODY[:20], 0)],
        "cut short",
    ),
    "chunk-size-garbage": (
        [(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0)],
        "cut short",
    ),
    "huge-chunk-size": (
        [(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffff\r\nabc", 0)],
        "cut short",
    ),
    "length-lie": ([(_ok_reply()[:-10], 0)], "cut short"),
    "200kb-header": ([(_ok_reply(extra=b"X-Big: " + b"a" * 200_000 + b"\r\n"), 0)], "header"),
    "101-headers": (
        [(_ok_reply(extra=b"".join(b"X-H%d: v\r\n" % i for i in range(101))), 0)],
        "more than 100 headers",
    ),
    "switching": ([(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 0)], "HTTP 101"),
    "empty": ([], "closed without a reply"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_malformed_replies_are_one_clear_error(serve, name):
    script, reason = HOSTILE[name]
    server = serve(script)
    with pytest.raises(EndpointError, match=reason) as caught:
        _ask(server.url, attempts=2, backoff=0.01, timeout=3)
    message = str(caught.value)
    assert server.url in message and "\x1b" not in message and len(message) < 700


def test_the_command_reports_hostile_endpoints_without_a_traceback(serve, tmp_path, capsys):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question": "q", "answer": "I cannot see an image."}) + "\n")
    for name in ("http-0.9", "101-headers", "chunk-cut"):
        server = serve(HOSTILE[name][0])
        code = main(["judge", str(answers), "--llm", server.url, "--llm-attempts", "1"])
        err = capsys.readouterr().err
        assert code == 2 and "every request failed" in err and "Traceback" not in err
