"""ordered, unique_ids and tiles_parent (text): order among siblings, identity, hierarchy."""

from __future__ import annotations

from dataclasses import replace

from chunk_contract.spec.model import Chunk
from tests.unit.helpers import accepts, bare, book, case, rejects, spans, violations

# --------------------------------------------------------------------------- ordered


def test_ordered_accepts_overlapping_chunks_in_order() -> None:
    doc = "abcdefgh"
    accepts("ordered", case(doc, spans(doc, (0, 4), (2, 6), (3, 7), (6, 8))))


def test_ordered_rejects_a_chunk_wholly_inside_its_predecessor() -> None:
    """SPEC 1.1: ends strictly increase too (LangChain: ``'a' * 20 + '\t'`` at 20 / 5)."""
    doc = "a" * 20 + "\t"
    found = rejects(
        "ordered",
        case(doc, spans(doc, (0, 20), (15, 20)), max_size=20, overlap=5),
        "chunk[1] [15:20) follows chunk[0] [0:20): end does not increase",
        "wholly inside its predecessor",
    )
    assert found[0].chunks == (0, 1)
    rejects("ordered", case("abcdefgh", spans("abcdefgh", (0, 6), (2, 6))), "end does not")


def test_ordered_accepts_a_chunk_that_ends_one_past_its_predecessor() -> None:
    doc = "abcdefgh"
    accepts("ordered", case(doc, spans(doc, (0, 6), (5, 7))))


def test_ordered_rejects_the_same_span_twice() -> None:
    doc = "abcdefgh"
    rejects(
        "ordered",
        case(doc, spans(doc, (0, 4), (0, 4))),
        "chunk[1] [0:4) follows chunk[0] [0:4): start does not increase",
    )


def test_ordered_rejects_an_end_that_decreases() -> None:
    doc = "abcdefgh"
    rejects(
        "ordered",
        case(doc, spans(doc, (0, 6), (1, 4))),
        "chunk[1] [1:4) follows chunk[0] [0:6): end decreases",
    )


def test_ordered_reports_each_bad_step() -> None:
    doc = "abcdefgh"
    found = rejects("ordered", case(doc, spans(doc, (4, 6), (0, 2), (6, 8), (2, 4))))
    assert [v.chunks for v in found] == [(0, 1), (2, 3)]


def test_ordered_applies_among_siblings_only() -> None:
    doc = "alpha beta"
    parent = Chunk(index=0, text=doc, start=0, end=10, id="p")
    kids = [
        Chunk(index=1, text="alpha", start=0, end=5, parent="p"),
        Chunk(index=2, text="beta", start=6, end=10, parent="p"),
    ]
    accepts("ordered", case(doc, [parent, *kids]))
    swapped = [parent, replace(kids[1], index=1), replace(kids[0], index=2)]
    rejects(
        "ordered",
        case(doc, swapped),
        "chunk[2] [0:5) follows chunk[1] [6:10): start does not increase",
    )


def test_ordered_bare_chunks() -> None:
    doc = "one two one two"
    accepts("ordered", case(doc, bare("one two", "one two")))  # the second copy is later
    accepts("ordered", case(doc, bare("one", "two", "one", "two")))
    rejects(
        "ordered",
        case(doc, bare("one two", "one two", "one two")),
        "chunk[2] 'one two' does not occur after chunk[1] [8:15) in the document",
    )
    rejects(
        "ordered",
        case(doc, bare("two", "one two", "one")),
        "chunk[2] 'one' does not occur after chunk[1] [8:15)",
    )


def test_ordered_rejects_bare_chunks_that_fit_only_inside_their_predecessor() -> None:
    doc = "a" * 20 + "\t"
    rejects(
        "ordered",
        case(doc, bare("a" * 20, "a" * 5), max_size=20, overlap=5),
        "chunk[1] 'aaaaa' adds no text of its own: it occurs only inside chunk[0] [0:20)",
    )
    rejects("ordered", case("alpha beta", bare("alpha beta", "beta")), "only inside chunk[0]")
    rejects("ordered", case("ab ab", bare("ab ab", "ab")), "only inside chunk[0] [0:5)")


def test_ordered_places_a_substring_of_the_predecessor_at_a_later_repeat() -> None:
    """A chunk whose text lies inside its predecessor's is fine where the text repeats later:
    the search must find the earliest placement whose end passes the previous end."""
    accepts("ordered", case("ab ab ab", bare("ab ab", "ab")))  # the third "ab"
    accepts("ordered", case("aaaaaa", bare("aaaa", "aa")))  # [4:6)
    accepts("ordered", case("aaaaaa", bare("aaaa", "aaa", "aa")))  # [0:4) [2:5) [4:6)
    rejects("ordered", case("aaaaaa", bare("aaaa", "aaa", "a", "a")), "chunk[3] 'a'")
    doc = '{"a": 1}\n' * 50
    block = '{"a": 1}'
    accepts("ordered", case(doc, bare(*[block] * 50)))
    accepts("ordered", case(doc, bare(*[f"{block}\n{block}"] * 49)))


