"""An ``http://`` or ``https://`` target (SPEC §8): the same messages, one per request body.

``GET URL`` answers the handshake; every call is a ``POST URL`` with one JSON object as its body
and one as its reply. Every request has a deadline (the call's timeout, covering connecting,
sending and reading), replies are read up to a size cap (over it: a ``crash`` outcome, nothing
kept), nothing is retried, no redirect is followed. The deadline holds for every byte: a
watchdog shuts the connection down when it passes, so a service that sends its status line or
headers one byte at a time, or ``100 Continue`` after ``100 Continue``, gets no more time than
one that does not answer; a malformed status line, too many or too long headers and a bad chunk
size are protocol errors (a ``crash`` outcome, or a usage error at the handshake). The
interface is :class:`chunk_contract.transport.exec_child.ExecChild`'s;
what the host cannot do to a service is said plainly: it cannot kill it (a timeout only gives up
on the request) and cannot read its CPU time (``cpu_seconds`` is an ``error`` outcome).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.parse
from collections.abc import Sequence
from typing import Any

from chunk_contract.containment.worker import Outcome
from chunk_contract.errors import printable
from chunk_contract.transport import wire
from chunk_contract.transport.targets import TargetError
from chunk_contract.transport.wire import Handshake, HandshakeError, ProtocolError

_HANDSHAKE_CAP = 1024 * 1024
_READ = 1 << 16


class HttpTargetError(TargetError):
    """An http(s) target that cannot be reached or does not hand shake: a usage error."""


class _Timeout(Exception):
    """The request's deadline passed."""


class HttpTarget:
    """A chunking service behind ``url``, called with §8's messages."""

    def __init__(self, url: str, *, timeout: float = 2.0, start_timeout: float = 10.0) -> None:
        """Checks the arguments; the handshake is fetched by :meth:`start` or the first call."""
        self.parts = _checked_url(url)
        if not (timeout > 0 and start_timeout > 0):
            raise ValueError(f"timeouts must be positive, got {timeout!r}, {start_timeout!r}")
        self.target = self.url = url
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.handshake: Handshake | None = None
        self.memory_mode = "none"
        self._next_id = 0
        self._starts = 0

    @property
    def restarts(self) -> int:
        """1 once the handshake was read (a service is never restarted by the host)."""
        return self._starts

    def start(self) -> Handshake:
        """GET the handshake; an unreachable service or a bad handshake is a usage error."""
        if self.handshake is None:
            try:
                body = self._request(None, _HANDSHAKE_CAP, self.start_timeout)
                self.handshake = wire.parse_handshake(body)
            except (_Timeout, ProtocolError, HandshakeError) as exc:
                raise HttpTargetError(f"{self.url}: no valid handshake on GET: {exc or 'timeout'}"
                                      ". See docs/protocol.md") from None
            self._starts = 1
        return self.handshake

    def call(self, request: Sequence[Any], *, timeout: float | None = None) -> Outcome:
        """POST one request; whatever the service does, an Outcome."""
        limit = self.timeout if timeout is None else float(timeout)
        handshake = self.start()
        self._next_id += 1
        call_id, op = self._next_id, request[0]
        if op == "split":
            _, document, max_size, overlap = request
            message = wire.split_message(call_id, document, max_size, overlap)
            return self._post(message, call_id, limit,
                              lambda r: wire.split_value(r, document, handshake.offsets))
        if op == "count":
            texts = list(request[1])
            return self._post(wire.count_message(call_id, texts), call_id, limit,
                              lambda r: wire.counts_value(r, texts))
        if op in ("cpu", "timed-family"):
            return self.cpu_seconds(request)
        raise ValueError(f"unknown request {op!r}: expected split, count or cpu")

    def cpu_seconds(self, request: Sequence[Any], *, timeout: float | None = None) -> Outcome:
        """The CPU time of a remote service cannot be measured: an ``error`` outcome says so."""
        return Outcome("error", error_type="unsupported",
                       message=f"{self.url}: the CPU time of an http(s) service cannot be measured")

    def close(self) -> None:
        """Nothing to stop: the service is not the host's."""

    def _post(self, message: dict[str, Any], call_id: int, limit: float, convert: Any) -> Outcome:
        data = wire.encode_message(message)
        started = time.monotonic()
        try:
            body = self._request(data, wire.reply_cap(len(data)), limit)
            value = convert(wire.read_reply(body, call_id))
        except _Timeout:
            return Outcome("timeout", message=f"no reply within {limit:g} s",
                           elapsed=time.monotonic() - started)
        except ProtocolError as exc:
            return Outcome("crash", message=f"malformed reply: {exc}",
                           elapsed=time.monotonic() - started)
        return Outcome("ok", value=value, elapsed=time.monotonic() - started)

    def _request(self, data: bytes | None, cap: int, limit: float) -> bytes:
        """The body of a GET (``data`` None) or POST, read by the deadline and under ``cap``."""
        deadline = time.monotonic() + limit
        connection = self._connection(limit)
        watchdog = threading.Timer(limit, _cut, (connection,))
        watchdog.daemon = True
        watchdog.start()
        try:
            return self._exchange(connection, data, cap, deadline)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if isinstance(exc, TimeoutError) or time.monotonic() >= deadline:
                raise _Timeout() from None
            raise ProtocolError(f"request failed: {_said(exc)}") from None
        finally:
            watchdog.cancel()
            connection.close()

    def _connection(self, limit: float) -> http.client.HTTPConnection:
        scheme, host, port, _ = self.parts
        kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        return kind(host, port, timeout=limit)

    def _exchange(self, connection: http.client.HTTPConnection, data: bytes | None, cap: int,
                  deadline: float) -> bytes:
        connection.request("GET" if data is None else "POST", self.parts[3], body=data,
                           headers={"Content-Type": "application/json; charset=utf-8"})
        response = connection.getresponse()
        if not 200 <= response.status < 300:
            reason = printable(response.reason, limit=100)
            more = "; redirects are not followed, give the final URL" if (
                300 <= response.status < 400) else ""
            raise ProtocolError(f"HTTP status {response.status} {reason}{more}")
        return _read_capped(response, cap, deadline)


