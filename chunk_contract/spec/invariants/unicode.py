"""Unicode rules: no chunk cuts a character (or, if promised, a grapheme cluster) in half."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

import regex

from chunk_contract.spec.invariants._common import place, spans_for
from chunk_contract.spec.model import Case, Chunk, Document, Violation, describe_chunk, escape
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant

_SUSPECT = regex.compile("[\ud800-\udfff\ufffd]")
_GRAPHEME = regex.compile(r"\X")
#: Two characters that always have a cluster boundary between them, whatever precedes them:
#: grapheme class Other, Control or LF, the second not an Indic conjunct consonant (no rule of
#: UAX #29 before GB999 joins such a pair). Most of any text's offsets are settled by this.
_PLAIN = r"[\p{GCB=Other}\p{GCB=Control}\n]"
_BOUNDARY_PAIR = regex.compile(_PLAIN + r"[" + _PLAIN + r"--\p{InCB=Consonant}]", regex.V1)
#: A surrogate as ``surrogatepass`` encodes it: ED A0-BF xx.
_SURROGATE_UTF8 = re.compile(rb"\xed[\xa0-\xbf]")
#: How far back a boundary test looks for a line break (always a cluster boundary).
_WINDOW = 256


@invariant("codepoint_integrity")
def codepoint_integrity(case: Case) -> Iterator[Violation]:
    """No lone surrogate or U+FFFD the document does not hold there; byte offsets on boundaries."""
    doc = case.document
    rows = zip(case.chunks, case.offset_spans, case.char_exact, case.byte_exact)
    for chunk, span, chars, bytes_ in rows:
        # A chunk whose text is the document's, exactly where it says, holds nothing the
        # document does not, and byte offsets that hold its text fall between characters.
        if not bytes_ and not _between_characters(doc, chunk):
            yield from _byte_boundaries(doc, chunk)
        if not (chars or bytes_ or _clean(chunk)):
            yield from _suspects(case, chunk, span)


def _between_characters(doc: Document, chunk: Chunk) -> bool:
    """No reported byte offset inside the document lands on a continuation byte (10xxxxxx);
    offsets outside it are span_fidelity's finding."""
    for offset in (chunk.start_byte, chunk.end_byte):
        if offset is not None and 0 <= offset < len(doc.data) and doc.data[offset] & 0xC0 == 0x80:
            return False
    return True


def _byte_boundaries(doc: Document, chunk: Chunk) -> Iterator[Violation]:
    for name in ("start_byte", "end_byte"):
        offset = getattr(chunk, name)
        if offset is not None and 0 <= offset <= len(doc.data) and not doc.is_byte_boundary(offset):
            char = doc.text[doc.byte_to_char(_char_start(doc, offset))]
            yield Violation(
                "codepoint_integrity",
                f"{describe_chunk(chunk)}.{name} = {offset} falls inside {escape(char)} "
                f"(U+{ord(char):04X}, {len(char.encode('utf-8', 'surrogatepass'))} bytes)",
                (chunk.index,),
            )


def _char_start(doc: Document, offset: int) -> int:
    while offset > 0 and not doc.is_byte_boundary(offset):
        offset -= 1
    return offset


def _clean(chunk: Chunk) -> bool:
    """No U+FFFD and no lone surrogate (a C-speed test; the regex runs only if this fails)."""
    text = chunk.text
    if "\ufffd" in text:
        return False
    return text.isascii() or _SURROGATE_UTF8.search(chunk.utf8) is None


def _suspects(case: Case, chunk: Chunk, span: Span | None) -> Iterator[Violation]:
    doc = case.document.text
    for match in _SUSPECT.finditer(chunk.text):
        k, char = match.start(), match.group()
        if _held(doc, chunk, span, k, char):
            continue
        what = "U+FFFD" if char == "\ufffd" else f"lone surrogate U+{ord(char):04X}"
        yield Violation(
            "codepoint_integrity",
            f"{describe_chunk(chunk, span)} holds {what} at text[{k}] where the document does "
            f"not: {escape(chunk.text, 60)}",
            (chunk.index,),
        )
        return


