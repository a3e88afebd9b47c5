"""Drive an out-of-process chunker through the real checks, until the lead plugs ExecChild into
the runner: a Session whose worker is an ExecChild, fed by the project's own strategies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings

from contract import strategies
from contract.engine.outofprocess import OutOfProcessTransport
from contract.execution import Session
from contract.model import Config
from contract.plugins import Plugin
from contract.registry import registry

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(document: str) -> str:
    """The document without lone surrogates: what goes out of process is valid Unicode (§8)."""
    return _SURROGATE.sub("", document)


@contextmanager
def exec_session(target: str, *, timeout: float = 5.0, memory_mb: int = 1024) -> Iterator[Session]:
    """A Session checking every applicable invariant, its calls going to ``target``'s child
    (the transport ``chunk-contract run`` uses for an ``exec:`` target)."""
    transport = OutOfProcessTransport(target, timeout=timeout, memory_mb=memory_mb)
    try:
        declared = transport.start()
        plugin = Plugin(target, None, declared.declarations, spec=target)
        session = Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=list(registry()),
                          transport=transport)
        yield session
    finally:
        transport.close()


def violations(session: Session, *, examples: int, seed: int = 0, max_length: int = 600,
               stop_at: str | None = None) -> dict[str, list[str]]:
    """Invariant id -> messages found over ``examples`` generated cases (one per id kept)."""
    found: dict[str, list[str]] = {}
    docs = strategies.any_documents(max_length=max_length).map(valid_unicode)
    pairs = strategies.cases(max_length=max_length, documents=docs)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(pairs)
    def probe(case: tuple[str, Config]) -> None:
        if stop_at is not None and stop_at in found:
            return
        seen = session.observe(*case)
        for violation in seen.violations:
            found.setdefault(violation.invariant, []).append(
                f"{violation.message[:300]} | document={case[0][:80]!a} {case[1].describe()}"
            )

    probe()
    return found


__all__ = ["exec_session", "valid_unicode", "violations"]
