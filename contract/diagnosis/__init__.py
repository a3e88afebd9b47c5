"""Diagnoses: the bug pattern behind a counterexample, named only when an experiment confirms it.

A shrunk counterexample says *what* is wrong; a diagnosis says *why*: "offsets found with
``str.find``", "overlap added on top of a full chunk". Patterns form an open registry, like the
invariants: one small function per pattern, registered with the invariants it explains::

    @pattern("overlap_on_top", invariants=("cap_respected",),
             cause="the overlap is prepended to a chunk that already fills the cap",
             fix="take the overlap out of the cap: cut max_size - overlap new units")
    def overlap_on_top(probe: Probe) -> str | None:
        ...  # return the evidence when the experiment confirms the pattern, else None

A pattern never matches on a message. It looks at the counterexample's structure (a chunk
exactly ``max_size + overlap`` long) and then runs an experiment on the plugin itself through
:class:`Probe` (the same input with overlap 0): the diagnosis is given only when the violation
disappears the way the pattern predicts. Patterns are tried in registration order, and the first
confirmed one is the diagnosis: each counterexample gets at most one.

A variation the plugin does not answer (it times out, or crashes, when the rule under study is
another one) proves nothing either way: "no violation of cap_respected" from a call that never
returned is not "the violation disappears". Such an experiment is inconclusive and confirms
nothing. A variation that timed out under the probe's quick timeout (a busy machine) is asked
once more with the session's full timeout before it is given up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from contract.model import Chunk, Config, chunks_from_records

__all__ = ["Diagnosis", "Inconclusive", "Pattern", "Probe", "diagnose", "pattern", "patterns"]

#: Failures of the call itself: a variation that ends in one of them was not answered (unless
#: it is the rule under study).
_UNANSWERED = ("terminates", "no_crash")


class Inconclusive(Exception):
    """A variation the plugin did not answer: the experiment can confirm nothing."""


@dataclass(frozen=True)
class Diagnosis:
    """A confirmed bug pattern: its id, the cause in one sentence, the usual fix, the evidence."""

    pattern: str
    cause: str
    fix: str
    evidence: str

    def as_dict(self) -> dict[str, str]:
        """The JSON report's ``diagnosis`` object."""
        return {"pattern": self.pattern, "cause": self.cause, "fix": self.fix,
                "evidence": self.evidence}


class Observer(Protocol):
    """What a probe needs of a session: one checked call of the plugin."""

    def observe(self, document: Any, config: Config, *, only: str | None = None,
                timeout: float | None = None) -> Any: ...


@dataclass
class Probe:
    """A counterexample and a way to run the plugin again on variations of it."""

    invariant: str
    document: Any
    config: Config
    records: list[dict[str, Any]] | None
    offending: list[int]
    session: Observer
    timeout: float | None = None
    unit: str = "chars"
    #: whether a variation that timed out is asked again with the session's full timeout
    retry: bool = True

    @property
    def chunks(self) -> list[Chunk]:
        """The counterexample's chunks (empty when the call gave none)."""
        return chunks_from_records(self.records or [])

    @property
    def suspects(self) -> list[Chunk]:
        """The chunks the violation names, or every chunk when it names none."""
        chunks = self.chunks
        picked = [c for c in chunks if c.index in set(self.offending)]
        return picked or chunks

    def fails(self, document: Any = None, config: Config | None = None) -> bool:
        """Whether the same invariant still fails on a variation of the counterexample."""
        seen = self._observe(document, config)
        return bool(seen.of(self.invariant))

    def rechunk(self, document: Any = None, config: Config | None = None) -> list[Chunk] | None:
        """The plugin's chunks on a variation (None when the call gave none)."""
        seen = self._observe(document, config)
        return None if seen.records is None else chunks_from_records(seen.records)

    def _observe(self, document: Any, config: Config | None) -> Any:
        """The checked call on a variation; Inconclusive when the plugin did not answer."""
        doc = self.document if document is None else document
        cfg = config or self.config
        seen = self.session.observe(doc, cfg, only=self.invariant, timeout=self.timeout)
        full = getattr(self.session, "timeout", None)
        if self._timed_out(seen) and self.retry and full is not None and full != self.timeout:
            seen = self.session.observe(doc, cfg, only=self.invariant, timeout=full)
            self.retry = not self._timed_out(seen)  # a real hang: retry no other variation
        if any(seen.of(rule) for rule in _UNANSWERED if rule != self.invariant):
            raise Inconclusive(f"the plugin did not answer the variation ({cfg.describe()})")
        return seen

    def _timed_out(self, seen: Any) -> bool:
        return self.invariant != "terminates" and bool(seen.of("terminates"))


Experiment = Callable[[Probe], "str | None"]


@dataclass(frozen=True)
class Pattern:
    """A registered bug pattern."""

    id: str
    invariants: frozenset[str]
    cause: str
    fix: str
    experiment: Experiment

    def confirm(self, probe: Probe) -> Diagnosis | None:
        """The diagnosis when the experiment confirms the pattern on this probe."""
        try:
            evidence = self.experiment(probe)
        except Inconclusive:
            return None
        if evidence is None:
            return None
        return Diagnosis(self.id, self.cause, self.fix, evidence)


_PATTERNS: dict[str, Pattern] = {}


def pattern(id: str, *, invariants: tuple[str, ...], cause: str,
            fix: str) -> Callable[[Experiment], Experiment]:
    """Register an experiment as the pattern ``id`` for the given invariants."""
    def register(experiment: Experiment) -> Experiment:
        if id in _PATTERNS:
            raise ValueError(f"diagnosis pattern {id!r} is registered twice")
        _PATTERNS[id] = Pattern(id, frozenset(invariants), cause, fix, experiment)
        return experiment
    return register


def patterns() -> dict[str, Pattern]:
    """Every registered pattern by id, the built-in ones loaded first."""
    from contract.diagnosis import builtin  # noqa: F401  (registers on import)

    return dict(_PATTERNS)


def diagnose(probe: Probe) -> Diagnosis | None:
    """The first pattern for the probe's invariant that its experiment confirms, or None.

    A pattern whose experiment fails (the plugin misbehaves differently on a variation) is
    skipped: a diagnosis is never a guess.
    """
    for candidate in patterns().values():
        if probe.invariant not in candidate.invariants:
            continue
        found = candidate.confirm(probe)
        if found is not None:
            return found
    return None
