"""heading_boundary (opt-in): an ATX heading outside fenced code only ever starts a chunk."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from chunk_contract.generation.strategies import markdown_documents
from chunk_contract.spec.invariants.markdown import heading_offsets
from tests.unit.helpers import accepts, bare, case, rejects, slices, spans, violations

HB = {"heading_boundary"}


def _whole(doc: str):  # one chunk holding the whole document
    return case(doc, spans(doc, (0, len(doc))), promises=HB)


def test_sections_chunked_at_headings_are_accepted() -> None:
    doc = "# A\nalpha text\n\n## B\nbeta text\n"
    accepts(
        "heading_boundary",
        case(doc, slices(doc, "# A\nalpha text", "## B\nbeta text"), promises=HB),
    )


def test_a_chunk_straddling_two_sections_is_rejected() -> None:
    """Seed: a chunk holding the end of section A and the heading of section B."""
    doc = "# A\nalpha text\n\n## B\nbeta text\n"
    rejects(
        "heading_boundary",
        case(doc, slices(doc, "# A\nalpha", "text\n\n## B\nbeta text"), promises=HB),
        "chunk[1] [10:30) holds heading '## B' at 16 (line 4) after other text; a heading "
        "must start its chunk",
    )


def test_second_heading_in_a_chunk_that_starts_with_one() -> None:
    doc = "# A\ntext\n# B\nmore"
    rejects("heading_boundary", _whole(doc), "holds heading '# B' at 9 (line 3)")


def test_whitespace_before_the_heading_is_not_other_text() -> None:
    doc = "intro\n\n\n# H\nbody"
    accepts("heading_boundary", case(doc, spans(doc, (0, 5), (5, len(doc))), promises=HB))


@pytest.mark.parametrize("fence", ["```", "~~~", "````", "```python", "~~~ info `ok`"])
def test_a_hash_line_in_a_fenced_code_block_is_not_a_heading(fence: str) -> None:
    closer = fence.split()[0].rstrip("python")
    doc = f"Intro\n{fence}\n# not a heading\n{closer}\nafter"
    accepts("heading_boundary", _whole(doc))
    assert heading_offsets(doc) == []


def test_a_heading_after_the_fence_closes_counts() -> None:
    doc = "Intro\n```\n# code\n```\n# Real\nbody"
    assert heading_offsets(doc) == [doc.index("# Real")]
    rejects("heading_boundary", _whole(doc), "holds heading '# Real'")


def test_an_unclosed_fence_runs_to_the_end() -> None:
    doc = "Intro\n```\n# code\n\n# still code"
    accepts("heading_boundary", _whole(doc))


def test_a_fence_closes_only_with_its_own_marker_at_least_as_long() -> None:
    doc = "Intro\n````\n```\n# code\n~~~~\n# code\n````\n# Real"
    assert heading_offsets(doc) == [doc.index("# Real")]


def test_a_backtick_info_string_with_a_backtick_is_not_a_fence() -> None:
    doc = "Intro\n``` a`b\n# Real\n"
    assert heading_offsets(doc) == [doc.index("# Real")]


@pytest.mark.parametrize("doc", [
    "# Setup\n\n1. ```sh\n   # install\n   pip install x\n   ```\n2. Run it.\n",  # in a list item
    "- ```\n  # comment\n  ```\n",
    "Intro\n~~~\nx\n~~~\xa0\n# H\ntext\n",  # CommonMark: a no-break space leaves it open
    "Intro\n```\nx\n```\x0c\n# H\ntext\n",  # and so does a form feed
])
def test_a_line_fenced_under_commonmarks_reading_need_not_start_a_chunk(doc: str) -> None:
    """Both readings docs/spec.md allows pass: CommonMark's (a fence in a list item; only
    spaces and tabs after a closing marker) and the plain one."""
    accepts("heading_boundary", _whole(doc))


def test_a_heading_fenced_under_no_reading_must_still_start_its_chunk() -> None:
    doc = "Intro\n10. ```\n    # code\n    ```\n# Real\nbody"
    rejects("heading_boundary", _whole(doc), "holds heading '# Real'")


def test_a_section_path_under_either_reading_of_a_fence_is_accepted() -> None:
    """After ``~~~\\xa0`` a plain reader sees ``# H`` open a section; CommonMark reads it as code,
    so the section stays ``A``. Both pass; a path neither gives does not."""
    doc = "# A\nx\n~~~\nx\n~~~\xa0\n# H\ntext\n"
    texts = ("# A\nx\n~~~\nx\n~~~\xa0", "# H\ntext")
    for section in (["A"], ["H"]):
        chunks = slices(doc, *texts)
        chunks[1] = type(chunks[1])(index=1, text=chunks[1].text, start=chunks[1].start,
                                    end=chunks[1].end, section=tuple(section))
        chunks[0] = type(chunks[0])(index=0, text=chunks[0].text, start=chunks[0].start,
                                    end=chunks[0].end, section=("A",))
        accepts("section_path", case(doc, chunks, promises=SP))
    chunks[1] = type(chunks[1])(index=1, text=chunks[1].text, start=chunks[1].start,
                                end=chunks[1].end, section=("B",))
    rejects("section_path", case(doc, chunks, promises=SP), "reports section ['B']")


@pytest.mark.parametrize(
    "line,heading",
    [
        ("# H", True),
        ("###### H", True),
        ("#", True),
        ("#\tH", True),
        ("   # H", True),
        ("## ", True),
        ("#\r", True),
        ("####### H", False),
        ("#hashtag", False),
        ("    # indented code", False),
        ("\t# tab-indented", False),
        ("#5 bolt", False),
        ("text # not at start", False),
    ],
)
def test_what_an_atx_heading_line_is(line: str, heading: bool) -> None:
    doc = f"before\n{line}\nafter"
    assert bool(heading_offsets(doc)) is heading
    assert bool(violations("heading_boundary", _whole(doc))) is heading


def test_crlf_documents() -> None:
    """A heading line ended by CRLF is a heading, also the bare "#" (missed before the fix)."""
    doc = "para\r\n# H\r\nbody"
    rejects("heading_boundary", _whole(doc), "holds heading '# H\\r' at 6 (line 2)")
    doc = "para\r\n#\r\nbody"
    rejects("heading_boundary", _whole(doc), "holds heading '#\\r' at 6 (line 2)")
    # a lone CR does not end the line: "#\rx" is not a heading line
    assert heading_offsets("para\n#\rx\n") == []


def test_bare_chunks_placed_where_no_heading_is_inside() -> None:
    doc = "a\n# H\nb\na"
    # "a" could be the first line or the last: either way no heading is inside
    accepts("heading_boundary", case(doc, bare("a", "# H\nb", "a"), promises=HB))
    rejects(
        "heading_boundary",
        case(doc, bare("a\n# H"), promises=HB),
        "chunk[0] 'a\\n# H' holds a heading after other text under every placement in "
        "document order",
    )


def test_bare_chunks_that_cannot_be_placed_are_left_alone() -> None:
    assert violations("heading_boundary", case("# H\nx", bare("zz"), promises=HB)) == []


# ----------------------------------------------------------------------------- section_path

SP = {"section_path"}
DOC = "intro\n# A\nalpha\n### C ##\ngamma\n```\n# not a heading\n```\n## B\nbeta\n"


def _sections(*paths: list[str] | None, texts: tuple[str, ...]) -> list:
    chunks = slices(DOC, *texts)
    return [
        type(c)(index=c.index, text=c.text, start=c.start, end=c.end, section=tuple(p))
        if p is not None
        else c
        for c, p in zip(chunks, paths)
    ]


TEXTS = ("intro", "# A\nalpha", "### C ##\ngamma\n```\n# not a heading\n```", "## B\nbeta")


def test_exact_heading_paths_are_accepted() -> None:
    chunks = _sections([], ["A"], ["A", "C"], ["A", "B"], texts=TEXTS)
    accepts("section_path", case(DOC, chunks, promises=SP))


def test_a_closing_hash_run_kept_in_the_title_is_rejected() -> None:
    chunks = _sections([], ["A"], ["A", "C ##"], ["A", "B"], texts=TEXTS)
    rejects(
        "section_path",
        case(DOC, chunks, promises=SP),
        "chunk[2] [16:54) reports section ['A', 'C ##']; the headings in force at its first "
        "non-blank character (line 4) give ['A', 'C']",
    )


def test_a_heading_inside_fenced_code_opens_no_section() -> None:
    chunks = _sections([], ["A"], ["A", "C"], ["not a heading"], texts=TEXTS)
    rejects("section_path", case(DOC, chunks, promises=SP), "give ['A', 'B']")


def test_a_deeper_heading_closes_at_a_shallower_one() -> None:
    """Seed shape: the path is a stack, so ## B replaces ### C under # A."""
    chunks = _sections([], ["A"], ["A", "C"], ["A", "C", "B"], texts=TEXTS)
    rejects("section_path", case(DOC, chunks, promises=SP), "reports section ['A', 'C', 'B']")


