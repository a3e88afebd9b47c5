"""Markdown structure (opt-in): a heading is a hard chunk boundary; ``section`` is exact."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from chunk_contract.spec.invariants._common import place, spans_for
from chunk_contract.spec.model import (
    Case,
    Document,
    Violation,
    describe_chunk,
    escape,
    first_non_space,
)
from chunk_contract.spec.placement import Span
from chunk_contract.spec.rules import invariant

#: "\r" ends nothing on its own (SPEC §4): it counts only as part of a CRLF line end.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|(?=\r?\n)|\Z)", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)
#: CommonMark's reading of fences: one may open on a list item's first line (``1. ```sh``)
#: and close indented as the item's content is, and only spaces and tabs may follow a closing
#: marker (a no-break space or a form feed there leaves the block open).
_FENCE_IN_ITEM = re.compile(r"^([ \t]*)((?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$",
                            re.MULTILINE)


def heading_offsets(text: str, fenced: list[int] | None = None) -> list[int]:
    """Offsets of the first ``#`` of every ATX heading line outside fenced code blocks
    (``fenced``: the text's :func:`_fenced_ranges`, if known)."""
    if "#" not in text:
        return []
    fenced = _fenced_ranges(text) if fenced is None else fenced
    out = []
    for match in _HEADING.finditer(text):
        k = bisect.bisect_right(fenced, match.start())
        if k % 2 == 0:  # not inside [open, close) of a fence
            out.append(match.start(1))
    return out


def _fenced_ranges(text: str, *, commonmark: bool = False) -> list[int]:
    """Flat list ``[open0, close0, open1, close1, ...]`` of fenced code block line ranges:
    fences at a line's start, closed by a marker line with only whitespace after it; with
    ``commonmark``, CommonMark's reading (:data:`_FENCE_IN_ITEM`)."""
    if "```" not in text and "~~~" not in text:
        return []  # no fence can open (the regex would try every line start)
    bounds: list[int] = []
    opener: str | None = None
    for match in (_FENCE_IN_ITEM if commonmark else _FENCE).finditer(text):
        marker, rest, opens, closes = _fence_line(match, commonmark)
        if opener is None:
            if not opens or (marker[0] == "`" and "`" in rest):
                continue  # a backtick fence's info string may not hold backticks
            opener = marker
            bounds.append(match.start())
        elif marker[0] == opener[0] and len(marker) >= len(opener) and closes:
            opener = None
            bounds.append(match.end())
    if opener is not None:
        bounds.append(len(text) + 1)  # an unclosed fence runs to the end
    return bounds


def _fence_line(match: re.Match[str], commonmark: bool) -> tuple[str, str, bool, bool]:
    """A fence line's marker and the rest of the line, whether it may open a fence and
    whether it may close one, under the reading ``commonmark`` says."""
    if not commonmark:
        return match.group(1), match.group(2), True, not match.group(2).strip()
    indent, item, marker, rest = match.groups()
    opens = len(indent.expandtabs(4)) <= 3
    closes = item is None and not rest.removesuffix("\r").strip(" \t")  # (a CRLF's "\r")
    return marker, rest, opens, closes


def _fence_readings(doc: Document) -> list[list[int]]:
    """The fenced ranges under each reading docs/spec.md allows, each once."""
    cached = doc.cache.get("fence_readings")
    if cached is None:
        plain, commonmark = (_fenced_ranges(doc.text, commonmark=c) for c in (False, True))
        cached = doc.cache["fence_readings"] = [plain] if plain == commonmark else [
            plain, commonmark]
    return cached


def _fenced(doc: Document) -> list[int]:
    """What is fenced code under any reading: a heading there need not start a chunk."""
    cached = doc.cache.get("fenced")
    if cached is None:
        cached = doc.cache["fenced"] = _union(_fence_readings(doc))
    return cached


def _union(readings: list[list[int]]) -> list[int]:
    """The flat ranges (``[open0, close0, ...]``) covered by any of ``readings``."""
    if len(readings) == 1:
        return readings[0]
    spans = sorted((r[k], r[k + 1]) for r in readings for k in range(0, len(r), 2))
    merged: list[int] = []
    for start, end in spans:
        if merged and start <= merged[-1]:
            merged[-1] = max(merged[-1], end)
        else:
            merged += [start, end]
    return merged


def _headings(doc: Document) -> list[int]:
    cached = doc.cache.get("headings")
    if cached is None:
        cached = doc.cache["headings"] = heading_offsets(doc.text, _fenced(doc))
    return cached


def _inner_heading(doc: Document, span: Span) -> int | None:
    """A heading inside ``span`` that has chunk text before it, if any."""
    heads = _headings(doc)
    k = bisect.bisect_right(heads, span[0])
    for head in heads[k : k + 2]:
        if head >= span[1]:
            return None
        if doc.text[span[0] : head].strip():
            return head
    return None


@invariant("heading_boundary", opt_in=True)
def heading_boundary(case: Case) -> Iterator[Violation]:
    """No chunk holds a markdown ATX heading line anywhere but at its start."""
    doc, chunks = case.document, list(case.chunks)
    if not _headings(doc):
        return  # (no heading in the document: nothing to check, chunk by chunk or placed)
    if case.all_spanned:
        for chunk, span in zip(chunks, case.offset_spans):
            assert span is not None
            head = _inner_heading(doc, span)
            if head is not None:
                yield _violation(doc, chunk.index, span, head)
        return
    if spans_for(case, chunks) is None:
        return
    placed = place(
        case,
        chunks,
        accept=lambda i, q, p: _inner_heading(doc, (q, q + len(chunks[i].text))) is None,
    )
    if not placed.ok:
        i = placed.failed or 0
        yield Violation(
            "heading_boundary",
            f"{describe_chunk(chunks[i])} {escape(chunks[i].text, 60)} holds a heading after other "
            "text under every placement in document order",
            (i,),
        )


def _violation(doc: Document, index: int, span: Span, head: int) -> Violation:
    line_end = doc.text.find("\n", head)
    heading = doc.text[head : line_end if line_end != -1 else len(doc.text)]
    return Violation(
        "heading_boundary",
        f"chunk[{index}] [{span[0]}:{span[1]}) holds heading {escape(heading, 40)} at "
        f"{head} (line {doc.line_of(head)}) after other text; a heading must start its chunk",
        (index,),
    )


# ----------------------------------------------------------------------------- section_path

#: A title as the readings allow it: one entry per heading level, each the set of titles the
#: allowed readings give (compared without surrounding whitespace).
Path = list[frozenset[str]]

#: What a reading strips around a title and before a closing ``#`` run: CommonMark's spaces
#: and tabs, or all of Python's whitespace (``str.isspace``, which holds a no-break space and a
#: lone ``"\r"``). docs/spec.md, "Readings the checks accept", lists every such choice.
_SPACE_TAB = " \t"
_ANY_SPACE = None  # str.strip(None): every whitespace character
_READINGS = [(trim, sep) for trim in (_SPACE_TAB, _ANY_SPACE) for sep in (_SPACE_TAB, _ANY_SPACE)]
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*\r?$", re.MULTILINE)


def heading_paths(text: str, *, setext: bool = False) -> tuple[list[int], list[Path]]:
    """Line starts of the headings outside fenced code, and the heading path each begins.

    ATX headings always count; with ``setext``, a paragraph underlined with ``=`` or ``-``
    (CommonMark's setext heading) counts too. A heading of level n closes every open heading
    of level n or deeper, so the path lists the titles of the open headings from the top level
    down (``"# A\n### C"`` gives ``[A, C]``).
    """
    fenced = _fenced_ranges(text)
    atx = [_atx(text, head) for head in heading_offsets(text, fenced)]
    return _paths(_all_headings(text, atx, fenced, setext=setext))


def _paths(headings: list[tuple[int, int, frozenset[str]]]) -> tuple[list[int], list[Path]]:
    """The line starts of ``headings`` (in document order) and the path each begins."""
    starts: list[int] = []
    paths: list[Path] = []
    stack: list[tuple[int, frozenset[str]]] = []
    for line, level, titles in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, titles))
        starts.append(line)
        paths.append([t for _, t in stack])
    return starts, paths


