"""What a run reports while it works: the events a runner emits and listeners consume.

Plain frozen dataclasses that import no Hypothesis; reporters subscribe with a
:data:`Listener`. The runner re-exports them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from chunk_contract.containment.reaper import started_cpu_seconds, tree_cpu_seconds
from chunk_contract.engine.results import PhaseTime, RunResult

__all__ = [
    "Event", "Finished", "Listener", "Measuring", "PhaseClock", "Progress", "RunPhase",
    "Shrinking", "Started",
]


@dataclass(frozen=True)
class Event:
    """Base class of everything a run reports while it works."""


@dataclass(frozen=True)
class Started(Event):
    target: str
    kind: str
    invariants: tuple[str, ...]
    seed: int
    max_examples: int


@dataclass(frozen=True)
class Progress(Event):
    examples: int
    max_examples: int
    violated: tuple[str, ...]


@dataclass(frozen=True)
class RunPhase(Event):
    """The run enters a phase: ``seed corpus``, ``covering schedule``, ``exploring``,
    ``fresh-interpreter rerun``; ``asked``: the examples asked for in all, as now known;
    ``budget_s``: the seconds the phase may take at most."""

    name: str
    asked: int | None = None
    budget_s: float | None = None


@dataclass(frozen=True)
class Shrinking(Event):
    invariant: str
    budget_s: float | None = None


@dataclass(frozen=True)
class Measuring(Event):
    invariant: str


@dataclass(frozen=True)
class Finished(Event):
    result: RunResult


Listener = Callable[[Event], None]


class PhaseClock:
    """Wall and CPU time of each phase of a run (see RunResult.phases), from its creation on.

    ``with clock.phase("exploration"): ...`` charges what the block took to that phase (a
    phase entered twice adds up). CPU time is the host's and its whole process tree's
    (:func:`chunk_contract.containment.reaper.tree_cpu_seconds`), so a worker's calls count too;
    ``plugin_cpu`` reads the part spent in the processes the host started
    (:func:`chunk_contract.containment.reaper.started_cpu_seconds`), kept apart in each phase.
    """

    def __init__(
        self,
        *,
        cpu: Callable[[], float] = tree_cpu_seconds,
        plugin_cpu: Callable[[], float] = started_cpu_seconds,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        self._cpu, self._plugin_cpu, self._wall = cpu, plugin_cpu, wall
        self._start = self._now()
        self.phases: dict[str, PhaseTime] = {}

    def _now(self) -> PhaseTime:
        plugin = self._plugin_cpu()  # first: the tree, read a moment later, holds all of it
        return PhaseTime(self._wall(), self._cpu(), plugin)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Charges the time the block takes (also when it raises) to phase ``name``."""
        before = self._now()
        try:
            yield
        finally:
            spent = _between(before, self._now())
            self.phases[name] = self.phases.get(name, PhaseTime()) + spent

    def total(self) -> PhaseTime:
        """The time since the clock was made."""
        return _between(self._start, self._now())


def _between(before: PhaseTime, after: PhaseTime) -> PhaseTime:
    """The time from reading ``before`` to reading ``after`` (the started processes' CPU never
    more than the whole tree's: the readings are a few microseconds apart)."""
    cpu = max(0.0, after.cpu - before.cpu)
    plugin = min(cpu, max(0.0, after.plugin_cpu - before.plugin_cpu))
    return PhaseTime(after.wall - before.wall, cpu, plugin)
