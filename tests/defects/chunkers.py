"""Known-defective chunkers: the proof of red for the contract's engine.

Each function is a chunker plugin (``name(document, *, max_size, overlap)``) carrying one
realistic bug: the bugs fixed by the seed PRs (line numbers recovered with ``find()``, lines
counted on a stripped copy, byte slicing, overlap on top of a full chunk, the loop that never
advances, the header that eats the chunk budget...) and at least one bug per invariant id.
Apart from its bug, each one is meant to be a plausible, working chunker: it validates its
config (unless the bug is about configs) so the finding is not drowned in unrelated noise.

:data:`DEFECTS` maps each plugin's attribute name to the invariant id the contract must report
it under; :data:`ALSO` lists further ids a defect is known to break at the same time.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import os
import random
import re
from typing import Any

# --------------------------------------------------------------------------- shared pieces

_NON_SPACE = re.compile(r"\S")
_WORD = re.compile(r"\S+")


def _check(max_size: int, overlap: int) -> None:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(
            f"need max_size >= 1 and 0 <= overlap < max_size, got {max_size}/{overlap}")


def _line(text: str, offset: int) -> int:
    """1-based line of the character at ``offset`` (only "\\n" ends a line)."""
    return text.count("\n", 0, offset) + 1


def _windows(text: str, max_size: int, overlap: int) -> list[tuple[int, int]]:
    """Correct character windows: each starts at a non-space, ends trimmed, steps forward; a
    window whose trimmed end does not pass the previous one's (no text of its own) is left out."""
    out: list[tuple[int, int]] = []
    found = _NON_SPACE.search(text)
    while found:
        start = found.start()
        end = min(len(text), start + max_size)
        stop = start + len(text[start:end].rstrip())
        if not out or stop > out[-1][1]:
            out.append((start, stop))
        if end >= len(text):
            break
        found = _NON_SPACE.search(text, max(end - overlap, start + 1))
    return out


def _pack_words(text: str, max_size: int, *, spill: bool = True) -> list[tuple[int, int]]:
    """Greedy word packing into verbatim spans of at most ``max_size`` characters.

    A word longer than the cap is cut on character boundaries when ``spill`` is set.
    """
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for word in _WORD.finditer(text):
        start, end = word.span()
        if current is not None and end - current[0] <= max_size:
            current = (current[0], end)
            continue
        if current is not None:
            spans.append(current)
            current = None
        if end - start > max_size and spill:
            for cut in range(start, end, max_size):
                spans.append((cut, min(end, cut + max_size)))
        else:
            current = (start, end)
    if current is not None:
        spans.append(current)
    return spans


def _separate_header(text: str) -> tuple[str, str]:
    """The first three lines (the header) and the rest (the body), as seed 004 splits them."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[:3]), "".join(lines[3:])


def _record(text: str, start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"text": text[start:end], "start": start, "end": end, **extra}


# =========================================================================== seed 000

def lines_from_find(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000 bug 1: a chunk's lines are recovered with ``full_text.find(piece, hint)``.

    The hint is the previous chunk's start (overlap means a chunk may begin before the last one
    ended), so in a file of repeated blocks the search locks onto an earlier copy of the block
    and the chunk cites that copy's lines.
    """
    _check(max_size, overlap)
    out, hint = [], 0
    for start, end in _windows(document, max_size, overlap):
        piece = document[start:end]
        at = document.find(piece, hint)
        hint = at
        out.append({"text": piece, "line_start": _line(document, at),
                    "line_end": _line(document, at + len(piece) - 1)})
    return out


def lines_from_find_after_previous(
    document: str, *, max_size: int, overlap: int
) -> list[str | dict[str, Any]]:
    """LangChain.js ``createDocuments``: a chunk's lines come from
    ``text.indexOf(chunk, previousStart + 1)``, and the chunk itself is a bare string.

    When the chunk's text also occurs inside the previous chunk after its start, ``indexOf``
    finds that copy and the chunk cites its lines (``'aa\\na'`` at size 2: the chunk ``'a'`` is on
    line 2, cited as line 1). The contract places a bare chunk separately for each rule: the
    earliest place after the previous start keeps ``line_citations`` (it is where ``indexOf``
    looked) and the real place keeps ``ordered``, so neither is reported.
    """
    _check(max_size, overlap)
    out: list[str | dict[str, Any]] = []
    previous = -1
    for start, end in _windows(document, max_size, overlap):
        piece = document[start:end]
        at = document.find(piece, previous + 1)
        previous = at
        out.append({"text": piece, "line_start": _line(document, at),
                    "line_end": _line(document, at + len(piece) - 1)})
    return out


