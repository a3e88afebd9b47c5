"""Out-of-process targets (SPEC 1.1 §1, §8) behind the transport seam.

``exec:COMMAND ARGS...`` and ``http(s)://...`` targets are reached through
:class:`OutOfProcessTransport`, the third :class:`~chunk_contract.transport.base.Transport`: it
turns the typed requests of :mod:`chunk_contract.transport.messages` into the calls of an
:class:`~chunk_contract.transport.exec_child.ExecChild` (a persistent child in a session of its own,
killed as a group on a timeout or crash) or an
:class:`~chunk_contract.transport.http_target.HttpTarget`, and checks every reply with the request's
own ``reply_from_wire``, as the fork transport does. So a Session, the runner, ``check``,
``replay``, ``matrix``, the pytest plugin and the scaling probe treat such a target like any other.

What goes out of process is valid Unicode (§8): :func:`valid_unicode` replaces each lone
surrogate of a document with U+FFFD (a character the document then holds, so no invariant
counts it against the plugin) before it is sent.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunk_contract.containment.worker import Outcome
from chunk_contract.spec.model import chunks_from_records
from chunk_contract.transport.kinds import kind_of, kinds
from chunk_contract.transport.messages import (
    Chunks,
    CountTokens,
    CpuSplit,
    Declared,
    MalformedReply,
    Request,
    Split,
    Timed,
    TimedFamily,
)
from chunk_contract.transport.targets import Plugin, TargetError, load_timeout

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(document: Any) -> Any:
    """A text document with every lone surrogate replaced by U+FFFD (other documents as given)."""
    if isinstance(document, str) and _SURROGATE.search(document):
        return _SURROGATE.sub("\ufffd", document)
    return document


def load_out_of_process(target: str, *, name: str | None = None, timeout: float | None = None,
                        memory_mb: int | None = 1024, cwd: str | Path | None = None) -> Any:
    """A Plugin for an out-of-process target: started once for its handshake (a missing or
    malformed one is a TargetError naming the target), then stopped."""
    limit = load_timeout(timeout)
    with OutOfProcessTransport(target, timeout=limit, memory_mb=memory_mb, cwd=cwd,
                               start_timeout=limit) as transport:
        declared = transport.start()
    where = None if cwd is None else str(cwd)
    return Plugin(name or target, None, declared.declarations, spec=target, cwd=where)


class OutOfProcessTransport:
    """A Transport to the child of an out-of-process target (``exec:``, ``http(s)://`` or a
    registered kind of chunk_contract.transport.kinds).

    ``cwd``: the folder an ``exec:`` command runs in (the one holding pyproject.toml for a
    ``[tool.chunk-contract]`` target; default: the current folder). ``env``: the child's whole
    environment (default: this process's); a kind whose factory takes none is a TargetError.
    """

    #: The Session makes every document valid Unicode before the call (SPEC §8), so that the
    #: document checked is the document sent.
    needs_valid_unicode = True

    def __init__(self, target: str, *, timeout: float, memory_mb: int | None,
                 cwd: str | Path | None = None, start_timeout: float = 10.0,
                 env: dict[str, str] | None = None) -> None:
        self.target = target
        self._child = _open(target, timeout=timeout, memory_mb=memory_mb, cwd=cwd,
                            start_timeout=max(start_timeout, timeout), env=env)

    @property
    def restarts(self) -> int:
        return int(self._child.restarts)

    def start(self) -> Declared:
        """Start the child (or ask the service) and read its handshake."""
        handshake = self._child.start()
        return Declared(self.target, handshake.declarations())

    def call(self, request: Request, *, timeout: float | None = None) -> Outcome:
        """One typed request; an Outcome whose value, when ok, is the checked typed reply."""
        if isinstance(request, CpuSplit | TimedFamily) and not hasattr(self._child, "cpu_seconds"):
            return Outcome("error", None, "Unsupported", "CPU time is not measured here")
        outcome = self._child.call(_wire(request), timeout=timeout)
        if not outcome.ok:
            return outcome
        try:
            value = _typed(request, outcome.value)
        except MalformedReply as exc:
            return Outcome("error", None, "ProtocolError", str(exc), elapsed=outcome.elapsed)
        return replace(outcome, value=value)

    def close(self) -> None:
        self._child.close()

    def __enter__(self) -> OutOfProcessTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open(target: str, *, timeout: float, memory_mb: int | None, cwd: str | Path | None,
          start_timeout: float, env: dict[str, str] | None = None) -> Any:
    """The child of ``target``'s kind (chunk_contract.transport.kinds); ``env``: the child's
    environment, passed only when given, to a kind whose factory takes one (``exec:``'s and
    :func:`~chunk_contract.transport.kinds.command_child`'s do)."""
    kind = kind_of(target)
    if kind is None:
        known = ", ".join(kinds())
        raise TargetError(f"{target}: no target kind starts it; known prefixes: {known}")
    limits: dict[str, Any] = {"cwd": cwd, "timeout": timeout, "memory_mb": memory_mb,
                              "start_timeout": start_timeout}
    if env is None:
        return kind.transport(target, **limits)
    try:
        return kind.transport(target, **limits, env=env)
    except TypeError:
        raise TargetError(f"{target}: its kind's factory takes no env= for the child's "
                          "environment") from None


def _wire(request: Request) -> tuple[Any, ...]:
    """The call shape the child understands (see chunk_contract.transport.exec_child)."""
    if isinstance(request, Split):
        return ("split", valid_unicode(request.document), request.max_size, request.overlap)
    if isinstance(request, CountTokens):
        return ("count", [valid_unicode(t) for t in request.texts])
    if isinstance(request, CpuSplit):
        return ("cpu", valid_unicode(request.document), request.max_size, request.overlap)
    return ("timed-family", request.family, request.size, request.max_size, request.overlap)


def _typed(request: Request, value: Any) -> Any:
    """The typed reply. Chunk records of a split were made in this process, by the same
    ``normalise_chunks`` a worker runs on the JSON the child sent, so they are built into
    chunks at once; re-checking them as if they had crossed a process boundary cost a tenth of
    an exec: run's host time."""
    if isinstance(request, Split) and type(value) is tuple and value[:1] == ("chunks",):
        return Chunks(chunks_from_records(value[1]))
    if isinstance(request, TimedFamily):
        _, seconds, split = value  # made in this process by ExecChild.timed_family
        reply = _typed(Split("", request.max_size, request.overlap), split)
        return Timed(float(seconds), reply)
    return request.reply_from_wire(_plain(value))


def _plain(value: Any) -> Any:
    """Tuples of the child's replies as the lists the wire checks expect."""
    return list(value) if isinstance(value, tuple) else value
