"""The ``--llm`` route is bounded: a loopback endpoint started here misbehaves in every way a
real one can (garbage, list content, deep JSON, huge or slow replies, transient 503s), and
every sample still ends labelled or marked failed -- no traceback, no hang."""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from medvigil.chat_client import MAX_REPLY_BYTES, EndpointError, chat
from medvigil.cli import main
from medvigil.suites.medvigil.scoring.llm_judge import LLMJudge, parse_reply, parse_verdict

GOOD = '{"is_refusal": true, "is_critical": false}'


def _completion(content) -> bytes:
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    calls: dict = {}

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = json.dumps(body["messages"])
        mode = next(
            (
                m
                for m in ("garbage", "list", "deep", "huge", "slow", "flaky", "drip", "html")
                if f"MODE:{m}" in text
            ),
            "good",
        )
        self.calls[mode] = self.calls.get(mode, 0) + 1
        if mode == "slow":
            time.sleep(2.0)
        if mode == "flaky" and self.calls[mode] == 1:
            return self._send(503, b'{"error": "busy"}')
        payload = {
            "good": _completion(GOOD),
            "flaky": _completion(GOOD),
            "slow": _completion(GOOD),
            "garbage": b"\x00\xffnot json at all",
            "html": b"<html>502 Bad Gateway</html>",
            "list": _completion([{"type": "text", "text": GOOD}]),
            "deep": b'{"choices": ' + b"[" * 200000 + b"]" * 200000 + b"}",
            "huge": _completion("x" * (MAX_REPLY_BYTES + 10)),
        }.get(mode)
        if mode == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
            return None
        return self._send(200, payload)

    def _send(self, code: int, data: bytes):
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout, deadline) and closed: nothing to do
            pass

    def log_message(self, *args):
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(
            sys.exc_info()[1], OSError
        ):  # a client that gave up and closed is expected
            super().handle_error(request, client_address)


@pytest.fixture()
def endpoint():
    _Handler.calls = {}
    server = _Server(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "mode, reason",
    [
        ("garbage", "not a chat completion"),
        ("html", "not a chat completion"),
        ("list", "content is list"),
        ("deep", "not a chat completion"),
        ("huge", "reply larger than"),
    ],
)
def test_unusable_replies_fail_cleanly_without_retrying(endpoint, mode, reason):
    with pytest.raises(EndpointError, match=reason):
        chat(
            endpoint,
            {"messages": [{"role": "user", "content": f"MODE:{mode}"}]},
            attempts=3,
            backoff=0.01,
        )
    assert _Handler.calls[mode] == 1  # the same request would get the same reply


def test_transient_errors_are_retried_with_backoff(endpoint):
    started = time.monotonic()
    reply = chat(
        endpoint, {"messages": [{"role": "user", "content": "MODE:flaky"}]}, attempts=3, backoff=0.2
    )
    assert reply == GOOD and _Handler.calls["flaky"] == 2 and time.monotonic() - started >= 0.2


def test_per_request_timeout_and_overall_deadline(endpoint):
    started = time.monotonic()
    with pytest.raises(EndpointError, match="(?i)timed out|deadline"):
        chat(
            endpoint,
            {"messages": [{"role": "user", "content": "MODE:slow"}]},
            timeout=0.3,
            attempts=1,
        )
    with pytest.raises(
        EndpointError, match="(?i)deadline"
    ):  # a reply dripping in under the read timeout
        chat(
            endpoint,
            {"messages": [{"role": "user", "content": "MODE:drip"}]},
            timeout=5,
            deadline=time.monotonic() + 0.5,
        )
    assert time.monotonic() - started < 5


def test_the_judge_marks_failed_samples_and_keeps_going(endpoint, tmp_path, capsys):
    modes = ["good", "garbage", "list", "deep", "huge", "slow", "flaky", "good"]
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "samples": [
                    {"question": f"q MODE:{m}", "answer": "I cannot see an image."} for m in modes
                ]
            }
        )
    )
    out = tmp_path / "out.json"
    started = time.monotonic()
    assert (
        main(
            [
                "judge",
                str(answers),
                "--judge",
                "authors-rule",
                "--llm",
                endpoint,
                "--llm-timeout",
                "0.3",
                "--llm-attempts",
                "2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert time.monotonic() - started < 30
    rows = json.loads(out.read_text())["samples"]
    failed = [m for m, r in zip(modes, rows) if "llm_error" in r]
    assert failed == ["garbage", "list", "deep", "huge", "slow"]
    assert all(r["llm_is_refusal"] is None for r in rows if "llm_error" in r)
    assert [r["llm_is_refusal"] for m, r in zip(modes, rows) if m in ("good", "flaky")] == [
        True,
        True,
        True,
    ]
    assert json.loads(out.read_text())["llm_failed"] == 5
    captured = capsys.readouterr()
    assert "5 of 8 sample(s) failed" in captured.out and "Traceback" not in captured.err


def test_an_overall_deadline_marks_the_rest_failed(endpoint, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "samples": [{"question": "MODE:good", "answer": "a"}] * 2
                + [{"question": "MODE:slow", "answer": "a"}] * 4
            }
        )
    )
    out = tmp_path / "out.json"
    started = time.monotonic()
    assert (
        main(
            [
                "judge",
                str(answers),
                "--judge",
                "authors-rule",
                "--llm",
                endpoint,
                "--llm-timeout",
                "0.4",
                "--llm-deadline",
                "1",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert time.monotonic() - started < 15
    rows = json.loads(out.read_text())["samples"]
    assert [("llm_error" in r) for r in rows] == [False, False, True, True, True, True]
    assert "deadline" in rows[-1]["llm_error"] and _Handler.calls["slow"] <= 3


def test_parsers_never_raise_on_hostile_text():
    deep = "{" + '"a": [' * 100000 + "]" * 100000 + "}"
    assert parse_reply(deep) == (None, None) and parse_verdict(deep) is None
    assert parse_reply("[1, 2]") == (None, None) and parse_verdict('["correct"]') is None


def test_judge_objects_carry_the_bounds():
    judge = LLMJudge("http://127.0.0.1:9/v1", timeout=0.2, deadline=0.5, attempts=1)
    refusal, critical, asked = judge.ask("q", "a")
    assert (refusal, critical) == (None, None) and asked.error and "127.0.0.1:9" in asked.error
