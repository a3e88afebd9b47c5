"""Helpers shared by the invariant families: spans, with placement for chunks without offsets."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from chunk_contract.spec.model import Case, Chunk, plural
from chunk_contract.spec.placement import (
    Accept,
    Lower,
    Placement,
    Span,
    after_previous,
    place_in_order,
)


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


#: Citation fields that a plugin reports for every chunk or for none (see :func:`partly_reported`).
CITATIONS = {
    "codepoint offsets": ("start", "end"),
    "byte offsets": ("start_byte", "end_byte"),
    "line citations": ("line_start", "line_end"),
}


def partly_reported(case: Case, fields: Sequence[str]) -> list[Chunk]:
    """The chunks that report none of ``fields`` when others report some, else ``[]``.

    A plugin that cites where its chunks are cites every chunk: when a library gives offsets
    for some chunks and not others, the ones without are its lost offsets, which placing them
    (or skipping their check) would hide.
    """
    reported: list[Any] = list(map(attrgetter(*fields), case.chunks))  # several fields: tuples
    nothing = (None,) * len(fields) if len(fields) > 1 else None
    if reported.count(nothing) in (0, len(reported)):  # (the common case, at C speed)
        return []
    return [c for c, values in zip(case.chunks, reported) if values == nothing]


def partly_reported_message(case: Case, what: str, without: Sequence[Chunk]) -> str:
    """What :func:`partly_reported` found, naming the first chunks without the field."""
    named = ", ".join(f"chunk[{c.index}]" for c in without[:3])
    more = ", ..." if len(without) > 3 else ""
    reported = len(case.chunks) - len(without)
    return (
        f"{plural(len(without), 'chunk')} ({named}{more}) report no {what} while "
        f"{reported} of the {len(case.chunks)} chunks do: report {what} for every chunk or "
        f"for none (the contract does not place the rest itself, which would hide the "
        f"missing ones)"
    )


# re-exported for the invariants: one wording helper (chunk_contract.spec.model)
__all__ = ["plural"]
