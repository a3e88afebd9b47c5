"""Defective chunkers for the diagnosis patterns that tests/defects has no defect of.

Each carries one realistic bug behind a named pattern (chunk_contract.diagnosis.builtin): offsets
counted in UTF-16 code units, UTF-8 byte offsets used as string indices, and a markdown
splitter whose fence test takes look-alikes for fences. :data:`PATTERNS` maps each to the
pattern that must diagnose it and the invariant it breaks.
"""

from __future__ import annotations

import itertools
import re
from typing import Any


def _check(max_size: int, overlap: int) -> None:
    if max_size < 1 or not 0 <= overlap < max_size:
        raise ValueError(f"bad config max_size={max_size} overlap={overlap}")


def _windows(text: str, max_size: int, overlap: int) -> list[tuple[int, int]]:
    """Codepoint windows of ``max_size`` stepping ``max_size - overlap``, blank ones left out."""
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + max_size)
        if text[start:end].strip():
            out.append((start, end))
        if end == len(text):
            break
        start = end - overlap
    return out


def utf16_offsets(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """A JavaScript port that cuts on code points but reports ``start``/``end`` as the
    ``String.prototype.indexOf`` positions it computed: UTF-16 code units."""
    _check(max_size, overlap)
    out = []
    for start, end in _windows(document, max_size, overlap):
        units_before = len(document[:start].encode("utf-16-le", "surrogatepass")) // 2
        units = len(document[start:end].encode("utf-16-le", "surrogatepass")) // 2
        out.append({"text": document[start:end], "start": units_before,
                    "end": units_before + units})
    return out


def utf8_offsets_as_indices(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Cuts on code points, then reports offsets measured on ``document.encode()`` as if they
    were string indices (a port from a byte-oriented language)."""
    _check(max_size, overlap)
    out = []
    for start, end in _windows(document, max_size, overlap):
        before = len(document[:start].encode("utf-8", "surrogatepass"))
        size = len(document[start:end].encode("utf-8", "surrogatepass"))
        out.append({"text": document[start:end], "start": before, "end": before + size})
    return out


_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def fence_lookalike(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """A markdown splitter that cuts before every heading, but toggles "in code" on any line
    that merely starts with three backticks after any indent, so a look-alike (an indented
    ```, or one with a backtick in its info string) hides the headings after it."""
    _check(max_size, overlap)
    cuts, in_code, pos = [0], False, 0
    for line in document.splitlines(keepends=True):
        if line.lstrip(" \t").startswith("```"):
            in_code = not in_code
        elif not in_code and _HEADING.match(line) and pos:
            cuts.append(pos)
        pos += len(line)
    cuts.append(len(document))
    out = []
    for a, b in itertools.pairwise(cuts):
        for start, end in _windows(document[a:b], max_size, 0):
            out.append({"text": document[a + start:a + end], "start": a + start,
                        "end": a + end})
    return out


fence_lookalike.promises = ("heading_boundary",)  # type: ignore[attr-defined]

#: name -> (the pattern that must diagnose it, the invariant it breaks, a witness input).
PATTERNS: dict[str, tuple[str, str, str, int, int]] = {
    "utf16_offsets": ("utf16_offsets", "span_fidelity", "\U0001f680ab", 1, 0),
    "utf8_offsets_as_indices": ("utf8_offsets_as_indices", "span_fidelity", "\u00e9ab", 1, 0),
    "fence_lookalike": ("fence_lookalike", "heading_boundary",
                        "intro\n    ```\nsome text\n# Heading\nmore\n", 200, 0),
}
