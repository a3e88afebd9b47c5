"""codepoint_integrity and grapheme_integrity: no chunk cuts a character (or a promised cluster)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunk_contract.spec.model import Chunk
from tests.unit.helpers import accepts, bare, case, rejects, spans, utf8_len, violations

GRAPHEME = {"grapheme_integrity"}
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl
FLAGS = "\U0001f1fa\U0001f1f8\U0001f1eb\U0001f1f7"  # US FR
JAMO = "\u1100\u1161\u11a8"  # Hangul choseong, jungseong, jongseong: one syllable


def _bytes(doc: str, pairs: list[tuple[int, int]]) -> list[Chunk]:
    """Chunks reporting only byte offsets, for codepoint spans ``pairs``."""
    return [
        Chunk(index=i, text=doc[s:e], start_byte=utf8_len(doc[:s]), end_byte=utf8_len(doc[:e]))
        for i, (s, e) in enumerate(pairs)
    ]


# --------------------------------------------------------------------------- codepoint_integrity


def test_codepoint_integrity_accepts_byte_offsets_on_boundaries() -> None:
    doc = "aé数\U0001f680—z"
    accepts("codepoint_integrity", case(doc, _bytes(doc, [(0, 2), (2, 4), (4, 6)])))


@pytest.mark.parametrize(
    "doc,cut,char,width",
    [
        ("ab\U0001f600cd", 4, "\\U0001f600", "U+1F600, 4 bytes"),
        ("ab\U0001f600cd", 5, "\\U0001f600", "U+1F600, 4 bytes"),
        ("xé", 2, "\\xe9", "U+00E9, 2 bytes"),
        ("x数y", 3, "\\u6570", "U+6570, 3 bytes"),
        ("x—y", 2, "\\u2014", "U+2014, 3 bytes"),
    ],
)
def test_codepoint_integrity_rejects_byte_offsets_inside_a_character(
    doc: str, cut: int, char: str, width: str
) -> None:
    """Seed: slicing to a byte offset to hit a cap cuts an em-dash or an emoji in half."""
    lossy = doc.encode()[:cut].decode("utf-8", "replace")
    c = case(doc, [Chunk(index=0, text=lossy, start_byte=0, end_byte=cut)])
    found = rejects(
        "codepoint_integrity", c, f"chunk[0].end_byte = {cut} falls inside '{char}' ({width})"
    )
    # the U+FFFD the cut left behind is reported too
    assert any("holds U+FFFD at text[" in v.message for v in found)


def test_codepoint_integrity_rejects_a_start_byte_inside_a_character() -> None:
    doc = "aé b"
    c = case(doc, [Chunk(index=0, text="\ufffd b", start_byte=2, end_byte=5)])
    rejects(
        "codepoint_integrity", c, "chunk[0].start_byte = 2 falls inside '\\xe9' (U+00E9, 2 bytes)"
    )


def test_codepoint_integrity_rejects_ufffd_from_a_lossy_decode_of_bare_chunks() -> None:
    """Seed: a byte slice cutting an emoji, decoded with errors="replace", returned as str."""
    doc = "ab\U0001f600cd"
    data = doc.encode()
    texts = [data[:4].decode("utf-8", "replace"), data[4:].decode("utf-8", "replace")]
    rejects(
        "codepoint_integrity",
        case(doc, bare(*texts)),
        "chunk[0] holds U+FFFD at text[2] where the document does not: 'ab\\ufffd'",
    )


def test_codepoint_integrity_accepts_ufffd_the_document_holds() -> None:
    doc = "bad \ufffd byte"
    accepts("codepoint_integrity", case(doc, spans(doc, (0, 5), (6, 10))))
    accepts("codepoint_integrity", case(doc, bare("bad \ufffd", "byte")))


def test_codepoint_integrity_rejects_ufffd_at_the_wrong_place() -> None:
    doc = "\ufffd ok x"
    # the document holds U+FFFD, but not where this chunk claims it
    c = case(doc, [Chunk(index=0, text="o\ufffd", start=2, end=4)])
    rejects(
        "codepoint_integrity",
        c,
        "chunk[0] [2:4) holds U+FFFD at text[1] where the document does not",
    )


def test_codepoint_integrity_rejects_lone_surrogates() -> None:
    """A UTF-16 split of an emoji (as a JS-style chunker does) leaves lone surrogates."""
    doc = "x\U0001f600y"
    c = case(doc, bare("x\ud83d", "\ude00y"))
    found = rejects("codepoint_integrity", c, "chunk[0] holds lone surrogate U+D83D at text[1]")
    assert [v.chunks for v in found] == [(0,), (1,)]


def test_codepoint_integrity_accepts_lone_surrogates_the_document_holds() -> None:
    doc = "a\ud800b c"
    accepts("codepoint_integrity", case(doc, [Chunk(index=0, text="a\ud800b", start=0, end=3)]))
    accepts("codepoint_integrity", case(doc, _bytes(doc, [(0, 3), (4, 5)])))


# --------------------------------------------------------------------------- grapheme_integrity


@pytest.mark.parametrize(
    "doc,cut,cluster",
    [
        ("cafe\u0301 x", 4, "e\\u0301"),  # combining acute
        (f"hi {FAMILY}!", 4, "\\U0001f468\\u200d\\U0001f469\\u200d\\U0001f467"),  # after the man
        (f"hi {FAMILY}!", 6, "\\U0001f468\\u200d\\U0001f469\\u200d\\U0001f467"),  # after a ZWJ
        (f"go {FLAGS}", 4, "\\U0001f1fa\\U0001f1f8"),  # inside the US flag
        (f"go {FLAGS}", 6, "\\U0001f1eb\\U0001f1f7"),  # inside the FR flag
        (f"k {JAMO} k", 3, "\\u1100\\u1161\\u11a8"),  # Hangul L | V T
        (f"k {JAMO} k", 4, "\\u1100\\u1161\\u11a8"),  # Hangul L V | T
        ("a\r\nb", 2, "'\\r\\n'"),  # CR LF is one cluster
    ],
)
def test_grapheme_integrity_rejects_a_boundary_inside_a_cluster(
    doc: str, cut: int, cluster: str
) -> None:
    c = case(doc, spans(doc, (0, cut), (cut, len(doc))), promises=GRAPHEME)
    found = rejects(
        "grapheme_integrity",
        c,
        f"chunk[0] [0:{cut}) has a boundary at {cut}",
        "inside grapheme cluster",
        cluster,
    )
    assert len(found) == 2  # the next chunk starts inside the same cluster


@pytest.mark.parametrize(
    "doc,cut",
    [
        ("cafe\u0301 x", 5),
        (f"hi {FAMILY}!", 3 + len(FAMILY)),
        (f"go {FLAGS}", 5),  # between the two flags
        (f"k {JAMO} k", 2 + len(JAMO)),
        ("a\r\nb", 3),
        ("\u0301\u0301x", 2),  # marks with no base form one cluster
    ],
)
def test_grapheme_integrity_accepts_boundaries_between_clusters(doc: str, cut: int) -> None:
    accepts(
        "grapheme_integrity", case(doc, spans(doc, (0, cut), (cut, len(doc))), promises=GRAPHEME)
    )


def test_grapheme_integrity_precomposed_hangul_is_one_codepoint() -> None:
    doc = "한국어"
    accepts("grapheme_integrity", case(doc, spans(doc, (0, 1), (1, 3)), promises=GRAPHEME))


def test_grapheme_integrity_on_long_lines_uses_the_whole_document() -> None:
    """Past 256 characters without a newline the boundary table of the whole text is used."""
    doc = "a" * 300 + "e\u0301" + "b" * 10
    rejects(
        "grapheme_integrity",
        case(doc, spans(doc, (0, 301), (301, 312)), promises=GRAPHEME),
        "has a boundary at 301, inside grapheme cluster 'e\\u0301' [300:302)",
    )
    accepts("grapheme_integrity", case(doc, spans(doc, (0, 302), (302, 312)), promises=GRAPHEME))
    # flags far from any newline: pairing parity is counted from the start of the text
    doc = "x" * 300 + FLAGS * 3
    for cut, whole in ((302, True), (304, True), (303, False), (305, False)):
        c = case(doc, spans(doc, (0, cut), (cut, len(doc))), promises=GRAPHEME)
        assert (violations("grapheme_integrity", c) == []) is whole, cut


def test_grapheme_integrity_bare_chunks_take_a_whole_placement() -> None:
    doc = "xe\u0301 xe"
    # the first "xe" would cut "e\u0301"; the one at the end does not
    accepts("grapheme_integrity", case(doc, bare("xe"), promises=GRAPHEME))
    rejects(
        "grapheme_integrity",
        case("cafe\u0301", bare("cafe", "\u0301"), promises=GRAPHEME),
        "chunk[0] 'cafe' starts or ends inside a grapheme cluster under every placement in "
        "document order",
    )


def test_grapheme_integrity_leaves_unplaceable_bare_chunks_alone() -> None:
    assert violations("grapheme_integrity", case("ab", bare("zz"), promises=GRAPHEME)) == []


def test_a_negative_offset_is_judged_not_a_crash() -> None:
    """A chunk placed before the document's start (start=-5) is a violation, never an
    IndexError in the host (found by tests/hostile)."""
    from chunk_contract.spec.invariants.unicode import _held
    from chunk_contract.spec.model import Chunk

    assert not _held("ab", Chunk(0, "\ufffd", start=-5, end=-4), (-5, -4), 0, "\ufffd")


def test_a_ufffd_the_document_holds_just_after_a_dropped_newline_is_not_codepoint_damage() -> None:
    """The chunk lost the newline before U+FFFD; the document holds U+FFFD one character later,
    after the same text: lost text and a wrong span (span_fidelity), not a damaged codepoint."""
    doc = "ab\n\ufffdcd"
    for chunk in (Chunk(index=0, text="ab\ufffdcd", start=0, end=5),
                  Chunk(index=0, text="ab\ufffd", start=0, end=3)):
        accepts("codepoint_integrity", case(doc, [chunk]))
        assert violations("span_fidelity", case(doc, [chunk]))


def test_a_lone_surrogate_is_damage_even_with_the_character_nearby() -> None:
    doc = "x\U0001f600y \U0001f600"
    rejects("codepoint_integrity", case(doc, [Chunk(index=0, text="x\ud83d", start=0, end=2)]),
            "lone surrogate U+D83D")


# Characters of every grapheme class the UAX #29 rules join on: marks, ZWJ, emoji, regional
# indicators, Hangul jamo and syllables, prepend, spacing marks, Indic consonants and virama,
# CR and LF, and plain letters.
_CLUSTER_PIECES = (
    "a", " ", "\r", "\n", "\u0301", "\u200d", "\U0001f468", "\U0001f469", "\U0001f1fa",
    "\U0001f1f8", "\u1100", "\u1161", "\u11a8", "\uac00", "\uac01", "\u0600", "\u0903",
    "\u0915", "\u094d", "\u0937", "\u0e33", "\ufe0f", "\x00", "\u6570", "\U0001f3fb",
)


@given(st.lists(st.sampled_from(_CLUSTER_PIECES), max_size=40).map("".join))
def test_the_boundary_shortcut_agrees_with_reading_the_clusters(text: str) -> None:
    """Every offset the pair shortcut settles is a boundary of ``\\X``'s own clusters."""
    from chunk_contract.spec.invariants import unicode

    bounds = {m.start() for m in unicode._GRAPHEME.finditer(text)} | {len(text)}
    for offset in range(1, len(text)):
        if unicode._BOUNDARY_PAIR.match(text, offset - 1):
            assert offset in bounds, (text, offset)
