"""HttpTarget against a tiny §8 service on 127.0.0.1, started and stopped by each test."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from chunk_contract.transport.http_target import HttpTarget, HttpTargetError
from chunk_contract.transport.targets import TargetError
from chunk_contract.transport.wire import Handshake

Reply = Callable[[dict[str, Any]], Any]


def _correct(call: dict[str, Any]) -> Any:
    document, size = call["document"], call["max_size"]
    chunks = [document[i : i + size] for i in range(0, len(document), size)]
    return {"id": call["id"], "chunks": chunks}


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """Start a service answering GET with ``hello`` and POST with ``reply(call)``; its URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(reply: Reply = _correct, hello: Any = None) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._send(hello if hello is not None else {"chunk_contract": 1})

            def do_POST(self) -> None:
                size = int(self.headers["Content-Length"])
                self._send(reply(json.loads(self.rfile.read(size))))

            def _send(self, value: Any) -> None:
                body = value if isinstance(value, bytes) else json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_handshake_and_split(serve: Callable[..., str]) -> None:
    target = HttpTarget(serve())
    assert target.start().unit == "chars"
    outcome = target.call(("split", "abcde", 2, 0))
    assert outcome.ok
    assert [r["text"] for r in outcome.value[1]] == ["ab", "cd", "e"]


def test_a_bad_handshake_is_a_usage_error(serve: Callable[..., str]) -> None:
    url = serve(hello={"chunk_contract": 2})
    with pytest.raises(TargetError, match=re.escape(url) + ".*protocol version 2"):
        HttpTarget(url).start()


def test_an_unreachable_service_is_a_usage_error() -> None:
    with pytest.raises(HttpTargetError, match=r"127\.0\.0\.1:9/"):
        HttpTarget("http://127.0.0.1:9/", start_timeout=1.0).start()


def test_a_slow_reply_is_a_timeout(serve: Callable[..., str]) -> None:
    def slow(call: dict[str, Any]) -> Any:
        time.sleep(1.5)
        return _correct(call)

    outcome = HttpTarget(serve(slow), timeout=0.3).call(("split", "abc", 2, 0))
    assert outcome.kind == "timeout"


def test_a_reply_dribbled_byte_by_byte_still_meets_the_deadline() -> None:
    class Dribble(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.05)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Dribble)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        target = HttpTarget(f"http://127.0.0.1:{server.server_address[1]}/", timeout=0.5)
        target.handshake = Handshake()  # this server answers POST only
        started = time.monotonic()
        outcome = target.call(("split", "abc", 2, 0))
        assert outcome.kind == "timeout"
        assert time.monotonic() - started < 5.0  # 0.5 s, plus at most one more receive
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("reply", "says"),
    [(lambda call: b"<html>", "not one JSON object"),
     (lambda call: {"id": 99, "chunks": []}, "expected 1"),
     (lambda call: b'{"id": 1, "chunks": ["' + b"a" * (17 * 1024 * 1024) + b'"]}', "grew past")],
)
def test_a_bad_reply_is_a_crash(serve: Callable[..., str], reply: Reply, says: str) -> None:
    outcome = HttpTarget(serve(reply), timeout=10.0).call(("split", "abc", 2, 0))
    assert outcome.kind == "crash" and says in outcome.message


def test_cpu_time_is_not_measurable_and_says_so(serve: Callable[..., str]) -> None:
    outcome = HttpTarget(serve()).cpu_seconds(("cpu", "abc", 2, 0))
    assert outcome.kind == "error" and "cannot be measured" in outcome.message