def lines_on_stripped_copy(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000 bug 2: ``"\\n".join(text.splitlines()).strip()``, then lines with base_line=1.

    Leading blank lines are gone from the copy, so every line number is shifted (and
    ``splitlines`` also breaks at ``\\r``, ``\\x0b``, ``\\x0c``...).
    """
    _check(max_size, overlap)
    clean = "\n".join(document.splitlines()).strip()
    return [{"text": clean[s:e], "line_start": _line(clean, s), "line_end": _line(clean, e - 1)}
            for s, e in _windows(clean, max_size, overlap)]


def line_end_exclusive(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000's off-by-one: ``line_end`` from the end-exclusive offset, not the last character.

    The chunker packs whole lines (newline kept), so a chunk ending right after ``"\\n"`` cites
    the following line too.
    """
    _check(max_size, overlap)
    out = []
    pos = 0
    n = len(document)
    while pos < n:
        end = pos
        while end < n:  # take whole lines while they fit
            nl = document.find("\n", end)
            stop = n if nl == -1 else nl + 1
            if stop - pos > max_size:
                break
            end = stop
        if end == pos:  # one line longer than the cap: hard cut
            end = pos + max_size
        if document[pos:end].strip():
            out.append(_record(document, pos, end, line_start=_line(document, pos),
                               line_end=_line(document, end)))  # bug: end, not end - 1
        pos = end
    return out


def byte_slices_replace(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 000/002: windows of ``max_size`` UTF-8 bytes, decoded with ``errors="replace"``.

    A cut inside a multibyte character becomes U+FFFD: silent mojibake in the index.
    """
    _check(max_size, overlap)
    data = document.encode("utf-8")
    step = max_size - overlap
    out = []
    for at in range(0, len(data), step):
        piece = data[at:at + max_size].decode("utf-8", errors="replace").strip()
        if piece:
            out.append(piece)
        if at + max_size >= len(data):
            break
    return out


byte_slices_replace.unit = "bytes"  # type: ignore[attr-defined]


def byte_offsets_inside_char(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Byte windows whose text drops partial characters (``errors="ignore"``), but whose reported
    ``start_byte`` / ``end_byte`` are still the raw cut points, inside a character."""
    _check(max_size, overlap)
    data = document.encode("utf-8")
    step = max_size - overlap
    out = []
    for at in range(0, len(data), step):
        end = min(len(data), at + max_size)
        text = data[at:end].decode("utf-8", errors="ignore")
        if text.strip():
            out.append({"text": text, "start_byte": at, "end_byte": end})
        if end >= len(data):
            break
    return out


byte_offsets_inside_char.unit = "bytes"  # type: ignore[attr-defined]


# =========================================================================== seed 002

def overlap_on_top(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 002: the overlap is prepended on top of a chunk that already fills the cap.

    A 500/64 chunker emits chunks of up to 564 characters; the embedding API truncates them.
    """
    _check(max_size, overlap)
    out = []
    for k, (start, end) in enumerate(_pack_words(document, max_size)):
        if k and overlap:
            start = max(0, start - overlap)  # bug: overlap should come out of the budget
        out.append(document[start:end].strip())
    return out


def no_spill_without_spaces(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 002: splitting on word boundaries only. CJK, a URL, base64 or a minified blob is one
    "word", so the whole run comes back as one chunk, whatever the cap."""
    _check(max_size, overlap)
    return [document[s:e] for s, e in _pack_words(document, max_size, spill=False)]


def crlf_paragraphs(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 002: paragraphs split on ``"\\n\\n"``, which ``"\\r\\n\\r\\n"`` does not contain.

    A Windows file is one giant paragraph, cut blindly into windows, while its LF twin is cut at
    paragraph breaks. The plugin promises ``newline_invariance``.
    """
    _check(max_size, overlap)
    out = []
    pos = 0
    for part in document.split("\n\n"):
        start, end = pos, pos + len(part)
        pos = end + 2
        if not part.strip():
            continue
        if end - start <= max_size:
            out.append(part.strip())
        else:
            out.extend(part[s:e] for s, e in _windows(part, max_size, overlap))
    return out


crlf_paragraphs.promises = ("newline_invariance",)  # type: ignore[attr-defined]


def heading_straddle(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 002: a chunk packs blocks across a markdown heading, though the plugin promises
    ``heading_boundary``: section A's text is attributed to section B's heading."""
    _check(max_size, overlap)
    blocks = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*$)", document,
                                                       re.DOTALL)]
    out, current = [], None
    for start, end in blocks:
        if current is not None and end - current[0] <= max_size:
            current = (current[0], end)  # bug: a block starting with a heading should flush
            continue
        if current is not None:
            out.append(current)
        current = (start, end)
    if current is not None:
        out.append(current)
    chunks = []
    for start, end in out:
        if end - start <= max_size:
            chunks.append(document[start:end])
        else:
            chunks.extend(document[start + s:start + e]
                          for s, e in _windows(document[start:end], max_size, overlap))
    return chunks


heading_straddle.promises = ("heading_boundary",)  # type: ignore[attr-defined]


def section_is_nearest_heading(
    document: str, *, max_size: int, overlap: int
) -> list[dict[str, Any]]:
    """A header-aware splitter whose ``section`` is only the nearest heading's title, not the
    path: under ``# Guide`` / ``## Install`` a chunk says ``["Install"]``, and retrieval can no
    longer tell the guide's Install from the FAQ's. Promises ``section_path``. (It also ignores
    fences, and keeps a closing ``#`` run: the simple regex of many real splitters.)"""
    _check(max_size, overlap)
    heads = [(m.start(), (m.group(1) or "").strip()) for m in _ATX_ANY.finditer(document)]
    bounds = [0, *(h for h, _ in heads if h > 0), len(document)]
    out = []
    for lo, hi in itertools.pairwise(bounds):
        titles = [t for h, t in heads if h <= lo]
        for s, e in _windows(document[lo:hi], max_size, overlap):
            out.append(_record(document, lo + s, lo + e, section=titles[-1:]))
    return out


section_is_nearest_heading.promises = ("section_path",)  # type: ignore[attr-defined]
_ATX_ANY = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*$", re.MULTILINE)


# =========================================================================== seed 003

def chunk_text_no_progress(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 003, ``chunkText``: ``start = breakPoint + 1 - overlap``, clamped only at 0.

    The half-chunk floor guards the ``". "`` and ``"\\n"`` candidates but not the
    ``lastIndexOf(" ")`` fallback, so one early space followed by an unbroken run parks ``start``
    at 0 forever, pushing a fresh sliver every iteration.
    """
    _check(max_size, overlap)
    text, chunks, start = document, [], 0
    while start < len(text):
        end = min(start + max_size, len(text))
        breakpoint_ = end - 1
        if end < len(text):
            period = text.rfind(". ", start, end)
            newline = text.rfind("\n", start, end)
            space = text.rfind(" ", start, end)
            if period > start + max_size * 0.5:
                breakpoint_ = period + 1
            elif newline > start + max_size * 0.5:
                breakpoint_ = newline
            elif space > start:  # bug: no half-chunk floor on the word fallback
                breakpoint_ = space
        piece = text[start:breakpoint_ + 1].strip()
        if piece:
            chunks.append(piece)
        start = breakpoint_ + 1 - overlap
        if start < 0:
            start = 0
    return chunks


def chunk_text_heap_growth(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 003 as reported: the stuck loop "spins and grows until the heap is exhausted".

    The same loop as :func:`chunk_text_no_progress`, recording a chunk object per iteration
    (text, index, and the running list of break points for debugging), so memory grows fast.
    """
    _check(max_size, overlap)
    text, chunks, start, trail = document, [], 0, []
    while start < len(text):
        end = min(start + max_size, len(text))
        breakpoint_ = end - 1
        if end < len(text):
            space = text.rfind(" ", start, end)
            if space > start:
                breakpoint_ = space
        trail.append(breakpoint_)
        chunks.append({"text": text[start:breakpoint_ + 1], "index": len(chunks),
                       "trail": list(trail[-64:])})
        start = max(0, breakpoint_ + 1 - overlap)
    return [c for c in chunks if c["text"].strip()]


# =========================================================================== seed 004

def header_budget_negative(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 004, ``split_document``: the step is ``max_size - len(header)``.

    When the first three lines alone reach the cap the step is negative and Python's negative
    slicing gives an oversized first chunk, an empty chunk, and the body chunked again from near
    its start: ``[81, 0, 20, 20, 17]`` for a cap of 20.
    """
    _check(max_size, overlap)
    if len(document) <= max_size:
        return [document] if document.strip() else []
    header, body = _separate_header(document)
    out, pos, header_part = [], 0, header
    while pos < len(body):
        end = pos + max_size - len(header_part)
        out.append(header_part + body[pos:end])
        pos = end
        header_part = ""  # the header goes on the first chunk only
    return out


def header_only_dropped(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Seed 004's follow-up: the fixed splitter emits the header (in windows when it is too big)
    on the first pass of its body loop, so a document that is *only* a header (three lines or
    fewer, too long for the pass-through) never enters the loop and comes back empty."""
    _check(max_size, overlap)
    if len(document) <= max_size:
        return [document.strip()] if document.strip() else []
    header, body = _separate_header(document)
    out: list[str] = []
    pos = 0
    while pos < len(body):
        if pos == 0:
            out.extend(header[s:e] for s, e in _windows(header, max_size, 0))
        found = _NON_SPACE.search(body, pos)
        if found is None:
            break
        start = found.start()
        out.append(body[start:start + max_size].rstrip())
        pos = start + max_size
    return out


# =========================================================================== configs

def degenerate_hang(document: str, *, max_size: int, overlap: int) -> list[str]:
    """No config validation; the next window starts ``overlap`` before this one's end.

    With ``overlap >= max_size`` (or ``max_size <= 0``) the start never moves: a hang.
    """
    out, pos, n = [], 0, len(document)
    while pos < n:
        found = _NON_SPACE.search(document, pos)
        if found is None:
            break
        start = found.start()
        end = min(n, start + max_size)
        out.append(document[start:end].rstrip())
        if end >= n:
            break
        pos = end - overlap
    return out


def degenerate_crash(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """No config validation; the window count is computed up front.

    ``overlap == max_size`` divides by zero (ZeroDivisionError is not a refusal), and a
    negative step gives a negative count, so the document silently yields no chunk.
    """
    step = max_size - overlap
    count = math.ceil(max(0, len(document) - overlap) / step)
    out = []
    for k in range(count):
        start = k * step
        end = min(len(document), start + max_size)
        if document[start:end].strip():
            out.append(_record(document, start, end))
    return out


def degenerate_masked(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000: a degenerate config "masked" by ``step = max(1, max_size - overlap)``.

    ``max_size <= 0`` gives empty windows (so the text is lost), and a negative overlap gives a
    step longer than the window (gaps between chunks).
    """
    step = max(1, max_size - overlap)
    out = []
    for start in range(0, len(document), step):
        end = min(len(document), start + max_size)
        if document[start:end].strip():
            out.append(_record(document, start, end))
        if end >= len(document):
            break
    return out


# =========================================================================== terminates

def swallowed_hang(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Cuts each chunk at the last space of its window, inside ``while True: try/except: pass``.

    ``str.rindex`` raises ValueError for a window without a space; the handler "retries" without
    moving, so the loop spins forever on any unbroken run.
    """
    _check(max_size, overlap)
    out, pos = [], 0
    while True:
        try:
            found = _NON_SPACE.search(document, pos)
            if found is None:
                break
            start = found.start()
            if start + max_size >= len(document):
                out.append(document[start:].rstrip())
                break
            end = document.rindex(" ", start, start + max_size + 1)
            out.append(document[start:end])
            pos = end
        except Exception:
            pass
    return out


# =========================================================================== no_crash

def crash_on_blank(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Tags every chunk with the document's first word: ``document.split()[0]`` raises
    IndexError on an empty or whitespace-only document."""
    _check(max_size, overlap)
    title = document.split()[0]
    del title  # (the tag goes into metadata that this test plugin does not return)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def abort_on_nul(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A native tokenizer's ``assert`` on an embedded NUL: the interpreter aborts (SIGABRT)."""
    _check(max_size, overlap)
    if "\x00" in document:
        os.abort()
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def returns_none_when_short(document: str, *, max_size: int, overlap: int) -> list[str] | None:
    """The "nothing to split" fast path forgets to return the document: it returns None."""
    _check(max_size, overlap)
    if len(document) <= max_size:
        return None
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def returns_str_when_short(document: str, *, max_size: int, overlap: int) -> Any:
    """The fast path returns the stripped document itself, a ``str``, not a list of chunks."""
    _check(max_size, overlap)
    if len(document) <= max_size:
        return document.strip()
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


# =========================================================================== non_empty

def keeps_blank_paragraphs(document: str, *, max_size: int, overlap: int) -> list[str]:
    """``document.split("\\n\\n")`` keeps the empty strings between runs of blank lines (and
    before leading ones), and every paragraph is emitted as is."""
    _check(max_size, overlap)
    out = []
    for part in document.split("\n\n"):
        if len(part) <= max_size:
            out.append(part)
        else:
            out.extend(part[s:e] for s, e in _windows(part, max_size, overlap))
    return out


# =========================================================================== span_fidelity

def normalised_whitespace_offsets(document: str, *, max_size: int,
                                  overlap: int) -> list[dict[str, Any]]:
    """Chunks a whitespace-collapsed copy, then maps each chunk back with ``document.find``;
    where the collapsed text is not found it falls back to the running offset, so the chunk's
    text and its claimed span disagree."""
    _check(max_size, overlap)
    clean = re.sub(r"\s+", " ", document).strip()
    out, hint = [], 0
    for s, e in _windows(clean, max_size, overlap):
        piece = clean[s:e]
        at = document.find(piece, hint)
        if at == -1:
            at = hint
        out.append({"text": piece, "start": at, "end": at + len(piece)})
        hint = at + 1
    return out


def rejoins_words(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Packs words and joins them with ``" "``: newlines and runs of spaces inside a chunk are
    rewritten, so the chunk is text the document does not hold."""
    _check(max_size, overlap)
    return [" ".join(document[s:e].split()) for s, e in _pack_words(document, max_size)]


def paragraph_lines_joined(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A recursive splitter: paragraphs (split on ``"\n\n"``) are packed and kept verbatim,
    but a paragraph over the cap is split into lines that are rejoined with ``" "``, so its
    chunks are text the document does not hold. A CRLF document has no ``"\n\n"`` and always
    takes that path, which makes the bug look like a CRLF one; it is not (``"a\nb"`` shows it)."""
    _check(max_size, overlap)
    out: list[str] = []
    for part in (p.strip() for p in document.split("\n\n")):
        if not part:
            continue
        if len(part) <= max_size:
            out.append(part)
            continue
        lines = [line.strip() for line in part.split("\n") if line.strip()]
        out.extend(_pack_lines(lines, max_size))
    return out


def _pack_lines(lines: list[str], max_size: int) -> list[str]:
    packed: list[str] = []
    for line in lines:
        if packed and len(packed[-1]) + 1 + len(line) <= max_size:
            packed[-1] += " " + line
        else:
            packed.extend(line[k : k + max_size] for k in range(0, len(line), max_size))
    return packed


def offsets_skip_dropped_space(document: str, *, max_size: int,
                               overlap: int) -> list[dict[str, Any]]:
    """Packs words into verbatim slices (the texts are right) but counts each start as the sum
    of the chunk lengths before it, forgetting the whitespace dropped between chunks: every
    offset after the first is early. No text is lost; the offsets are the defect. Its lines
    are counted where the text really is, so they disagree with the offsets only."""
    _check(max_size, overlap)
    out, at = [], 0
    for s, e in _pack_words(document, max_size):
        text = document[s:e]
        out.append({"text": text, "start": at, "end": at + len(text),
                    "line_start": _line(document, s), "line_end": _line(document, e - 1)})
        at += len(text)
    return out


def blank_tag_unicode_whitespace(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Skips blank documents with an ASCII-only test (``strip(" \t\r\n")``), then tags the
    chunks of a long document with its first word: ``document.split()[0]`` raises IndexError
    on a document made only of other whitespace (no-break spaces, NEL, U+2007...) longer
    than the cap."""
    _check(max_size, overlap)
    if not document.strip(" \t\r\n"):
        return []
    if len(document) > max_size:
        title = document.split()[0]
        del title  # (the tag goes into metadata that this test plugin does not return)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def fixed_buffer(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Copies the document into a fixed buffer of 8192 characters first (a C extension's
    static array, a 16-bit counter): a real document longer than that raises. Generated
    documents used to stop at 2,000 characters, so nothing reached it."""
    _check(max_size, overlap)
    if len(document) > 8192:
        raise OverflowError("document longer than the 8192-character buffer")
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def lf_declared_not_normalised(document: str, *, max_size: int,
                               overlap: int) -> list[dict[str, Any]]:
    """Declares ``newlines = "lf"`` but never normalises: offsets count the ``"\\r"`` of every
    CRLF before the chunk, so they point past the text in the LF document."""
    _check(max_size, overlap)
    out = []
    for s, e in _windows(document, max_size, overlap):
        out.append({"text": document[s:e].replace("\r\n", "\n"), "start": s,
                    "end": s + len(document[s:e].replace("\r\n", "\n"))})
    return out


lf_declared_not_normalised.newlines = "lf"  # type: ignore[attr-defined]


# =========================================================================== no_lost_text

def drops_last_window(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """``range(0, len(document) - max_size, step)``: the last, partial window is never emitted
    (and a document that fits in one window gives nothing)."""
    _check(max_size, overlap)
    step = max_size - overlap
    out = []
    for start in range(0, len(document) - max_size, step):
        if document[start:start + max_size].strip():
            out.append(_record(document, start, start + max_size))
    return out


# =========================================================================== cap_respected

def cap_counted_in_chars(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Declares ``unit = "bytes"`` (the embedding API limit) but measures ``len(str)``: any
    non-ASCII text overflows the byte cap."""
    _check(max_size, overlap)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


cap_counted_in_chars.unit = "bytes"  # type: ignore[attr-defined]


def _whitespace_tokens(text: str) -> int:
    return len(text.split())


def token_estimate_cap(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Declares a token unit but packs by the "~4 characters per token" estimate, so text of
    short words holds far more tokens than the cap."""
    _check(max_size, overlap)
    return [document[s:e] for s, e in _windows(document, max_size * 4, overlap * 4)]


token_estimate_cap.unit = "tokens"  # type: ignore[attr-defined]
token_estimate_cap.count_tokens = _whitespace_tokens  # type: ignore[attr-defined]


# =========================================================================== codepoint_integrity

def utf16_code_units(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """A JavaScript port: the cap is counted in UTF-16 code units, and cuts fall between the two
    halves of a surrogate pair, leaving lone surrogates in the chunks."""
    _check(max_size, overlap)
    units = document.encode("utf-16-le", "surrogatepass")
    out = []
    pos = 0
    while pos < len(units):
        raw = units[pos:pos + 2 * max_size]
        text = raw.decode("utf-16-le", "surrogatepass")
        if text.strip():
            out.append({"text": text})
        pos += 2 * max(1, max_size - overlap)
    return out


# =========================================================================== grapheme_integrity

def cuts_zwj_sequence(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Promises ``grapheme_integrity`` but cuts on codepoints: a ZWJ emoji, a flag or ``e`` +
    combining accent is split across two chunks."""
    _check(max_size, overlap)
    return [_record(document, s, e) for s, e in _windows(document, max_size, overlap)]


cuts_zwj_sequence.promises = ("grapheme_integrity",)  # type: ignore[attr-defined]


# =========================================================================== ordered

def tail_window_appended(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Always appends the tail window ``document[-max_size:]`` "so the end is surely covered":
    when the last window already is the tail, the same span is emitted twice."""
    _check(max_size, overlap)
    out = [_record(document, s, e) for s, e in _windows(document, max_size, overlap)]
    if out:
        start = max(0, len(document.rstrip()) - max_size)
        end = len(document.rstrip())
        found = _NON_SPACE.search(document, start)
        if found is not None and found.start() < end:
            out.append(_record(document, found.start(), end))
    return out


def windows_past_the_end(document: str, *, max_size: int, overlap: int) -> list[str]:
    """LangChain's shape (``'a' * 20 + '\t'`` at 20 / 5 gives ``[0:20)`` then ``[15:20)``):
    steps through ``range(0, len(document), max_size - overlap)`` without stopping once a window
    reaches the end, and strips each window. The windows after the one that reached the end
    are its own tail: each lies wholly inside its predecessor. Bare strings."""
    _check(max_size, overlap)
    pieces = (document[k:k + max_size].strip() for k in range(0, len(document), max_size - overlap))
    return [piece for piece in pieces if piece]


def reversed_stack(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Recursive halving with an explicit stack: left and right halves are pushed in reading
    order, so they pop in reverse and the chunks come out back to front."""
    _check(max_size, overlap)
    stack, out = [(0, len(document))], []
    while stack:
        start, end = stack.pop()
        found = _NON_SPACE.search(document, start, end)
        if found is None:
            continue
        start = found.start()
        end = start + len(document[start:end].rstrip())
        if end - start <= max_size:
            out.append(_record(document, start, end))
            continue
        middle = document.rfind(" ", start + 1, start + max_size)
        middle = middle if middle > start else (start + end) // 2
        stack.append((start, middle))
        stack.append((middle, end))
    return out


# =========================================================================== overlap_bounded

def overlap_counted_in_words(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """``overlap`` is in characters, but the next window starts ``overlap`` *words* back."""
    _check(max_size, overlap)
    out = []
    found = _NON_SPACE.search(document)
    while found:
        start = found.start()
        end = min(len(document), start + max_size)
        out.append(_record(document, start, start + len(document[start:end].rstrip())))
        if end >= len(document):
            break
        words = [m.start() for m in _WORD.finditer(document, start, end)]
        back = words[-overlap] if overlap and len(words) >= overlap else end
        found = _NON_SPACE.search(document, max(back, start + 1))
    return out


# =========================================================================== unique_ids

def content_hash_ids(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """``id = sha1(text)[:16]``: two chunks of identical repeated blocks share an id."""
    _check(max_size, overlap)
    return [_record(document, s, e, id=hashlib.sha1(document[s:e].encode("utf-8")).hexdigest()[:16])
            for s, e in _windows(document, max_size, overlap)]


def line_window_ids(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000: ``id = f"{line_start}-{line_end}"``; two chunks of one long line collide."""
    _check(max_size, overlap)
    out = []
    for s, e in _windows(document, max_size, overlap):
        first, last = _line(document, s), _line(document, e - 1)
        out.append(_record(document, s, e, line_start=first, line_end=last, id=f"{first}-{last}"))
    return out


# =========================================================================== deterministic

_CALLS = itertools.count()


def counter_ids(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Ids from a module-level counter: unique, but a second call numbers them differently."""
    _check(max_size, overlap)
    return [_record(document, s, e, id=f"chunk-{next(_CALLS)}")
            for s, e in _windows(document, max_size, overlap)]


def random_jitter(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Cut points jittered at random "to avoid aligning every chunk to the same grid"."""
    _check(max_size, overlap)
    out = []
    found = _NON_SPACE.search(document)
    while found:
        start = found.start()
        end = min(len(document), start + random.randint(max(1, max_size // 2), max_size))
        out.append(_record(document, start, start + len(document[start:end].rstrip())))
        if end >= len(document):
            break
        found = _NON_SPACE.search(document, max(end - overlap, start + 1))
    return out


# =========================================================================== tiles_parent

def _blocks(document: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*$)", document, re.DOTALL)]


def _hierarchy(document: str, max_size: int, child_spans: Any) -> list[dict[str, Any]]:
    out = []
    for start, end in _blocks(document):
        pid = f"{start}:{end}"
        if end - start <= max_size:
            out.append(_record(document, start, end, id=pid))
            continue
        out.append(_record(document, start, end, id=pid))
        for s, e in child_spans(start, end):
            out.append(_record(document, s, e, id=f"{pid}/{s}:{e}", parent=pid))
    return out


def children_skip_separator(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Sections (parents) are cut into children; each child starts one past the previous end,
    "skipping the separator", which drops a character whenever the cut was not at a space."""
    _check(max_size, overlap)

    def spans(start: int, end: int) -> list[tuple[int, int]]:
        out, pos = [], start
        while pos < end:
            found = _NON_SPACE.search(document, pos, end)
            if found is None:
                break
            s = found.start()
            e = min(end, s + max_size)
            e = s + len(document[s:e].rstrip())
            out.append((s, e))
            pos = e + 1  # bug: skips a character
        return out

    return _hierarchy(document, max_size, spans)


def children_overlap(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Children of a section overlap by a fixed half of the cap "for context", ignoring the
    configured ``overlap``: siblings share more than the overlap allows (SPEC 1.1 lets them
    share up to ``overlap``, no more)."""
    _check(max_size, overlap)

    def spans(start: int, end: int) -> list[tuple[int, int]]:
        return [(start + s, start + e)
                for s, e in _windows(document[start:end], max_size, max_size // 2)]

    return _hierarchy(document, max_size, spans)


def children_overlap_on_top(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Children of a section are cut full size, then each one after the first is widened to
    start ``overlap`` characters earlier: the overlap is within bounds, but it comes on top of
    a full child, so the child is over the cap (seed 002's bug, inside a hierarchy)."""
    _check(max_size, overlap)

    def spans(start: int, end: int) -> list[tuple[int, int]]:
        cut = [(start + s, start + e) for s, e in _windows(document[start:end], max_size, 0)]
        return cut[:1] + [(s - overlap, e) for s, e in cut[1:]]

    return _hierarchy(document, max_size, spans)


# =========================================================================== probes of the engine

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*)$", re.MULTILINE)


def quadratic_offsets(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Byte offsets, lines, the heading path and the copy number of a repeated block recomputed
    from the document's start for every chunk (``len(document[:end].encode())``,
    ``document[:start].split("\\n")``, every heading before the chunk, ``document.count(piece,
    0, start)``): each chunk is right, but the time grows with the square of the document."""
    _check(max_size, overlap)
    out = []
    for s, e in _windows(document, max_size, overlap):
        section: list[str] = []
        for level, title in _ATX.findall(document[:s]):
            section = [*section[:len(level) - 1], title]
        piece = document[s:e]
        ordinal = document.count(piece, 0, s)  # which copy of a repeated block this is
        out.append(_record(document, s, e, id=f"{s}:{e}", copy=ordinal,
                           start_byte=len(document[:s].encode("utf-8")),
                           end_byte=len(document[:e].encode("utf-8")),
                           line_start=len(document[:s].split("\n")),
                           line_end=len(document[:e - 1].split("\n")),
                           section=section))
    return out


def crlf_lines_from_start(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Windows citing their lines. Lines come from a table of the line breaks, except in a
    document with Windows line endings: there each chunk's lines are counted from the
    document's start (``document.count("\\n", 0, offset)``), a path kept apart since a
    ``"\\r\\n"`` once threw the table off. Every citation is right; on CRLF text the time
    grows with the square of the document, on every other shape it stays linear."""
    _check(max_size, overlap)
    if "\r\n" in document:
        def line(offset: int) -> int:
            return document.count("\n", 0, offset) + 1
    else:
        breaks = [m.start() for m in re.finditer("\n", document)]

        def line(offset: int) -> int:
            return bisect.bisect_left(breaks, offset) + 1
    return [_record(document, s, e, line_start=line(s), line_end=line(e - 1))
            for s, e in _windows(document, max_size, overlap)]


_PLAIN_LINE = re.compile(r"^(\w+\s?)*$")


def catastrophic_regex(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Classifies each line as "plain words" with ``^(\\w+\\s?)*$``: a long run of word characters
    followed by punctuation backtracks exponentially inside ``re`` (C code, GIL held)."""
    _check(max_size, overlap)
    plain = [bool(_PLAIN_LINE.match(line)) for line in document.split("\n")]
    del plain  # (used to pick a splitter; both branches cut the same windows here)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def byte_offsets_as_chars(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Reports the codepoint offsets a second time as ``start_byte`` / ``end_byte``: wrong as soon
    as a non-ASCII character precedes or is inside the chunk."""
    _check(max_size, overlap)
    return [_record(document, s, e, start_byte=s, end_byte=e)
            for s, e in _windows(document, max_size, overlap)]


def byte_offsets_from_find(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Seed 000's ``find()`` in bytes: codepoint offsets are right, but ``start_byte`` comes from
    ``data.find(chunk_bytes)``, the first copy of a repeated block, so the two spans disagree."""
    _check(max_size, overlap)
    data, out = document.encode("utf-8", "surrogatepass"), []
    for s, e in _windows(document, max_size, overlap):
        piece = document[s:e].encode("utf-8", "surrogatepass")
        at = data.find(piece)
        out.append(_record(document, s, e, start_byte=at, end_byte=at + len(piece)))
    return out


def nfc_normalised(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """NFC-normalises each chunk's text "for the embedder" while keeping the source offsets:
    ``e`` + U+0301 becomes ``\u00e9``, text the document does not hold."""
    import unicodedata

    _check(max_size, overlap)
    return [_record(document, s, e) | {"text": unicodedata.normalize("NFC", document[s:e])}
            for s, e in _windows(document, max_size, overlap)]


def exits_on_blank(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Code lifted from a CLI: ``sys.exit("nothing to chunk")`` on an empty or blank document,
    which takes the host process down with it."""
    import sys

    _check(max_size, overlap)
    if not document.strip():
        sys.exit("nothing to chunk")
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


_CACHE: dict[tuple[str, int, int, int], list[dict[str, Any]]] = {}


def stale_cache(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Memoises chunkings under a cheap fingerprint (first 16 characters and length): another
    document with the same fingerprint gets the first one's chunks."""
    _check(max_size, overlap)
    key = (document[:16], len(document), max_size, overlap)
    if key not in _CACHE:
        _CACHE[key] = [_record(document, s, e) for s, e in _windows(document, max_size, overlap)]
    return _CACHE[key]


def hash_ids(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """``id = hash((start, text))``: stable within one interpreter, different in the next one
    (PYTHONHASHSEED), so re-indexing the same file gives new chunk ids."""
    _check(max_size, overlap)
    return [_record(document, s, e, id=f"{hash((s, document[s:e])) & 0xFFFFFFFF:08x}")
            for s, e in _windows(document, max_size, overlap)]


#: The mode the first document chose (first_document_mode): markdown or plain splitting.
_FIRST_MODE: list[str] = []
_MODE_HEADING = re.compile(r"^#{1,6} ", re.M)


def first_document_mode(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Sniffs the first document it is given for markdown headings and splits every later one
    the same way, "so that a corpus is chunked consistently": each answer is a correct
    chunking, but which one depends on what the process chunked first. Not in DEFECTS: the
    fresh interpreters catch it on most seeds, not all (test_crossrun runs it)."""
    # lazy: the reference chunkers are this defect's two correct halves
    from chunk_contract_reference import markdown, recursive

    if not _FIRST_MODE:
        _FIRST_MODE.append("md" if _MODE_HEADING.search(document) else "plain")
    if _FIRST_MODE[0] == "md" and "\r\n" not in document:
        chunks = markdown.split(document, max_size=max_size, overlap=overlap)
        return [{k: v for k, v in c.items() if k != "section"} for c in chunks]
    return recursive.split(document, max_size=max_size, overlap=overlap)


#: Where a chunk may end. A set of strings iterates in the order of their hashes, which the
#: next interpreter's hash seed changes.
_SET_ENDS = {"\n\n", "\n", ". ", " "}


def set_order_cuts(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Ends each chunk after the first separator of a set found in its window: the same in one
    interpreter, different in the next one (PYTHONHASHSEED) wherever a window holds two kinds
    of separator. No text is lost, no chunk is over the cap."""
    _check(max_size, overlap)
    out, start = [], 0
    while start < len(document):
        end = min(len(document), start + max_size)
        if end < len(document):
            found = ((document.rfind(sep, start + 1, end), sep) for sep in _SET_ENDS)
            end = next((at + len(sep) for at, sep in found if at > start), end)
        if document[start:end].strip():
            out.append(document[start:end].strip())
        start = end
    return out


# =========================================================================== rare shapes
# Bugs that show only on a document shape a random draw meets now and then: a construct at one
# place in the document, or written with one line ending under a cap large enough to show it.
# The covering schedule (chunk_contract.generation.strategies.schedule) meets each of them on every
# seed.

#: A heading line as a splitter that excludes "\r" from its lines writes it: 0-3 spaces, 1-6
#: hashes, then a space or tab and text, or nothing.
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t][^\r\n]*)?$", re.MULTILINE)
_LINES = re.compile(r"[^\n]*\n|[^\n]+$")


def last_line_heading_lost(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Drops "empty sections": a heading with no body after it. The check runs on the document's
    unterminated last line only, so a heading that is the last line, with no newline after it,
    is lost; anywhere else, or followed by a newline, it is kept."""
    _check(max_size, overlap)
    last = document.rfind("\n") + 1
    if _HEADING_LINE.fullmatch(document, last):  # bug: the heading is the text, not a section
        document = document[:last]
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


def crlf_heading_packed(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Packs whole lines, starting a new chunk at every heading (promises
    ``heading_boundary``). Its heading regex keeps ``"\r"`` out of the line, so a heading line
    ending in CRLF is not one: when the cap holds the lines before it too, the heading is packed
    after them. Under a cap below a line every long line is cut on its own, and LF is fine."""
    _check(max_size, overlap)
    heads = {m.start() for m in _HEADING_LINE.finditer(document)}
    spans: list[tuple[int, int]] = []
    start = end = 0
    for line in _LINES.finditer(document):
        lo, hi = line.span()
        if hi - start > max_size or lo in heads:
            spans.append((start, end))
            start = lo
        if hi - lo > max_size:
            spans += [(lo + s, lo + e) for s, e in _windows(document[lo:hi], max_size, overlap)]
            start = hi
        end = hi
    spans.append((start, end))
    return [document[s:e] for s, e in spans if document[s:e].strip()]


crlf_heading_packed.promises = ("heading_boundary",)  # type: ignore[attr-defined]

_FRONT_MATTER = re.compile(r"---\n.*?\n---\n", re.DOTALL)


def front_matter_offsets(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Chunks YAML front matter (``---`` on the first line, up to the next ``---`` line) apart
    from the body, and counts the body's offsets from the body's start: right for every document
    but one that starts with front matter at offset 0."""
    _check(max_size, overlap)
    found = _FRONT_MATTER.match(document)
    head = found.end() if found else 0
    body = document[head:]
    meta = [_record(document, s, e) for s, e in _windows(document[:head], max_size, overlap)]
    return meta + [_record(body, s, e) for s, e in _windows(body, max_size, overlap)]


def offsets_only_when_unique(document: str, *, max_size: int, overlap: int) -> list[Any]:
    """Reports a chunk's offsets only when its text occurs once in the document, and leaves
    them out for a repeated block (where a ``find()`` could pick the wrong copy): like a
    llama-index node with ``start_char_idx=None``. Every chunk is a verbatim slice, so placing
    the offset-less ones would pass; the missing offsets must be reported instead."""
    _check(max_size, overlap)
    out: list[Any] = []
    for start, end in _windows(document, max_size, overlap):
        text = document[start:end]
        unique = document.count(text) == 1
        out.append(_record(document, start, end) if unique else {"text": text})
    return out


# =========================================================================== the registry

#: attribute name -> the invariant id the contract must report it under.
DEFECTS: dict[str, str] = {
    # seed 000
    "lines_from_find": "line_citations",
    "lines_from_find_after_previous": "line_citations",
    "lines_on_stripped_copy": "line_citations",
    "line_end_exclusive": "line_citations",
    "byte_slices_replace": "codepoint_integrity",
    "byte_offsets_inside_char": "codepoint_integrity",
    # seed 002
    "overlap_on_top": "cap_respected",
    "no_spill_without_spaces": "cap_respected",
    "crlf_paragraphs": "newline_invariance",
    "lf_declared_not_normalised": "span_fidelity",
    "heading_straddle": "heading_boundary",
    "section_is_nearest_heading": "section_path",
    # seed 003
    "chunk_text_no_progress": "terminates",
    "chunk_text_heap_growth": "terminates",
    # seed 004
    "header_budget_negative": "cap_respected",
    "header_only_dropped": "no_lost_text",
    # configs
    "degenerate_hang": "config_validation",
    "degenerate_crash": "config_validation",
    "degenerate_masked": "config_validation",
    # one (or more) per invariant
    "swallowed_hang": "terminates",
    "crash_on_blank": "no_crash",
    "abort_on_nul": "no_crash",
    "returns_none_when_short": "no_crash",
    "returns_str_when_short": "no_crash",
    "keeps_blank_paragraphs": "non_empty",
    "normalised_whitespace_offsets": "span_fidelity",
    "rejoins_words": "span_fidelity",
    "drops_last_window": "no_lost_text",
    "cap_counted_in_chars": "cap_respected",
    "token_estimate_cap": "cap_respected",
    "utf16_code_units": "codepoint_integrity",
    "cuts_zwj_sequence": "grapheme_integrity",
    "tail_window_appended": "ordered",
    "windows_past_the_end": "ordered",
    "reversed_stack": "ordered",
    "overlap_counted_in_words": "overlap_bounded",
    "content_hash_ids": "unique_ids",
    "line_window_ids": "unique_ids",
    "counter_ids": "deterministic",
    "random_jitter": "deterministic",
    "children_skip_separator": "tiles_parent",
    "children_overlap": "tiles_parent",
    "children_overlap_on_top": "cap_respected",
    # probes of the engine: scaling, native hangs, byte offsets, normalisation, exits, state
    "quadratic_offsets": "scales_linearly",
    "crlf_lines_from_start": "scales_linearly",
    "catastrophic_regex": "terminates",
    "byte_offsets_as_chars": "span_fidelity",
    "byte_offsets_from_find": "span_fidelity",
    "nfc_normalised": "span_fidelity",
    "exits_on_blank": "no_crash",
    "stale_cache": "span_fidelity",
    "hash_ids": "deterministic",
    "set_order_cuts": "deterministic",
    # rare shapes, met on every seed by the covering schedule
    "last_line_heading_lost": "no_lost_text",
    "crlf_heading_packed": "heading_boundary",
    "front_matter_offsets": "span_fidelity",
    # offsets reported for some chunks only are reported, not placed silently
    "offsets_only_when_unique": "span_fidelity",
    # one cause, one verdict: the defect's own rule, the rules it drags along marked as such
    "paragraph_lines_joined": "span_fidelity",
    "offsets_skip_dropped_space": "span_fidelity",
    # an input class met by construction: a document of non-ASCII whitespace only
    "blank_tag_unicode_whitespace": "no_crash",
    # generated documents reach real sizes (10-50k characters) now and then
    "fixed_buffer": "no_crash",
}

#: Further ids a defect breaks at the same time (seed 004's three symptoms, for instance).
ALSO: dict[str, tuple[str, ...]] = {
    "header_budget_negative": ("non_empty", "ordered"),
    # Children are siblings: sharing more than the overlap breaks overlap_bounded too.
    "children_overlap": ("overlap_bounded",),
    # its line citations are right; judged at the wrong offsets they fail, following from them
    "offsets_skip_dropped_space": ("line_citations",),
}

#: The scaling families a ``scales_linearly`` defect is quadratic on, where it is linear on every
#: other one: the probe must report exactly these (a further family would be a false verdict).
SHAPES: dict[str, tuple[str, ...]] = {
    "crlf_lines_from_start": ("CRLF text",),
}
