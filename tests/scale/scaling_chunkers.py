"""Chunkers for the scales_linearly tests: right answers, different growth (tests/scale)."""

from __future__ import annotations


def _check(max_size: int, overlap: int) -> None:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError("degenerate config")


def backscan_to_start(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """Cuts each window at the last whitespace before its end, searching back (in Python) to the
    start of the *document* instead of the window: linear on prose, quadratic on one long
    unbroken run, where no whitespace is ever found."""
    _check(max_size, overlap)
    out: list[dict[str, int | str]] = []
    start = 0
    while start < len(document):
        end = min(start + max_size, len(document))
        cut = end
        if end < len(document):
            while cut > 0 and not document[cut - 1].isspace():
                cut -= 1
            if cut <= start:
                cut = end  # no break in the window: a hard cut
        out.append({"text": document[start:cut], "start": start, "end": cut})
        start = cut if cut >= len(document) else max(cut - overlap, start + 1)
    return [c for c in out if str(c["text"]).strip()]


def rfind_to_start(document: str, *, max_size: int, overlap: int) -> list[dict[str, int | str]]:
    """The same bug in C: ``str.rfind(" ", 0, end)`` scans back to the start of the document.
    Fast per character, so it needs a long document to show; still quadratic."""
    _check(max_size, overlap)
    out: list[dict[str, int | str]] = []
    start = 0
    while start < len(document):
        end = min(start + max_size, len(document))
        cut = end
        if end < len(document):
            found = max(document.rfind(" ", 0, end), document.rfind("\n", 0, end))
            cut = found + 1 if found + 1 > start else end
        out.append({"text": document[start:cut], "start": start, "end": cut})
        start = cut if cut >= len(document) else max(cut - overlap, start + 1)
    return [c for c in out if str(c["text"]).strip()]
