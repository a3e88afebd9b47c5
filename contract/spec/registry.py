"""The invariant registry: every rule of the contract, keyed by its stable id (SPEC §5)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from contract.errors import UnknownInvariant
from contract.spec.model import Case, Violation

Check = Callable[[Case], Iterable[Violation]]

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


@dataclass(frozen=True)
class Invariant:
    """A registered rule: its id, its check, and when it applies."""

    id: str
    check: Check
    rule: str
    kinds: frozenset[str]
    opt_in: bool = False
    needs: frozenset[str] = frozenset()
    fields: frozenset[str] = frozenset()
    engine: bool = False
    #: An empty output is judged (exercises the rule) even though it reports none of ``fields``.
    judges_empty: bool = False

    def exercised_by(self, chunks: Iterable[object]) -> bool:
        """Whether some chunk reports one of the fields this rule needs (always, if none)."""
        chunks = list(chunks)
        if not chunks and self.judges_empty:
            return True
        return not self.fields or any(
            getattr(c, name, None) is not None for c in chunks for name in self.fields
        )

    def applies_to(self, kind: str, promises: Iterable[str]) -> bool:
        """Whether this rule is checked for a plugin of ``kind`` with these ``promises``."""
        return kind in self.kinds and (not self.opt_in or self.id in set(promises))


_REGISTRY: dict[str, Invariant] = {}


def invariant(
    id: str,
    *,
    kinds: Iterable[str] = ("text",),
    opt_in: bool = False,
    needs: Iterable[str] = (),
    fields: Iterable[str] = (),
    engine: bool = False,
    judges_empty: bool = False,
) -> Callable[[Check], Check]:
    """Register ``check`` under ``id``; a second registration of the same id is an error.

    ``needs`` names extra observations the runner must make (``"rerun"``, ``"lf_twin"``);
    ``fields`` names chunk fields the rule reads: a plugin that never reports any of them
    leaves the rule ``skipped``, unless ``judges_empty`` and the output is empty (an empty
    output reports no field, yet can break the rule). ``engine`` marks rules the runner itself
    decides (hangs, crashes, configs, scaling).
    """

    def register(check: Check) -> Check:
        if id in _REGISTRY:
            raise ValueError(f"invariant {id!r} is already registered by {_REGISTRY[id].check!r}")
        doc = (check.__doc__ or "").strip()
        if not doc:
            raise ValueError(f"invariant {id!r} needs a docstring whose first line is the rule")
        _REGISTRY[id] = Invariant(
            id=id,
            check=check,
            rule=doc.splitlines()[0],
            kinds=frozenset(kinds),
            opt_in=opt_in,
            needs=frozenset(needs),
            fields=frozenset(fields),
            engine=engine,
            judges_empty=judges_empty,
        )
        return check

    return register


def registry() -> dict[str, Invariant]:
    """All registered invariants, SPEC ids first in SPEC order, then any extensions."""
    import contract.spec.invariants  # noqa: F401  (registers the built-in rules)

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