def _all_headings(text: str, atx: list[tuple[int, int, frozenset[str]]], fenced: list[int], *,
                  setext: bool) -> list[tuple[int, int, frozenset[str]]]:
    """``(line start, level, titles)`` of each heading, in document order: the ATX headings
    ``atx``, and with ``setext`` the setext ones too."""
    if not setext:
        return atx
    found = atx + _setext_headings(text, {line for line, _, _ in atx}, fenced)
    return sorted(found, key=lambda h: h[0])


def _atx(text: str, head: int) -> tuple[int, int, frozenset[str]]:
    line = text.rfind("\n", 0, head) + 1
    end = text.find("\n", head)
    level = len(text[head : head + 6]) - len(text[head : head + 6].lstrip("#"))
    content = text[head + level : len(text) if end == -1 else end]
    if end != -1 and content.endswith("\r"):
        content = content[:-1]  # the "\r" of a CRLF belongs to the line end
    return line, level, atx_titles(content)


def _setext_headings(text: str, atx_lines: set[int],
                     fenced: list[int]) -> list[tuple[int, int, frozenset[str]]]:
    """CommonMark's setext headings, approximately: an underline right after a paragraph."""
    if "=" not in text and "-" not in text:
        return []  # no underline (the regex would try every line start)
    out = []
    for match in _SETEXT.finditer(text):
        if bisect.bisect_right(fenced, match.start()) % 2 or match.start() == 0:
            continue
        first = _paragraph_start(text, match.start(), atx_lines)
        if first is None:
            continue
        body = text[first : match.start() - 1].replace("\r\n", "\n")
        titles = frozenset({body.strip(), " ".join(part.strip() for part in body.split("\n"))})
        out.append((first, 1 if match.group(1)[0] == "=" else 2, titles))
    return out


