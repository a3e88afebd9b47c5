"""Seed 004's classic header chunker, done right: token windows with a document header.

Immune to the bug class of seed 004. The classic chunker took the document's first three lines
as a header, prepended it to the first chunk (or to every chunk, with ``duplicate_headers``)
and stepped through the body by ``max_tokens - len(header)``: a header as long as the cap made
that step zero or negative, and Python's slicing then produced an oversized chunk, an empty one
and a re-chunked body; a header-only document produced nothing at all. Here:

* **Tokens** are whitespace-separated words (:func:`count_tokens`), so ``unit = "tokens"``;
  ``max_size`` caps ``count_tokens(chunk.text)`` and ``overlap`` is in tokens too.
* **The header** is the first three lines (through the third ``"\\n"``, or the whole document).
* **Every chunk is a verbatim slice.** Prepending a header to text that does not follow it
  would not be, so the first chunk is the header *and the body that directly follows it*, one
  slice of up to ``max_size`` tokens. A header of ``max_size`` tokens or more cannot share a
  chunk: it is cut into windows of its own, and the body starts in a fresh chunk. Body windows
  overlap each other by at most ``overlap`` tokens and never reach back into the header.
* **duplicate_headers** (:func:`split_duplicate_headers`): the header travels with every
  chunk that holds body text as ``section`` (its non-blank lines, stripped), never as repeated
  text; a chunk that lies inside the header *is* the header and has ``section = []`` (so a
  document that is all header, one long line, is not copied into every chunk). While the
  header leaves room, later body chunks reserve it (seed 004's fix): they hold at most
  ``max_size - header_tokens`` tokens, so a consumer that renders "header + chunk" stays
  within the cap. A header of ``max_size`` tokens or more can never fit beside a chunk; it is
  emitted on its own, and the body then uses the full cap rather than one-token slivers.
* Every window holds at least one token and starts after the previous one (the overlap is
  clamped below the window size), so there is no empty chunk, no lost or repeated body text,
  and a header-only document (with or without a trailing newline) is still emitted.

``"\\r"`` is whitespace to the tokenizer and chunks start and end on tokens, so a CRLF document
chunks exactly like its LF twin: ``newline_invariance`` is promised.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from chunk_contract_reference.spans import check_config, finalise

HEADER_LINES = 3
_TOKEN = re.compile(r"\S+")


def count_tokens(text: str) -> int:
    """Whitespace tokens: the words ``str.split()`` finds."""
    return len(text.split())


def header_end(text: str) -> int:
    """The offset just past the header: after the third ``"\\n"``, or the end of the text."""
    end = -1
    for _ in range(HEADER_LINES):
        end = text.find("\n", end + 1)
        if end == -1:
            return len(text)
    return end + 1


def _windows(first: int, last: int, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Token windows ``[a, b)`` over ``[first, last)``: ``size`` tokens, ``overlap`` shared."""
    a = first
    while a < last:
        b = min(a + size, last)
        yield a, b
        if b == last:
            return
        a = max(b - overlap, a + 1)


def token_windows(
    total: int,
    header: int,
    max_size: int,
    overlap: int,
    duplicate: bool,
) -> Iterator[tuple[int, int]]:
    """Windows over ``total`` tokens whose first ``header`` tokens are the header."""
    size = max_size - header if duplicate and header < max_size else max_size
    body_overlap = min(overlap, size - 1)
    if header >= max_size:  # the header fills a chunk by itself: it stands alone
        yield from _windows(0, header, max_size, overlap)
        first = header
    elif total:  # the header opens the first chunk, followed by as much body as fits
        end = min(max_size, total)
        yield 0, end
        first = max(end - body_overlap, header, 1) if end < total else total
    else:
        return
    yield from _windows(first, total, size, body_overlap)


def _split(document: str, max_size: int, overlap: int, duplicate: bool) -> list[dict[str, Any]]:
    check_config(max_size, overlap)
    tokens = [m.span() for m in _TOKEN.finditer(document)]
    end = header_end(document)
    header = bisect.bisect_left(tokens, (end, end))  # tokens that start inside the header
    windows = token_windows(len(tokens), header, max_size, overlap, duplicate)
    spans = ((tokens[a][0], tokens[b - 1][1]) for a, b in windows)
    chunks = list(finalise(document, spans))
    if duplicate:
        lines = [line.strip() for line in document[:end].split("\n") if line.strip()]
        for chunk in chunks:
            chunk["section"] = list(lines) if chunk["end"] > end else []
    return chunks


def split(document: str, *, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    """Header + body token windows; the header opens the first chunk."""
    return _split(document, max_size, overlap, duplicate=False)


def split_duplicate_headers(
    document: str,
    *,
    max_size: int,
    overlap: int = 0,
) -> list[dict[str, Any]]:
    """Like :func:`split`, and every chunk carries the header lines as its ``section``."""
    return _split(document, max_size, overlap, duplicate=True)


for _plugin in (split, split_duplicate_headers):
    _plugin.unit = "tokens"  # type: ignore[attr-defined]
    _plugin.count_tokens = count_tokens  # type: ignore[attr-defined]
    _plugin.promises = ("newline_invariance",)  # type: ignore[attr-defined]
