"""Defective twins: each reference chunker with its seed's bug put back.

Every twin makes the same promises as its correct sibling, so the contract must catch it with
the invariant named in its docstring (``tests/reference/test_twins.py`` checks that it does).
They are targets for the contract: ``tests/reference/twins.py:<name>``.
"""

from __future__ import annotations

import bisect
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from chunk_contract_reference import header, markdown, recursive
from chunk_contract_reference.spans import check_config, finalise

Chunks = list[dict[str, Any]]


def recursive_overlap_on_top(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Seed 002: a full cap of new text, with the overlap prepended on top -> cap_respected."""
    check_config(max_size, overlap)
    return list(finalise(document, recursive.cuts(document, max_size + overlap, overlap)))


class _NoFallback(recursive.Codepoints):
    def steps(self, lo: int, hi: int, limit: int) -> list[int]:
        return []  # words only: a run without whitespace is one unbreakable "word"


def recursive_no_spill(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Seed 002: no codepoint fallback, so unspaced text never spills -> cap_respected."""
    check_config(max_size, overlap)
    cuts = recursive.cuts(document, max_size, overlap, grid=_NoFallback())
    return list(finalise(document, cuts))


def recursive_backwards_step(document: str, *, max_size: int, overlap: int = 0) -> list[str]:
    """Seed 003's chunkText: ``start = break + 1 - overlap`` can go backwards -> terminates."""
    check_config(max_size, overlap)
    chunks, start = [], 0
    while start < len(document):
        end = min(start + max_size, len(document))
        brk = end
        if end < len(document):
            space = document.rfind(" ", start, end)
            brk = space if space > start else end
        chunks.append(document[start:brk].strip())
        if brk >= len(document):
            break
        start = max(brk + 1 - overlap, 0)
    return [c for c in chunks if c]


def markdown_ignoring_headings(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Seed 002: a heading is not a boundary, chunks straddle sections -> heading_boundary."""
    check_config(max_size, overlap)
    text = document.replace("\r\n", "\n")
    return list(finalise(text, recursive.cuts(text, max_size, overlap)))


def markdown_crlf_blind(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Seed 002: CRLF is not normalised, so "\\r" counts against the cap -> newline_invariance."""
    check_config(max_size, overlap)
    starts, _ = markdown.sections(document)
    ends = [*starts[1:], len(document)]
    spans = (
        cut
        for lo, hi in zip(starts, ends)
        for cut in recursive.cuts(document, max_size, overlap, lo, hi)
    )
    return list(finalise(document, spans))


_TOKEN = re.compile(r"\S+")


def header_classic_step(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Seed 004's classic loop: ``step = max - len(header)`` with Python's negative slicing.

    A header of ``max_size`` tokens or more gives an oversized first chunk, an empty one and a
    re-chunked body (-> cap_respected, non_empty, ordered); a header-only document gives no
    chunk at all (-> no_lost_text).
    """
    check_config(max_size, overlap)
    tokens = [m.span() for m in _TOKEN.finditer(document)]
    end = header.header_end(document)
    split_at = bisect.bisect_left(tokens, (end, end))
    head, body = tokens[:split_at], tokens[split_at:]
    chunks, position, first = [], 0, True
    while position < len(body):
        stop = position + max_size - len(head)
        part = (head if first else []) + body[position:stop]
        at = part[0][0] if part else 0
        text = document[at : part[-1][1]] if part else ""
        chunks.append({"text": text, "start": at, "end": at + len(text)})
        head, first, position = [], False, stop  # the classic reset the header every time
    return chunks


def grapheme_codepoint_cuts(document: str, *, max_size: int, overlap: int = 0) -> Chunks:
    """Cuts on codepoints while promising whole grapheme clusters -> grapheme_integrity."""
    return recursive.split(document, max_size=max_size, overlap=overlap)


recursive_overlap_on_top.unit = "chars"  # type: ignore[attr-defined]
recursive_no_spill.unit = "chars"  # type: ignore[attr-defined]
recursive_backwards_step.unit = "chars"  # type: ignore[attr-defined]
for _twin in (markdown_ignoring_headings, markdown_crlf_blind):
    _twin.promises = ("heading_boundary", "newline_invariance")  # type: ignore[attr-defined]
markdown_ignoring_headings.newlines = "lf"  # type: ignore[attr-defined]
header_classic_step.unit = "tokens"  # type: ignore[attr-defined]
header_classic_step.count_tokens = header.count_tokens  # type: ignore[attr-defined]
grapheme_codepoint_cuts.promises = ("grapheme_integrity",)  # type: ignore[attr-defined]