def _paragraph_start(text: str, underline: int, atx_lines: set[int]) -> int | None:
    """The start of the paragraph that ends just before ``underline``, if there is one."""
    first = None
    end = underline - 1
    while end >= 0:
        begin = text.rfind("\n", 0, end) + 1
        line = text[begin:end]
        if not line.strip() or begin in atx_lines or _FENCE.match(line):
            break
        first = begin
        end = begin - 1
    return first


def atx_title(content: str) -> str:
    """A heading's title under the spec's own reading: without a closing ``#`` run (which must
    follow a space or tab, or be all there is: ``"# C#"`` is titled ``C#``) and without
    surrounding whitespace (Python's, ``str.strip()``)."""
    return _title(content, trim=_ANY_SPACE, sep=_SPACE_TAB)


def atx_titles(content: str) -> frozenset[str]:
    """Every title the allowed readings give a heading line's content (after its ``#`` run).

    CommonMark strips only spaces and tabs, and a closing ``#`` run must be followed by
    nothing but spaces and tabs; a chunker may also strip a no-break space or a lone ``"\r"``
    (Python's whitespace). ``"# #\r"`` is titled ``"#\r"`` by the first reading and ``""`` by
    the second: both are accepted.
    """
    return frozenset(_title(content, trim=trim, sep=sep).strip() for trim, sep in _READINGS)


def _title(content: str, *, trim: str | None, sep: str | None) -> str:
    content = content.strip(trim)
    bare = content.rstrip("#")
    if not bare:
        return ""
    if bare != content and bare[-1:].strip(sep) == "":
        return bare.strip(trim)
    return content


def _readings(doc: Document) -> list[tuple[list[int], list[Path]]]:
    """The heading starts and paths of every reading: each reading of fences, with and
    without setext headings."""
    cached = doc.cache.get("heading_paths")
    if cached is None:
        cached = doc.cache["heading_paths"] = [
            _paths(_all_headings(doc.text, atx, fenced, setext=setext))
            for fenced in _fence_readings(doc)
            for atx in ([_atx(doc.text, head) for head in heading_offsets(doc.text, fenced)],)
            for setext in (False, True)
        ]
    return cached


def _path_at(reading: tuple[list[int], list[Path]], offset: int) -> Path:
    starts, paths = reading
    k = bisect.bisect_right(starts, offset) - 1
    return paths[k] if k >= 0 else []


def _matches(section: list[str], path: Path) -> bool:
    return len(section) == len(path) and all(
        title.strip() in titles for title, titles in zip(section, path)
    )


def _held(section: tuple[str, ...], readings: list[tuple[list[int], list[Path]]],
          offset: int) -> bool:
    """Whether ``section`` is the heading path at ``offset`` in one of the readings."""
    return any(_matches(list(section), _path_at(reading, offset)) for reading in readings)


def _shown(path: Path) -> list[str]:
    """The spec reading's path, for messages (the first title of each level's readings)."""
    return [min(titles, key=lambda t: (len(t), t)) for titles in path]


@invariant("section_path", opt_in=True)
def section_path(case: Case) -> Iterator[Violation]:
    """A chunk's ``section`` is the heading path in force at its first non-blank character.

    Titles are compared without leading and trailing whitespace, and every reading that
    docs/spec.md allows is accepted (setext headings or not, CommonMark's or Python's
    whitespace). A plugin that promises this rule reports ``section`` on every chunk: a missing
    one is a violation (the promise is what a RAG pipeline relies on to attribute text to its
    heading).
    """
    doc = case.document
    readings = _readings(doc)
    judged: dict[tuple[tuple[int, ...], tuple[str, ...]], bool] = {}  # (headings, section)
    for chunk, span in zip(case.chunks, case.offset_spans):
        if chunk.section is None:
            yield Violation(
                "section_path",
                f"{describe_chunk(chunk, span)} reports no section, but the plugin promises "
                "section_path",
                (chunk.index,),
            )
            continue
        if span is None or not 0 <= span[0] < span[1] <= len(doc):
            continue  # not placed by offsets: span_fidelity judges such chunks
        # Leading blank lines before a heading belong to it: judged at the first character
        # that is not whitespace (a blank chunk is non_empty's finding).
        first = span[0]
        if doc.text[first].isspace():  # (first_non_space's \S: what is not isspace())
            first = first_non_space(doc.text, first, span[1])
            if first == -1:
                continue
        # The chunks of one section share its headings and report the same path: judged once.
        key = (tuple(bisect.bisect_right(starts, first) for starts, _ in readings),
               chunk.section)
        held = judged.get(key)
        if held is None:
            held = judged[key] = _held(chunk.section, readings, first)
        if not held:
            yield Violation(
                "section_path",
                f"{describe_chunk(chunk, span)} reports section {list(chunk.section)!r}; the "
                f"headings in force at its first non-blank character (line "
                f"{doc.line_of(first)}) give {_shown(_path_at(readings[0], first))!r}",
                (chunk.index,),
            )
