"""Identity and hierarchy: ids are unique, and children tile their parent (overlapping as
siblings may, SPEC 1.1)."""

from __future__ import annotations

from collections.abc import Iterator

from chunk_contract.spec.invariants._common import plural
from chunk_contract.spec.invariants.sheets import tiles_cells
from chunk_contract.spec.invariants.size import excess_overlap
from chunk_contract.spec.model import (
    Case,
    Chunk,
    Violation,
    describe_chunk,
    escape,
    first_non_space,
)
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant


@invariant("unique_ids", kinds=("text", "workbook"), fields=("id",))
def unique_ids(case: Case) -> Iterator[Violation]:
    """No two chunks of one document share an ``id``."""
    ids = [chunk.id for chunk in case.chunks if chunk.id is not None]
    if len(set(ids)) == len(ids):
        return  # (the common case, at C speed)
    seen: dict[str, Chunk] = {}
    for chunk in case.chunks:
        if chunk.id is None:
            continue
        if chunk.id in seen:
            first = seen[chunk.id]
            yield Violation(
                "unique_ids",
                f"{describe_chunk(first)} and {describe_chunk(chunk)} share id {chunk.id!r}",
                (first.index, chunk.index),
            )
        else:
            seen[chunk.id] = chunk


@invariant("tiles_parent", kinds=("text", "workbook"), fields=("parent",))
def tiles_parent(case: Case) -> Iterator[Violation]:
    """A parent's children lie inside it, cover its non-blank content, and overlap as allowed.

    Text children share at most ``overlap`` with the next one in document order; workbook
    children share nothing."""
    by_id = {c.id: c for c in case.chunks if c.id is not None}
    families: dict[str, list[Chunk]] = {}
    for chunk in case.chunks:
        if chunk.parent is not None:
            families.setdefault(chunk.parent, []).append(chunk)
    for parent_id, children in families.items():
        parent = by_id.get(parent_id)
        if parent is None:
            yield Violation(
                "tiles_parent",
                f"{describe_chunk(children[0])} names parent {parent_id!r}, "
                "which is not in the output",
                (children[0].index,),
            )
        elif case.declarations.kind == "workbook":
            yield from _tiles_cells(case, parent, children)
        else:
            yield from _tiles_text(case, parent, children)


def _tiles_text(case: Case, parent: Chunk, children: list[Chunk]) -> Iterator[Violation]:
    """Children in document order: each inside the parent, sharing at most ``overlap`` with the
    next (SPEC 1.1), with no non-whitespace of the parent between them."""
    spans = case.offset_spans
    outer = spans[parent.index]
    inner = [(spans[c.index], c) for c in children]
    if outer is None or any(s is None for s, _ in inner):
        return  # hierarchy checks need offsets
    placed: list[tuple[Span, Chunk]] = sorted(
        ((s, c) for s, c in inner if s is not None), key=lambda sc: (sc[0], sc[1].index)
    )
    covered = outer[0]
    previous: tuple[Span, Chunk] | None = None
    for span, child in placed:
        if span[0] < outer[0] or span[1] > outer[1]:
            yield _tile(child, span, f"is not inside its parent {describe_chunk(parent, outer)}")
            return
        if previous is not None and (found := _too_much_shared(case, previous, (span, child))):
            yield found
            return
        gap = first_non_space(case.document.text, covered, span[0])
        if gap != -1:
            yield _lost(case, parent, outer, gap)
            return
        covered, previous = max(covered, span[1]), (span, child)
    gap = first_non_space(case.document.text, covered, outer[1])
    if gap != -1:
        yield _lost(case, parent, outer, gap)


def _too_much_shared(
    case: Case, before: tuple[Span, Chunk], this: tuple[Span, Chunk]
) -> Violation | None:
    """A violation when two children next in document order share more than ``overlap``
    (measured as ``overlap_bounded`` measures neighbours)."""
    (sa, a), (sb, b) = before, this
    size = excess_overlap(case, a, b, sa, sb)
    if size is None:
        return None
    low, high = max(sa[0], sb[0]), min(sa[1], sb[1])
    return _tile(
        b,
        sb,
        f"overlaps its sibling {describe_chunk(a, sa)} by [{low}:{high}) "
        f"{escape(case.document.text[low:high], 40)}: {plural(size, case.unit.rstrip('s'))} "
        f"> overlap {case.config.overlap}",
    )


def _tile(child: Chunk, span: Span, what: str) -> Violation:
    return Violation("tiles_parent", f"{describe_chunk(child, span)} {what}", (child.index,))


def _lost(case: Case, parent: Chunk, outer: Span, gap: int) -> Violation:
    char = escape(case.document.text[gap])
    return Violation(
        "tiles_parent",
        f"document[{gap}] {char} lies in parent {describe_chunk(parent, outer)} but in none "
        "of its children",
        (parent.index,),
    )


def _tiles_cells(case: Case, parent: Chunk, children: list[Chunk]) -> Iterator[Violation]:
    yield from tiles_cells(case, parent, children)
