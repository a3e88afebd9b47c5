"""Hostile http(s) services: the call's deadline covers every byte of the exchange, and whatever
the service sends is a finding (a timeout or a crash outcome) or, at the handshake, one usage
line; never a traceback, never a host held past its timeout.

Each service is a raw socket server on 127.0.0.1 in this process, answering the handshake
(GET) correctly and each call (POST) with its attack; it stops dribbling after STOP_AFTER
seconds and is stopped by the fixture, so a regression fails the test instead of hanging it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from chunk_contract.transport.http_target import HttpTarget, HttpTargetError

#: Seconds an attack goes on at most (the host must give up long before).
STOP_AFTER = 30.0
#: The call's timeout, and the most a call may take (generous: a busy machine is slow, but
#: nowhere near STOP_AFTER).
TIMEOUT = 1.0
HELD_AT_MOST = 12.0
HANDSHAKE = b'{"chunk_contract": 1}'

Attack = Callable[[socket.socket, threading.Event], None]


def _reply(status: bytes, body: bytes, *headers: bytes) -> bytes:
    head = b"".join(h + b"\r\n" for h in headers)
    return b"HTTP/1.1 " + status + b"\r\nContent-Length: %d\r\n" % len(body) + head + b"\r\n" + body


def _read_request(conn: socket.socket) -> bytes:
    """The request's method (the body, if any, is read and dropped)."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return b""
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        piece = conn.recv(65536)
        if not piece:
            break
        body += piece
    return head.split(b" ", 1)[0]


def _dribble(conn: socket.socket, stop: threading.Event, first: bytes, each: bytes,
             every: float) -> None:
    conn.sendall(first)
    ends = time.monotonic() + STOP_AFTER
    while not stop.wait(every) and time.monotonic() < ends:
        conn.sendall(each)


def slow_header(conn: socket.socket, stop: threading.Event) -> None:
    """A status line, then one header byte every 0.3 s."""
    _dribble(conn, stop, b"HTTP/1.1 200 OK\r\nX-Slow: ", b"x", 0.3)


def continue_flood(conn: socket.socket, stop: threading.Event) -> None:
    """``100 Continue`` after ``100 Continue``, every 0.2 s."""
    _dribble(conn, stop, b"", b"HTTP/1.1 100 Continue\r\n\r\n", 0.2)


