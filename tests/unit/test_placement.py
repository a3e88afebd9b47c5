"""Soundness of placement (SPEC §4): chunks without offsets are reported only when NO placement
in document order keeps the invariant.

The property tests generate a document full of repeats (periodic JSON lines, repeated blocks,
whitespace runs), cut a correct chunking out of it (verbatim, whitespace-trimmed slices in order,
with overlap) and hand the chunks over as bare strings: no rule may reject them. The hand-made
cases pin down the non-greedy coverage search and the rejections that must still happen.
"""

from __future__ import annotations

import os
import re
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chunk_contract.spec import placement
from chunk_contract.spec.model import Chunk, Document, first_non_space
from chunk_contract.spec.placement import (
    Coverage,
    Placement,
    after_previous,
    furthest_placement,
    place_in_order,
    uncovered_offset,
)
from tests.unit.helpers import accepts, bare, case, rejects, utf8_len, violations

#: Examples per property; raise it (``PLACEMENT_EXAMPLES=20000``) for a long soundness hunt.
EXAMPLES = int(os.environ.get("PLACEMENT_EXAMPLES", "150"))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Rules that a correct chunking, given as bare strings, must pass.
SOUND_RULES = (
    "no_lost_text",
    "span_fidelity",
    "ordered",
    "overlap_bounded",
    "cap_respected",
    "non_empty",
    "codepoint_integrity",
)

BLOCKS = [
    '{"a": 1}\n',
    '{\n  "id": 7,\n  "tags": ["x", "y"]\n}\n',
    "<item>\n  <name>x</name>\n</item>\n",
    "a",
    "ab",
    "abab",
    " ",
    "\n",
    "\n\n",
    "\t",
    "\r\n",
    "\u3000",
    "é",
    "数据",
    "\U0001f680",
    "e\u0301",
    "# Head\n",
    "x y z",
]


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Documents built from a few repeated pieces, often periodic, with whitespace runs."""
    kind = draw(st.sampled_from(["periodic", "blocks", "mixed"]))
    if kind == "periodic":
        block = draw(st.sampled_from(BLOCKS[:6]))
        doc = block * draw(st.integers(1, 60))
    else:
        pieces = (
            st.sampled_from(BLOCKS)
            if kind == "blocks"
            else st.one_of(st.sampled_from(BLOCKS), st.text(alphabet="ab \n{}:1", max_size=6))
        )
        doc = "".join(draw(st.lists(pieces, max_size=40)))
    lead = draw(st.sampled_from(["", " ", "\n\n\n", "\r\n "]))
    tail = draw(st.sampled_from(["", "\n", "  \n"]))
    return lead + doc + tail


def _last_text_end(doc: str, start: int, end: int) -> int:
    """End of ``doc[start:end]`` with trailing whitespace trimmed (doc[start] is not space)."""
    k = end
    while k > start and doc[k - 1].isspace():
        k -= 1
    return k


@st.composite
def correct_chunkings(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A document and a correct chunking of it: whitespace-trimmed verbatim slices, starts
    strictly increasing, ends strictly increasing (each chunk reaches at least one more
    non-whitespace character), covering every non-whitespace character."""
    doc = draw(documents())
    # A few lengths and back-offs, used in turn: cheap to draw, and they still shrink.
    lengths = draw(st.lists(st.integers(1, 40), min_size=1, max_size=6))
    backs = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    spans: list[tuple[int, int]] = []
    pos = first_non_space(doc)
    while pos != -1:
        # The next character not yet covered must be in this chunk (ends strictly increase).
        floor = first_non_space(doc, spans[-1][1]) + 1 if spans else 0
        length = lengths[len(spans) % len(lengths)]
        end = _last_text_end(doc, pos, min(len(doc), max(pos + length, floor)))
        spans.append((pos, end))
        if first_non_space(doc, end) == -1:
            break
        back = backs[len(spans) % len(backs)]
        pos = first_non_space(doc, max(pos + 1, end - back))
    return doc, spans


def _limits(doc: str, spans: list[tuple[int, int]], unit: str) -> tuple[int, int]:
    size = utf8_len if unit == "bytes" else len
    cap = max((size(doc[s:e]) for s, e in spans), default=1)
    shared = max((size(doc[b[0] : a[1]]) for a, b in pairwise(spans) if b[0] < a[1]), default=0)
    return max(cap, shared + 1), shared


