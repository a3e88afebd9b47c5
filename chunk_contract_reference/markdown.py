"""Markdown chunking: every ATX heading starts a chunk, and every chunk knows its heading path.

Immune to the bug classes of seed 002:

* **A chunk straddling two sections** would attribute section A's text to section B's heading at
  retrieval time. Here a heading is a hard boundary: the document is cut into sections at every
  heading line, and each section is chunked on its own (no chunk, and no overlap, crosses a
  section boundary). Every chunk carries its heading path as ``section`` (``["Setup",
  "Linux"]``; ``[]`` before the first heading).
* **CRLF documents lose their structure.** ``"\\r\\n"`` is normalised to ``"\\n"`` once, at read
  (``newlines = "lf"``: offsets and lines refer to that normalised text), so a Windows file
  chunks exactly like its LF twin, and ``newline_invariance`` is promised.

A heading line is SPEC §5's ATX heading: 0-3 spaces, 1-6 ``#``, then a space, a tab or the end
of the line (a ``"\r"`` just before the ``"\n"`` is part of the line end), outside fenced code
blocks (a fence opens with 3+ backticks or tildes after 0-3
spaces, and closes with a bare run of the same character at least as long; an unclosed fence
runs to the end). So ``#`` comment lines inside fenced code never cut a section. Within a
section the text is split by :mod:`chunk_contract_reference.recursive` (overlap inside the cap).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from chunk_contract_reference import recursive
from chunk_contract_reference.spans import check_config, finalise, keep

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|\r?\n|\Z)(.*)", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)


def _without_closing(title: str) -> str:
    """The heading text without its optional closing ``#``s (no regex: a backtracking pattern
    went quadratic on long runs of tabs)."""
    bare = title.rstrip("#")
    if bare == title or (bare and bare[-1] not in " \t"):
        return title  # no closing sequence, or "#" glued to the text ("C#")
    return bare.strip()


def fenced(text: str) -> list[int]:
    """Flat ``[open0, close0, open1, close1, ...]`` offsets of the fenced code blocks."""
    bounds: list[int] = []
    opener = ""
    for match in _FENCE.finditer(text):
        marker, rest = match.group(1), match.group(2)
        if not opener:
            if marker[0] == "`" and "`" in rest:
                continue  # a backtick fence's info string may not hold backticks
            opener = marker
            bounds.append(match.start())
        elif marker[0] == opener[0] and len(marker) >= len(opener) and not rest.strip():
            opener = ""
            bounds.append(match.end())
    if opener:
        bounds.append(len(text) + 1)  # an unclosed fence runs to the end
    return bounds


def headings(text: str) -> list[tuple[int, int, str]]:
    """``(line_start, level, title)`` of every ATX heading outside fenced code, in order."""
    fences = fenced(text)
    out = []
    for match in _HEADING.finditer(text):
        if bisect.bisect_right(fences, match.start()) % 2 == 0:
            title = _without_closing(match.group(2).strip())
            out.append((match.start(), len(match.group(1)), title))
    return out


def sections(text: str) -> tuple[list[int], list[list[str]]]:
    """Section starts (the first is 0) and each section's heading path."""
    starts: list[int] = [0]
    paths: list[list[str]] = [[]]
    stack: list[tuple[int, str]] = []
    for start, level, title in headings(text):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        path = [t for _, t in stack]
        if start == 0:
            paths[0] = path
        else:
            starts.append(start)
            paths.append(path)
    return starts, paths


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Chunk markdown into slices of at most ``max_size`` characters that never cross a heading."""
    check_config(max_size, overlap)
    text = document.replace("\r\n", "\n")
    starts, paths = sections(text)
    ends = [*starts[1:], len(text)]
    spans = (
        cut
        for lo, hi in zip(starts, ends)
        for cut in recursive.cuts(text, max_size, overlap, lo, hi)
    )
    chunks = list(finalise(text, spans, trimmer=keep))  # cuts() trims already
    for chunk in chunks:
        chunk["section"] = list(paths[bisect.bisect_right(starts, chunk["start"]) - 1])
    return chunks


split.unit = "chars"  # type: ignore[attr-defined]
split.newlines = "lf"  # type: ignore[attr-defined]
split.promises = ("heading_boundary", "newline_invariance", "section_path")  # type: ignore[attr-defined]
