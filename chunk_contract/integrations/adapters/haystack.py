"""Haystack's document splitters (``haystack-ai``) as plugins.

* The document goes in as one ``haystack.Document``; each output ``Document`` is a chunk. Its
  ``meta["split_idx_start"]`` (the library's own codepoint offset) is reported as ``start`` and
  ``start + len(content)`` as ``end``; a chunk whose meta lacks it is reported without offsets
  (the contract then reports the run's partly missing offsets, never places them quietly).
* ``DocumentSplitter`` counts in its own split units: words are the pieces of
  ``text.split(" ")`` and passages those of ``text.split("\\n\\n")``, each keeping its separator.
  The adapters declare ``unit = "tokens"`` with :func:`count_units` over the same separator.
  ``split_by="sentence"`` (and the recursive splitter's ``"sentence"`` separator) need NLTK's
  ``punkt_tab``, which haystack downloads at ``warm_up``: not adapted.
* ``HierarchicalDocumentSplitter`` returns the root document, then every block level; each
  block's ``split_idx_start`` is relative to its parent's content, so the adapter adds the
  parent's absolute start (found through ``meta["__parent_id"]``). ``id`` is the document id and
  ``parent`` its ``__parent_id``: a real test of ``tiles_parent``.
* This module imports without haystack installed: the library is imported when an adapter is
  instantiated.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from chunk_contract.integrations.adapters._base import Adapter, record

_DIST, _MODULE, _VERSION = "haystack-ai", "haystack", "3.4.1"


def count_units(text: str, separator: str) -> int:
    """How many of haystack's split units ``text`` holds: the pieces of ``text.split(separator)``,
    each with its separator kept, so a trailing separator closes the last unit."""
    if not text:
        return 0
    pieces = text.split(separator)
    return len(pieces) - (1 if pieces[-1] == "" else 0)


class _Haystack(Adapter):
    distribution: ClassVar[str] = _DIST
    module: ClassVar[str] = _MODULE
    version: ClassVar[str] = _VERSION
    offsets: ClassVar[str] = "the library's meta['split_idx_start']; end = start + len(content)"
    documents: ClassVar[str] = "text"
    choices: ClassVar[dict[str, str]] = {}

    def setup(self) -> None:
        os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
        from haystack import Document
        from haystack.components import preprocessors

        self.document_cls = Document
        self.preprocessors = preprocessors

    def make(self, max_size: int, overlap: int) -> Any:
        """The configured haystack component."""
        raise NotImplementedError

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        component = self.make(max_size, overlap)
        if hasattr(component, "warm_up"):
            component.warm_up()
        docs = component.run(documents=[self.document_cls(content=document)])["documents"]
        return [self.chunk(doc) for doc in docs]

    def chunk(self, doc: Any) -> dict[str, Any]:
        """A chunk record from one output ``Document``, its offsets from ``split_idx_start``."""
        text = doc.content
        start = doc.meta.get("split_idx_start")
        return record(text, start, None if start is None else start + len(text))


class _Units(_Haystack):
    """``DocumentSplitter`` in one of its split units (words or passages)."""

    unit: ClassVar[str] = "tokens"
    splitter: ClassVar[str] = "DocumentSplitter"
    #: ``split_by`` and the separator its units end with.
    split_by: ClassVar[str] = ""
    separator: ClassVar[str] = ""

    def count_tokens(self, text: str) -> int:
        """The splitter's own unit count (see :func:`count_units`)."""
        return count_units(text, self.separator)

    def make(self, max_size: int, overlap: int) -> Any:
        return self.preprocessors.DocumentSplitter(
            split_by=self.split_by, split_length=max_size, split_overlap=overlap
        )


class Word(_Units):
    """``DocumentSplitter(split_by="word")``: ``split_length`` words, ``split_overlap`` shared."""

    name = "haystack-word"
    split_by = "word"
    separator = " "
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": 'words: text.split(" "), each keeping its space',
        "split_threshold": "0 (default)",
    }