def _lines_of(doc: str, span: tuple[int, int]) -> tuple[int, int]:
    d = Document(doc)
    return d.line_of(span[0]), d.line_of(span[1] - 1)


# --------------------------------------------------------------------------- properties


def test_generated_chunkings_are_correct_by_construction() -> None:
    @PROPERTY
    @given(correct_chunkings())
    def check(drawn: tuple[str, list[tuple[int, int]]]) -> None:
        doc, spans = drawn
        for (s, e), nxt in zip(spans, [*spans[1:], None]):
            assert s < e and not doc[s].isspace() and not doc[e - 1].isspace()
            if nxt is not None:
                assert nxt[0] > s and nxt[1] > e
        covered = set().union(*(range(s, e) for s, e in spans)) if spans else set()
        assert all(doc[k].isspace() for k in range(len(doc)) if k not in covered)

    check()


@PROPERTY
@given(correct_chunkings(), st.sampled_from(["chars", "bytes"]))
def test_correct_bare_chunkings_are_never_rejected(
    drawn: tuple[str, list[tuple[int, int]]], unit: str
) -> None:
    doc, spans = drawn
    max_size, overlap = _limits(doc, spans, unit)
    c = case(
        doc, bare(*(doc[s:e] for s, e in spans)), max_size=max_size, overlap=overlap, unit=unit
    )
    for rule in SOUND_RULES:
        accepts(rule, c)


@PROPERTY
@given(correct_chunkings())
def test_correct_bare_chunkings_with_line_citations_are_never_rejected(
    drawn: tuple[str, list[tuple[int, int]]],
) -> None:
    doc, spans = drawn
    chunks = [
        Chunk(index=i, text=doc[s:e], bare=True, line_start=a, line_end=b)
        for i, (s, e) in enumerate(spans)
        for a, b in [_lines_of(doc, (s, e))]
    ]
    accepts("line_citations", case(doc, chunks))


@PROPERTY
@given(correct_chunkings(), st.data())
def test_mixed_offsets_and_bare_chunks_are_never_rejected(
    drawn: tuple[str, list[tuple[int, int]]], data: st.DataObject
) -> None:
    doc, spans = drawn
    mask = data.draw(st.integers(0, 2**16 - 1))
    chunks = [
        Chunk(index=i, text=doc[s:e], start=s, end=e)
        if mask >> (i % 16) & 1
        else Chunk(index=i, text=doc[s:e], bare=True)
        for i, (s, e) in enumerate(spans)
    ]
    max_size, overlap = _limits(doc, spans, "chars")
    c = case(doc, chunks, max_size=max_size, overlap=overlap)
    mixed = 0 < sum(ch.bare for ch in chunks) < len(chunks)
    for rule in SOUND_RULES:
        found = violations(rule, c)
        # A mixed output is itself reported (span_fidelity: offsets for some chunks only); the
        # placement around the pinned chunks must add nothing to that one finding.
        partial = [v for v in found if "report no codepoint offsets while" in v.message]
        assert found == partial, f"{rule} wrongly rejected: " + "; ".join(map(str, found))
        assert bool(partial) == (mixed and rule == "span_fidelity")


@PROPERTY
@given(correct_chunkings(), st.data())
def test_text_no_chunk_holds_is_always_reported_lost(
    drawn: tuple[str, list[tuple[int, int]]], data: st.DataObject
) -> None:
    """Completeness check: drop every chunk holding one character; a character no remaining
    chunk holds at all can be covered by no placement, so the search must say so."""
    doc, spans = drawn
    marks = sorted({doc[k] for s, e in spans for k in range(s, e) if not doc[k].isspace()})
    assume(marks)
    mark = data.draw(st.sampled_from(marks))
    kept = [doc[s:e] for s, e in spans if mark not in doc[s:e]]
    found = uncovered_offset(doc, kept)
    assert found.offset is not None or not found.conclusive
    if found.conclusive:
        rejects("no_lost_text", case(doc, bare(*kept)), "lies in no chunk")


