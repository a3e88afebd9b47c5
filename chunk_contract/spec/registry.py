"""The invariant registry: every rule of the contract, keyed by its stable id (SPEC §5).

Rules are registered with :func:`invariant` (defined in :mod:`chunk_contract.spec.rules`,
re-exported here); the accessors below (:func:`registry`, :func:`get`, :func:`select`) first load
the built-in rules, explicitly, with :func:`chunk_contract.spec.invariants.load_builtin`, then the
rules of installed extensions (the ``chunk_contract.invariants`` entry points,
chunk_contract._extensions).
"""

from __future__ import annotations

from collections.abc import Iterable

from chunk_contract._extensions import load_group
from chunk_contract.errors import UnknownInvariant
from chunk_contract.spec.invariants import load_builtin
from chunk_contract.spec.rules import _REGISTRY, Check, Invariant, invariant

__all__ = [
    "EXTENSION_IDS",
    "SPEC_IDS",
    "Check",
    "Invariant",
    "get",
    "invariant",
    "registry",
    "select",
]

#: SPEC §5's ids, in the order reports list them.
SPEC_IDS = (
    "terminates",
    "no_crash",
    "non_empty",
    "span_fidelity",
    "no_lost_text",
    "cap_respected",
    "codepoint_integrity",
    "grapheme_integrity",
    "line_citations",
    "ordered",
    "overlap_bounded",
    "unique_ids",
    "deterministic",
    "heading_boundary",
    "newline_invariance",
    "config_validation",
    "scales_linearly",
    "tiles_parent",
    "tight_range",
    "cells_covered",
)
#: Invariants beyond SPEC §5 (all opt-in), listed after the SPEC's in reports.
EXTENSION_IDS = ("section_path",)


def registry() -> dict[str, Invariant]:
    """All registered invariants, SPEC ids first in SPEC order, then any extensions (the
    installed ``chunk_contract.invariants`` entry points are loaded here)."""
    load_builtin()
    load_group("chunk_contract.invariants")
    order = {name: i for i, name in enumerate((*SPEC_IDS, *EXTENSION_IDS))}
    return dict(sorted(_REGISTRY.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def get(id: str) -> Invariant:
    """The invariant registered under ``id``, or a KeyError listing the known ids."""
    rules = registry()
    if id not in rules:
        raise UnknownInvariant(f"unknown invariant {id!r}; known: {', '.join(rules)}")
    return rules[id]


def select(only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[str]:
    """Validate ``--only`` / ``--skip`` ids and return the selected ids in report order."""
    rules = registry()
    only, skip = list(only), list(skip)
    unknown = [i for i in [*only, *skip] if i not in rules]
    if unknown:
        raise UnknownInvariant(
            f"unknown invariant id(s) {', '.join(unknown)}; known: {', '.join(rules)}"
        )
    chosen = only or list(rules)
    return [i for i in rules if i in chosen and i not in skip]
