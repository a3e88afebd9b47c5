"""Known-correct chunkers: the contract must pass every one of them cleanly (no false positive).

They cover the shapes SPEC §4 says must never be reported: bare strings placed by the contract
(with overlap, over repeated blocks and periodic text), whitespace-trimming chunkers, CRLF kept
verbatim, a token unit, a generator, a class-based plugin, records with offsets and lines, and
a parent/child hierarchy (children tiling their parent, or overlapping by up to
``overlap``). :data:`CORRECT` lists their attribute names.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import regex

_NON_SPACE = re.compile(r"\S")
_WORD = re.compile(r"\S+")
#: ATX heading lines: 0-3 spaces, 1-6 '#', then space, tab, end of line, or a "\r" (a CRLF line
#: "#\r\n" is a heading; splitting at a few more lines than needed is always allowed).
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t\r]|$)", re.MULTILINE)
_GRAPHEME = regex.compile(r"\X")


def _check(max_size: int, overlap: int) -> None:
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an int >= 1, got {max_size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < max_size:
        raise ValueError(f"overlap must satisfy 0 <= overlap < max_size, got {overlap!r}")


class _Lines:
    """1-based line of an offset (only "\\n" ends a line), by bisection: linear overall."""

    def __init__(self, text: str) -> None:
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_left(self.breaks, offset) + 1


def _windows(text: str, max_size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Windows starting at a non-space, right-trimmed, each start after the previous one.

    A window whose trimmed end does not pass the last one's adds no text (it lies inside its
    predecessor, SPEC 1.1 ``ordered``) and is left out; the next one still overlaps by at most
    ``overlap``."""
    found = _NON_SPACE.search(text)
    reached = 0
    while found:
        start = found.start()
        end = min(len(text), start + max_size)
        stop = start + len(text[start:end].rstrip())
        if stop > reached:
            yield start, stop
            reached = stop
        if end >= len(text):
            return
        found = _NON_SPACE.search(text, max(end - overlap, start + 1))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# --------------------------------------------------------------------------- bare strings