def _held(doc: str, chunk: Chunk, span: Span | None, k: int, char: str) -> bool:
    """Whether the document holds ``char`` where the chunk has it.

    With offsets that hold the character, that is the place. Otherwise the chunk's place is
    only known to within its own length (a character dropped or added before it, a shifted
    start: span_fidelity's verdict), or not at all for an unplaced chunk: the document holds
    ``char`` there when it holds it nearby with the same text on one side (whitespace aside).
    A character the document holds nearby is lost text or a wrong span, never a damaged
    codepoint; one the document holds only between other characters is.
    """
    if span is not None and 0 <= span[0] + k < len(doc) and doc[span[0] + k] == char:
        return True
    if span is None and chunk.text in doc:
        return True  # a verbatim slice holds nothing the document does not
    lo, hi = 0, len(doc)
    if span is not None:
        reach = len(chunk.text) + abs(len(chunk.text) - (span[1] - span[0]))
        lo, hi = max(0, span[0] - reach), max(0, span[1] + reach)
    p = doc.find(char, lo, hi)
    while p != -1:
        if _same_neighbours(doc, p, chunk.text, k):
            return True
        p = doc.find(char, p + 1, hi)
    return False


def _same_neighbours(doc: str, p: int, text: str, k: int) -> bool:
    """``doc[p]`` and ``text[k]`` have the same nearest non-whitespace character on one side
    (a chunk that is nothing but the character agrees with any place)."""
    before, after = _beside(text, k, -1), _beside(text, k, 1)
    if before is None and after is None:
        return True
    return (before is not None and before == _beside(doc, p, -1)) or (
        after is not None and after == _beside(doc, p, 1)
    )


def _beside(text: str, k: int, step: int) -> str | None:
    k += step
    while 0 <= k < len(text) and text[k].isspace():
        k += step
    return text[k] if 0 <= k < len(text) else None


@invariant("grapheme_integrity", opt_in=True)
def grapheme_integrity(case: Case) -> Iterator[Violation]:
    """No chunk boundary falls inside an extended grapheme cluster (UAX #29)."""
    doc = case.document
    spans = case.offset_spans
    if not case.all_spanned:
        if spans_for(case, list(case.chunks)) is None:
            return
        texts = [c.text for c in case.chunks]
        placed = place(
            case, list(case.chunks), accept=lambda i, q, p: _whole(doc, q, q + len(texts[i]))
        )
        if placed.ok:
            return
        failed = case.chunks[placed.failed or 0]
        yield Violation(
            "grapheme_integrity",
            f"{describe_chunk(failed)} {escape(failed.text, 40)} starts or ends inside a grapheme "
            "cluster under every placement in document order",
            (failed.index,),
        )
        return
    for chunk, span in zip(case.chunks, spans):
        assert span is not None
        for edge in span:
            cluster = _cluster_around(doc, edge)
            if cluster is not None:
                yield Violation(
                    "grapheme_integrity",
                    f"{describe_chunk(chunk, span)} has a boundary at {edge}, inside grapheme "
                    f"cluster {escape(doc.text[cluster[0] : cluster[1]])} "
                    f"[{cluster[0]}:{cluster[1]})",
                    (chunk.index,),
                )
                break


def _whole(doc: Document, start: int, end: int) -> bool:
    return _cluster_around(doc, start) is None and _cluster_around(doc, end) is None


def _cluster_around(doc: Document, offset: int) -> tuple[int, int] | None:
    """The grapheme cluster that ``offset`` falls strictly inside, if any."""
    text = doc.text
    if offset <= 0 or offset >= len(text) or _BOUNDARY_PAIR.match(text, offset - 1):
        return None
    begin = text.rfind("\n", max(0, offset - _WINDOW), offset) + 1
    if begin == 0 and offset > _WINDOW:
        return _cluster_from_table(doc, offset)
    for match in _GRAPHEME.finditer(text, begin):
        if match.end() > offset:
            return None if match.start() == offset else (match.start(), match.end())
    return None


def _cluster_from_table(doc: Document, offset: int) -> tuple[int, int] | None:
    bounds = doc.cache.get("grapheme_bounds")
    if bounds is None:
        bounds = doc.cache["grapheme_bounds"] = [m.start() for m in _GRAPHEME.finditer(doc.text)]
    k = bisect.bisect_right(bounds, offset) - 1
    if bounds[k] == offset:
        return None
    end = bounds[k + 1] if k + 1 < len(bounds) else len(doc.text)
    return bounds[k], end