class Passage(_Units):
    """``DocumentSplitter(split_by="passage")``: ``split_length`` passages (``"\\n\\n"``)."""

    name = "haystack-passage"
    split_by = "passage"
    separator = "\n\n"
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": 'passages: text.split("\\n\\n"), each keeping its separator',
        "split_threshold": "0 (default)",
    }


#: The recursive splitter's default separators without ``"sentence"`` (NLTK download).
RECURSIVE_SEPARATORS = ("\n\n", "\n", " ")


class Recursive(_Haystack):
    """``RecursiveDocumentSplitter(split_unit="char")`` on paragraphs, lines, then spaces."""

    name = "haystack-recursive"
    splitter = "RecursiveDocumentSplitter"
    unit: ClassVar[str] = "chars"
    choices: ClassVar[dict[str, str]] = {
        "split_unit": "char (len, codepoints)",
        "separators": '["\\n\\n", "\\n", " "] (the default without "sentence": NLTK download)',
    }

    def make(self, max_size: int, overlap: int) -> Any:
        return self.preprocessors.RecursiveDocumentSplitter(
            split_length=max_size,
            split_overlap=overlap,
            split_unit="char",
            separators=list(RECURSIVE_SEPARATORS),
        )


#: How many times the leaf block size each parent level is (outermost first).
HIERARCHY = (4, 1)


class Hierarchical(_Haystack):
    """``HierarchicalDocumentSplitter(split_by="word")``: blocks of ``4 * max_size`` words, each
    split into blocks of ``max_size`` words; the root document is reported too."""

    name = "haystack-hierarchical"
    splitter = "HierarchicalDocumentSplitter"
    unit: ClassVar[str] = "tokens"
    offsets: ClassVar[str] = (
        "meta['split_idx_start'], relative to the parent block: made absolute by adding the "
        "parent's start (the root document starts at 0)"
    )
    choices: ClassVar[dict[str, str]] = {
        "tokenizer": 'words: text.split(" "), each keeping its space',
        "block_sizes": "{4 * max_size, max_size} words (leaves: max_size)",
    }

    def count_tokens(self, text: str) -> int:
        """Words, as the word splitter counts them (see :func:`count_units`)."""
        return count_units(text, " ")

    def make(self, max_size: int, overlap: int) -> Any:
        sizes = {factor * max_size for factor in HIERARCHY}
        return self.preprocessors.HierarchicalDocumentSplitter(
            block_sizes=sizes, split_overlap=overlap, split_by="word"
        )

    def split(self, document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        docs = self.make(max_size, overlap).run(
            documents=[self.document_cls(content=document)]
        )["documents"]
        starts: dict[str, int | None] = {}
        return [self.hierarchy_chunk(doc, starts) for doc in docs]

    def hierarchy_chunk(self, doc: Any, starts: dict[str, int | None]) -> dict[str, Any]:
        """A chunk with absolute offsets; ``starts`` maps the ids seen so far to theirs."""
        parent = doc.meta.get("__parent_id")
        start = absolute_start(doc.meta.get("split_idx_start"), parent, starts)
        starts[doc.id] = start
        text = doc.content
        end = None if start is None else start + len(text)
        return record(text, start, end, id=doc.id, parent=parent)


def absolute_start(
    relative: Any, parent: str | None, starts: dict[str, int | None]
) -> int | None:
    """A block's absolute start: its start within its parent plus the parent's own.

    The root (no parent) starts at 0. A block whose library start, or whose parent's start, is
    missing gets none (reported without offsets: the contract reports the gap).
    """
    if parent is None:
        return 0 if relative is None else int(relative)
    base = starts.get(parent)
    if relative is None or base is None:
        return None
    return base + int(relative)


word = Word
passage = Passage
recursive = Recursive
hierarchical = Hierarchical
