"""Artifacts -> reproducers: confirm a fuzzer's finding in the isolated worker, minimize, save.

A libFuzzer artifact (``crash-<sha1>``, ``timeout-<sha1>``, ``oom-<sha1>``...; the blind
engine for ``exec:`` targets writes the same names) holds the raw fuzz input. Its bytes are
decoded again (:mod:`chunk_contract.integrations.fuzzing.inputs`), the case is re-run in the
isolated worker (a :class:`~chunk_contract.engine.session.Session` with the same time and memory
limits) to confirm it, the document is minimized, and a versioned reproducer JSON is written that
``chunk-contract replay`` re-runs. A failure the worker cannot see again is reported as
*unconfirmed*, with no reproducer: it does not count as a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chunk_contract.engine.minimize import minimize
from chunk_contract.engine.results import Counterexample
from chunk_contract.engine.session import Observation, Session
from chunk_contract.integrations.fuzzing.inputs import FuzzCase, decode
from chunk_contract.spec.model import Violation, escape
from chunk_contract.spec.registry import registry
from chunk_contract.store import reproducers
from chunk_contract.transport.targets import Plugin

REPRODUCERS = Path(".chunk-contract/reproducers")
#: libFuzzer's artifact names: ``<prefix><kind>-<sha1 of the input>``.
ARTIFACT = re.compile(r"(crash|timeout|oom|leak|slow-unit)-[0-9a-f]{40}$")


@dataclass
class Finding:
    """One artifact, converted: the invariant it breaks and where its reproducer is."""

    artifact: str
    kind: str
    invariant: str | None
    message: str
    document: str
    config: str
    reproducer: str | None = None
    confirmed: bool = True


@dataclass(frozen=True)
class Limits:
    """The isolated worker's limits for confirming and minimizing, and what to check."""

    timeout: float = 2.0
    memory_mb: int | None = 2048
    selected: Sequence[str] | None = None
    minimize_seconds: float = 5.0


def artifact_kind(path: Path) -> str:
    """``crash``, ``timeout``, ``oom``... from an artifact's name (``crash`` if unknown)."""
    found = ARTIFACT.search(path.name)
    return found.group(1) if found else "crash"


def _pick(violations: Sequence[Violation], kind: str) -> list[str]:
    """The violated ids in registry order; for a timeout or an OOM, ``terminates`` first."""
    ids = [i for i in registry() if any(v.invariant == i for v in violations)]
    if kind in ("timeout", "oom"):  # what libFuzzer saw first is what matters most
        ids.sort(key=lambda i: i not in ("terminates", "config_validation"))
    return ids


def convert(
    plugin: Plugin,
    artifact: Path,
    *,
    timeout: float = 2.0,
    memory_mb: int | None = 2048,
    folder: Path = REPRODUCERS,
    skip: Iterable[str] = (),
    selected: Sequence[str] | None = None,
    minimize_seconds: float = 5.0,
) -> list[Finding]:
    """Confirm one artifact in the isolated worker and save reproducers for it.

    Returns one Finding per violated invariant (minus ``skip``), each with its reproducer; or
    one unconfirmed Finding (no reproducer) if the worker does not see the failure again; or
    nothing if it only shows invariants in ``skip`` (already reported).
    """
    limits = Limits(timeout, memory_mb, selected, minimize_seconds)
    kind = artifact_kind(artifact)
    case = decode(artifact.read_bytes())
    chosen = list(registry()) if selected is None else list(selected)
    with Session(plugin, timeout=timeout, memory_mb=memory_mb, selected=chosen) as session:
        seen = session.observe(case.document, case.config, timeout=timeout)
        rules = [i for i in _pick(seen.violations, kind) if i not in set(skip)]
        findings = [
            _save(session, plugin, case, seen, rule, limits, folder, (artifact, kind))
            for rule in rules
        ]
    if findings or seen.violations:
        return findings
    return [_unconfirmed(artifact, kind, case, limits)]


def _save(
    session: Session,
    plugin: Plugin,
    case: FuzzCase,
    seen: Observation,
    rule: str,
    limits: Limits,
    folder: Path,
    source: tuple[Path, str],
) -> Finding:
    """Minimize ``case`` for ``rule``, save its reproducer, and describe it."""
    document, again = _minimized(session, case, seen, rule, limits)
    message = again.of(rule)[0].message
    found = Counterexample(rule, document, case.config, [message], again.records)
    saved = found.to_reproducer(plugin, timeout=limits.timeout, memory_mb=limits.memory_mb)
    path = reproducers.save(saved, folder)
    artifact, kind = source
    shown = escape(document, 120)
    return Finding(str(artifact), kind, rule, message, shown, case.config.describe(), str(path))


def _minimized(
    session: Session, case: FuzzCase, seen: Observation, rule: str, limits: Limits
) -> tuple[str, Observation]:
    """The smallest document still breaking ``rule``, and its observation (else the original)."""

    def fails(document: str) -> bool:
        quick = session.observe(document, case.config, only=rule, timeout=session.quick_timeout())
        return bool(quick.of(rule))

    document = minimize(case.document, fails, seconds=limits.minimize_seconds)
    again = session.observe(document, case.config, only=rule, timeout=limits.timeout)
    if not again.of(rule):
        return case.document, seen
    return document, again


def _unconfirmed(artifact: Path, kind: str, case: FuzzCase, limits: Limits) -> Finding:
    """A Finding that the isolated worker did not see again (no reproducer)."""
    why = {
        "timeout": f"every call finished within {limits.timeout:g} s in the isolated worker: "
        "the input may be slow (the fuzzer also times reruns and checks), not hung",
        "oom": f"the isolated worker stayed under {limits.memory_mb} MiB on it",
    }.get(
        kind,
        "the isolated worker saw no violation on it (only those already reported, "
        "or a failure that depends on state left by earlier inputs)",
    )
    return Finding(
        str(artifact),
        kind,
        None,
        f"not confirmed: {why}",
        escape(case.document, 120),
        case.config.describe(),
        None,
        confirmed=False,
    )
