"""Size rules: the cap holds for every leaf chunk, and neighbours overlap no more than allowed."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator
from typing import cast

import regex

from chunk_contract.spec.a1 import parse_range
from chunk_contract.spec.invariants._common import place, plural, spans_for
from chunk_contract.spec.model import Case, Chunk, Violation, describe_chunk, escape
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant

_ONE_GRAPHEME = regex.compile(r"\X")
_TEXT = operator.attrgetter("text")
_UTF8 = operator.methodcaller("encode", "utf-8", "surrogatepass")


@invariant("cap_respected", kinds=("text", "workbook"))
def cap_respected(case: Case) -> Iterator[Violation]:
    """Every leaf chunk's size in the plugin's unit is at most max_size, unless indivisible."""
    cap = case.config.max_size
    for chunk, size in _over_cap(case, case.leaves(), cap):
        if not _indivisible(case, chunk):
            yield Violation(
                "cap_respected",
                f"{describe_chunk(chunk)} is {plural(size, case.unit.rstrip('s'))} > max_size {cap}"
                f": {escape(chunk.text, 60)}",
                (chunk.index,),
            )


def _over_cap(case: Case, leaves: list[Chunk], cap: int) -> Iterator[tuple[Chunk, int]]:
    """The leaves over ``cap`` and their sizes; in characters and bytes, measured and picked
    out in C loops over the whole list (no call per chunk)."""
    texts = map(_TEXT, leaves)
    if case.unit == "chars":
        sizes = list(map(len, texts))
    elif case.unit == "bytes":
        sizes = list(map(len, map(_UTF8, texts)))
    else:
        sizes = [case.chunk_size(chunk) for chunk in leaves]
    over = list(map(operator.gt, sizes, itertools.repeat(cap)))
    return zip(itertools.compress(leaves, over), itertools.compress(sizes, over))


def _indivisible(case: Case, chunk: Chunk) -> bool:
    """One codepoint, one grapheme cluster (if promised), or one cell (workbooks)."""
    if len(chunk.text) == 1:
        return True
    if "grapheme_integrity" in case.promises and _ONE_GRAPHEME.fullmatch(chunk.text):
        return True
    return case.declarations.kind == "workbook" and _one_cell(chunk.range)


def _one_cell(cell_range: str | None) -> bool:
    box = parse_range(cell_range) if cell_range else None
    return box is not None and box[0] == box[2] and box[1] == box[3]


@invariant("overlap_bounded")
def overlap_bounded(case: Case) -> Iterator[Violation]:
    """Consecutive sibling chunks share at most ``overlap`` (in the plugin's unit)."""
    for group in case.siblings():
        yield from _overlaps(case, group)


def _overlaps(case: Case, group: list[Chunk]) -> Iterator[Violation]:
    spans = [case.offset_spans[c.index] for c in group]
    if any(s is None for s in spans):
        yield from _placed_overlap(case, group)
        return
    for i in _candidates(case, group, cast(list[Span], spans)):
        a, b, sa, sb = group[i], group[i + 1], spans[i], spans[i + 1]
        assert sa is not None and sb is not None
        shared = excess_overlap(case, a, b, sa, sb)
        if shared is not None:
            yield _too_much(case, a, b, sa, sb, shared)


def _candidates(case: Case, group: list[Chunk], spans: list[Span]) -> Iterable[int]:
    """The indices ``i`` of the pairs ``group[i]``, ``group[i + 1]`` that may share more than
    the overlap: in chars, or in bytes between byte-exact chunks, the pairs whose offsets say
    so (one comprehension over the group, not a call per pair); in any other case every pair."""
    if case.unit == "chars":
        starts, ends = [s[0] for s in spans], [s[1] for s in spans]
    elif case.unit == "bytes" and all(case.byte_exact[c.index] for c in group):
        starts = [cast(int, c.start_byte) for c in group]
        ends = [cast(int, c.end_byte) for c in group]
    else:
        return range(len(group) - 1)
    limit = case.config.overlap
    pairs = zip(starts, ends, starts[1:], ends[1:])
    return [i for i, (s1, e1, s2, e2) in enumerate(pairs) if min(e1, e2) - max(s1, s2) > limit]


def excess_overlap(case: Case, a: Chunk, b: Chunk, sa: Span, sb: Span) -> int | None:
    """The size (in the plugin's unit) of what chunks ``a`` and ``b`` at spans ``sa`` and
    ``sb`` share, when it is over the allowed overlap; None when it is within it.

    In bytes, two byte-exact chunks are measured by their own byte offsets (no encoding);
    ``tiles_parent`` measures overlapping children with this too.
    """
    exact = case.byte_exact if case.unit == "bytes" else None
    if exact is not None and exact[a.index] and exact[b.index]:
        return _shared_bytes(case, a, b)  # byte spans, checked to be the same places
    return _shared(case, sa, sb)


def _shared(case: Case, a: Span, b: Span) -> int | None:
    """The size of what spans ``a`` and ``b`` share, when it is over the allowed overlap."""
    low, high = max(a[0], b[0]), min(a[1], b[1])
    if high <= low:
        return None
    piece = case.document.text[low:high]
    if case.unit == "chars" or (case.unit == "bytes" and piece.isascii()):
        size = high - low  # no encoding needed
    else:
        size = case.size(piece)
    return size if size > case.config.overlap else None


def _shared_bytes(case: Case, a: Chunk, b: Chunk) -> int | None:
    """Like :func:`_shared`, read off two byte-exact chunks' byte offsets (no encoding)."""
    size = min(cast(int, a.end_byte), cast(int, b.end_byte))
    size -= max(cast(int, a.start_byte), cast(int, b.start_byte))
    return size if size > case.config.overlap else None


def _too_much(case: Case, a: Chunk, b: Chunk, sa: Span, sb: Span, size: int) -> Violation:
    low, high = max(sa[0], sb[0]), min(sa[1], sb[1])
    return Violation(
        "overlap_bounded",
        f"{describe_chunk(a, sa)} and {describe_chunk(b, sb)} share [{low}:{high}) "
        f"{escape(case.document.text[low:high], 40)}: {plural(size, case.unit.rstrip('s'))} "
        f"> overlap {case.config.overlap}",
        (a.index, b.index),
    )


def _placed_overlap(case: Case, group: list[Chunk]) -> Iterator[Violation]:
    """Chunks without offsets: report only when no document-order placement keeps the bound."""
    if spans_for(case, group) is None:
        return  # not placeable in order at all: ordered / span_fidelity report that
    bounded = place(case, group, accept=lambda i, q, prev: _fits(case, q, prev))
    if bounded.ok:
        return
    i = bounded.failed
    assert i is not None
    # The chunk placed last before this one (empty chunks are not placed).
    j = next((k for k in range(i - 1, -1, -1) if bounded.spans[k] is not None), None)
    assert j is not None  # the first placed chunk has no predecessor to overlap
    prev = bounded.spans[j]
    assert prev is not None
    a, b = group[j], group[i]
    start = case.document.text.find(b.text, prev[0] + 1)
    if start == -1:
        yield Violation(
            "overlap_bounded",
            f"keeping the overlap bound pushes {describe_chunk(a, prev)} so late that "
            f"{describe_chunk(b)} no longer follows it in the document",
            (a.index, b.index),
        )
        return
    this = (start, start + len(b.text))
    yield _too_much(case, a, b, prev, this, _shared(case, prev, this) or 0)


def _fits(case: Case, start: int, previous: Span | None) -> bool:
    if previous is None or start >= previous[1]:
        return True
    return case.size(case.document.text[start : previous[1]]) <= case.config.overlap
