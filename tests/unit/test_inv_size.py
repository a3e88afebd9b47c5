"""cap_respected and overlap_bounded: sizes in the plugin's unit, leaves and siblings only."""

from __future__ import annotations

from chunk_contract.spec.model import Chunk
from tests.unit.helpers import accepts, bare, book, case, rejects, slices, spans, violations

GRAPHEME = {"grapheme_integrity"}
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl: 5 codepoints

# --------------------------------------------------------------------------- cap_respected


def test_cap_respected_in_chars() -> None:
    doc = "abc def ghij"
    accepts("cap_respected", case(doc, slices(doc, "abc", "def", "ghi", "j"), max_size=3))
    rejects(
        "cap_respected",
        case(doc, slices(doc, "abc", "def", "ghij"), max_size=3),
        "chunk[2] [8:12) is 4 chars > max_size 3: 'ghij'",
    )


def test_cap_respected_bare_chunks_have_no_span_in_the_message() -> None:
    rejects(
        "cap_respected", case("abcd", bare("abcd"), max_size=3), "chunk[0] is 4 chars > max_size 3"
    )


def test_cap_respected_exact_cap_is_allowed() -> None:
    accepts("cap_respected", case("abc", bare("abc"), max_size=3))


def test_cap_respected_in_bytes_counts_utf8() -> None:
    doc = "héé"  # 5 bytes, 3 chars
    accepts("cap_respected", case(doc, bare(doc), max_size=5, unit="bytes"))
    rejects(
        "cap_respected",
        case(doc, bare(doc), max_size=4, unit="bytes"),
        "chunk[0] is 5 bytes > max_size 4",
    )


def test_cap_respected_in_tokens_uses_the_plugins_count() -> None:
    doc = "one two three four"

    def words(text: str) -> int:
        return len(text.split())

    accepts(
        "cap_respected",
        case(doc, bare("one two", "three four"), max_size=2, unit="tokens", measure=words),
    )
    rejects(
        "cap_respected",
        case(doc, bare("one two three", "four"), max_size=2, unit="tokens", measure=words),
        "chunk[0] is 3 tokens > max_size 2",
    )


def test_cap_broken_by_overlap_prepended() -> None:
    """Seed: overlap prepended on top of a chunk that already filled the cap (80/20 -> 83)."""
    doc = "x" * 30
    cap, overlap = 10, 3
    good = [doc[max(0, k - overlap) : k + cap - overlap] for k in range(0, 30, cap - overlap)]
    accepts("cap_respected", case(doc, bare(*good), max_size=cap, overlap=overlap))
    bad = [doc[max(0, k - overlap) : k + cap] for k in range(0, 30, cap)]
    rejects(
        "cap_respected",
        case(doc, bare(*bad), max_size=cap, overlap=overlap),
        "chunk[1] is 13 chars > max_size 10",
    )


def test_cap_respected_one_codepoint_is_indivisible() -> None:
    doc = "\U0001f680"  # 4 bytes
    accepts("cap_respected", case(doc, bare(doc), max_size=1, unit="bytes"))
    accepts("cap_respected", case("ab", bare("a", "b"), max_size=1))


def test_cap_respected_one_grapheme_is_indivisible_only_when_promised() -> None:
    for cluster in ("e\u0301", FAMILY, "\U0001f1fa\U0001f1f8", "\u1100\u1161\u11a8"):
        c = case(cluster, bare(cluster), max_size=1)
        rejects("cap_respected", c, f"is {len(cluster)} chars > max_size 1")
        accepts("cap_respected", case(cluster, bare(cluster), max_size=1, promises=GRAPHEME))
    # two clusters are not one, promised or not
    rejects(
        "cap_respected",
        case("e\u0301e\u0301", bare("e\u0301e\u0301"), max_size=1, promises=GRAPHEME),
        "is 4 chars > max_size 1",
    )


def test_cap_respected_applies_to_leaves_only() -> None:
    doc = "alpha beta"
    parent = Chunk(index=0, text=doc, start=0, end=10, id="p")
    kids = [
        Chunk(index=1, text="alpha", start=0, end=5, id="a", parent="p"),
        Chunk(index=2, text="beta", start=6, end=10, id="b", parent="p"),
    ]
    accepts("cap_respected", case(doc, [parent, *kids], max_size=5))
    too_big = Chunk(index=2, text="a beta", start=4, end=10, id="b", parent="p")
    rejects(
        "cap_respected",
        case(doc, [parent, kids[0], too_big], max_size=5),
        "chunk[2] [4:10) is 6 chars > max_size 5",
    )
    # a parent id nobody names keeps the chunk a leaf
    rejects("cap_respected", case(doc, [parent], max_size=5), "chunk[0] [0:10) is 10 chars")


def test_cap_respected_one_workbook_cell_is_indivisible() -> None:
    sheets = {"S": {(2, 2): "a long cell value"}}
    for one_cell in ("B2", "B2:B2", "$B$2:B2", "b2"):
        accepts(
            "cap_respected",
            book(
                sheets,
                [Chunk(index=0, text="a long cell value", sheet="S", range=one_cell)],
                max_size=3,
            ),
        )
    rejects(
        "cap_respected",
        book(
            sheets, [Chunk(index=0, text="a long cell value", sheet="S", range="B2:C2")], max_size=3
        ),
        "chunk[0] is 17 chars > max_size 3",
    )