def test_every_chunk_of_a_section_is_judged_when_its_verdict_is_shared() -> None:
    """Chunks of one section with the same reported path share a verdict: a wrong path is
    reported at each of them, a right one after a wrong one is not, and a chunk that starts
    with blank lines is judged at its first non-blank character."""
    texts = ("intro", "# A", "\nalp", "ha", "### C ##", "\ngamma", "## B", "\nbeta")
    paths = ([], ["A"], ["B"], ["B"], ["A", "C"], ["A", "C"], ["A", "B"], ["A"])
    chunks = slices(DOC, *texts)
    chunks = [type(c)(index=c.index, text=c.text, start=c.start, end=c.end, section=tuple(p))
              for c, p in zip(chunks, paths)]
    found = violations("section_path", case(DOC, chunks, promises=SP))
    assert [v.chunks for v in found] == [(2,), (3,), (7,)], found
    assert "give ['A']" in found[1].message and "give ['A', 'B']" in found[2].message


def test_a_promised_section_must_be_reported() -> None:
    chunks = _sections([], ["A"], None, ["A", "B"], texts=TEXTS)
    rejects("section_path", case(DOC, chunks, promises=SP), "reports no section")


def test_atx_titles() -> None:
    from chunk_contract.spec.invariants.markdown import atx_title

    assert [atx_title(t) for t in (" foo ##", " foo#", " ###", "\tfoo  \r", " a # b")] == [
        "foo", "foo#", "", "foo", "a # b",
    ]


