"""Recursive chunking that never cuts an extended grapheme cluster (UAX #29).

Immune to the bug class of seed 002's UTF-8 guard, one level up: cutting on a character (not
byte) boundary keeps every codepoint whole, yet still splits ``"e\\u0301"`` into ``e`` and a
stray accent, a ZWJ family emoji into its members, a flag into two regional indicators and
``"\\r\\n"`` into two line ends. Here every cut, the overlap's start and the trimmed edges of
every chunk fall on a cluster boundary (the ``regex`` module's ``\\X``), so
``grapheme_integrity`` is promised.

It is :mod:`chunk_contract_reference.recursive` on a coarser grid: separator cuts that are not
cluster boundaries (a space followed by a combining mark) are dropped, the last rung cuts between
clusters instead of codepoints, and whitespace is trimmed only in whole clusters (``" \\u0301"``
is a cluster that starts with a space: it stays). The cap is in characters; a single cluster
longer than the cap is indivisible and becomes a chunk of its own (the contract allows exactly
that when ``grapheme_integrity`` is promised).

Boundaries are cheap to test: there is always one between two characters of grapheme class
Other, Control or LF (ASCII, CJK, most letters; the second not an Indic conjunct consonant) and
after a line feed, whatever precedes them. Elsewhere (combining marks, emoji, Hangul jamo,
flags) the clusters are re-read from the last such known boundary; where none lies within 256
characters, one table of all boundaries is built, once. So the cost stays linear.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

import regex

from chunk_contract_reference import recursive
from chunk_contract_reference.spans import check_config, finalise, keep

_CLUSTER = regex.compile(r"\X")
_NON_SPACE = re.compile(r"\S")
_SIMPLE = "\u0300"  # below this, every pair of characters but "\r\n" has a boundary between
#: Two characters with a boundary between them whatever comes before: grapheme class Other,
#: Control or LF, the second not an Indic conjunct consonant (UAX #29 rules GB3-GB999).
_PLAIN = r"[\p{GCB=Other}\p{GCB=Control}\n]"
_PLAIN_PAIR = _PLAIN + r"[" + _PLAIN + r"--\p{InCB=Consonant}]"
_PAIR = regex.compile(_PLAIN_PAIR, regex.V1)
#: The last such pair before an offset (or a line feed, always followed by a boundary).
_KNOWN = regex.compile(_PLAIN_PAIR + r"|\n.", regex.V1 | regex.REVERSE | regex.DOTALL)
_WINDOW = 256


class Clusters(recursive.Codepoints):
    """The cut grid of grapheme cluster boundaries of one text."""

    sparse = True

    def __init__(self, text: str) -> None:
        self.text = text
        self._table: list[int] | None = None

    def _around(self, offset: int) -> tuple[int, int]:
        """The cluster ``[start, end)`` holding the character at ``offset``."""
        text = self.text
        known = _KNOWN.search(text, max(0, offset - _WINDOW), offset + 1)
        if known is None and offset > _WINDOW:
            if self._table is None:
                self._table = [m.start() for m in _CLUSTER.finditer(text)] + [len(text)]
            k = bisect.bisect_right(self._table, offset) - 1
            return self._table[k], self._table[k + 1]
        for match in _CLUSTER.finditer(text, known.start() + 1 if known else 0):
            if match.end() > offset:
                return match.span()
        return len(text), len(text)

    def is_boundary(self, offset: int) -> bool:
        text = self.text
        if offset <= 0 or offset >= len(text):
            return True
        before, after = text[offset - 1], text[offset]
        if before < _SIMPLE and after < _SIMPLE:
            return before != "\r" or after != "\n"
        if _PAIR.match(text, offset - 1):
            return True
        return self._around(offset)[0] == offset

    def floor(self, offset: int) -> int:
        return offset if self.is_boundary(offset) else self._around(offset)[0]

    def ceil(self, offset: int) -> int:
        return offset if self.is_boundary(offset) else self._around(offset)[1]

    def steps(self, lo: int, hi: int, limit: int) -> list[recursive.Cut]:
        """Cuts between clusters leaving pieces of at most ``limit`` (or one longer cluster)."""
        out = []
        while hi - lo > limit:
            cut = self.floor(lo + limit)
            if cut <= lo:  # one cluster longer than the limit: indivisible
                cut = self.ceil(lo + 1)
            if cut >= hi:
                break
            out.append((cut, cut))
            lo = cut
        return out

    def trim(self, text: str, start: int, end: int) -> tuple[int, int]:
        """Drop whitespace at both ends in whole clusters only."""
        first = _NON_SPACE.search(text, start, end)
        if first is None:
            return start, start
        last = end
        while text[last - 1].isspace():
            last -= 1
        return self.floor(first.start()), self.ceil(last)


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Chunk ``document`` into whole grapheme clusters, at most ``max_size`` characters each."""
    check_config(max_size, overlap)
    grid = Clusters(document)
    return list(
        finalise(document, recursive.cuts(document, max_size, overlap, grid=grid), trimmer=keep)
    )


split.unit = "chars"  # type: ignore[attr-defined]
split.promises = ("grapheme_integrity",)  # type: ignore[attr-defined]
