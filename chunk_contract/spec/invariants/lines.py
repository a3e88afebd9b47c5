"""Line citations: the cited lines are exactly those of a chunk's first and last character."""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter

from chunk_contract.spec.invariants._common import (
    CITATIONS,
    partly_reported,
    partly_reported_message,
    place,
    spans_for,
)
from chunk_contract.spec.model import Case, Chunk, Document, Violation, describe_chunk
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant

_FIRST, _LAST = attrgetter("line_start"), attrgetter("line_end")


@invariant("line_citations", fields=("line_start", "line_end"))
def line_citations(case: Case) -> Iterator[Violation]:
    """``line_start``/``line_end`` are the lines of the chunk's first and last character."""
    cited = [c for c in case.chunks if c.line_start is not None or c.line_end is not None]
    if not cited:
        return
    if case.all_spanned:
        yield from _check_spans(case, cited)
    else:
        yield from _check_placed(case)
    yield from _partly_cited(case)


def _check_spans(case: Case, cited: list[Chunk]) -> Iterator[Violation]:
    """The citations of chunks placed by their own offsets."""
    spans, size = case.offset_spans, len(case.document)
    pairs = [(c, s) for c in cited
             if (s := spans[c.index]) is not None and 0 <= s[0] < s[1] <= size]
    checked, held = [c for c, _ in pairs], [s for _, s in pairs]
    # Starts, then last characters: two sorted runs when the chunks are in order, even with
    # overlap, so Document.lines_of sorts them in linear time and scans the text once.
    lines = case.document.lines_of([s[0] for s in held] + [s[1] - 1 for s in held])
    firsts, lasts = lines[: len(checked)], lines[len(checked) :]
    if list(map(_FIRST, checked)) == firsts and list(map(_LAST, checked)) == lasts:
        return  # every citation right (the common case: two comparisons of lists)
    for chunk, span, first, last in zip(checked, held, firsts, lasts):
        if not _matches(chunk, first, last):
            yield _wrong_lines(chunk, span, first, last)


def _partly_cited(case: Case) -> Iterator[Violation]:
    """Lines cited for some chunks and not others (README: "Nothing hidden")."""
    without = partly_reported(case, CITATIONS["line citations"])
    if without:
        message = partly_reported_message(case, "line citations", without)
        yield Violation("line_citations", message, tuple(c.index for c in without))


def _lines(doc: Document, span: Span) -> tuple[int, int]:
    return doc.line_of(span[0]), doc.line_of(span[1] - 1)


def _wrong_lines(chunk: Chunk, span: Span, first: int, last: int) -> Violation:
    """Empty or impossible spans are left out: they are non_empty's and span_fidelity's."""
    return Violation(
        "line_citations",
        f"{describe_chunk(chunk, span)} cites lines {_cite(chunk)}; its first and last "
        f"characters are on lines {first}-{last}",
        (chunk.index,),
    )


def _matches(chunk: Chunk, first: int, last: int) -> bool:
    """Whether the reported citations (a missing one is not reported) are ``first``/``last``."""
    cited_first, cited_last = chunk.line_start, chunk.line_end
    return (cited_first is None or cited_first == first) and (
        cited_last is None or cited_last == last
    )


def _cite(chunk: Chunk) -> str:
    return f"{chunk.line_start}-{chunk.line_end}"


def _check_placed(case: Case) -> Iterator[Violation]:
    """Chunks without offsets: some document-order placement must sit on the cited lines."""
    chunks = list(case.chunks)
    if spans_for(case, chunks) is None:
        return
    doc = case.document

    def on_cited_lines(i: int, start: int, previous: Span | None) -> bool | None:
        chunk = chunks[i]
        first, last = _lines(doc, (start, start + len(chunk.text)))
        if chunk.line_start is not None and first > chunk.line_start:
            return None
        return _matches(chunk, first, last)

    placed = place(case, chunks, accept=on_cited_lines)
    if not placed.ok:
        chunk = chunks[placed.failed or 0]
        yield Violation(
            "line_citations",
            f"{describe_chunk(chunk)} cites lines {_cite(chunk)}, but no placement of the chunks "
            "in document order puts its text there",
            (chunk.index,),
        )