def test_ordered_message_names_the_chunk_placed_before_an_empty_one() -> None:
    rejects(
        "ordered",
        case("ab cd", bare("cd", "", "ab")),
        "chunk[2] 'ab' does not occur after chunk[0] [3:5)",
    )
    accepts("ordered", case("ab cd", bare("ab", "", "cd")))


def test_ordered_checks_a_chunk_with_offsets_after_a_bare_one() -> None:
    """Mixed output: a chunk pinned by its offsets inside a bare predecessor is reported."""
    doc = "abcdefgh"
    pinned = Chunk(index=1, text="cdef", start=2, end=6)
    rejects(
        "ordered",
        case(doc, [Chunk(index=0, text="abcdef", bare=True), pinned]),
        "chunk[1] [2:6) 'cdef' adds no text of its own: it occurs only inside chunk[0] [0:6)",
    )
    later = Chunk(index=1, text="cdefg", start=2, end=7)
    accepts("ordered", case(doc, [Chunk(index=0, text="abcdef", bare=True), later]))
    wrong = Chunk(index=1, text="cdef", start=3, end=7)  # not the text at its offsets
    assert violations("ordered", case(doc, [Chunk(index=0, text="ab", bare=True), wrong])) == []


def test_ordered_leaves_text_the_document_lacks_to_span_fidelity() -> None:
    assert violations("ordered", case("ab cd", bare("ab", "xy"))) == []


# --------------------------------------------------------------------------- unique_ids


def test_unique_ids() -> None:
    doc = "a b c"
    chunks = spans(doc, (0, 1), (2, 3), (4, 5))
    accepts("unique_ids", case(doc, [replace(c, id=f"c{c.index}") for c in chunks]))
    accepts("unique_ids", case(doc, chunks))  # no ids reported
    dup = [replace(c, id="same" if c.index else "first") for c in chunks]
    found = rejects(
        "unique_ids", case(doc, dup), "chunk[1] [2:3) and chunk[2] [4:5) share id 'same'"
    )
    assert found[0].chunks == (1, 2)


def test_unique_ids_reports_each_repeat_against_the_first() -> None:
    doc = "a b c"
    dup = [replace(c, id="x") for c in spans(doc, (0, 1), (2, 3), (4, 5))]
    found = rejects("unique_ids", case(doc, dup))
    assert [v.chunks for v in found] == [(0, 1), (0, 2)]


def test_unique_ids_in_workbooks() -> None:
    chunks = [Chunk(index=i, text="t", id="dup", sheet="S", range="A1") for i in range(2)]
    rejects("unique_ids", book({"S": {(1, 1): "t"}}, chunks), "share id 'dup'")


# --------------------------------------------------------------------------- tiles_parent (text)

DOC = "alpha beta\n\ngamma delta"


def _family(*children: tuple[int, int], parent: tuple[int, int] = (0, len(DOC))) -> list[Chunk]:
    p = Chunk(index=0, text=DOC[parent[0] : parent[1]], start=parent[0], end=parent[1], id="p")
    return [p] + [
        Chunk(index=i + 1, text=DOC[s:e], start=s, end=e, id=f"c{i}", parent="p")
        for i, (s, e) in enumerate(children)
    ]


def test_tiles_parent_accepts_children_tiling_the_parent_up_to_whitespace() -> None:
    accepts("tiles_parent", case(DOC, _family((0, 10), (12, 23))))
    accepts("tiles_parent", case(DOC, _family((0, 5), (6, 10), (12, 17), (18, 23))))
    accepts("tiles_parent", case(DOC, _family((12, 23), (0, 10))))  # any output order


def test_tiles_parent_rejects_a_gap_between_children() -> None:
    rejects(
        "tiles_parent",
        case(DOC, _family((0, 5), (12, 23))),
        "document[6] 'b' lies in parent chunk[0] [0:23) but in none of its children",
    )


def test_tiles_parent_rejects_a_lost_tail_or_head() -> None:
    rejects("tiles_parent", case(DOC, _family((0, 10), (12, 17))), "document[18] 'd'")
    rejects("tiles_parent", case(DOC, _family((6, 10), (12, 23))), "document[0] 'a'")


def test_tiles_parent_rejects_overlapping_siblings() -> None:
    rejects(
        "tiles_parent",
        case(DOC, _family((0, 10), (6, 23))),
        "chunk[2] [6:23) overlaps its sibling chunk[1] [0:10)",
    )


