"""non_empty, span_fidelity, no_lost_text: chunks are non-blank verbatim slices holding all text."""

from __future__ import annotations

import pytest

from chunk_contract.spec.model import Chunk
from tests.unit.helpers import (
    accepts,
    bare,
    book,
    case,
    rejects,
    slices,
    spans,
    utf8_len,
    violations,
)

# --------------------------------------------------------------------------- non_empty


def test_non_empty_rejects_an_empty_chunk() -> None:
    rejects("non_empty", case("ab cd", bare("ab", "", "cd")), "chunk[1] is empty")


@pytest.mark.parametrize("blank", [" ", "\n\n", "\t\r\n", "\u3000", "\x1c", "\x85", "\u2028"])
def test_non_empty_rejects_whitespace_only_chunks(blank: str) -> None:
    doc = "ab" + blank + "cd"
    found = rejects(
        "non_empty",
        case(doc, spans(doc, (0, 2), (2, 2 + len(blank)))),
        "chunk[1] [2:",
        "is whitespace-only",
        ascii(blank),
    )
    assert found[0].chunks == (1,)


def test_non_empty_accepts_text_that_is_not_str_isspace() -> None:
    # Zero-width space and a lone combining mark are not whitespace for str.isspace().
    doc = "\u200b \u0301"
    accepts("non_empty", case(doc, bare("\u200b", "\u0301")))


def test_non_empty_applies_to_workbook_chunks() -> None:
    chunks = [Chunk(index=0, text="  ", sheet="S", range="A1")]
    rejects("non_empty", book({"S": {(1, 1): "x"}}, chunks), "chunk[0] is whitespace-only")


def test_non_empty_reports_every_blank_chunk() -> None:
    found = rejects("non_empty", case("a b", bare("", "a", " ", "b")))
    assert [v.chunks for v in found] == [(0,), (2,)]


# --------------------------------------------------------------------------- span_fidelity


def test_span_fidelity_accepts_offsets_and_byte_offsets_on_non_ascii() -> None:
    doc = "héllo wörld 数据 🚀 end"
    chunks = []
    for i, (s, e) in enumerate([(0, 5), (6, 11), (12, 14), (15, 16), (17, 20)]):
        sb, eb = utf8_len(doc[:s]), utf8_len(doc[:e])
        chunks.append(Chunk(index=i, text=doc[s:e], start=s, end=e, start_byte=sb, end_byte=eb))
    accepts("span_fidelity", case(doc, chunks))


def test_span_fidelity_rejects_text_differing_from_its_slice() -> None:
    doc = "alpha beta"
    rejects(
        "span_fidelity",
        case(doc, [Chunk(index=0, text="alpha  beta", start=0, end=10)]),
        "chunk[0] [0:10): text 'alpha  beta' but the document holds 'alpha beta' at [0:10)",
    )


def test_span_fidelity_rejects_a_span_outside_the_document() -> None:
    doc = "alpha beta"
    rejects(
        "span_fidelity",
        case(doc, [Chunk(index=0, text="beta", start=6, end=12)]),
        "span [6:12) is not inside the document [0:10)",
    )


def test_span_fidelity_rejects_half_reported_offsets() -> None:
    doc = "alpha"
    rejects(
        "span_fidelity",
        case(doc, [Chunk(index=0, text="alpha", start=0)]),
        "reports start=0 end=None; both or neither are allowed",
    )
    rejects(
        "span_fidelity",
        case(doc, [Chunk(index=0, text="alpha", end_byte=5)]),
        "reports start_byte=None end_byte=5; both or neither are allowed",
    )


def test_span_fidelity_rejects_char_offsets_used_as_byte_offsets() -> None:
    doc = "héllo world"
    # "world" is at chars [6:11) but bytes [7:12).
    c = case(doc, [Chunk(index=0, text="world", start_byte=6, end_byte=11)])
    rejects("span_fidelity", c, "text 'world' but the document holds ' worl' at bytes [6:11)")


def test_span_fidelity_rejects_bytes_cut_inside_a_character() -> None:
    doc = "ab\U0001f600cd"  # the emoji is bytes [2:6)
    c = case(doc, [Chunk(index=0, text="ab\ufffd", start_byte=0, end_byte=4)])
    # The lossy decoding of the cut bytes equals the text, but the document holds no U+FFFD.
    rejects(
        "span_fidelity",
        c,
        "chunk[0]: text 'ab\\ufffd' but bytes [0:4) of the document cut a character",
    )
    c = case(doc, [Chunk(index=0, text="ab", start_byte=0, end_byte=4)])
    rejects("span_fidelity", c, "bytes [0:4) of the document cut a character")


