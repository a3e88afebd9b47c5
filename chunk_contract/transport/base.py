"""The transport seam: how the host reaches a plugin, whatever process the plugin runs in.

A :class:`Transport` carries typed requests (:mod:`chunk_contract.transport.messages`) to one plugin
and brings back an :class:`~chunk_contract.containment.worker.Outcome` whose ``value``, when ``ok``,
is the typed,
checked reply. Every transport must provide:

- ``start() -> Declared``: start the plugin's process (if any), load the plugin there and read
  its declarations (the handshake). Raises :class:`~chunk_contract.transport.targets.TargetError`,
  with one
  line saying what happened, when loading hangs, exits, crashes, raises or declares nonsense. Load
  time is never charged to a call.
- ``call(request, *, timeout=None) -> Outcome``: one request, always answered by an Outcome:
  ``ok`` (value: the reply, checked with ``request.reply_from_wire``), ``error`` (the reply
  could not be accepted: ``ProtocolError``, ``ReplyTooLarge``, ``SetupError``...), ``timeout``,
  ``memory`` or ``crash``. A transport restarts its process lazily after a failure, loading the
  plugin again.
- ``close()``: stop everything it started (idempotent), processes the plugin started included.
- ``restarts``: how many times a process was started (0 before the first).

Implementations here: :class:`ForkTransport` (a forked
:class:`~chunk_contract.containment.worker.Worker`: time, memory and reply-size limits, its own
process group) and :class:`InProcessTransport` (no isolation at all: for the fuzz harness, where
libFuzzer watches the process).

A third, the ``exec:`` child of SPEC §8, speaks the same messages as JSON lines over its
stdin/stdout: the host writes ``to_wire()`` of each request as one line and reads one line per
reply (the wire forms in :mod:`chunk_contract.transport.messages`), its first line being the
handshake. It must read every line with a deadline and a size limit (as
:mod:`chunk_contract.containment.framing` does for the fork worker), kill the child's process group
on timeout and close, and parse each reply with ``request.reply_from_wire`` so the host sees only
checked, typed replies.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from chunk_contract.containment.framing import FrameError
from chunk_contract.containment.worker import DEFAULT_REPLY_LIMIT, Outcome, Unread, Worker
from chunk_contract.transport import cputime
from chunk_contract.transport.loading import checked_hello, describe_failure, hello_of, plugin_setup
from chunk_contract.transport.messages import (
    Chunks,
    Declared,
    MalformedReply,
    Request,
    Split,
    Timed,
    TimedFamily,
    Unchecked,
    split_reply,
)
from chunk_contract.transport.serving import serve
from chunk_contract.transport.targets import Plugin, TargetError, load_here, load_timeout

#: The default reply limit of a plugin's worker: REPLY_BASE bytes plus REPLY_SCALE times the
#: request's size (a chunker returning 64 copies of its input still passes).
REPLY_BASE = 16 * 2**20
REPLY_SCALE = 64


class Transport(Protocol):
    """How the host reaches one plugin (see the module docstring for the contract)."""

    @property
    def restarts(self) -> int:
        """How many times a process was started for the plugin."""
        ...

    def start(self) -> Declared:
        """Load the plugin; its declarations. TargetError when loading fails."""
        ...

    def call(self, request: Request, *, timeout: float | None = None) -> Outcome:
        """One request; an Outcome whose value, when ok, is the typed reply."""
        ...

    def close(self) -> None:
        """Stop everything this transport started."""
        ...


class ForkTransport:
    """A plugin in a forked worker that loads it itself (again after every restart)."""

    def __init__(
        self,
        plugin: Plugin,
        *,
        timeout: float,
        memory_mb: int | None,
        reply_limit: int | None = None,
    ) -> None:
        """``reply_limit``: bytes a reply may take (default: REPLY_BASE + REPLY_SCALE x the
        request's size)."""
        self.plugin = plugin
        self._fixed_reply_limit = reply_limit
        self.worker = Worker(
            setup=plugin_setup(plugin),
            load_timeout=load_timeout(timeout),
            timeout=timeout,
            memory_mb=memory_mb,
            reply_limit=REPLY_BASE if reply_limit is None else reply_limit,
            reply_scale=REPLY_SCALE if reply_limit is None else 0,
        )
        #: The last split reply as the worker decoded it, and its checked chunks.
        self._last_split: tuple[Any, Chunks] | None = None

    @property
    def restarts(self) -> int:
        return self.worker.restarts

    def start(self) -> Declared:
        hello = self.worker.start()
        if not hello.ok:
            raise TargetError(describe_failure(self.plugin.target, hello, self.worker.load_timeout))
        found = checked_hello(self.plugin.target, hello.value)
        return Declared(found.name, found.declarations, found.location)

    def call(self, request: Request, *, timeout: float | None = None) -> Outcome:
        if isinstance(request, TimedFamily):
            return self._timed(request, timeout)
        outcome = self.worker.call(request.to_wire(), timeout=timeout)
        memo = self._last_split if isinstance(request, Split) else None
        if memo is not None and outcome.ok and outcome.value is memo[0]:
            # the very bytes of the last checked split reply: the same chunks, not checked again
            return Outcome("ok", Chunks(list(memo[1].chunks)), elapsed=outcome.elapsed)
        answer = checked(request, outcome)
        kept = isinstance(request, Split) and isinstance(answer.value, Chunks)
        self._last_split = (outcome.value, answer.value) if kept else None
        return answer

    def close(self) -> None:
        self._last_split = None
        self.worker.close()

    def _timed(self, request: TimedFamily, timeout: float | None) -> Outcome:
        """The split of a family's document, with the CPU seconds the worker's process group
        spent on it, read from /proc before and after (never the worker's own clock)."""
        started = self.worker.start()
        pid = self._pid()
        if not started.ok or pid is None:
            return checked(request, self.worker.call(request.to_wire(), timeout=timeout))
        before = cputime.read(pid)
        outcome = self.worker.call(request.to_wire(), timeout=timeout, unread=_CHUNKS_PREFIX,
                                   reply_limit=self._family_reply_limit(request))
        seconds = cputime.spent(before, cputime.read(pid))
        if outcome.ok and isinstance(outcome.value, Unread):
            outcome = replace(outcome, value=Unchecked(_reader(outcome.value)))
        else:
            outcome = checked(request, outcome)
        if not outcome.ok or self._pid() != pid:
            return parsed(outcome)
        return replace(outcome, value=Timed(seconds, outcome.value))

    def _family_reply_limit(self, request: TimedFamily) -> int | None:
        """A family's document is built in the worker, so its size (4 bytes a character at
        most) scales the reply limit as a document sent would."""
        if self._fixed_reply_limit is not None:
            return None
        return REPLY_BASE + REPLY_SCALE * 4 * request.size

    def _pid(self) -> int | None:
        """The running worker's pid (the leader of its process group), or None."""
        child = getattr(self.worker, "_child", None)  # the worker exposes no pid of its own
        pid = getattr(child, "pid", None)
        return pid if isinstance(pid, int) else None

    def __enter__(self) -> ForkTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessTransport:
    """The plugin called in this very process: no isolation, no limits (the fuzz harness).

    Its replies are parsed and checked exactly as a worker's are.
    """

    def __init__(self, plugin: Plugin) -> None:
        self.plugin = load_here(plugin)
        self._task = serve(self.plugin)

    @property
    def restarts(self) -> int:
        return 0

    def start(self) -> Declared:
        found = checked_hello(self.plugin.target, hello_of(self.plugin))
        return Declared(found.name, found.declarations, found.location)

    def call(self, request: Request, *, timeout: float | None = None) -> Outcome:
        cpu = time.process_time()  # one process: the plugin's clock is this process's
        outcome = self._call(request)
        if isinstance(request, TimedFamily) and outcome.ok:
            return replace(outcome, value=Timed(time.process_time() - cpu, outcome.value))
        return outcome

    def _call(self, request: Request) -> Outcome:
        started = time.perf_counter()
        try:
            value = self._task(request.to_wire())
        except MemoryError as exc:
            message = f"MemoryError: {exc}".rstrip(": ")
            return Outcome("memory", message=message, elapsed=time.perf_counter() - started)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return Outcome("error", error_type=type(exc).__name__, message=_first_line(exc),
                           elapsed=time.perf_counter() - started)
        return checked(request, Outcome("ok", _plain(value), elapsed=time.perf_counter() - started))

    def close(self) -> None:
        pass


def checked(request: Request, outcome: Outcome) -> Outcome:
    """``outcome`` with its plain reply parsed into the request's typed reply; a reply that
    is not a valid answer becomes an ``error`` Outcome (ProtocolError)."""
    if not outcome.ok:
        return outcome
    try:
        reply = request.reply_from_wire(outcome.value)
    except MalformedReply as exc:
        return _protocol_error(exc, outcome.elapsed)
    return Outcome("ok", reply, elapsed=outcome.elapsed)


def _protocol_error(exc: MalformedReply, elapsed: float) -> Outcome:
    """The ``error`` Outcome of a reply that is no valid answer."""
    message = f"the worker sent {exc}, not a valid reply"
    return Outcome("error", None, "ProtocolError", message, "", elapsed)


#: How a split's list of chunks begins on the wire: left unread by the worker (see Unchecked).
_CHUNKS_PREFIX = b'["chunks",'


def _reader(unread: Unread) -> Callable[[], Chunks]:
    """Parses and checks a split reply the worker left unread (MalformedReply if it is bad)."""

    def read() -> Chunks:
        try:
            value = unread.read()
        except FrameError as exc:
            raise MalformedReply(str(exc)) from None
        reply = split_reply(value)
        if not isinstance(reply, Chunks):
            raise MalformedReply("a list of chunks that is not one")
        return reply

    return read


def parsed(outcome: Outcome) -> Outcome:
    """``outcome`` with a list of chunks that arrived unparsed (:class:`Unchecked`) parsed and
    checked; chunks that are no valid reply make it a ProtocolError, as any other call's."""
    if not isinstance(outcome.value, Unchecked):
        return outcome
    try:
        return replace(outcome, value=outcome.value.read())
    except MalformedReply as exc:
        return _protocol_error(exc, outcome.elapsed)


def _plain(value: Any) -> Any:
    """Tuples as lists, as they arrive from a worker (the replies are otherwise plain)."""
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _first_line(exc: BaseException) -> str:
    try:
        return str(exc).split("\n", 1)[0]
    except BaseException:
        return f"<unprintable {type(exc).__name__}>"


__all__ = [
    "DEFAULT_REPLY_LIMIT", "ForkTransport", "InProcessTransport", "Transport", "checked", "parsed",
]