@PROPERTY
@given(correct_chunkings())
def test_offsets_agree_with_placement(drawn: tuple[str, list[tuple[int, int]]]) -> None:
    """The same chunking reported with offsets passes too (and is not merely skipped)."""
    doc, spans = drawn
    max_size, overlap = _limits(doc, spans, "chars")
    chunks = [Chunk(index=i, text=doc[s:e], start=s, end=e) for i, (s, e) in enumerate(spans)]
    c = case(doc, chunks, max_size=max_size, overlap=overlap)
    for rule in SOUND_RULES:
        accepts(rule, c)
    assert place_in_order(doc, [k.text for k in chunks]).ok


# --------------------------------------------------------------------------- periodic text


@pytest.mark.parametrize("lines_per_chunk,overlap_lines", [(1, 0), (3, 1), (5, 2), (7, 6)])
def test_periodic_json_with_overlap_is_accepted(lines_per_chunk: int, overlap_lines: int) -> None:
    line = '{"a": 1}\n'
    doc = line * 50
    lines = doc.splitlines(keepends=True)
    texts, spans, k = [], [], 0
    step = lines_per_chunk - overlap_lines
    while True:
        start = k * len(line)
        end = min(len(doc), (k + lines_per_chunk) * len(line)) - 1  # trim the "\n"
        texts.append(doc[start:end])
        spans.append((start, end))
        if k + lines_per_chunk >= len(lines):
            break
        k += step
    max_size, overlap = _limits(doc, spans, "chars")
    chunks = [
        Chunk(
            index=i,
            text=t,
            bare=True,
            line_start=doc.count("\n", 0, s) + 1,
            line_end=doc.count("\n", 0, e - 1) + 1,
        )
        for i, (t, (s, e)) in enumerate(zip(texts, spans))
    ]
    c = case(doc, chunks, max_size=max_size, overlap=overlap)
    for rule in (*SOUND_RULES, "line_citations"):
        accepts(rule, c)


def test_periodic_text_needs_the_right_occurrence_for_overlap() -> None:
    """The earliest occurrence of the second chunk overlaps too much; a later one fits."""
    doc = "ab ab ab"
    accepts("overlap_bounded", case(doc, bare("ab ab", "ab ab"), overlap=2, max_size=5))
    # ... and with overlap 1 no occurrence fits: [3:5) 'ab' is shared by every placement.
    rejects(
        "overlap_bounded",
        case(doc, bare("ab ab", "ab ab"), overlap=1, max_size=5),
        "chunk[0] [0:5) and chunk[1] [3:8) share [3:5) 'ab': 2 chars > overlap 1",
    )


# --------------------------------------------------------------------------- non-greedy coverage


@pytest.mark.parametrize(
    "doc,texts",
    [
        ("x ab ab", ["x ab", "ab"]),  # earliest "ab" after chunk 0 is inside it
        ("ab ab ab ab", ["ab ab", "ab ab"]),  # earliest leaves the last "ab" out
        ("ab ab ab ab", ["ab ab", "ab", "ab"]),
        ('{"a": 1}\n{"a": 1}\n{"a": 1}', ['{"a": 1}\n{"a": 1}', '{"a": 1}']),
        ("aaaa", ["aa", "aa"]),  # second at 2, not 1
        ("abcabcabc", ["abcabc", "abc"]),
        ("a a a a b", ["a a", "a a", "b"]),
    ],
)
def test_coverage_finds_a_non_greedy_placement(doc: str, texts: list[str]) -> None:
    greedy = place_in_order(doc, texts)
    assert greedy.ok
    assert _gap(doc, greedy.spans) is not None, "the earliest placement should leave a gap"
    assert uncovered_offset(doc, texts) == Coverage(None)
    accepts("no_lost_text", case(doc, bare(*texts)))


#: The first half needs a later occurrence than the earliest ("ab" at 5), the second half an
#: earlier one than the furthest ("cd" at 11, not 14): neither greedy pass covers everything.
NEEDS_SEARCH = ("x ab ab z cd cd cd", ["x ab", "ab", "z cd", "cd", "cd cd"])


def test_coverage_search_when_neither_greedy_pass_works() -> None:
    doc, texts = NEEDS_SEARCH
    assert _gap(doc, place_in_order(doc, texts).spans) is not None
    assert furthest_placement(doc, texts) is None
    assert uncovered_offset(doc, texts) == Coverage(None)
    accepts("no_lost_text", case(doc, bare(*texts)))
    # ... and the search still finds text that no placement covers
    doc += " x"
    assert uncovered_offset(doc, texts) == Coverage(len(doc) - 1)
    rejects("no_lost_text", case(doc, bare(*texts)), f"document[{len(doc) - 1}] 'x'")


