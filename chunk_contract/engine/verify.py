"""``chunk_contract.check``: the invariants on one document, for tests written by hand or emitted by
``chunk-contract replay --emit-pytest``.

    from chunk_contract import check
    assert not check("my_chunker.py:split", "a\\r\\nb", max_size=3, overlap=1)

The plugin runs in its isolated worker, as in ``chunk-contract run``, and every applicable
invariant (or those named in ``invariants``) is checked on its chunks. Nothing is generated and
nothing is shrunk: the call returns the violations of that one input.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from chunk_contract.engine.session import Session
from chunk_contract.spec.model import Config, Violation
from chunk_contract.spec.registry import registry, select
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import Plugin

__all__ = ["check"]


def check(
    target: Any,
    document: Any,
    *,
    max_size: int,
    overlap: int = 0,
    invariants: Iterable[str] | None = None,
    timeout: float = 2.0,
    memory_mb: int | None = 1024,
) -> list[Violation]:
    """The violations of ``target`` on ``document`` with this config (empty: every rule holds).

    ``target`` is a target string (SPEC §1) or a plugin object. ``invariants`` limits the check
    to those ids (unknown ids are a usage error).
    """
    chosen = select(tuple(invariants), ()) if invariants is not None else list(registry())
    plugin = target if isinstance(target, Plugin) else load(target)
    with Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=chosen) as session:
        seen = session.observe(document, Config(max_size, overlap))
    return [v for v in seen.violations if v.invariant in chosen]
