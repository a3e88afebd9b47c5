"""What a run reports while it works: the events a runner emits and listeners consume.

Plain frozen dataclasses that import no Hypothesis; reporters subscribe with a
:data:`Listener`. The runner re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from contract.engine.results import RunResult

__all__ = [
    "Event", "Finished", "Listener", "Measuring", "Progress", "RunPhase", "Shrinking", "Started",
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