def test_furthest_placement_takes_the_last_start_before_the_first_uncovered_text() -> None:
    assert furthest_placement("x ab ab", ["x ab", "ab"]) == [(0, 4), (5, 7)]
    assert furthest_placement("aaaa", ["aa", "aa"]) == [(0, 2), (2, 4)]
    assert furthest_placement("ab cd", ["ab", "", "cd"]) == [(0, 2), None, (3, 5)]
    assert furthest_placement("ab cd", ["ab"]) is None  # text left out
    assert furthest_placement("ab ab", ["ab", "ab"], [None, 0]) is None  # pin not after


def _gap(doc: str, spans: list[tuple[int, int] | None]) -> int | None:
    covered = [False] * len(doc)
    for span in spans:
        if span:
            for k in range(*span):
                covered[k] = True
    return next((k for k, ch in enumerate(doc) if not covered[k] and not ch.isspace()), None)


def test_coverage_respects_pinned_chunks() -> None:
    doc = "ab ab ab"
    assert uncovered_offset(doc, ["ab", "ab", "ab"], [None, 3, None]) == Coverage(None)
    # pinned to the last "ab": the middle one can then never be covered
    assert uncovered_offset(doc, ["ab", "ab"], [None, 6]).offset == 3


def test_coverage_reports_the_first_character_the_best_placement_misses() -> None:
    doc = "one two three four"
    assert uncovered_offset(doc, ["one", "three", "four"]).offset == 4
    assert uncovered_offset(doc, ["one", "two", "three"]).offset == 14
    assert uncovered_offset(doc, []).offset == 0
    assert uncovered_offset("  \n ", []) == Coverage(None)


def _hard(lost: bool) -> tuple[str, list[str]]:
    """Many equally good placements ("a" repeated), then a part no greedy pass solves."""
    doc, texts = NEEDS_SEARCH
    return "a" * 60 + " " + doc + (" q" if lost else ""), ["a" * 5] * 12 + texts


def test_coverage_search_is_exact_below_its_limits() -> None:
    doc, texts = _hard(lost=False)
    assert uncovered_offset(doc, texts) == Coverage(None)
    doc, texts = _hard(lost=True)
    assert uncovered_offset(doc, texts) == Coverage(len(doc) - 1)


