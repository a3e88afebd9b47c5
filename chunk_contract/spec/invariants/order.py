"""Order: sibling chunks come in document order, and each one reaches past its predecessor.

SPEC 1.1: starts strictly increase and ends strictly increase, so no chunk repeats a span or
lies wholly inside the chunk before it (a chunk that adds no text of its own).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator

from chunk_contract.spec.invariants._common import place
from chunk_contract.spec.model import Case, Chunk, Violation, describe_chunk, escape
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant


@invariant("ordered", kinds=("text",))
def ordered(case: Case) -> Iterator[Violation]:
    """Sibling chunks come in document order: starts and ends both strictly increase."""
    for group in case.siblings():
        spans = [case.offset_spans[c.index] for c in group]
        if all(s is not None for s in spans):
            yield from _check_spans(group, spans)
        else:
            yield from _check_placed(case, group)


def _check_spans(group: list[Chunk], spans: list[Span | None]) -> Iterator[Violation]:
    starts = [s[0] for s in spans if s is not None]  # (all are: see ordered)
    ends = [s[1] for s in spans if s is not None]
    if all(map(operator.lt, starts, starts[1:])) and all(map(operator.lt, ends, ends[1:])):
        return  # starts and ends both strictly increase (the common case, at C speed)
    for (a, sa), (b, sb) in zip(zip(group, spans), zip(group[1:], spans[1:])):
        assert sa is not None and sb is not None
        rule = _broken_rule(sa, sb)
        if rule:
            yield Violation(
                "ordered",
                f"{describe_chunk(b, sb)} follows {describe_chunk(a, sa)}: {rule}",
                (a.index, b.index),
            )


def _broken_rule(a: Span, b: Span) -> str:
    """What is wrong with span ``b`` following span ``a`` ("" when nothing is)."""
    if b[0] <= a[0]:
        return "start does not increase"
    if b[1] < a[1]:
        return "end decreases"
    if b[1] == a[1]:
        return "end does not increase: it lies wholly inside its predecessor"
    return ""


def _after(index: int, previous: Span | None, lengths: list[int]) -> int:
    """The earliest start for chunk ``index``: after the previous start, and late enough that
    its end passes the previous end (``start + length > previous end``).

    Both bounds grow with the previous start, so placing each chunk at its earliest allowed
    occurrence never hurts the chunks after it: the greedy placement finds an order-keeping
    placement whenever one exists, in one forward pass.
    """
    if previous is None:
        return 0
    return max(previous[0] + 1, previous[1] - lengths[index] + 1)


def _check_placed(case: Case, group: list[Chunk]) -> Iterator[Violation]:
    lengths = [len(c.text) for c in group]
    placed = place(case, group, lower=lambda i, prev: _after(i, prev, lengths))
    if placed.ok:
        return
    i = placed.failed or 0
    chunk = group[i]
    if not _placeable(case, chunk):
        return  # text the document does not hold (there): span_fidelity's finding
    # The chunk placed last before this one (empty chunks are not placed).
    j = next((k for k in range(i - 1, -1, -1) if placed.spans[k] is not None), None)
    previous = None if j is None else placed.spans[j]
    after = "the start" if j is None else describe_chunk(group[j], previous)
    yield Violation(
        "ordered",
        f"{describe_chunk(chunk)} {escape(chunk.text, 40)} {_where(case, chunk, previous)} "
        f"{after} in the document (starts and ends must both strictly increase)",
        (chunk.index,),
    )


def _placeable(case: Case, chunk: Chunk) -> bool:
    """Whether the chunk's text is in the document, at its own offsets when it has them."""
    span = case.offset_spans[chunk.index]
    if span is not None:
        return case.document.text.startswith(chunk.text, span[0])
    return not chunk.has_offsets and chunk.text in case.document.text


def _where(case: Case, chunk: Chunk, previous: Span | None) -> str:
    """How the chunk fails to follow ``previous``: not at all, or only inside it."""
    if previous is not None and case.document.text.find(chunk.text, previous[0] + 1) != -1:
        return "adds no text of its own: it occurs only inside"
    return "does not occur after"