def bare_windows(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Untrimmed fixed windows ``[k * step, k * step + max_size)`` as bare strings, whitespace-only
    windows skipped: verbatim slices that overlap by exactly ``overlap``."""
    _check(max_size, overlap)
    step = max_size - overlap
    out = []
    for start in range(0, len(document), step):
        piece = document[start:start + max_size]
        if piece.strip():
            out.append(piece)
        if start + max_size >= len(document):
            break
    return out


def bare_trimmed_windows(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Windows that start at a non-space and drop trailing whitespace, as bare strings."""
    _check(max_size, overlap)
    return [document[s:e] for s, e in _windows(document, max_size, overlap)]


_SEPARATORS = ("\n\n", "\n", " ", "")


def _pieces(text: str, start: int, end: int, max_size: int,
            seps: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans tiling ``[start, end)``, each at most ``max_size``, cut just after separators."""
    if end - start <= max_size:
        return [(start, end)]
    sep = next(s for s in seps if s == "" or text.find(s, start, end) != -1)
    if sep == "":
        return [(k, min(end, k + max_size)) for k in range(start, end, max_size)]
    rest = seps[seps.index(sep) + 1:]
    out: list[tuple[int, int]] = []
    at = start
    while at < end:
        hit = text.find(sep, at, end)
        stop = end if hit == -1 else hit + len(sep)
        out.extend(_pieces(text, at, stop, max_size, rest))
        at = stop
    return out


def recursive_trimmed(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A recursive character splitter (``"\\n\\n"``, ``"\\n"``, ``" "``, then characters) that
    merges small pieces up to the cap, carries whole pieces as overlap, and strips every chunk
    (LangChain's ``strip_whitespace=True``). Bare strings."""
    _check(max_size, overlap)
    spans: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    for piece in _pieces(document, 0, len(document), max_size, _SEPARATORS):
        if current and piece[1] - current[0][0] > max_size:
            spans.append((current[0][0], current[-1][1]))
            while current and (current[-1][1] - current[0][0] > overlap
                               or piece[1] - current[0][0] > max_size):
                current.pop(0)
        current.append(piece)
    if current:
        spans.append((current[0][0], current[-1][1]))
    out: list[tuple[int, int]] = []
    for span in spans:
        start, end = _trim(document, *span)
        if start == end:
            continue
        if out and start <= out[-1][0]:
            # Trimming moved this chunk's start back onto the previous one's: keep the longer.
            if end > out[-1][1]:
                out[-1] = (start, end)
            continue
        if out and end <= out[-1][1]:
            continue  # trimming left it inside the previous chunk: it adds no text
        out.append((start, end))
    return [document[s:e] for s, e in out]


def bare_line_packer(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Packs whole lines (no overlap), cuts an over-long line hard, strips each chunk."""
    _check(max_size, overlap)
    out, buffer = [], ""
    for line in document.splitlines(keepends=True):
        at = 0
        while len(line) - at > max_size:  # an over-long line: hard cuts
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
            out.append(line[at:at + max_size])
            at += max_size
        rest = line[at:]
        if len(buffer) + len(rest) > max_size:
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
        buffer += rest
    if buffer.strip():
        out.append(buffer.strip())
    return [c.strip() for c in out if c.strip()]


def bare_bytes_windows(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Windows of whole characters within ``max_size`` UTF-8 bytes (a character wider than the
    cap alone), overlapping by at most ``overlap`` bytes. Bare strings."""
    _check(max_size, overlap)
    out = []
    start, n, reached = 0, len(document), 0
    while start < n:
        found = _NON_SPACE.search(document, start)
        if found is None:
            break
        start = found.start()
        end, size = start, 0
        while end < n and size + len(document[end].encode("utf-8", "surrogatepass")) <= max_size:
            size += len(document[end].encode("utf-8", "surrogatepass"))
            end += 1
        end = max(end, start + 1)
        stop = start + len(document[start:end].rstrip())
        if stop > reached:  # a window that adds no text of its own is left out
            out.append(document[start:stop])
            reached = stop
        if end >= n:
            break
        back, shared = end, 0
        while back > start + 1:
            width = len(document[back - 1].encode("utf-8", "surrogatepass"))
            if shared + width > overlap:
                break
            shared += width
            back -= 1
        start = back
    return out


bare_bytes_windows.unit = "bytes"  # type: ignore[attr-defined]


def _whitespace_tokens(text: str) -> int:
    return len(text.split())


def token_words(document: str, *, max_size: int, overlap: int) -> list[str]:
    """``unit = "tokens"`` with a whitespace tokenizer: ``max_size`` words per chunk and
    ``overlap`` words shared with the next one. Bare strings."""
    _check(max_size, overlap)
    words = [m.span() for m in _WORD.finditer(document)]
    out = []
    k = 0
    while k < len(words):
        last = min(len(words), k + max_size)
        out.append(document[words[k][0]:words[last - 1][1]])
        if last >= len(words):
            break
        k = max(last - overlap, k + 1)
    return out


token_words.unit = "tokens"  # type: ignore[attr-defined]
token_words.count_tokens = _whitespace_tokens  # type: ignore[attr-defined]


def generator_windows(document: str, *, max_size: int, overlap: int) -> Iterator[str]:
    """A generator: windows are yielded lazily (the config is checked on the first ``next``)."""
    _check(max_size, overlap)
    for start, end in _windows(document, max_size, overlap):
        yield document[start:end]


# --------------------------------------------------------------------------- records

def crlf_preserving(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Packs whole lines, keeping ``"\\r\\n"`` verbatim inside chunks; reports offsets and lines
    (only ``"\\n"`` ends a line)."""
    _check(max_size, overlap)
    line = _Lines(document)
    out = []
    pos, n = 0, len(document)
    while pos < n:
        end = pos
        while end < n:
            nl = document.find("\n", end, pos + max_size + 1)  # no further: linear
            stop = n if nl == -1 else nl + 1
            if stop - pos > max_size:
                break
            end = stop
        if end == pos:
            end = pos + max_size
        start, stop = _trim(document, pos, end)
        if start < stop:
            out.append({"text": document[start:stop], "start": start, "end": stop,
                        "line_start": line(start), "line_end": line(stop - 1)})
        pos = end
    return out


def lf_normalised(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Declares ``newlines = "lf"``: normalises ``"\\r\\n"`` first (seed 000/002's fix) and reports
    offsets and lines into the normalised text; promises ``newline_invariance``."""
    _check(max_size, overlap)
    text = document.replace("\r\n", "\n")
    line = _Lines(text)
    return [{"text": text[s:e], "start": s, "end": e,
             "line_start": line(s), "line_end": line(e - 1)}
            for s, e in _windows(text, max_size, overlap)]


lf_normalised.newlines = "lf"  # type: ignore[attr-defined]
lf_normalised.promises = ("newline_invariance",)  # type: ignore[attr-defined]


def full_records(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Records with every SPEC §4 text field: offsets, byte offsets, lines, id, token_count."""
    _check(max_size, overlap)
    line = _Lines(document)
    out = []
    byte_at, char_at = 0, 0
    for s, e in _windows(document, max_size, overlap):
        byte_at += len(document[char_at:s].encode("utf-8", "surrogatepass"))
        char_at = s
        eb = byte_at + len(document[s:e].encode("utf-8", "surrogatepass"))
        out.append({"text": document[s:e], "start": s, "end": e, "start_byte": byte_at,
                    "end_byte": eb, "line_start": line(s), "line_end": line(e - 1),
                    "id": f"c{len(out)}", "section": [], "token_count": e - s})
    return out


def hierarchical(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Blocks (split at blank lines) are chunks; a block over the cap becomes a parent whose
    children tile it exactly (disjoint windows, no overlap)."""
    _check(max_size, overlap)
    out = []
    for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*$)", document, re.DOTALL):
        start, end = m.span()
        pid = f"b{start}"
        out.append({"text": document[start:end], "start": start, "end": end, "id": pid})
        if end - start <= max_size:
            continue
        for s, e in _windows(document[start:end], max_size, 0):
            s, e = start + s, start + e
            out.append({"text": document[s:e], "start": s, "end": e, "id": f"{pid}.{s}",
                        "parent": pid})
    return out


def hierarchical_overlap(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Like :func:`hierarchical`, but the children of an over-long block overlap by up to
    ``overlap`` (SPEC 1.1 lets text children overlap as siblings may); each child within the
    cap. Haystack's HierarchicalDocumentSplitter run with an overlap has this shape."""
    _check(max_size, overlap)
    out = []
    for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*$)", document, re.DOTALL):
        start, end = m.span()
        pid = f"b{start}"
        out.append({"text": document[start:end], "start": start, "end": end, "id": pid})
        if end - start <= max_size:
            continue
        for s, e in _windows(document[start:end], max_size, overlap):
            s, e = start + s, start + e
            out.append({"text": document[s:e], "start": s, "end": e, "id": f"{pid}.{s}",
                        "parent": pid})
    return out


# --------------------------------------------------------------------------- a class plugin

@dataclass(frozen=True)
class Piece:
    """A chunk as an object with attributes, not a mapping."""

    text: str
    start: int
    end: int
    line_start: int
    line_end: int


class MarkdownSections:
    """A class plugin: sections start at every ATX heading (a hard boundary), and each section is
    cut into windows of whole grapheme clusters. Promises ``heading_boundary`` and
    ``grapheme_integrity``; returns objects, not dicts."""

    promises = ("heading_boundary", "grapheme_integrity")

    def split(self, document: str, *, max_size: int, overlap: int) -> list[Piece]:
        _check(max_size, overlap)
        bounds = [0] + [m.start() for m in _HEADING.finditer(document) if m.start() > 0]
        bounds.append(len(document))
        line = _Lines(document)
        out: list[Piece] = []
        for a, b in itertools.pairwise(bounds):
            out.extend(self._section(document, a, b, max_size, overlap, line))
        return out

    def _section(self, text: str, a: int, b: int, max_size: int, overlap: int,
                 line: _Lines) -> Iterator[Piece]:
        clusters = [m.span() for m in _GRAPHEME.finditer(text, a, b)]
        k, reached = 0, a
        while k < len(clusters):
            while k < len(clusters) and text[clusters[k][0]:clusters[k][1]].isspace():
                k += 1  # skip whole whitespace clusters (never cut a " \u0301" cluster)
            if k >= len(clusters):
                return
            first = k
            last = k
            while (last + 1 < len(clusters)
                   and clusters[last + 1][1] - clusters[first][0] <= max_size):
                last += 1
            stop = last
            while stop > first and text[clusters[stop][0]:clusters[stop][1]].isspace():
                stop -= 1
            start, end = clusters[first][0], clusters[stop][1]
            if end > reached:  # a trimmed window inside the previous one adds no text
                yield Piece(text[start:end], start, end, line(start), line(end - 1))
                reached = end
            if last + 1 >= len(clusters):
                return
            nxt = last + 1
            while nxt > first + 1 and clusters[last][1] - clusters[nxt - 1][0] <= overlap:
                nxt -= 1
            k = nxt


# --------------------------------------------------------------------------- CommonMark sections

_CM_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_CM_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_CM_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


def _cm_lines(text: str) -> Iterator[tuple[int, str]]:
    """Each line's start and content: only "\n" ends a line; a CRLF's "\r" is its line end."""
    at = 0
    for line in text.split("\n"):
        yield at, line[:-1] if line.endswith("\r") and at + len(line) < len(text) else line
        at += len(line) + 1


def _cm_title(content: str) -> str:
    """CommonMark's title: spaces and tabs stripped, a closing # run removed when it follows a
    space or tab (or is all there is) and only spaces and tabs follow it."""
    return _CM_CLOSING.sub("", content.strip(" \t")).strip(" \t")


def _cm_headings(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line start, level, title)`` of each ATX heading outside fenced code."""
    fence: str | None = None
    for at, line in _cm_lines(text):
        opener = _CM_FENCE.match(line)
        if fence is None and opener and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            fence = opener.group(1)
            continue
        if fence is not None:
            if (opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)
                    and not opener.group(2).strip()):
                fence = None
            continue
        found = _CM_HEADING.match(line)
        if found:
            yield at, len(found.group(1)), _cm_title(line[found.end(1):])


def commonmark_sections(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """A markdown splitter that reads ATX headings as CommonMark does (a lone "\r" is text, so
    '# #\r' is titled '#\r': no closing run, as "\r" follows it), cuts at every heading and
    reports each chunk's heading path. Promises ``heading_boundary`` and ``section_path``."""
    _check(max_size, overlap)
    heads = list(_cm_headings(document))
    bounds = [0, *(at for at, _, _ in heads if at > 0), len(document)]
    out: list[dict[str, Any]] = []
    stack: list[tuple[int, str]] = []
    taken = 0
    for lo, hi in itertools.pairwise(bounds):
        while taken < len(heads) and heads[taken][0] <= lo:  # the headings up to this section
            _cm_push(stack, heads[taken])
            taken += 1
        path = [title for _, title in stack]
        for s, e in _windows(document[lo:hi], max_size, overlap):
            out.append({"text": document[lo + s:lo + e], "start": lo + s, "end": lo + e,
                        "section": path})
    return out


def _cm_push(stack: list[tuple[int, str]], head: tuple[int, int, str]) -> None:
    """The heading path carried forward: ``head`` closes the open headings of its level and
    deeper, then opens. Each heading is pushed once, so the paths cost linear time in all."""
    _, level, title = head
    while stack and stack[-1][0] >= level:
        stack.pop()
    stack.append((level, title))


commonmark_sections.promises = ("heading_boundary", "section_path")  # type: ignore[attr-defined]


CORRECT: list[str] = [
    "bare_windows",
    "bare_trimmed_windows",
    "recursive_trimmed",
    "bare_line_packer",
    "bare_bytes_windows",
    "token_words",
    "generator_windows",
    "crlf_preserving",
    "lf_normalised",
    "full_records",
    "hierarchical",
    "hierarchical_overlap",
    "MarkdownSections",
    "commonmark_sections",
]