def test_coverage_gives_up_inconclusively_when_the_state_cap_is_hit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Too many placements to track: the search is cut, and says so instead of guessing."""
    monkeypatch.setattr(placement, "MAX_STATES", 4)
    doc, texts = _hard(lost=True)
    assert uncovered_offset(doc, texts) == Coverage(None, conclusive=False)
    assert violations("no_lost_text", case(doc, bare(*texts))) == []


def test_coverage_gives_up_inconclusively_past_its_work_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(placement, "WORK_BUDGET", 50)
    doc, texts = _hard(lost=True)
    assert uncovered_offset(doc, texts) == Coverage(None, conclusive=False)


def test_coverage_counts_text_before_searching() -> None:
    """Chunks holding fewer non-space characters than the document lose text under every
    placement: found at once even where the search would be cut (one character repeated)."""
    doc = "a" * 100_000
    texts = ["a" * 10] * 9_998
    found = uncovered_offset(doc, texts)
    assert found.conclusive and found.offset is not None
    assert uncovered_offset(doc, ["a" * 10] * 10_000) == Coverage(None)


# --------------------------------------------------------------------------- large documents


def test_placement_on_a_large_document_with_repeated_blocks() -> None:
    """~1.5 MB of repeated JSON / XML blocks; just run it (speed belongs in benchmarks)."""
    blocks = [
        '{\n  "id": 1,\n  "tags": ["x", "y"]\n}\n',
        "<item>\n  <name>x</name>\n</item>\n",
        '{"a": 1}\n' * 3,
        "\n\n",
    ]
    parts, size, k = [], 0, 0
    while size < 1_500_000:
        part = blocks[k % len(blocks)] if k % 7 else f"unique {k}\n"
        if k == 20_000:
            part = "marker \u00a7 once\n"
        parts.append(part)
        size, k = size + len(part), k + 1
    doc = "".join(parts)
    spans, pos = [], first_non_space(doc)
    while pos != -1:
        end = _last_text_end(doc, pos, min(len(doc), pos + 400))
        spans.append((pos, end))
        if first_non_space(doc, end) == -1:
            break
        pos = first_non_space(doc, max(pos + 1, end - 40))
    max_size, overlap = _limits(doc, spans, "chars")
    d = Document(doc)
    chunks = [
        Chunk(index=i, text=doc[s:e], bare=True, line_start=d.line_of(s), line_end=d.line_of(e - 1))
        for i, (s, e) in enumerate(spans)
    ]
    c = case(doc, chunks, max_size=max_size, overlap=overlap)
    for rule in (*SOUND_RULES, "line_citations"):
        accepts(rule, c)
    # Dropping the chunks that hold the one "\u00a7" is still found on the large document.
    kept = [k.text for k in chunks if "\u00a7" not in k.text]
    assert len(kept) < len(chunks)
    dropped = [(s, e) for s, e in spans if "\u00a7" in doc[s:e]]
    found = rejects(
        "no_lost_text",
        case(doc, bare(*kept), max_size=max_size, overlap=overlap),
        "lies in no chunk placed in document order",
    )
    gap = int(found[0].message.split("]")[0].split("[")[1])
    assert dropped[0][0] <= gap < dropped[-1][1]


# --------------------------------------------------------------------------- rejections


def test_bare_chunks_dropping_a_character_are_rejected() -> None:
    doc = '{"a": 1}\n{"a": 2}\n{"a": 1}\n'
    rejects(
        "no_lost_text",
        case(doc, bare('{"a": 1}', '{"a": 1}')),
        "document[9] '{' (line 2) lies in no chunk",
    )
    rejects(
        "no_lost_text",
        case(doc, bare('{"a": 1}\n{"a": 2}', '"a": 1}')),
        "document[18] '{' (line 3) lies in no chunk",
    )


def test_a_chunk_emitted_twice_is_rejected_by_ordered() -> None:
    doc = "alpha beta gamma"
    rejects(
        "ordered",
        case(doc, bare("alpha", "beta", "beta", "gamma")),
        "chunk[2] 'beta' does not occur after chunk[1] [6:10) in the document",
        "starts and ends must both strictly increase",
    )


def test_a_repeated_chunk_matching_a_later_repeat_is_not_a_duplicate() -> None:
    doc = "beta beta"
    accepts("ordered", case(doc, bare("beta", "beta")))


def test_chunks_out_of_order_are_rejected() -> None:
    doc = "alpha beta gamma"
    rejects(
        "ordered",
        case(doc, bare("alpha", "gamma", "beta")),
        "chunk[2] 'beta' does not occur after chunk[1] [11:16)",
    )
    rejects(
        "ordered",
        case(doc, bare("beta", "alpha")),
        "chunk[1] 'alpha' does not occur after chunk[0] [6:10)",
    )


def test_a_chunk_inside_its_predecessor_is_rejected_even_when_it_ends_with_it() -> None:
    """SPEC 1.1: the same end is no progress; a later repeat of the text is."""
    doc = "alpha beta"
    rejects("ordered", case(doc, bare("alpha beta", "beta")), "chunk[1] 'beta' adds no text")
    rejects("ordered", case(doc, bare("alpha beta", "alph")), "chunk[1] 'alph' does not occur")
    accepts("ordered", case(doc + " beta", bare("alpha beta", "beta")))


def test_a_chunk_not_in_the_document_is_span_fidelitys_finding_only() -> None:
    doc = "alpha beta gamma"
    c = case(doc, bare("alpha", "beat", "gamma"))
    rejects("span_fidelity", c, "chunk[1]: 'beat' occurs nowhere in the document")
    for rule in ("ordered", "overlap_bounded", "no_lost_text"):
        assert violations(rule, c) == []


# --------------------------------------------------------------------------- place_in_order


def test_place_in_order_is_earliest_first() -> None:
    placed = place_in_order("ab ab ab", ["ab", "ab", "ab"])
    assert placed == Placement([(0, 2), (3, 5), (6, 8)])
    assert placed.ok


def test_place_in_order_reports_the_first_unplaceable_chunk() -> None:
    placed = place_in_order("ab ab", ["ab", "ab", "ab"])
    assert placed.failed == 2 and not placed.ok
    assert placed.spans == [(0, 2), (3, 5), None]


def test_place_in_order_leaves_empty_texts_unplaced() -> None:
    placed = place_in_order("ab cd", ["ab", "", "cd"])
    assert placed.spans == [(0, 2), None, (3, 5)]


def test_place_in_order_honours_pins_lower_bounds_and_accept() -> None:
    doc = "ab ab ab"
    assert place_in_order(doc, ["ab", "ab"], [None, 6]).spans == [(0, 2), (6, 8)]
    assert not place_in_order(doc, ["ab", "ab"], [3, 0]).ok  # pin below the bound
    assert not place_in_order(doc, ["ab"], [1]).ok  # pin not at the text
    assert place_in_order(
        doc, ["ab", "ab"], lower=lambda i, p: 0 if p is None else p[1] + 2
    ).spans == [(0, 2), (6, 8)]
    accept_third = place_in_order(doc, ["ab"], accept=lambda i, q, p: q == 6)
    assert accept_third.spans == [(6, 8)]
    give_up = place_in_order(doc, ["ab"], accept=lambda i, q, p: None)
    assert give_up.failed == 0
    assert after_previous(0, None) == 0 and after_previous(1, (4, 9)) == 5


def test_period_regex_sanity() -> None:
    """The JSON period used above really is periodic (guards the fixture, not the code)."""
    assert re.fullmatch(r'(\{"a": 1\}\n)+', '{"a": 1}\n' * 5)


def _order_keeping_placement_exists(doc: str, texts: list[str]) -> bool:
    """Brute force: some choice of occurrences has starts and ends both strictly increasing."""
    import itertools

    where = [[k for k in range(len(doc)) if doc.startswith(t, k)] for t in texts]
    for starts in itertools.product(*where):
        spans = [(s, s + len(t)) for s, t in zip(starts, texts)]
        if all(b[0] > a[0] and b[1] > a[1] for a, b in pairwise(spans)):
            return True
    return False


@st.composite
def _small_bare_cases(draw: st.DrawFn) -> tuple[str, list[str]]:
    doc = draw(st.text(alphabet="ab", min_size=1, max_size=9))
    cuts = st.tuples(st.integers(0, len(doc) - 1), st.integers(1, 4))
    texts = [doc[s : s + n] for s, n in draw(st.lists(cuts, min_size=1, max_size=4))]
    return doc, texts


@PROPERTY
@given(_small_bare_cases())
def test_ordered_on_bare_chunks_agrees_with_brute_force(drawn: tuple[str, list[str]]) -> None:
    """The greedy earliest placement (strict starts and strict ends) reports exactly when no
    placement in document order exists: sound and complete on small periodic documents."""
    doc, texts = drawn
    reported = bool(violations("ordered", case(doc, bare(*texts))))
    assert reported == (not _order_keeping_placement_exists(doc, texts)), (doc, texts)


@pytest.mark.parametrize(
    ("document", "spans", "gap"),
    [
        ("ab cd", [(0, 2), (3, 5)], None),  # only a space between: nothing lost
        ("ab cd", [(3, 5)], 0),  # text before the first span
        ("ab cd ef", [(0, 2), (6, 8)], 3),  # text between two spans
        ("ab cd", [(0, 2)], 3),  # text after the last span
        ("abcdef", [(2, 6), (0, 3)], None),  # unordered and overlapping: all covered
        ("abcdef", [(0, 4), (1, 2), (5, 6)], 4),  # a span inside another does not reach past it
        ("ab\n\t cd", [(0, 2), None, (5, 7)], None),  # an unplaced chunk adds nothing
        ("", [], None),
        ("  ", [], None),
        ("x", [], 0),
    ],
)
def test_first_gap_is_the_first_non_blank_character_no_span_reaches(
    document: str, spans: list[tuple[int, int] | None], gap: int | None
) -> None:
    assert placement.first_gap(document, spans) == gap


@given(st.text(alphabet="ab \n", max_size=30), st.lists(st.tuples(st.integers(0, 30),
                                                                   st.integers(0, 30))))
def test_first_gap_agrees_with_a_character_by_character_scan(
    document: str, pairs: list[tuple[int, int]]
) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in pairs]
    covered = [any(s <= i < e for s, e in spans) for i in range(len(document))]
    expected = next((i for i, c in enumerate(document) if not c.isspace() and not covered[i]),
                    None)
    assert placement.first_gap(document, spans) == expected
