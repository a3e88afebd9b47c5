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
"""

from __future__ import annotations

import functools

from chunk_contract._extensions import load_group
from chunk_contract.diagnosis.base import (
    _PATTERNS,
    Diagnosis,
    Inconclusive,
    Pattern,
    Probe,
    pattern,
)

__all__ = [
    "Diagnosis", "Inconclusive", "Pattern", "Probe", "diagnose", "load_builtin", "pattern",
    "patterns",
]


@functools.cache
def load_builtin() -> None:
    """Register the built-in patterns (idempotent): the explicit loading :func:`patterns` does."""
    # lazy: the explicit loading of the built-in patterns
    from chunk_contract.diagnosis import builtin  # noqa: F401  (importing it registers its patterns)


def patterns() -> dict[str, Pattern]:
    """Every registered pattern by id, the built-in ones loaded first, then those of the
    installed ``chunk_contract.patterns`` entry points."""
    load_builtin()
    load_group("chunk_contract.patterns")
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
