"""Chunkers for the scales_linearly tests: right answers, different growth (tests/scale)."""

from __future__ import annotations

import re
from collections.abc import Callable


def _windows(
    document: str, max_size: int, overlap: int, cut: Callable[[int, int], int]
) -> list[dict[str, int | str]]:
    """Windows of at most ``max_size`` that end where ``cut(start, end)`` says (inside the
    document), stepping back by ``overlap``; blank windows are left out."""
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")
    out: list[dict[str, int | str]] = []
    start = 0
    while start < len(document):
        end = min(start + max_size, len(document))
        stop = cut(start, end) if end < len(document) else end
        out.append({"text": document[start:stop], "start": start, "end": stop})
        start = stop if stop >= len(document) else max(stop - overlap, start + 1)
    return [c for c in out if str(c["text"]).strip()]


def backscan_to_start(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Cuts each window at the last whitespace before its end, searching back (in Python) to the
    start of the *document* instead of the window: linear on prose, quadratic on one long
    unbroken run, where no whitespace is ever found."""

    def cut(start: int, end: int) -> int:
        at = end
        while at > 0 and not document[at - 1].isspace():
            at -= 1
        return at if at > start else end  # no break in the window: a hard cut

    return _windows(document, max_size, overlap, cut)


def rfind_to_start(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """The same bug in C: ``str.rfind(" ", 0, end)`` scans back to the start of the document.
    Fast per character, so it needs a long document to show; still quadratic."""

    def cut(start: int, end: int) -> int:
        found = max(document.rfind(" ", 0, end), document.rfind("\n", 0, end))
        return found + 1 if found + 1 > start else end

    return _windows(document, max_size, overlap, cut)


# Defects the realistic families catch: each is linear on the four pathological families.

_PARAGRAPH = re.compile(r"\n\n(?=\S)")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*)$", re.MULTILINE)
_TABLE_ROW = re.compile(r"^\|", re.MULTILINE)
_JSON_OPEN = re.compile(r"^\{", re.MULTILINE)


def _plain(document: str, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Hard-cut windows: the right answer every defect below returns."""
    return _windows(document, max_size, overlap, lambda start, end: end)


def rescans_paragraphs(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Numbers every paragraph by counting the blank lines before it from the start of the
    text: quadratic on many short paragraphs, linear where no text follows a blank line."""
    numbers = [document.count("\n\n", 0, m.start()) for m in _PARAGRAPH.finditer(document)]
    del numbers  # (would label the chunks; the windows are the same)
    return _plain(document, max_size, overlap)


def heading_path_from_start(
    document: str, *, max_size: int, overlap: int
) -> list[dict[str, int | str]]:
    """Recomputes the heading path of every heading from the document's start: quadratic on
    markdown sections, linear on documents without headings (prose, the pathological four)."""
    for heading in _ATX.finditer(document):
        path: list[str] = []
        for level, title in _ATX.findall(document, 0, heading.start()):
            path = [*path[: len(level) - 1], title]
    return _plain(document, max_size, overlap)


def slow_on_newlines(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """For every fourth line, counts the empty lines before it one by one in Python: quadratic
    in the number of lines with a big constant, over the 2 s timeout at 25,000 newlines (while
    3,125 newlines take a few hundredths of a second); linear on one long line."""
    lines = document.split("\n")
    for i in range(0, len(lines), 4):
        sum(1 for line in lines[:i] if not line)
    return _plain(document, max_size, overlap)


def explodes_on_newlines(
    document: str, *, max_size: int, overlap: int
) -> list[dict[str, int | str]]:
    """Work that doubles with every 800 line breaks (a backtracking search over blank lines):
    nothing at 12,500 newlines, no answer at 25,000."""
    steps = 2 ** min(document.count("\n") // 800, 40)
    for _ in range(steps):
        pass
    return _plain(document, max_size, overlap)


def rescans_tables_and_json(
    document: str, *, max_size: int, overlap: int
) -> list[dict[str, int | str]]:
    """Numbers every table row and every JSON object by counting the ones before it from the
    start: quadratic on two families (tables, JSON blocks), linear on prose."""
    for pattern, mark in ((_TABLE_ROW, "\n|"), (_JSON_OPEN, "\n{")):
        numbers = [document.count(mark, 0, m.start()) for m in pattern.finditer(document)]
        del numbers
    return _plain(document, max_size, overlap)
