"""Unstructured's chunking (``unstructured``) as plugins: ``chunk_elements``, ``chunk_by_title``.

* Unstructured chunks *elements*, not text. ``partition_text`` would build them, but it loads
  spaCy's English model (a download) to tell titles from narrative text, so the adapter builds
  the elements itself, without any model: every run of non-blank lines is one element, a
  ``Title`` when its first line is a markdown ATX heading (that line alone; the rest of the run
  is a ``NarrativeText``), else a ``NarrativeText``. Each element's text is the verbatim run,
  stripped: the contract then checks what the chunker does with it, not the adapter.
* ``max_size`` -> ``max_characters`` (``len``: codepoints), ``overlap`` -> ``overlap``, every
  other option at the library's default.
* Unstructured's chunks (``CompositeElement``) carry no character offsets: the chunks are
  reported as text only and the contract places them (SPEC §4).
* This module imports without unstructured installed: the library is imported when an adapter
  is instantiated.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record

_DIST, _MODULE, _VERSION = "unstructured", "unstructured", "0.27.35"

#: A run of lines holding some non-whitespace: one element.
_RUN = re.compile(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*")
#: A markdown ATX heading line.
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


def element_texts(document: str) -> Iterator[tuple[bool, str]]:
    """``(is_title, text)`` for each element of ``document``, in order (see the module doc)."""
    for run in _RUN.finditer(document):
        text = run.group().strip()
        first, _, rest = text.partition("\n")
        if _HEADING.match(first):
            yield True, first.strip()
            if rest.strip():
                yield False, rest.strip()
        else:
            yield False, text


class _Unstructured(Adapter):
    distribution: ClassVar[str] = _DIST
    module: ClassVar[str] = _MODULE
    version: ClassVar[str] = _VERSION
    unit: ClassVar[str] = "chars"
    offsets: ClassVar[str] = "none: the library's chunks carry no offsets (placed by the contract)"
    documents: ClassVar[str] = "markdown"
    #: The chunking function's module and name under ``unstructured.chunking``.
    function: ClassVar[tuple[str, str]] = ("", "")

    def setup(self) -> None:
        os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
        import importlib

        from unstructured.documents.elements import NarrativeText, Title

        where, name = self.function
        self.chunker = getattr(importlib.import_module(f"unstructured.chunking.{where}"), name)
        self.title, self.narrative = Title, NarrativeText

    def elements(self, document: str) -> list[Any]:
        """The document as unstructured elements, built without a model."""
        return [
            (self.title if is_title else self.narrative)(text=text)
            for is_title, text in element_texts(document)
        ]

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        chunks = self.chunker(
            self.elements(document), max_characters=max_size, overlap=overlap
        )
        return [record(chunk.text) for chunk in chunks]


_CHOICES = {
    "elements": "built by the adapter: runs of non-blank lines; an ATX heading line is a Title",
    "measure": "max_characters (len: codepoints); other options at their defaults",
}


class Basic(_Unstructured):
    """``chunk_elements``: elements packed up to ``max_characters``, oversized ones split."""

    name = "unstructured-basic"
    splitter = "chunk_elements"
    function = ("basic", "chunk_elements")
    choices: ClassVar[dict[str, str]] = _CHOICES


class ByTitle(_Unstructured):
    """``chunk_by_title``: as ``chunk_elements``, and a ``Title`` always starts a new chunk."""

    name = "unstructured-by-title"
    splitter = "chunk_by_title"
    function = ("title", "chunk_by_title")
    choices: ClassVar[dict[str, str]] = _CHOICES


basic = Basic
by_title = ByTitle
