"""Markdown structure (opt-in): a heading is a hard chunk boundary; ``section`` is exact."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from contract.spec.invariants._common import place, spans_for
from contract.spec.model import Case, Document, Violation, describe_chunk, escape, first_non_space
from contract.spec.placement import Span
from contract.spec.rules import invariant

#: "\r" ends nothing on its own (SPEC §4): it counts only as part of a CRLF line end.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|(?=\r?\n)|\Z)", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)


def heading_offsets(text: str) -> list[int]:
    """Offsets of the first ``#`` of every ATX heading line outside fenced code blocks."""
    fenced = _fenced_ranges(text)
    out = []
    for match in _HEADING.finditer(text):
        k = bisect.bisect_right(fenced, match.start())
        if k % 2 == 0:  # not inside [open, close) of a fence
            out.append(match.start(1))
    return out


def _fenced_ranges(text: str) -> list[int]:
    """Flat list ``[open0, close0, open1, close1, ...]`` of fenced code block line ranges."""
    bounds: list[int] = []
    opener: str | None = None
    for match in _FENCE.finditer(text):
        marker, rest = match.group(1), match.group(2)
        if opener is None:
            if marker[0] == "`" and "`" in rest:
                continue  # a backtick fence's info string may not hold backticks
            opener = marker
            bounds.append(match.start())
        elif marker[0] == opener[0] and len(marker) >= len(opener) and not rest.strip():
            opener = None
            bounds.append(match.end())
    if opener is not None:
        bounds.append(len(text) + 1)  # an unclosed fence runs to the end
    return bounds


def _headings(doc: Document) -> list[int]:
    cached = doc.cache.get("headings")
    if cached is None:
        cached = doc.cache["headings"] = heading_offsets(doc.text)
    return cached


def _inner_heading(doc: Document, span: Span) -> int | None:
    """A heading inside ``span`` that has chunk text before it, if any."""
    heads = _headings(doc)
    k = bisect.bisect_right(heads, span[0])
    for head in heads[k : k + 2]:
        if head >= span[1]:
            return None
        if doc.text[span[0] : head].strip():
            return head
    return None


@invariant("heading_boundary", opt_in=True)
def heading_boundary(case: Case) -> Iterator[Violation]:
    """No chunk holds a markdown ATX heading line anywhere but at its start."""
    doc, chunks = case.document, list(case.chunks)
    if case.all_spanned:
        for chunk, span in zip(chunks, case.offset_spans):
            assert span is not None
            head = _inner_heading(doc, span)
            if head is not None:
                yield _violation(doc, chunk.index, span, head)
        return
    if spans_for(case, chunks) is None:
        return
    placed = place(
        case,
        chunks,
        accept=lambda i, q, p: _inner_heading(doc, (q, q + len(chunks[i].text))) is None,
    )
    if not placed.ok:
        i = placed.failed or 0
        yield Violation(
            "heading_boundary",
            f"{describe_chunk(chunks[i])} {escape(chunks[i].text, 60)} holds a heading after other "
            "text under every placement in document order",
            (i,),
        )


def _violation(doc: Document, index: int, span: Span, head: int) -> Violation:
    line_end = doc.text.find("\n", head)
    heading = doc.text[head : line_end if line_end != -1 else len(doc.text)]
    return Violation(
        "heading_boundary",
        f"chunk[{index}] [{span[0]}:{span[1]}) holds heading {escape(heading, 40)} at "
        f"{head} (line {doc.line_of(head)}) after other text; a heading must start its chunk",
        (index,),
    )


# ----------------------------------------------------------------------------- section_path


def heading_paths(text: str) -> tuple[list[int], list[list[str]]]:
    """Line starts of the ATX headings outside fenced code, and the heading path each begins.

    A heading of level n closes every open heading of level n or deeper, so the path lists the
    titles of the open headings from the top level down (``"# A\n### C"`` gives ``[A, C]``).
    """
    starts: list[int] = []
    paths: list[list[str]] = []
    stack: list[tuple[int, str]] = []
    for head in heading_offsets(text):
        line = text.rfind("\n", 0, head) + 1
        end = text.find("\n", head)
        level = len(text[head : head + 6]) - len(text[head : head + 6].lstrip("#"))
        title = atx_title(text[head + level : len(text) if end == -1 else end])
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        starts.append(line)
        paths.append([t for _, t in stack])
    return starts, paths


def atx_title(content: str) -> str:
    """A heading's title: its text without a closing ``#`` run (which must follow a space or
    tab, or be all there is: ``"# C#"`` is titled ``C#``) and without surrounding whitespace.

    Whitespace is Python's (``str.strip()``): CommonMark strips only spaces and tabs, but a
    chunker that also strips a no-break space or a lone ``"\r"`` names the same heading.
    """
    content = content.strip()
    bare = content.rstrip("#")
    if not bare:
        return ""
    if bare != content and bare[-1] in " \t":
        return bare.strip()
    return content


@invariant("section_path", opt_in=True)
def section_path(case: Case) -> Iterator[Violation]:
    """A chunk's ``section`` is the heading path in force at its first non-blank character.

    Titles are compared without leading and trailing whitespace. A plugin that promises this
    rule reports ``section`` on every chunk: a missing one is a violation (the promise is what a
    RAG pipeline relies on to attribute text to its heading).
    """
    doc = case.document
    cached = doc.cache.get("heading_paths")
    if cached is None:
        cached = doc.cache["heading_paths"] = heading_paths(doc.text)
    starts, paths = cached
    for chunk, span in zip(case.chunks, case.offset_spans):
        if chunk.section is None:
            yield Violation(
                "section_path",
                f"{describe_chunk(chunk, span)} reports no section, but the plugin promises "
                "section_path",
                (chunk.index,),
            )
            continue
        if span is None or not 0 <= span[0] < span[1] <= len(doc):
            continue  # not placed by offsets: span_fidelity judges such chunks
        # Leading blank lines before a heading belong to it: judged at the first character
        # that is not whitespace (a blank chunk is non_empty's finding).
        first = first_non_space(doc.text, span[0], span[1])
        if first == -1:
            continue
        k = bisect.bisect_right(starts, first) - 1
        expected = paths[k] if k >= 0 else []
        if [title.strip() for title in chunk.section] != expected:
            yield Violation(
                "section_path",
                f"{describe_chunk(chunk, span)} reports section {list(chunk.section)!r}; the "
                f"headings in force at its first non-blank character (line "
                f"{doc.line_of(first)}) give {expected!r}",
                (chunk.index,),
            )