def test_span_fidelity_reads_lone_surrogates_back_from_bytes() -> None:
    # Document.data encodes lone surrogates with surrogatepass; the slice must decode the same
    # way, not as three U+FFFD (a false positive before the fix).
    doc = "a\ud800b c"
    c = case(
        doc,
        [
            Chunk(index=0, text="a\ud800b", start_byte=0, end_byte=5),
            Chunk(index=1, text="c", start_byte=6, end_byte=7),
        ],
    )
    accepts("span_fidelity", c)


def test_span_fidelity_rejects_byte_and_codepoint_spans_on_two_copies() -> None:
    doc = "né\nné\n"  # "né" at codepoints [0:2) and [3:5), bytes [0:3) and [4:7)
    twice = Chunk(index=0, text="né", start=0, end=2, start_byte=4, end_byte=7)
    rejects(
        "span_fidelity",
        case(doc, [twice]),
        "chunk[0] [0:2): bytes [4:7) and codepoints [0:2) both hold 'n\\xe9', but at two places: "
        "the codepoint span is bytes [0:3)",
    )
    same = Chunk(index=0, text="né", start=3, end=5, start_byte=4, end_byte=7)
    accepts("span_fidelity", case(doc, [same]))


def test_start_bytes_follow_overlapping_nested_and_unordered_chunks() -> None:
    doc = "αβγ 数据 🚀 end\nαβγ"
    ranges = [(0, 7), (4, 12), (0, 3), (2, 9), (13, 16), (9, 9), (5, 16)]
    chunks = [Chunk(index=i, text=doc[s:e], start=s, end=e) for i, (s, e) in enumerate(ranges)]
    c = case(doc, chunks)
    assert c.start_bytes == [utf8_len(doc[:s]) for s, _ in ranges]
    ascii_doc = "abc def"
    assert case(ascii_doc, spans(ascii_doc, (4, 7), (0, 3))).start_bytes == [4, 0]


def test_span_fidelity_bare_chunks_must_occur_in_the_document() -> None:
    doc = "one two three"
    accepts("span_fidelity", case(doc, bare("one two", "two three")))
    rejects(
        "span_fidelity",
        case(doc, bare("one", "two  three")),
        "chunk[1]: 'two  three' occurs nowhere in the document",
    )


def test_span_fidelity_finds_bare_chunks_out_of_order_and_after_a_missing_one() -> None:
    """Each bare chunk is looked for from where the one before it was found, and in the whole
    document when it is not there: an earlier text, or one after a text that occurs nowhere,
    is still found; only the text that occurs nowhere is reported."""
    doc = "alpha beta gamma delta"
    accepts("span_fidelity", case(doc, bare("gamma", "alpha", "delta", "beta")))
    found = rejects("span_fidelity", case(doc, bare("beta", "zeta", "alpha", "gamma")),
                    "chunk[1]: 'zeta' occurs nowhere")
    assert len(found) == 1
    accepts("span_fidelity", case(doc, bare("delta", "", "delta")))


def test_span_fidelity_chunks_without_offsets_are_placed_even_if_not_flagged_bare() -> None:
    accepts("span_fidelity", case("one two", [Chunk(index=0, text="one")]))
    rejects(
        "span_fidelity", case("one two", [Chunk(index=0, text="three")]), "'three' occurs nowhere"
    )


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\r"])
def test_span_fidelity_catches_splitlines_rewriting_separators(sep: str) -> None:
    """Seed: "\\n".join(text.splitlines()) turns lone separators into "\\n": not verbatim."""
    doc = f"alpha{sep}beta\ngamma"
    rewritten = "\n".join(doc.splitlines())
    assert rewritten != doc
    rejects("span_fidelity", case(doc, bare(rewritten)), "occurs nowhere in the document")


def test_span_fidelity_crlf_normalised_by_the_plugin_needs_newlines_lf() -> None:
    """Seed (CRLF paragraphs): chunks of the LF text do not match a CRLF document ..."""
    crlf = "alpha\r\n\r\nbeta"
    rejects("span_fidelity", case(crlf, bare("alpha\n\nbeta")), "occurs nowhere")
    # ... but a plugin declaring newlines = "lf" is checked against the LF document.
    lf = crlf.replace("\r\n", "\n")
    accepts("span_fidelity", case(lf, bare("alpha\n\nbeta"), newlines="lf"))