def test_tiles_parent_accepts_children_overlapping_up_to_the_overlap() -> None:
    """SPEC 1.1: text children may overlap as siblings may, up to ``overlap`` with the next."""
    accepts("tiles_parent", case(DOC, _family((0, 10), (6, 23)), max_size=20, overlap=4))
    accepts("tiles_parent", case(DOC, _family((6, 23), (0, 10)), max_size=20, overlap=4))
    accepts(
        "tiles_parent",
        case(DOC, _family((0, 10), (6, 17), (12, 23)), max_size=20, overlap=5),
    )


def test_tiles_parent_rejects_children_overlapping_more_than_the_overlap() -> None:
    found = rejects(
        "tiles_parent",
        case(DOC, _family((0, 10), (6, 23)), max_size=20, overlap=3),
        "chunk[2] [6:23) overlaps its sibling chunk[1] [0:10) by [6:10) 'beta': "
        "4 chars > overlap 3",
    )
    assert found[0].chunks == (2,)
    # In document order, whatever the output order.
    rejects(
        "tiles_parent",
        case(DOC, _family((6, 23), (0, 10)), max_size=20, overlap=3),
        "chunk[1] [6:23) overlaps its sibling chunk[2] [0:10) by [6:10)",
    )
    rejects(
        "tiles_parent",
        case(DOC, _family((0, 10), (6, 17), (12, 23)), max_size=20, overlap=4),
        "chunk[3] [12:23) overlaps its sibling chunk[2] [6:17) by [12:17) 'gamma': 5 chars",
    )


def test_tiles_parent_a_child_inside_another_keeps_what_is_covered() -> None:
    """A child lying inside its predecessor must not move the covered frontier back."""
    accepts(
        "tiles_parent",
        case(DOC, _family((0, 17), (6, 10), (18, 23)), max_size=20, overlap=4),
    )


def test_tiles_parent_measures_child_overlap_in_the_plugins_unit() -> None:
    doc = "a\u00e9b"
    family = [
        Chunk(index=0, text=doc, start=0, end=3, id="p"),
        Chunk(index=1, text="a\u00e9", start=0, end=2, id="c0", parent="p"),
        Chunk(index=2, text="\u00e9b", start=1, end=3, id="c1", parent="p"),
    ]
    accepts("tiles_parent", case(doc, family, max_size=3, overlap=1))  # 1 char
    rejects(
        "tiles_parent",
        case(doc, family, max_size=4, overlap=1, unit="bytes"),
        "2 bytes > overlap 1",
    )
    accepts("tiles_parent", case(doc, family, max_size=4, overlap=2, unit="bytes"))
    words = "one two three four"
    tokens = [
        Chunk(index=0, text=words, start=0, end=18, id="p"),
        Chunk(index=1, text=words[0:13], start=0, end=13, id="c0", parent="p"),
        Chunk(index=2, text=words[8:18], start=8, end=18, id="c1", parent="p"),
    ]

    def count(text: str) -> int:
        return len(text.split())

    accepts("tiles_parent", case(words, tokens, max_size=3, overlap=1, unit="tokens",
                                 measure=count))
    rejects(
        "tiles_parent",
        case(words, tokens, max_size=3, overlap=0, unit="tokens", measure=count),
        "1 token > overlap 0",
    )


def test_tiles_parent_rejects_identical_siblings_without_crashing() -> None:
    """Two children with the same span used to crash sorting Chunk objects (TypeError)."""
    rejects(
        "tiles_parent",
        case(DOC, _family((0, 10), (0, 10), (12, 23))),
        "chunk[2] [0:10) overlaps its sibling chunk[1] [0:10)",
    )


def test_tiles_parent_rejects_a_child_outside_its_parent() -> None:
    rejects(
        "tiles_parent",
        case(DOC, _family((0, 10), (12, 23), parent=(0, 10))),
        "chunk[2] [12:23) is not inside its parent chunk[0] [0:10)",
    )


def test_tiles_parent_rejects_a_parent_missing_from_the_output() -> None:
    orphan = Chunk(index=0, text="alpha", start=0, end=5, id="c", parent="nobody")
    rejects(
        "tiles_parent",
        case(DOC, [orphan]),
        "chunk[0] [0:5) names parent 'nobody', which is not in the output",
    )


def test_tiles_parent_nested_levels_are_checked_per_parent() -> None:
    chunks = _family((0, 10), (12, 23))
    grand = [
        Chunk(index=3, text="alpha", start=0, end=5, id="g0", parent="c0"),
        Chunk(index=4, text="beta", start=6, end=10, id="g1", parent="c0"),
    ]
    accepts("tiles_parent", case(DOC, chunks + grand))
    rejects(
        "tiles_parent",
        case(DOC, chunks + grand[:1]),
        "document[6] 'b' lies in parent chunk[1] [0:10) but in none of its children",
    )


def test_tiles_parent_needs_offsets() -> None:
    chunks = [
        Chunk(index=0, text="alpha beta", bare=True, id="p"),
        Chunk(index=1, text="alpha", bare=True, id="c", parent="p"),
    ]
    assert violations("tiles_parent", case("alpha beta", chunks)) == []
