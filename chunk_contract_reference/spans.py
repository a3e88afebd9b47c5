"""The one finalising step every reference chunker shares: cut points in, exact chunks out.

A chunker's only job is to choose cut points ``(start, end)`` (codepoint offsets, end
exclusive). :func:`finalise` turns them into chunks whose text is *always* the document slice
they cite, so offsets, byte offsets and line numbers are exact by construction:

* whitespace at either end of a span is trimmed (the whitespace between chunks may be left out);
* whitespace-only spans are dropped (no empty chunks);
* a span that trims to one already emitted, or lies inside the previous one, is dropped (two
  windows can trim to the same span, which ``ordered`` forbids);
* lines come from offsets (``line_end`` is the line of the *last* character, so a span ending
  just after a newline does not claim the next line);
* byte offsets are counted incrementally, so finalising stays linear in the document.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_LEAD = re.compile(r"\s*")


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` with whitespace removed from both ends (``start == end`` if blank)."""
    start = _LEAD.match(text, start, end).end()  # type: ignore[union-attr]
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def keep(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` unchanged: for cuts that are already trimmed."""
    return start, end


class Lines:
    """Line numbers from offsets: only ``"\\n"`` ends a line."""

    def __init__(self, text: str) -> None:
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def of(self, offset: int) -> int:
        return bisect.bisect_left(self.breaks, offset) + 1


def finalise(
    text: str,
    cuts: Iterable[tuple[int, int]],
    *,
    trimmer: Callable[[str, int, int], tuple[int, int]] = trim,
    **extra: Any,
) -> Iterator[dict[str, Any]]:
    """Chunks for ``cuts`` over ``text``, in order; ``extra`` fields are copied onto each.

    ``trimmer`` narrows each span before it is emitted (default :func:`trim`); a chunker whose
    cuts are already trimmed its own way (whole grapheme clusters) passes :func:`keep`.
    """
    lines = Lines(text)
    byte_at, char_at = 0, 0
    last = (-1, -1)
    for start, end in cuts:
        start, end = trimmer(text, start, end)
        if start == end or (start >= last[0] and end <= last[1]):
            continue
        byte_at += len(text[char_at:start].encode("utf-8", "surrogatepass"))
        char_at = start
        size = len(text[start:end].encode("utf-8", "surrogatepass"))
        last = (start, end)
        yield {
            "text": text[start:end],
            "start": start,
            "end": end,
            "start_byte": byte_at,
            "end_byte": byte_at + size,
            "line_start": lines.of(start),
            "line_end": lines.of(end - 1),
            "id": f"{start}:{end}",
            **extra,
        }


def check_config(max_size: int, overlap: int) -> None:
    """Refuse degenerate configs up front (SPEC §2) with a message naming the bad value."""
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an int >= 1, got {max_size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < max_size:
        raise ValueError(f"overlap must be an int with 0 <= overlap < max_size, got {overlap!r}")