def test_span_fidelity_with_both_offset_kinds_checks_both() -> None:
    doc = "héllo"
    c = case(doc, [Chunk(index=0, text="héllo", start=0, end=5, start_byte=0, end_byte=5)])
    rejects("span_fidelity", c, "bytes [0:5)")


# --------------------------------------------------------------------------- no_lost_text


def test_no_lost_text_allows_whitespace_between_chunks_to_be_left_out() -> None:
    doc = "  alpha \n\n beta\t\r\n gamma  \n"
    accepts("no_lost_text", case(doc, slices(doc, "alpha", "beta", "gamma")))
    accepts("no_lost_text", case(doc, bare("alpha", "beta", "gamma")))


def test_no_lost_text_rejects_a_gap_with_offsets_naming_char_and_line() -> None:
    doc = "alpha\nbeta\ngamma"
    rejects(
        "no_lost_text",
        case(doc, slices(doc, "alpha", "gamma")),
        "document[6] 'b' (line 2) lies in no chunk",
    )


def test_no_lost_text_rejects_a_lost_tail() -> None:
    doc = "alpha beta."
    rejects(
        "no_lost_text",
        case(doc, slices(doc, "alpha", "beta")),
        "document[10] '.' (line 1) lies in no chunk",
    )


def test_no_lost_text_rejects_bare_chunks_that_drop_a_character() -> None:
    doc = "alpha beta gamma"
    rejects(
        "no_lost_text",
        case(doc, bare("alpha", "eta", "gamma")),
        "document[6] 'b' (line 1) lies in no chunk placed in document order (and no "
        "placement of the chunks in document order covers all the text)",
    )


def test_no_lost_text_with_no_chunks() -> None:
    accepts("no_lost_text", case(" \n\t ", []))
    accepts("no_lost_text", case("", []))
    rejects("no_lost_text", case(" \n x", []), "document[3] 'x' (line 2) lies in no chunk")


def test_no_lost_text_reports_leading_blank_lines_on_the_right_line() -> None:
    """Seed: a file starting with blank lines; the lost text is on line 4, not line 1."""
    doc = "\n\n\nfirst\nsecond\n"
    rejects(
        "no_lost_text",
        case(doc, slices(doc, "second")),
        "document[3] 'f' (line 4) lies in no chunk",
    )


def test_no_lost_text_overlapping_offsets_in_any_order_cover() -> None:
    doc = "abcdefgh"
    accepts("no_lost_text", case(doc, spans(doc, (4, 8), (0, 5))))


def test_no_lost_text_mixed_offsets_and_bare_chunks() -> None:
    doc = "one two one two"
    pinned = Chunk(index=1, text="one two", start=8, end=15)
    accepts("no_lost_text", case(doc, [Chunk(index=0, text="one two", bare=True), pinned]))
    rejects(
        "no_lost_text",
        case(doc, [Chunk(index=0, text="one", bare=True), pinned]),
        "document[4] 't' (line 1) lies in no chunk placed in document order",
    )


def test_no_lost_text_leaves_unplaceable_chunks_to_other_rules() -> None:
    """Chunks that cannot be placed in order at all are ordered's / span_fidelity's finding."""
    doc = "one two"
    assert violations("no_lost_text", case(doc, bare("two", "one"))) == []
    assert violations("no_lost_text", case(doc, bare("one", "zzz"))) == []


def test_span_fidelity_rejects_offsets_reported_for_some_chunks_only() -> None:
    """A library that loses the offsets of some chunks is reported, not placed silently."""
    doc = "one two one two"
    pinned = Chunk(index=1, text="one two", start=8, end=15)
    found = rejects(
        "span_fidelity",
        case(doc, [Chunk(index=0, text="one two", bare=True), pinned]),
        "1 chunk (chunk[0]) report no codepoint offsets while 1 of the 2 chunks do",
    )
    assert found[0].chunks == (0,)


def test_span_fidelity_rejects_byte_offsets_reported_for_some_chunks_only() -> None:
    doc = "ab cd"
    chunks = [
        Chunk(index=0, text="ab", start=0, end=2, start_byte=0, end_byte=2),
        Chunk(index=1, text="cd", start=3, end=5),
    ]
    rejects("span_fidelity", case(doc, chunks), "(chunk[1]) report no byte offsets")


def test_span_fidelity_accepts_offsets_for_every_chunk_or_none() -> None:
    doc = "one two one two"
    accepts("span_fidelity", case(doc, spans(doc, (0, 7), (8, 15))))
    accepts("span_fidelity", case(doc, bare("one two", "one two")))
