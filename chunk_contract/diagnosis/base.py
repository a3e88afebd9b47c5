"""What a diagnosis and a bug pattern are, the :class:`Probe` experiments run on, and the
``@pattern`` registry (re-exported by :mod:`chunk_contract.diagnosis`).

This module registers no pattern itself: the built-in ones (:mod:`chunk_contract.diagnosis.builtin`)
are loaded by :func:`chunk_contract.diagnosis.load_builtin`.

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

from chunk_contract.spec.model import Chunk, Config, chunks_from_records

__all__ = ["Diagnosis", "Experiment", "Inconclusive", "Observer", "Pattern", "Probe", "pattern"]

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
    """What a probe needs of a session: one checked call of the plugin, and the plugin timed on
    a scaling family (an object with ``superlinear``, ``sizes``, ``seconds`` and ``compared``)."""

    def observe(self, document: Any, config: Config, *, only: str | None = None,
                timeout: float | None = None) -> Any: ...

    def time_family(self, family: str) -> Any: ...


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
