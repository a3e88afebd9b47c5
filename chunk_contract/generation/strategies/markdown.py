"""Markdown documents and documents with a long three-line header.

``markdown_documents`` aims at heading-aware splitters: real ATX headings in every legal form
(0-3 spaces, 1-6 ``#``, then space, tab or end of line), lines that only look like headings
(``#hashtag``, indented code, seven hashes, ``#`` lines inside fenced code), repeated identical
headings, headings longer than small caps, header-only documents, front matter, CRLF.

Fenced code comes in the variants a fence parser gets wrong: tilde fences, 3-5 character runs,
0-3 spaces of indent, info strings, closing runs longer than the opener, unclosed fences,
fence-like lines inside a fence that close nothing, look-alike openers (a backtick in a backtick
fence's info string), and a real heading right after the fence.

``headed_documents`` aims at chunkers that treat the first three lines as a header and reserve
room for it in every chunk (seed 004): long title / author / date lines, header-only documents
with and without a trailing newline.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from ._common import NEWLINE_STYLES, SEEDS, check_int, fill, lengths, picks, weighted, with_newlines
from .text import WORDS, documents, inline_text, prose, seeded_sentences, sentences

__all__ = ["headed_documents", "markdown_documents"]

_TITLE_WORDS = (
    "Intro",
    "Setup",
    "Usage",
    "API",
    "Notes",
    "FAQ",
    "Install",
    "Overview",
    "Details",
    "Caf\u00e9",
    "\U0001f680 Launch",
    "\u6570\u636e",
    "\u05e9\u05dc\u05d5\u05dd",
    "#tag",
    "C#",
    "Step 1",
    "a",
    "x",
)

_CODE_LINES = (
    "# a comment that looks like a heading",
    "## Not a heading",
    "#!/bin/sh",
    "x = 1",
    "    # indented comment",
    "   # three spaces, still inside the fence",
    "print('hello')",
    "#",
    "###### six",
    "",
    "def f():",
    "    return 1",
)

_NOT_HEADINGS = (
    "#hashtag",
    "#5 is not a heading",
    "    # not a heading (indented code)",
    "\t# not a heading (tab-indented code)",
    "####### seven hashes",
    "\\# escaped",
    "Text with a # in the middle",
    "C# and F# are languages",
    "#\u00a0no-break space after the hash",
)

_LIST_ITEMS = ("- item", "* item", "+ item", "1. first", "2) second", "  - nested", "- [ ] task")

_THEMATIC = ("---", "***", "___", "- - -")


def _title() -> st.SearchStrategy[str]:
    return st.builds(functools.partial(_words, _TITLE_WORDS), st.integers(1, 4), SEEDS)


def _words(words: tuple[str, ...], count: int, seed: int) -> str:
    """``count`` of ``words``, seeded (see :func:`~._common.picks`), space-joined."""
    return " ".join(picks((words,), count, seed))


#: A heading's ``#`` run and its 0-3 spaces of indent (none twice as often as each other),
#: one choice: levels 1-6 unindented first, so shrinking heads for ``#``.
_OPENINGS = tuple(indent + "#" * level for indent in ("", " ", "  ", "   ", "")
                  for level in range(1, 7))


def headings() -> st.SearchStrategy[str]:
    """One ATX heading line, in any legal form (including the empty heading ``#``)."""
    return st.builds(
        lambda opening, tail: opening + tail,
        st.sampled_from(_OPENINGS),
        st.one_of(
            _title().map(lambda t: " " + t),
            _closed_titles(),
            st.just(""),
            _title().map(lambda t: "\t" + t),
            st.just(" "),
            inline_text().map(lambda t: " " + t),
        ),
    )


def _closed_titles() -> st.SearchStrategy[str]:
    """A title with a closing ``#`` run: after a space or tab (closing), glued to the title
    (``C#``: part of it), alone (``# #``: an empty heading), trailing blanks, or escaped."""
    return st.one_of(
        st.builds(
            lambda t, sep, run, trail: " " + t + sep + "#" * run + trail,
            _title(),
            st.sampled_from((" ", "\t", "", "  ")),
            st.integers(1, 4),
            st.sampled_from(("", " ", "  ", "\t")),
        ),
        st.sampled_from((" #", " ##  ", " \\#", " # #")),
    )


def _long_headings(max_length: int) -> st.SearchStrategy[str]:
    """A heading longer than any small cap."""
    return st.builds(
        lambda level, n, count, seed: "#" * level + " " + fill(picks((WORDS,), count, seed), n),
        st.integers(1, 3),
        lengths(40, min(max_length, 600)),
        st.integers(3, 12),
        SEEDS,
    )


@functools.cache
def _fence_bodies(marker: str) -> st.SearchStrategy[list[str]]:
    """1-8 lines inside a fence opened by ``marker``: code, and decoys of that marker. One
    strategy per marker (a handful), not a new one validated on every draw."""
    pools = (_CODE_LINES, _decoys(marker))
    return st.builds(lambda count, seed: picks(pools, count, seed), st.integers(1, 8), SEEDS)


def _decoys(marker: str) -> tuple[str, ...]:
    """Lines inside a fence opened by ``marker`` that look like fence lines and close nothing:
    the other fence character, a shorter run, a run with an info string, four spaces of indent."""
    other = "~" if marker[0] == "`" else "`"
    return (
        other * 3,
        other * (len(marker) + 1),
        marker + "python",
        marker[0] * (len(marker) - 1),
        "    " + marker,
        other * 3 + " text",
    )


#: Lines that look like fence openers and are not (a backtick fence's info string may not hold a
#: backtick), and tilde openers whose info string may.
_FENCE_LOOK_ALIKES = ("```a`b", "``` `inline` code", "````x`", "~~~ a`b", "~~~`")


@functools.cache
def _fence_openers() -> st.SearchStrategy[tuple[str, str]]:
    """``(indent, marker)``: 0-3 spaces, then 3-5 backticks or tildes (one strategy, built
    once: it is drawn inside every fence)."""
    return st.tuples(
        st.sampled_from(("", "", " ", "  ", "   ")),
        st.builds(lambda char, n: char * n, st.sampled_from("`~"), st.integers(3, 5)),
    )


def _fences() -> st.SearchStrategy[str]:
    """Fenced code holding ``#`` lines and fence decoys; closed by the same run, a longer one
    (indented 0-3 spaces, trailing spaces allowed), or left unclosed."""
    infos = st.sampled_from(("", "python", "bash", "md", " js", " ~~~", " a~b"))
    closings = st.sampled_from(("same", "same", "longer", "unclosed", "indented", "trailing"))

    @st.composite
    def build(draw: st.DrawFn) -> str:
        indent, marker = draw(_fence_openers())
        info = draw(infos)
        out = [indent + marker + info, *draw(_fence_bodies(marker))]
        closing = draw(closings)
        if closing == "longer":
            out.append(marker + marker[0])
        elif closing == "indented":
            out.append("   "[: len(indent) + 1] + marker)
        elif closing == "trailing":
            out.append(marker + "  ")
        elif closing != "unclosed":
            out.append(marker)
        return "\n".join(out)

    return build()


def _fenced_sections() -> st.SearchStrategy[str]:
    """A fence (or a line that only looks like one) straight before a real heading and text: a
    splitter that misreads where the fence ends misses the heading."""
    return st.builds(
        lambda fence, gap, heading, text: fence + gap + heading + "\n" + text,
        st.one_of(_fences(), st.sampled_from(_FENCE_LOOK_ALIKES)),
        st.sampled_from(("\n", "\n\n")),
        headings(),
        sentences(),
    )


def _repeated_sections() -> st.SearchStrategy[str]:
    """The same heading, again and again, over identical or different bodies."""

    def build(heading: str, count: int, seed: int, same: bool) -> str:
        bodies = seeded_sentences(count, seed)
        return "\n\n".join(heading + "\n\n" + (bodies[0] if same else b) for b in bodies)

    return st.builds(build, headings(), st.integers(2, 6), SEEDS, st.booleans())


def _lists() -> st.SearchStrategy[str]:
    def build(count: int, seed: int) -> str:
        items = picks((_LIST_ITEMS,), count, seed)
        texts = seeded_sentences(count, seed and seed + 1)  # a stream of its own
        return "\n".join(f"{item} {text}" for item, text in zip(items, texts))

    return st.builds(build, st.integers(1, 6), SEEDS)


def _setext() -> st.SearchStrategy[str]:
    return st.builds(
        lambda title, char, n: title + "\n" + char * n,
        _title(),
        st.sampled_from(("=", "-")),
        st.integers(1, 20),
    )


def _front_matter() -> st.SearchStrategy[str]:
    return st.builds(
        lambda title, extra: "---\ntitle: " + title + "\n" + extra + "---",
        _title(),
        st.sampled_from(("", "tags: [a, b]\n", "# yaml comment\n", "date: 2024-01-01\n")),
    )


def _blocks(max_length: int) -> st.SearchStrategy[str]:
    return weighted(
        (2, sentences()),
        (4, headings()),
        (2, prose()),
        (3, _fences()),
        (3, _fenced_sections()),
        (2, _repeated_sections()),
        (3, st.sampled_from(_NOT_HEADINGS)),
        (1, _lists()),
        (1, _setext()),
        (1, st.sampled_from(_THEMATIC)),
        (1, st.just("| a | b |\n|---|---|\n| 1 | 2 |")),
        (1, st.builds(lambda h: "> " + h + "\n> quoted text", headings())),
        (1, _long_headings(max_length)),
        (1, inline_text()),
    )


def markdown_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Markdown documents of at most ``max_length`` codepoints.

    Headings (every legal ATX form, empty, repeated, long), fenced code with ``#`` lines inside,
    heading look-alikes, lists, tables, quotes, setext underlines, YAML front matter and
    header-only documents (nothing but headings), in LF, CRLF or lone-CR line endings.
    """
    return _markdown_documents(
        check_int("markdown_documents", "max_length", max_length, min_value=1)
    )


@functools.lru_cache(maxsize=64)
def _markdown_documents(max_length: int) -> st.SearchStrategy[str]:
    header_only = st.builds(
        lambda lines, end: "\n".join(lines) + end,
        st.lists(headings(), min_size=1, max_size=6),
        st.sampled_from(("", "\n")),
    )
    fronts = st.one_of(
        st.just(""),
        _front_matter().map(lambda f: f + "\n"),
        st.sampled_from(("\n", "\n\n\n", " \n")),  # leading blank lines
    )
    parts = st.lists(
        st.tuples(st.sampled_from(("\n\n", "\n", "\n\n\n")), _blocks(max_length)),
        min_size=1,
        max_size=8,
    )
    ends = st.sampled_from(("\n", "", "\n\n"))
    styles = st.sampled_from(NEWLINE_STYLES)
    picks = st.integers(0, 5)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        if draw(picks) == 5:
            body = draw(header_only)  # nothing but headings
        else:
            front = draw(fronts)
            blocks = draw(parts)
            body = front + "".join(sep + block for sep, block in blocks)[len(blocks[0][0]) :]
            body += draw(ends)
        return with_newlines(body, draw(styles))[:max_length]

    return build()


def _header_lines(label: str, max_length: int) -> st.SearchStrategy[str]:
    short = st.sampled_from((label.upper(), label + ": x"))
    long = st.builds(
        lambda count, seed, n: label + ": " + fill(picks((WORDS,), count, seed), n),
        st.integers(2, 10),
        SEEDS,
        lengths(20, max(20, max_length // 3), typical=200),
    )
    return st.one_of(short, long)


def headed_documents(*, max_length: int = 2000) -> st.SearchStrategy[str]:
    """Documents whose first three lines are a (usually long) title / author / date header.

    The body is prose, markdown or an adversarial text document, or nothing at all: header-only
    documents come with and without a trailing newline (seed 004).
    """
    return _headed_documents(check_int("headed_documents", "max_length", max_length, min_value=1))


@functools.lru_cache(maxsize=64)
def _headed_documents(max_length: int) -> st.SearchStrategy[str]:
    titles = _header_lines("Title", max_length)
    authors = _header_lines("Author", max_length)
    dates = _header_lines("Date", max_length)
    bodies = st.one_of(
        st.just(""),
        prose(),
        documents(max_length=max_length),
        markdown_documents(max_length=max_length),
    )
    ends = st.sampled_from(("", "\n", "\n\n"))
    styles = st.sampled_from(NEWLINE_STYLES)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        header = f"{draw(titles)}\n{draw(authors)}\n{draw(dates)}"
        body = draw(bodies)
        text = header + "\n" + body if body else header + draw(ends)
        return with_newlines(text, draw(styles))[:max_length]

    return build()
