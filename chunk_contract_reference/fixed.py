"""Fixed-size overlapping windows, measured in UTF-8 bytes: the simplest correct chunker.

Immune to the bug class of seed 000 (and seed 003): positions are never recovered by searching
for a chunk's text (``find`` locks onto the wrong repeated block), lines are never counted on a
stripped copy, and a byte cut never splits a character. The loop only chooses cut points;
:func:`chunk_contract_reference.spans.finalise` makes every chunk an exact slice with exact lines.

Each window starts at a non-whitespace character, takes as many whole characters as fit in
``max_size`` bytes (at least one: a character wider than the cap is indivisible), and the next
window starts ``overlap`` bytes before this one's end, but always at least one character later,
so the loop advances on every config and never hangs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from chunk_contract_reference.spans import check_config, finalise

_NON_SPACE = re.compile(r"\S")


def _fit(text: str, start: int, budget: int) -> int:
    """The end of the longest run of whole characters from ``start`` within ``budget`` bytes."""
    head = text[start : start + budget].encode("utf-8", "surrogatepass")[:budget]
    end = start + len(head.decode("utf-8", "ignore"))
    return max(end, start + 1)


def _back(text: str, end: int, budget: int) -> int:
    """The earliest offset whose characters up to ``end`` fit in ``budget`` bytes."""
    tail = text[max(0, end - budget) : end].encode("utf-8", "surrogatepass")
    return end - len(tail[len(tail) - budget :].decode("utf-8", "ignore")) if budget else end


def cuts(text: str, max_size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Window cut points over ``text``: ``(start, end)`` codepoint offsets."""
    found = _NON_SPACE.search(text)
    while found:
        start = found.start()
        end = _fit(text, start, max_size)
        yield start, end
        if end >= len(text):
            return
        found = _NON_SPACE.search(text, max(_back(text, end, overlap), start + 1))


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Chunk ``document`` into windows of at most ``max_size`` UTF-8 bytes."""
    check_config(max_size, overlap)
    return list(finalise(document, cuts(document, max_size, overlap)))


split.unit = "bytes"  # type: ignore[attr-defined]
