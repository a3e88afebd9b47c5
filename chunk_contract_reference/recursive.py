"""Recursive separator-ladder chunking in characters, with the overlap inside the cap.

Immune to the bug classes of seed 002 and seed 003:

* **Seed 002, overlap on top of the cap.** The overlap comes *out of* the packing budget: a
  chunk is its overlap plus new pieces, packed up to ``max_size`` together, so the emitted chunk
  (overlap included) never exceeds ``max_size``.
* **Seed 002, text without spaces never spills.** The ladder ends in a codepoint fallback, so
  CJK, Thai, URLs, base64 and minified code are cut like everything else.
* **Seed 002, CRLF documents lose their paragraphs.** A blank line is ``\\n``, whitespace
  that is not ``\\n`` (``\\r`` included), ``\\n``: ``"\\r\\n\\r\\n"`` is a paragraph break too.
* **Seed 003, backwards steps.** Every chunk ends at least one whole piece (one codepoint or
  more) after the previous one, and starts after the previous one's first character. Every
  step moves forward, on every config, including ``overlap = max_size - 1``.

The ladder: blank line, line, sentence end (``.``/``!``/``?`` then whitespace), whitespace,
codepoint. A piece longer than ``max_size - overlap`` is split at the next rung down, so that
after any overlap there is always room for at least one whole new piece. Each chunk then
starts where the previous one's overlap starts (the first word start within ``overlap``
characters of its end, or, in text without any whitespace there, the first codepoint; always
after the previous chunk's first character) and takes as many whole pieces as fit in
``max_size``. Cuts are found with regex scans and binary searches, never by rescanning or
concatenating text, so time is linear. :func:`chunk_contract_reference.spans.finalise` makes every
chunk an exact slice with exact lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from chunk_contract_reference.spans import check_config, finalise, keep, trim

#: Separators, coarsest first, and how many of a match's characters stay with the text before
#: it (a sentence keeps its full stop); the whitespace around a separator belongs to no piece.
LADDER = (
    (re.compile(r"\n[^\S\n]*\n\s*"), 0),  # blank line
    (re.compile(r"\n\s*"), 0),  # line
    (re.compile(r"[.!?]\s+"), 1),  # sentence end
    (re.compile(r"\s+"), 0),  # whitespace
)
_WORD_START = re.compile(r"(?<=\s)\S")
_SPACE = re.compile(r"\s")

#: A cut between two pieces: ``(end, begin)``, where the text before it ends and the text after
#: it begins (the whitespace in between counts for neither piece).
Cut = tuple[int, int]


class Codepoints:
    """The cut grid of plain text: any codepoint offset is a legal cut."""

    sparse = False  # every separator cut is on the grid

    def is_boundary(self, offset: int) -> bool:
        return True

    def floor(self, offset: int) -> int:
        return offset

    def ceil(self, offset: int) -> int:
        return offset

    def steps(self, lo: int, hi: int, limit: int) -> list[Cut]:
        """Cuts strictly inside ``(lo, hi)`` leaving pieces of at most ``limit``."""
        return [(cut, cut) for cut in range(lo + limit, hi, limit)]

    def trim(self, text: str, start: int, end: int) -> tuple[int, int]:
        return trim(text, start, end)


def pieces(text: str, lo: int, hi: int, limit: int, grid: Codepoints, level: int = 0) -> list[Cut]:
    """Cuts inside ``text[lo:hi]`` (which starts and ends with text), in order, so that every
    piece is at most ``limit`` long (or a single grid cell): split at rung ``level``, then split
    each piece still too long at the next rung down."""
    if hi - lo <= limit:
        return []
    if level == len(LADDER):
        return grid.steps(lo, hi, limit)
    pattern, kept = LADDER[level]
    out: list[Cut] = []
    begin = lo
    for match in pattern.finditer(text, lo, hi):
        end, after = match.start() + kept, match.end()
        if after >= hi:
            break
        while end > begin and text[end - 1].isspace():  # spaces ending a line; "\r" of "\r\n"
            end -= 1
        off_grid = grid.sparse and not (grid.is_boundary(end) and grid.is_boundary(after))
        if end == begin or off_grid:
            continue
        if end - begin > limit:
            out += pieces(text, begin, end, limit, grid, level + 1)
        out.append((end, after))
        begin = after
    if hi - begin > limit:
        out += pieces(text, begin, hi, limit, grid, level + 1)
    return out


def _overlap_start(text: str, lo: int, end: int, after: int) -> int:
    """Where the chunk after ``[.., end)`` starts: the first word start in ``[lo, end)``, else
    ``lo`` if that window has no whitespace at all (unspaced text), else ``after`` (no overlap)."""
    if lo >= end:
        return after
    word = _WORD_START.search(text, lo, end)
    if word:
        return word.start()
    return after if _SPACE.search(text, lo, end) else lo


def cuts(
    text: str,
    max_size: int,
    overlap: int,
    lo: int = 0,
    hi: int | None = None,
    grid: Codepoints | None = None,
) -> Iterator[tuple[int, int]]:
    """Trimmed chunk spans ``(start, end)`` over ``text[lo:hi]``, in document order."""
    grid = grid or Codepoints()
    lo, hi = grid.trim(text, lo, len(text) if hi is None else hi)
    if lo == hi:
        return
    found = pieces(text, lo, hi, max_size - overlap, grid)
    begins = [lo, *(after for _, after in found)]  # piece i is [begins[i], ends[i])
    ends = [*(end for end, _ in found), hi]
    last = lo - 1  # first character of the last chunk emitted
    start, todo = lo, 0  # todo: the first piece not chunked yet
    while todo < len(begins):
        reach = bisect.bisect_right(ends, start + max_size) - 1
        if reach < todo:  # no whole new piece fits after the overlap: drop the overlap
            start = begins[todo]
            reach = max(bisect.bisect_right(ends, start + max_size) - 1, todo)
        first, stop = grid.trim(text, start, ends[reach])
        if first < stop:
            yield first, stop
            last = first
        todo = reach + 1
        if todo < len(begins):
            window = max(ends[reach] - overlap, last + 1)
            start = grid.ceil(_overlap_start(text, window, ends[reach], begins[todo]))


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Chunk ``document`` into slices of at most ``max_size`` characters, overlap included."""
    check_config(max_size, overlap)
    return list(finalise(document, cuts(document, max_size, overlap), trimmer=keep))


split.unit = "chars"  # type: ignore[attr-defined]
split.promises = ()  # type: ignore[attr-defined]
