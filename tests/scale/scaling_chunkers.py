"""Chunkers for the scales_linearly tests: right answers, different growth (tests/scale)."""

from __future__ import annotations

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
