"""Drive an out-of-process chunker through the real checks, until the lead plugs ExecChild into
the runner: a Session whose worker is an ExecChild, fed by the project's own strategies."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings

from chunk_contract.engine.exec_probe import exec_session
from chunk_contract.engine.session import Session
from chunk_contract.generation import strategies
from chunk_contract.spec.model import Config

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(document: str) -> str:
    """The document without lone surrogates: what goes out of process is valid Unicode (§8)."""
    return _SURROGATE.sub("", document)


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
