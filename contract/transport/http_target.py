"""An ``http://`` or ``https://`` target (SPEC §8): the same messages, one per request body.

``GET URL`` answers the handshake; every call is a ``POST URL`` with one JSON object as its body
and one as its reply. Every request has a deadline (the call's timeout, covering connecting,
sending and reading), replies are read up to a size cap (over it: a ``crash`` outcome, nothing
kept), nothing is retried. The interface is :class:`contract.transport.exec_child.ExecChild`'s;
what the host cannot do to a service is said plainly: it cannot kill it (a timeout only gives up
on the request) and cannot read its CPU time (``cpu_seconds`` is an ``error`` outcome).
"""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from contract.containment.worker import Outcome
from contract.transport import wire
from contract.transport.targets import TargetError
from contract.transport.wire import Handshake, HandshakeError, ProtocolError

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
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"an http target must start with http:// or https://, got {url!r}")
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
        if op in ("cpu", "cpu-family"):
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
        request = urllib.request.Request(
            self.url, data=data, method="GET" if data is None else "POST",
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        try:
            with urllib.request.urlopen(request, timeout=limit) as response:
                return _read_capped(response, cap, deadline)
        except urllib.error.HTTPError as exc:
            raise ProtocolError(f"HTTP status {exc.code} {exc.reason}") from None
        except TimeoutError:
            raise _Timeout() from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise _Timeout() from None
            raise ProtocolError(f"request failed: {reason}") from None


def _read_capped(response: Any, cap: int, deadline: float) -> bytes:
    body = bytearray()
    while True:
        if time.monotonic() > deadline:
            raise _Timeout()
        piece = response.read1(_READ)  # what one receive gives: the deadline is checked often
        if not piece:
            return bytes(body).rstrip(b"\r\n")
        body += piece
        if len(body) > cap:
            raise ProtocolError(f"the reply grew past {cap} bytes")


