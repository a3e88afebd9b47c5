"""Recursive separator-ladder chunking in characters, with the overlap inside the cap.

Immune to the bug classes of seed 002 and seed 003:

* **Seed 002, overlap on top of the cap.** The overlap comes *out of* the packing budget: new
  text is packed up to ``max_size - overlap`` and the overlap only ever fills the rest, so the
  emitted chunk (overlap included) never exceeds ``max_size``.
* **Seed 002, text without spaces never spills.** The ladder ends in a codepoint fallback, so
  CJK, Thai, URLs, base64 and minified code are cut like everything else.
* **Seed 002, CRLF documents lose their paragraphs.** A blank line is ``\\n``, whitespace
  that is not ``\\n`` (``\\r`` included), ``\\n``: ``"\\r\\n\\r\\n"`` is a paragraph break too.
* **Seed 003, backwards steps.** Chunks are built from *cores* that tile the document (each
  core is at least one piece, one codepoint or more), and a chunk's overlap may only start after
  the previous chunk's first character. Every step moves forward, on every config.

The ladder: blank line, line, sentence end (``.``/``!``/``?`` then whitespace), whitespace,
codepoint. A piece longer than the budget is split at the next rung, then pieces are packed
greedily into cores of at most ``max_size - overlap``. Each chunk is its core plus an overlap
reaching back at most ``overlap`` characters, starting at the first word start in that window
(or, in text without any whitespace there, at its first codepoint). Cuts are found with regex
scans and a binary search, never by rescanning or concatenating text, so time is linear.
:func:`reference_chunkers.spans.finalise` makes every chunk an exact slice with exact lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from reference_chunkers.spans import check_config, finalise, trim

#: Separators, coarsest first; a cut falls after the separator and the whitespace following it.
LADDER = (
    re.compile(r"\n[^\S\n]*\n\s*"),  # blank line
    re.compile(r"\n\s*"),  # line
    re.compile(r"[.!?]\s+"),  # sentence end
    re.compile(r"\s+"),  # whitespace
)
_WORD_START = re.compile(r"(?<=\s)\S")
_SPACE = re.compile(r"\s")


class Codepoints:
    """The cut grid of plain text: any codepoint offset is a legal cut."""

    sparse = False  # every separator cut is on the grid

    def is_boundary(self, offset: int) -> bool:
        return True

    def floor(self, offset: int) -> int:
        return offset

    def ceil(self, offset: int) -> int:
        return offset

    def steps(self, lo: int, hi: int, limit: int) -> list[int]:
        """Cuts strictly inside ``(lo, hi)`` leaving pieces of at most ``limit``."""
        return list(range(lo + limit, hi, limit))

    def trim(self, text: str, start: int, end: int) -> tuple[int, int]:
        return trim(text, start, end)


def pieces(text: str, lo: int, hi: int, limit: int, grid: Codepoints, level: int = 0) -> list[int]:
    """Cut points strictly inside ``(lo, hi)``, in order, so every piece is at most ``limit``
    (except a single grid cell larger than ``limit``): split at rung ``level``, and split each
    piece still too long at the next rung down."""
    if hi - lo <= limit:
        return []
    if level == len(LADDER):
        return grid.steps(lo, hi, limit)
    found = [m.end() for m in LADDER[level].finditer(text, lo, hi)]
    if grid.sparse:
        found = [cut for cut in found if grid.is_boundary(cut)]
    out: list[int] = []
    previous = lo
    for cut in found:
        if cut >= hi:
            break
        if cut - previous > limit:
            out += pieces(text, previous, cut, limit, grid, level + 1)
        out.append(cut)
        previous = cut
    if hi - previous > limit:
        out += pieces(text, previous, hi, limit, grid, level + 1)
    return out


def _overlap_start(text: str, lo: int, core_start: int) -> int:
    """Where a chunk's overlap starts in the window ``[lo, core_start]``."""
    if lo >= core_start:
        return core_start
    word = _WORD_START.search(text, lo, core_start)
    if word:
        return word.start()
    return core_start if _SPACE.search(text, lo, core_start) else lo


def cuts(
    text: str, max_size: int, overlap: int, lo: int = 0, hi: int | None = None,
    grid: Codepoints | None = None,
) -> Iterator[tuple[int, int]]:
    """Trimmed chunk spans ``(start, end)`` over ``text[lo:hi]``, in document order."""
    grid = grid or Codepoints()
    hi = len(text) if hi is None else hi
    budget = max_size - overlap
    bounds = [lo, *pieces(text, lo, hi, budget, grid), hi]
    last = lo - 1  # first character of the last chunk emitted
    i = 0
    while i < len(bounds) - 1:
        core_start = bounds[i]
        j = max(bisect.bisect_right(bounds, core_start + budget, i + 1) - 1, i + 1)
        core_end = bounds[j]
        window = max(core_start - overlap, last + 1, core_end - max_size)
        start = grid.ceil(_overlap_start(text, window, core_start))
        start, end = grid.trim(text, start, core_end)
        if start < end:
            yield start, end
            last = start
        i = j


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Chunk ``document`` into slices of at most ``max_size`` characters, overlap included."""
    check_config(max_size, overlap)
    return list(finalise(document, cuts(document, max_size, overlap)))


split.unit = "chars"  # type: ignore[attr-defined]
split.promises = ()  # type: ignore[attr-defined]