def test_blank_lines_before_a_heading_belong_to_it() -> None:
    """A chunker that keeps the blank lines before a heading names that heading's section;
    a path taken at the blank line itself (the section before) is rejected."""
    doc = "# A\nalpha\n\n## B\nbeta\n"
    chunks = spans(doc, (0, 9), (9, 20))
    kept = [
        type(c)(index=c.index, text=c.text, start=c.start, end=c.end, section=tuple(p))
        for c, p in zip(chunks, (["A"], ["A", "B"]))
    ]
    accepts("section_path", case(doc, kept, promises=SP))
    wrong = [kept[0], type(kept[1])(index=1, text=kept[1].text, start=9, end=20, section=("A",))]
    rejects("section_path", case(doc, wrong, promises=SP), "give ['A', 'B']")


# Readings the checks accept (docs/spec.md): every reading the spec allows passes, and a title
# no reading gives is still rejected.


def _titled(doc: str, *paths: list[str], cuts: tuple[tuple[int, int], ...]) -> list:
    return [
        type(c)(index=c.index, text=c.text, start=c.start, end=c.end, section=tuple(p))
        for c, p in zip(spans(doc, *cuts), paths)
    ]


@pytest.mark.parametrize("title", ["#\r", "", "#"])
def test_a_lone_cr_after_a_hash_run_is_read_both_ways(title: str) -> None:
    """'# #\\r': a lone "\\r" is text (only "\\n" ends a line), so CommonMark's closing-sequence
    rule keeps '#\\r' as the title; stripping all whitespace first gives ''. Both are allowed."""
    accepts("section_path", case("# #\r", _titled("# #\r", [title], cuts=((0, 4),)), promises=SP))


def test_a_title_no_reading_gives_is_still_rejected() -> None:
    rejects(
        "section_path",
        case("# #\r", _titled("# #\r", ["# #"], cuts=((0, 4),)), promises=SP),
        "reports section ['# #']",
    )


@pytest.mark.parametrize("title", ["A\u00a0#", "A"])
def test_a_no_break_space_before_a_closing_run_is_read_both_ways(title: str) -> None:
    doc = "# A\u00a0#\nx"
    accepts("section_path", case(doc, _titled(doc, [title], cuts=((0, 7),)), promises=SP))


def test_a_crlf_line_end_is_not_part_of_the_title() -> None:
    doc = "# A #\r\nx"
    accepts("section_path", case(doc, _titled(doc, ["A"], cuts=((0, 8),)), promises=SP))
    rejects("section_path", case(doc, _titled(doc, ["A #"], cuts=((0, 8),)), promises=SP), "A #")


@pytest.mark.parametrize("path", [[], ["Title"]])
def test_a_setext_heading_may_count_or_not(path: list[str]) -> None:
    """The extension names ATX headings; a CommonMark chunker also opens a section at a setext
    heading (a paragraph underlined with = or -). Both readings pass; a mix of them does not."""
    doc = "Title\n=====\nbody\n## B\nbeta\n"
    ok = _titled(doc, path, [*path, "B"], cuts=((0, 17), (17, 27)))
    accepts("section_path", case(doc, ok, promises=SP))
    wrong = _titled(doc, ["Other"], ["B"], cuts=((0, 17), (17, 27)))
    rejects("section_path", case(doc, wrong, promises=SP), "reports section ['Other']")


def test_structure_is_found_by_the_shortcuts_too() -> None:
    """The scans skip a text that holds no ``#``, no fence run, no underline: each shortcut's
    smallest text that holds one still counts."""
    from chunk_contract.spec.invariants.markdown import _fenced_ranges, heading_paths

    assert heading_offsets("#") == [0]
    assert _fenced_ranges("~~~\n# x") == [0, len("~~~\n# x") + 1]
    assert _fenced_ranges("```") == [0, 4]
    assert heading_paths("T\n-", setext=True)[0] == [0]
    assert heading_paths("T\n=", setext=True)[0] == [0]
    assert heading_offsets("no heading here\n") == [] and _fenced_ranges("``") == []


@settings(max_examples=150, deadline=None)
@given(markdown_documents(max_length=600))
def test_one_document_reading_equals_the_public_heading_paths(text: str) -> None:
    from chunk_contract.spec.invariants.markdown import _readings, heading_paths
    from chunk_contract.spec.model import Document

    doc = Document(text)
    # the plain reading of fences comes first; CommonMark's follows where the two differ
    assert _readings(doc)[:2] == [heading_paths(text, setext=s) for s in (False, True)]
