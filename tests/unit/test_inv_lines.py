"""line_citations: cited lines are those of the chunk's first and last character; only "\\n"
ends a line."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunk_contract.spec.model import Chunk, Document
from tests.unit.helpers import accepts, case, rejects, slices, spans, violations

BLOCK = '{\n  "name": "x",\n  "tags": [1, 2]\n}\n'  # four lines


def _cited(doc: str, chunks: list[Chunk]) -> list[Chunk]:
    """The chunks citing their true lines (from their offsets)."""
    d = Document(doc)
    return [
        replace(c, line_start=d.line_of(c.start), line_end=d.line_of(c.end - 1))
        for c in chunks
        if c.start is not None and c.end is not None
    ]


def _bare_cited(chunks: list[Chunk], lines: list[tuple[int, int]]) -> list[Chunk]:
    return [
        Chunk(index=c.index, text=c.text, bare=True, line_start=a, line_end=b)
        for c, (a, b) in zip(chunks, lines)
    ]


# --------------------------------------------------------------------------- seeds


def test_repeated_json_blocks_each_cite_their_own_lines() -> None:
    """Seed: full_text.find(piece) locks onto the first of several identical blocks."""
    doc = BLOCK * 3
    blocks = spans(doc, *[(k * len(BLOCK), (k + 1) * len(BLOCK) - 1) for k in range(3)])
    accepts("line_citations", case(doc, _cited(doc, blocks)))
    accepts("line_citations", case(doc, _bare_cited(blocks, [(1, 4), (5, 8), (9, 12)])))
    # find() from the top: every copy cites the first copy's lines
    found_first = _bare_cited(blocks, [(1, 4), (1, 4), (1, 4)])
    rejects(
        "line_citations",
        case(doc, found_first),
        "chunk[1] cites lines 1-4, but no placement of the chunks in document order puts its "
        "text there",
    )
    with_offsets = [replace(c, line_start=1, line_end=4) for c in blocks]
    rejects(
        "line_citations",
        case(doc, with_offsets),
        "chunk[1] [36:71) cites lines 1-4; its first and last characters are on lines 5-8",
    )


def test_leading_blank_lines_shift_nothing() -> None:
    """Seed: text.strip() then base_line=1 shifted every line of a file starting blank."""
    doc = "\n\n\n" + BLOCK
    chunk = slices(doc, BLOCK.strip())
    accepts("line_citations", case(doc, _cited(doc, chunk)))
    stripped = [replace(chunk[0], line_start=1, line_end=4)]
    rejects(
        "line_citations",
        case(doc, stripped),
        "chunk[0] [3:38) cites lines 1-4; its first and last characters are on lines 4-7",
    )
    rejects(
        "line_citations",
        case(doc, _bare_cited(chunk, [(1, 4)])),
        "chunk[0] cites lines 1-4, but no placement",
    )


def test_a_span_ending_right_after_a_newline_ends_on_that_line() -> None:
    """Seed: end-exclusive end at column 0 of the next line must not claim that line."""
    doc = "one\ntwo\nthree\n"
    chunk = spans(doc, (0, 8))  # "one\ntwo\n"
    accepts("line_citations", case(doc, [replace(chunk[0], line_start=1, line_end=2)]))
    rejects(
        "line_citations",
        case(doc, [replace(chunk[0], line_start=1, line_end=3)]),
        "chunk[0] [0:8) cites lines 1-3; its first and last characters are on lines 1-2",
    )
    bare_chunk = Chunk(index=0, text="one\ntwo\n", bare=True, line_start=1, line_end=3)
    rejects("line_citations", case(doc, [bare_chunk]), "chunk[0] cites lines 1-3")


@pytest.mark.parametrize(
    "sep", ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
)
def test_only_newline_ends_a_line(sep: str) -> None:
    doc = f"alpha{sep}beta{sep}gamma\ndelta"
    chunk = spans(doc, (0, len(doc)))
    accepts("line_citations", case(doc, [replace(chunk[0], line_start=1, line_end=2)]))
    # what str.splitlines() would say
    split_lines = len(doc.splitlines())
    rejects(
        "line_citations",
        case(doc, [replace(chunk[0], line_start=1, line_end=split_lines)]),
        f"cites lines 1-{split_lines}; its first and last characters are on lines 1-2",
    )
    tail = slices(doc, "delta")[0]
    accepts("line_citations", case(doc, [replace(tail, line_start=2, line_end=2)]))


def test_crlf_ends_a_line_at_its_newline() -> None:
    doc = "alpha\r\nbeta\r\n\r\ngamma"
    chunks = slices(doc, "alpha\r", "beta\r\n", "gamma")
    accepts("line_citations", case(doc, _cited(doc, chunks)))
    assert [(c.line_start, c.line_end) for c in _cited(doc, chunks)] == [(1, 1), (2, 2), (4, 4)]


# --------------------------------------------------------------------------- partial citations


def test_one_citation_reported_is_checked_alone() -> None:
    """A missing line_end is "not reported" (SPEC §4), not a mismatch: before the fix a chunk
    with offsets and only line_start was reported as citing "lines 1-None"."""
    doc = "a\nb\nc"
    chunk = spans(doc, (0, 3))[0]
    accepts("line_citations", case(doc, [replace(chunk, line_start=1)]))
    accepts("line_citations", case(doc, [replace(chunk, line_end=2)]))
    rejects(
        "line_citations",
        case(doc, [replace(chunk, line_start=2)]),
        "cites lines 2-None; its first and last characters are on lines 1-2",
    )
    placed = Chunk(index=0, text="a\nb", bare=True, line_end=2)
    accepts("line_citations", case(doc, [placed]))


def test_chunks_without_citations_are_not_checked() -> None:
    doc = "a\nb"
    assert violations("line_citations", case(doc, spans(doc, (0, 1), (2, 3)))) == []


def test_impossible_spans_are_left_to_span_fidelity() -> None:
    doc = "a\nb"
    bad = Chunk(index=0, text="zz", start=5, end=7, line_start=1, line_end=1)
    assert violations("line_citations", case(doc, [bad])) == []


# --------------------------------------------------------------------------- placement


def test_bare_citations_pick_the_occurrence_on_the_cited_lines() -> None:
    doc = "x\ny\nx\ny\n"
    accepts(
        "line_citations",
        case(doc, [Chunk(index=0, text="x\ny", bare=True, line_start=3, line_end=4)]),
    )
    # in order: the second chunk cannot go back to line 1
    chunks = [
        Chunk(index=0, text="x", bare=True, line_start=3, line_end=3),
        Chunk(index=1, text="y", bare=True, line_start=2, line_end=2),
    ]
    rejects("line_citations", case(doc, chunks), "chunk[1] cites lines 2-2, but no placement")


def test_periodic_lines_with_overlap() -> None:
    doc = '{"a": 1}\n' * 20
    step, size = 2, 3
    chunks = []
    for k in range(0, 18, step):
        text = '{"a": 1}\n' * size
        chunks.append(
            Chunk(
                index=len(chunks),
                text=text.rstrip("\n"),
                bare=True,
                line_start=k + 1,
                line_end=k + size,
            )
        )
    accepts("line_citations", case(doc, chunks))
    shifted = [replace(c, line_start=c.line_start + 1, line_end=c.line_end + 1) for c in chunks]
    shifted[-1] = replace(shifted[-1], line_start=40, line_end=42)  # past the end
    rejects("line_citations", case(doc, shifted), "cites lines 40-42")


def test_hierarchies_without_offsets_are_not_placed_as_one_sequence() -> None:
    """Children start where their parent starts: one strictly increasing placement of all
    chunks does not exist, and no false violation may come of it."""
    doc = "alpha beta"
    chunks = [
        Chunk(index=0, text=doc, bare=True, id="p", line_start=1, line_end=1),
        Chunk(index=1, text="alpha", bare=True, parent="p", line_start=1, line_end=1),
    ]
    assert violations("line_citations", case(doc, chunks)) == []


def test_line_citations_rejects_lines_cited_for_some_chunks_only() -> None:
    """A chunk without line citations among cited ones is reported, not skipped."""
    doc = "a\nb\nc"
    cited = _cited(doc, spans(doc, (0, 1), (2, 3)))
    chunks = [*cited, Chunk(index=2, text="c", start=4, end=5)]
    found = rejects(
        "line_citations", case(doc, chunks), "(chunk[2]) report no line citations while 2"
    )
    assert found[0].chunks == (2,)
    accepts("line_citations", case(doc, _cited(doc, spans(doc, (0, 1), (2, 3), (4, 5)))))
