"""What a covering schedule is and how much of it a run played: :class:`Schedule` (cases and
the pairs they must cover) and :class:`Coverage`, shared by the text and workbook schedules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from chunk_contract.spec.model import Config

__all__ = ["Coverage", "Pair", "Schedule", "Scheduled", "coverage_of"]

#: A covered pair: (factor, feature, value), e.g. ``("ending", "heading", "crlf")``.
Pair = tuple[str, str, str]


@dataclass(frozen=True)
class Coverage:
    """How much of the schedule's target a run played: ``covered`` of ``total`` pairs."""

    covered: int
    total: int
    #: factor -> (covered, total).
    by_factor: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: The pairs left uncovered (when the run stopped before the schedule's end), as
    #: ``"factor:feature:value"``.
    uncovered: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.covered == self.total

    def describe(self) -> str:
        """``"covered 412/412 pairs"``, plus what is missing if anything is."""
        text = f"covered {self.covered}/{self.total} pairs"
        if self.uncovered:
            shown = ", ".join(self.uncovered[:5])
            more = f" and {len(self.uncovered) - 5} more" if len(self.uncovered) > 5 else ""
            text += f" (run stopped early; uncovered: {shown}{more})"
        return text

    def as_dict(self) -> dict[str, object]:
        return {
            "covered": self.covered,
            "total": self.total,
            "by_factor": {k: {"covered": c, "total": t} for k, (c, t) in self.by_factor.items()},
            "uncovered": list(self.uncovered),
        }


class Scheduled(Protocol):
    """A scheduled case of any kind: a document, a config, and the pairs it covers."""

    @property
    def document(self) -> Any: ...

    @property
    def config(self) -> Config: ...

    def pairs(self) -> frozenset[Pair]: ...


def coverage_of(cases: Iterable[Scheduled], required: frozenset[Pair]) -> Coverage:
    """The coverage that playing ``cases`` achieves over ``required``."""
    covered: set[Pair] = set()
    for case in cases:
        covered |= case.pairs()
    covered &= required
    factors = sorted({p[0] for p in required})
    by_factor = {
        f: (sum(p[0] == f for p in covered), sum(p[0] == f for p in required)) for f in factors
    }
    missing = tuple(":".join(p) for p in sorted(required - covered))
    return Coverage(len(covered), len(required), by_factor, missing)


@dataclass(frozen=True)
class Schedule:
    """The cases to play, in order, and the pairs they must cover."""

    cases: tuple[Scheduled, ...]
    required: frozenset[Pair]

    def coverage(self, played: int) -> Coverage:
        """The coverage of the first ``played`` cases."""
        return coverage_of(self.cases[:played], self.required)

    def items(self) -> list[tuple[Any, Config]]:
        """The ``(document, config)`` pairs, in order."""
        return [(case.document, case.config) for case in self.cases]
