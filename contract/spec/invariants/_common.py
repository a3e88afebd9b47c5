"""Helpers shared by the invariant families: spans, with placement for chunks without offsets."""

from __future__ import annotations

from collections.abc import Sequence

from contract.spec.model import Case, Chunk, plural
from contract.spec.placement import Accept, Lower, Placement, Span, after_previous, place_in_order


def place(
    case: Case,
    chunks: Sequence[Chunk],
    *,
    lower: Lower = after_previous,
    accept: Accept | None = None,
) -> Placement:
    """Place ``chunks`` in document order; chunks with offsets stay pinned to them."""
    spans = case.offset_spans
    fixed = [span[0] if (span := spans[c.index]) else None for c in chunks]
    return place_in_order(
        case.document.text, [c.text for c in chunks], fixed, lower=lower, accept=accept
    )


def spans_for(case: Case, chunks: Sequence[Chunk]) -> list[Span | None] | None:
    """Offsets of ``chunks``, or their document-order placement; None if they cannot be placed."""
    own = [case.offset_spans[c.index] for c in chunks]
    if all(span is not None for span in own):
        return own
    placed = place(case, chunks)
    return placed.spans if placed.ok else None


__all__ = ["plural"]  # re-exported for the invariants: one wording helper (contract.spec.model)