def _cut(connection: http.client.HTTPConnection) -> None:
    """The deadline passed: shut the socket down, so a blocked read returns at once."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, TLS or not


def _said(exc: BaseException) -> str:
    """An error about what the service sent, cut and escaped (it may quote the service)."""
    return printable(str(exc) or type(exc).__name__, limit=200)


def _checked_url(url: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path and query) of an http(s) URL, or HttpTargetError saying what
    is wrong with it."""
    shown = printable(url, limit=200)
    bad = next((c for c in url if c.isspace() or not c.isprintable() or not c.isascii()), None)
    if bad is not None:
        raise HttpTargetError(f"{shown}: the URL holds {bad!a}; percent-encode it (%20 for a "
                              "space) or remove it")
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise HttpTargetError(f"{shown}: not a valid URL ({exc}); give http://HOST:PORT/PATH "
                              "(an IPv6 host in brackets: http://[::1]:8000/)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpTargetError(f"{shown}: an http target is http://HOST[:PORT]/PATH or https://...")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _read_capped(response: Any, cap: int, deadline: float) -> bytes:
    body = bytearray()
    while True:
        if time.monotonic() > deadline:
            raise _Timeout()
        piece = response.read1(_READ)  # what one receive gives: the deadline is checked often
        if not piece:
            return _whole(response, body, deadline)
        body += piece
        if len(body) > cap:
            raise ProtocolError(f"the reply grew past {cap} bytes")




def _whole(response: Any, body: bytearray, deadline: float) -> bytes:
    """The body read to its end: cut short by the deadline, or by the service, it is not."""
    if time.monotonic() >= deadline:
        raise _Timeout()
    if response.length:  # the bytes Content-Length promised that never came
        raise ProtocolError(f"the reply ended {response.length} bytes short of its Content-Length")
    return bytes(body).rstrip(b"\r\n")