def slow_body(conn: socket.socket, stop: threading.Event) -> None:
    """Headers promising a body, then one byte of it every 0.3 s."""
    _dribble(conn, stop, b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", b" ", 0.3)


def _sends(data: bytes) -> Attack:
    def attack(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(data)
    return attack


MALFORMED = {
    "bad status line": _sends(b"HELLO THERE\r\n\r\n"),
    "too many headers": _sends(b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 200 + b"\r\n{}"),
    "a header too long": _sends(b"HTTP/1.1 200 OK\r\nX-A: " + b"b" * 70000 + b"\r\n\r\n{}"),
    "a bad chunk size": _sends(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n"),
    "a body cut short": _sends(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}"),
    "an escape in the reason": _sends(_reply(b"500 \x1b[2J\x1b]52;c;cHduZWQ=\x07PASSED", b"")),
}


@pytest.fixture
def service() -> Iterator[Callable[..., str]]:
    """Start a service: GET answers the handshake (or ``hello`` attacks), POST ``call``."""
    stop = threading.Event()
    listeners: list[socket.socket] = []

    def start(call: Attack, *, hello: Attack | None = None) -> str:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)
        threading.Thread(target=_accept, args=(listener, stop, call, hello), daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}/chunk"

    yield start
    stop.set()
    for listener in listeners:
        listener.close()


def _accept(listener: socket.socket, stop: threading.Event, call: Attack,
            hello: Attack | None) -> None:
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_serve, args=(conn, stop, call, hello), daemon=True).start()


def _serve(conn: socket.socket, stop: threading.Event, call: Attack,
           hello: Attack | None) -> None:
    with conn, contextlib.suppress(OSError):
        method = _read_request(conn)
        if method == b"GET" and hello is None:
            conn.sendall(_reply(b"200 OK", HANDSHAKE))
        else:
            (call if method == b"POST" else hello or call)(conn, stop)


def _call(url: str) -> tuple[str, str, float]:
    target = HttpTarget(url, timeout=TIMEOUT, start_timeout=TIMEOUT)
    started = time.monotonic()
    outcome = target.call(("split", "abcdef", 3, 0))
    return outcome.kind, outcome.message, time.monotonic() - started


@pytest.mark.parametrize("attack", [slow_header, continue_flood, slow_body],
                         ids=lambda a: a.__name__)
def test_a_dribbling_service_times_out_by_the_calls_deadline(
    service: Callable[..., str], attack: Attack
) -> None:
    kind, message, seconds = _call(service(attack))
    assert kind == "timeout", message
    assert TIMEOUT * 0.9 <= seconds < HELD_AT_MOST


@pytest.mark.parametrize("attack", [slow_header, continue_flood], ids=lambda a: a.__name__)
def test_a_dribbling_handshake_is_one_usage_error_by_the_deadline(
    service: Callable[..., str], attack: Attack
) -> None:
    url = service(attack, hello=attack)
    started = time.monotonic()
    with pytest.raises(HttpTargetError, match="no valid handshake"):
        HttpTarget(url, timeout=TIMEOUT, start_timeout=TIMEOUT).start()
    assert time.monotonic() - started < HELD_AT_MOST


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_reply_is_a_crash_finding_in_plain_text(
    service: Callable[..., str], name: str
) -> None:
    kind, message, seconds = _call(service(MALFORMED[name]))
    assert kind == "crash", message
    assert message.isprintable() and len(message) < 1000, message
    assert seconds < HELD_AT_MOST


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_handshake_is_one_plain_usage_line(
    service: Callable[..., str], name: str
) -> None:
    url = service(MALFORMED[name], hello=MALFORMED[name])
    with pytest.raises(HttpTargetError) as caught:
        HttpTarget(url, timeout=TIMEOUT, start_timeout=TIMEOUT).start()
    assert str(caught.value).isprintable() and len(str(caught.value)) < 1000


def test_the_escape_in_a_reason_phrase_is_shown_escaped(service: Callable[..., str]) -> None:
    _, message, _ = _call(service(MALFORMED["an escape in the reason"]))
    assert "\\x1b[2J" in message and "\x1b" not in message


@pytest.mark.parametrize("url", [
    "http://[::1/", "http://[zz]:80/", "http://a b/", "http://h\x1b[2J/", "http://h\x00/",
    "http://h:99999/", "http://h:x/", "http://h:-1/", "http://", "https:///path",
    "http://héllo/",
])
def test_a_malformed_url_is_one_usage_line(url: str) -> None:
    with pytest.raises(HttpTargetError) as caught:
        HttpTarget(url)
    assert str(caught.value).isprintable() and "\n" not in str(caught.value)


def test_a_good_reply_still_passes(service: Callable[..., str]) -> None:
    body = json.dumps({"id": 1, "chunks": ["abc", "def"]}).encode()
    kind, message, _ = _call(service(_sends(_reply(b"200 OK", body))))
    assert kind == "ok", message


@pytest.mark.parametrize("name", ["bad status line", "an escape in the reason"])
def test_the_command_line_says_a_bad_handshake_in_one_line(
    service: Callable[..., str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from chunk_contract.cli.main import main

    url = service(MALFORMED[name], hello=MALFORMED[name])
    assert main(["run", url, "--max-examples", "1", "--timeout", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("chunk-contract: error: ")
    assert "\x1b" not in err and "Traceback" not in err


def test_a_progress_label_is_escaped() -> None:
    import io

    from chunk_contract.reporting.progress import ProgressBar

    stream = io.StringIO()
    with ProgressBar(label="checking \x1b]52;c;eA==\x07x", total=2, stream=stream,
                     tty=False) as bar:
        bar.update(2, phase="done")
    assert "\x1b" not in stream.getvalue() and "\x07" not in stream.getvalue()
