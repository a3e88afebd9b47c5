"""Order: sibling chunks come in document order and never repeat a span."""

from __future__ import annotations

from collections.abc import Iterator

from contract.invariants._common import place
from contract.model import Case, Chunk, Violation, describe_chunk, escape
from contract.placement import Span
from contract.registry import invariant


@invariant("ordered", kinds=("text",))
def ordered(case: Case) -> Iterator[Violation]:
    """Sibling chunks come in document order: starts strictly increase, ends never decrease."""
    for group in case.siblings():
        spans = [case.offset_spans[c.index] for c in group]
        if all(s is not None for s in spans):
            yield from _check_spans(group, spans)
        else:
            yield from _check_placed(case, group)


def _check_spans(group: list[Chunk], spans: list[Span | None]) -> Iterator[Violation]:
    for (a, sa), (b, sb) in zip(zip(group, spans), zip(group[1:], spans[1:])):
        assert sa is not None and sb is not None
        if sb[0] <= sa[0] or sb[1] < sa[1]:
            rule = "start does not increase" if sb[0] <= sa[0] else "end decreases"
            yield Violation(
                "ordered",
                f"{describe_chunk(b, sb)} follows {describe_chunk(a, sa)}: {rule}",
                (a.index, b.index),
            )


def _after(index: int, previous: Span | None, lengths: list[int]) -> int:
    if previous is None:
        return 0
    return max(previous[0] + 1, previous[1] - lengths[index])


def _check_placed(case: Case, group: list[Chunk]) -> Iterator[Violation]:
    lengths = [len(c.text) for c in group]
    placed = place(case, group, lower=lambda i, prev: _after(i, prev, lengths))
    if placed.ok:
        return
    i = placed.failed or 0
    chunk = group[i]
    if chunk.has_offsets or chunk.text not in case.document.text:
        return  # text the document does not hold: span_fidelity's finding
    # The chunk placed last before this one (empty chunks are not placed).
    j = next((k for k in range(i - 1, -1, -1) if placed.spans[k] is not None), None)
    after = "the start" if j is None else describe_chunk(group[j], placed.spans[j])
    yield Violation(
        "ordered",
        f"{describe_chunk(chunk)} {escape(chunk.text, 40)} does not occur after "
        f"{after} in the document (starts must strictly increase, ends never decrease)",
        (chunk.index,),
    )
