"""``deterministic`` across processes for an out-of-process target: a new child of its own.

The host's child of an ``exec:`` target (or of a kind built on a command) is persistent: every
call of a run goes to one process, so a Python child's ids built from ``hash()``, or any
child's output that follows the state earlier calls left, agree with themselves all run long.
:func:`rerun_child` starts a new child of the same target, in the folder the run ran it in,
with ``PYTHONHASHSEED`` set in its environment, and asks it for the same inputs; its answers
are compared as a fresh interpreter's are (:mod:`chunk_contract.engine.crossrun`,
:mod:`chunk_contract.engine.fresh`). An ``http(s)://`` service has no process of its own to
start, and a kind whose factory takes no environment none that this one controls: no verdict.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine.crossrun import Answer, Rerun, answered
from chunk_contract.spec.model import Config
from chunk_contract.transport.kinds import HTTP, kind_of
from chunk_contract.transport.messages import Chunks, Raised, Split
from chunk_contract.transport.outofprocess import OutOfProcessTransport
from chunk_contract.transport.targets import TargetError

__all__ = ["rerun_child"]


def rerun_child(target: str, cases: Sequence[tuple[Any, Config]], seed: int, *,
                deadline: float, startup: float, memory_mb: int | None,
                cwd: str | None) -> Rerun:
    """Chunk ``cases`` in a new child of the out-of-process ``target`` whose environment sets
    ``PYTHONHASHSEED=seed``, within ``deadline`` wall seconds in all; no verdict for a kind
    that starts no child of its own (an ``http(s)://`` service, a kind whose factory takes no
    environment)."""
    if kind_of(target) is HTTP:
        return Rerun(seed, loadable=False)
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    try:
        child = OutOfProcessTransport(target, timeout=deadline, memory_mb=memory_mb, cwd=cwd,
                                      start_timeout=startup, env=env)
    except TargetError:
        return Rerun(seed, loadable=False)
    with child:
        return _asked(child, cases, seed, time.monotonic() + deadline)


def _asked(child: OutOfProcessTransport, cases: Sequence[tuple[Any, Config]], seed: int,
           ends: float) -> Rerun:
    """Every case's answer from ``child`` (started here) until ``ends``
    (time.monotonic()); a child that does not start, hangs, dies or answers garbage fails."""
    try:
        child.start()
    except TargetError as exc:
        return Rerun(seed, failure=f"could not be started: {exc}")
    answers: list[Answer] = []
    for document, config in cases:
        left = ends - time.monotonic()
        outcome = child.call(Split(document, config.max_size, config.overlap),
                             timeout=max(left, 0.001))
        if not outcome.ok:
            return Rerun(seed, failure=_failed(outcome))
        answers.append(_child_answer(outcome.value))
    return Rerun(seed, answers)


def _child_answer(reply: Any) -> Answer:
    """A child's typed reply to a split as an answer: its chunk records, or what it raised."""
    if isinstance(reply, Chunks):
        return answered([c.as_record() for c in reply.chunks])
    if isinstance(reply, Raised):
        return {"error": f"{reply.error_type}: {reply.message[:200]}"}
    return {"error": f"a reply that is no list of chunks: {type(reply).__name__}"}


def _failed(outcome: Outcome) -> str:
    """How a child's call failed (an Outcome that is not ok), as a finding says it."""
    if outcome.kind == "timeout":
        return f"did not answer in time ({outcome.message}; killed)"
    if outcome.kind == "crash":
        return f"died before answering ({outcome.message})"
    what = outcome.error_type or outcome.kind
    return f"failed: {what}: {outcome.message}".rstrip(": ")