def test_cap_respected_reports_every_oversized_chunk() -> None:
    found = rejects("cap_respected", case("aaaa bbbb", bare("aaaa", "bbbb"), max_size=3))
    assert [v.chunks for v in found] == [(0,), (1,)]


# --------------------------------------------------------------------------- overlap_bounded


def test_overlap_bounded_with_offsets() -> None:
    doc = "abcdefgh"
    accepts("overlap_bounded", case(doc, spans(doc, (0, 4), (2, 6), (4, 8)), overlap=2))
    rejects(
        "overlap_bounded",
        case(doc, spans(doc, (0, 4), (2, 6), (3, 8)), overlap=2),
        "chunk[1] [2:6) and chunk[2] [3:8) share [3:6) 'def': 3 chars > overlap 2",
    )


def test_overlap_bounded_zero_overlap_allows_touching_chunks() -> None:
    doc = "abcdef"
    accepts("overlap_bounded", case(doc, spans(doc, (0, 3), (3, 6)), overlap=0))
    rejects(
        "overlap_bounded",
        case(doc, spans(doc, (0, 4), (3, 6)), overlap=0),
        "share [3:4) 'd': 1 char > overlap 0",
    )


def test_overlap_bounded_in_bytes() -> None:
    doc = "aébc"  # é is 2 bytes
    accepts("overlap_bounded", case(doc, spans(doc, (0, 2), (1, 4)), overlap=2, unit="bytes"))
    rejects(
        "overlap_bounded",
        case(doc, spans(doc, (0, 3), (1, 4)), overlap=2, unit="bytes"),
        "share [1:3) '\\xe9b': 3 bytes > overlap 2",
    )


def test_overlap_bounded_in_bytes_read_off_byte_offsets() -> None:
    doc = "aébc"  # é is 2 bytes: codepoints [1:3) are bytes [1:4)
    both = [
        Chunk(index=0, text="aéb", start=0, end=3, start_byte=0, end_byte=4),
        Chunk(index=1, text="ébc", start=1, end=4, start_byte=1, end_byte=5),
    ]
    rejects("overlap_bounded", case(doc, both, overlap=2, unit="bytes"), "3 bytes > overlap 2")
    accepts("overlap_bounded", case(doc, both, overlap=3, unit="bytes"))
    only_bytes = [Chunk(index=c.index, text=c.text, start_byte=c.start_byte,
                        end_byte=c.end_byte) for c in both]
    rejects("overlap_bounded", case(doc, only_bytes, overlap=2, unit="bytes"), "3 bytes")


def test_overlap_bounded_compares_consecutive_siblings_only() -> None:
    doc = "alpha beta"
    parent = Chunk(index=0, text=doc, start=0, end=10, id="p")
    kids = [
        Chunk(index=1, text="alpha", start=0, end=5, parent="p"),
        Chunk(index=2, text="beta", start=6, end=10, parent="p"),
    ]
    accepts("overlap_bounded", case(doc, [parent, *kids], overlap=0))
    # siblings overlapping each other are still caught
    kids[1] = Chunk(index=2, text="ha beta", start=3, end=10, parent="p")
    rejects(
        "overlap_bounded",
        case(doc, [parent, *kids], overlap=1),
        "chunk[1] [0:5) and chunk[2] [3:10) share [3:5) 'ha': 2 chars > overlap 1",
    )


def test_overlap_bounded_bare_chunks_take_the_placement_that_keeps_the_bound() -> None:
    doc = "abab abab"
    # "abab" right after "abab" could sit at 2 (sharing "ab"), but 5 shares nothing.
    accepts("overlap_bounded", case(doc, bare("abab", "abab"), overlap=0))
    rejects(
        "overlap_bounded",
        case("abcdef", bare("abcd", "cdef"), overlap=1),
        "chunk[0] [0:4) and chunk[1] [2:6) share [2:4) 'cd': 2 chars > overlap 1",
    )


def test_overlap_bounded_when_keeping_the_bound_pushes_a_chunk_too_late() -> None:
    # "bc" must skip the copy at 1 (it overlaps "abc"); after the one at 4, "Z" never follows.
    rejects(
        "overlap_bounded",
        case("abcZbc", bare("abc", "bc", "Z"), overlap=0),
        "keeping the overlap bound pushes chunk[1] [4:6) so late that chunk[2] no longer "
        "follows it in the document",
    )


def test_overlap_bounded_skips_empty_chunks_between_neighbours() -> None:
    """An empty chunk is not placed; the overlap is measured against the chunk before it
    (this crashed with an AssertionError before the fix)."""
    rejects(
        "overlap_bounded",
        case("aaaa", bare("aa", "", "aaa"), overlap=0),
        "chunk[0] [0:2) and chunk[2] [1:4) share [1:2) 'a': 1 char > overlap 0",
    )
    accepts("overlap_bounded", case("aa bb", bare("aa", "", "bb"), overlap=0))


def test_overlap_bounded_leaves_unplaceable_chunks_to_other_rules() -> None:
    assert violations("overlap_bounded", case("ab cd", bare("cd", "ab"), overlap=0)) == []
    assert violations("overlap_bounded", case("ab cd", bare("ab", "zz"), overlap=0)) == []
